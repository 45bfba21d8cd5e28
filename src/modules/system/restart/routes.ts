// POST /api/restart: answer first, then let the program that runs the service (main.ts under systemd)
// stop gracefully and exit so that systemd starts it again (Restart=always).
import { z } from 'zod';
import type { AppContext } from '../../../core/context.js';
import { HttpError } from '../../../core/errors.js';
import { reply, route, type AnyRoute } from '../../../core/http/registry.js';

declare module '../../../core/events.js' {
  interface EventMap {
    /** Someone asked for a restart; the response has been sent. The listener stops the process. */
    'system.restart': { actor: string | null; request_id: string };
  }
}

const RestartResponse = z.object({ restarting: z.literal(true), message: z.string() });

export function restartRoutes(app: AppContext): AnyRoute[] {
  return [
    route({
      method: 'POST', path: '/api/restart', admin: true, status: 202, tag: 'system',
      summary: 'Restart the application (admin): answers 202, then stops gracefully and exits so systemd starts it again',
      description: '503 `restart_unsupported` when nothing supervises this process (for example the service embedded in a test).',
      response: RestartResponse,
      handler: async (ctx) => {
        if (app.bus.listenerCount('system.restart') === 0) {
          throw new HttpError(503, 'restart_unsupported', 'This process is not run by a supervisor that would start it again');
        }
        await ctx.audit('system.restart', null, {});
        // Only once the answer is on its way: the graceful stop closes the server.
        ctx.res.once('finish', () => app.bus.emit('system.restart', { actor: ctx.principal?.actor ?? null, request_id: ctx.requestId }));
        return reply(202, { restarting: true, message: 'The service is restarting; it answers again in a few seconds' });
      },
    }),
  ];
}
