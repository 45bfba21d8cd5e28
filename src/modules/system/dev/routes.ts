// GET /api/dev/logs/stream: the service's own log, live, for administrators debugging a probe.
import { z } from 'zod';
import type { AppContext } from '../../../core/context.js';
import { route, type AnyRoute } from '../../../core/http/registry.js';
import { openSse } from '../../../core/http/sse.js';
import type { LogLevel } from '../../../core/log.js';

export function devRoutes(app: AppContext): AnyRoute[] {
  return [
    route({
      method: 'GET', path: '/api/dev/logs/stream', admin: true, tag: 'dev', produces: 'text/event-stream',
      summary: 'Live log as server-sent events (admin): replays the ring buffer, then follows',
      description: 'Each message is one log entry {seq, time, level, msg, module?, fields?} with type "log" and progress 0. ' +
        'Honours Last-Event-ID (the seq); `level` filters to that level and above.',
      query: z.object({ level: z.enum(['debug', 'info', 'warn', 'error']).optional() }),
      handler: ({ req, res, query }) => {
        const order: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };
        const min = order[(query.level ?? 'debug') as LogLevel];
        const stream = openSse(req, res);
        const after = Number(stream.lastEventId ?? 0) || 0;
        const send = (e: { seq: number; level: LogLevel }) => {
          if (order[e.level] >= min) stream.send({ type: 'log', progress: 0, ...e }, { id: e.seq });
        };
        for (const e of app.log.recent(after)) send(e);
        const off = app.log.subscribe(send);
        stream.onClose(off);
      },
    }),
  ];
}
