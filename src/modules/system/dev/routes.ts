// The system module's debug endpoints: GET /api/dev/logs/stream (the service's own log, live), GET /api/dev/info,
// and the outgoing e-mail (GET /api/dev/emails/recent, POST /api/dev/emails/test).
import { z } from 'zod';
import type { AppContext } from '../../../core/context.js';
import { route, type AnyRoute } from '../../../core/http/registry.js';
import { openSse } from '../../../core/http/sse.js';
import type { LogLevel } from '../../../core/log.js';
import type { RuntimeStats } from '../runtime.js';
import { Email } from '../../../core/auth/users.js';
import { badRequest, HttpError } from '../../../core/errors.js';
import { MAIL_KINDS, type Mailer } from '../auth/mailer.js';

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

/** GET /api/dev/info: what a developer asks first about a running probe (admin). */
export function devInfoRoute(app: AppContext, runtime: RuntimeStats): AnyRoute {
  const Job = z.object({ id: z.string(), kind: z.string(), state: z.string(), progress: z.number(), started_at: z.string().nullable() });
  return route({
    method: 'GET', path: '/api/dev/info', admin: true, tag: 'dev',
    summary: 'Debug info (admin): versions, uptime, memory, event loop, store, jobs',
    description: 'Event-loop delay is measured since the service started (perf_hooks.monitorEventLoopDelay, 20 ms resolution). ' +
      '`store` is the store\'s own statistics (docs/store.md). docs/system.md.',
    response: z.object({
      version: z.string(), node: z.string(), platform: z.string(), arch: z.string(), pid: z.number().int(),
      uptime: z.object({ process: z.number(), service: z.number() }).describe('Seconds'),
      memory: z.object({
        rss_bytes: z.number(), heap_total_bytes: z.number(), heap_used_bytes: z.number(), external_bytes: z.number(),
        array_buffers_bytes: z.number(),
      }),
      event_loop_delay: z.object({ min_ms: z.number(), mean_ms: z.number(), p50_ms: z.number(), p99_ms: z.number(), max_ms: z.number() }),
      store: z.record(z.string(), z.unknown()),
      jobs: z.object({ running: z.array(Job), total: z.number().int() }),
    }),
    handler: () => {
      const mem = process.memoryUsage();
      const jobs = app.jobs.list();
      return {
        version: app.version, node: process.version, platform: process.platform, arch: process.arch, pid: process.pid,
        uptime: { process: Math.round(process.uptime()), service: Math.round((app.clock.now() - app.startedAt) / 1000) },
        memory: { rss_bytes: mem.rss, heap_total_bytes: mem.heapTotal, heap_used_bytes: mem.heapUsed, external_bytes: mem.external,
          array_buffers_bytes: mem.arrayBuffers },
        event_loop_delay: runtime.eventLoopDelay(),
        store: app.store.stats(),
        jobs: {
          running: jobs.filter((j) => j.state === 'running' || j.state === 'queued')
            .map((j) => ({ id: j.id, kind: j.kind, state: j.state, progress: j.progress, started_at: j.started_at })),
          total: jobs.length,
        },
      };
    },
  });
}

/** GET /api/dev/emails/recent and POST /api/dev/emails/test: the outgoing e-mail, for administrators. */
export function devEmailRoutes(app: AppContext, mailer: Mailer): AnyRoute[] {
  const Outcome = z.object({
    id: z.string(), at: z.string(), kind: z.enum(MAIL_KINDS), to: z.string(), subject: z.string(),
    outcome: z.enum(['sent', 'failed']),
    error: z.object({ code: z.string(), message: z.string() }).nullable().describe("nodemailer's code: EAUTH (login refused), ESOCKET or " +
      'ECONNECTION (server down or TLS refused), ETIMEDOUT, EENVELOPE (address refused), ENOTCONFIGURED'),
    duration_ms: z.number(),
  });
  return [
    route({
      method: 'GET', path: '/api/dev/emails/recent', admin: true, tag: 'dev',
      summary: 'Recent outgoing e-mail (admin): to, subject, time and outcome, newest first; never a body',
      description: 'Kept in memory (the last 50; a restart forgets them). Error texts are scrubbed of the SMTP password and ' +
        'of any temporary password.',
      response: z.object({ items: z.array(Outcome), total: z.number().int() }),
      handler: () => {
        const items = mailer.recent();
        return { items, total: items.length };
      },
    }),
    route({
      method: 'POST', path: '/api/dev/emails/test', admin: true, tag: 'dev',
      summary: 'Send a test message with the saved SMTP settings (admin); answers how it went',
      description: '`to` defaults to your own e-mail address, then probe.admin_email (400 naming `to` without either). ' +
        '409 `smtp_not_configured` without an SMTP server. When the message is not sent (the attempt, with nodemailer\'s ' +
        'error code, is in `email` and in GET /api/dev/emails/recent): 422 `smtp_auth_failed` (EAUTH: the server refused ' +
        'the user or password), 504 `smtp_timeout`, 502 `smtp_unreachable` (ESOCKET, ECONNECTION, EDNS: down, TLS ' +
        'refused, name unknown), 502 `smtp_failed` (anything else, e.g. EENVELOPE: the address refused).',
      body: z.strictObject({ to: Email.optional() }), response: Outcome,
      handler: async (ctx) => {
        if (!mailer.configured()) {
          throw new HttpError(409, 'smtp_not_configured',
            'No SMTP server is configured (smtp.host): e-mail, and password recovery by e-mail, is off');
        }
        const me = app.auth.users.get(ctx.principal!.user.id);
        const to = ctx.body.to ?? (me?.email || app.config.get().probe.admin_email);
        if (!to) {
          throw badRequest('No address to send to',
            [{ path: 'to', message: 'Required: you have no e-mail address and probe.admin_email is empty' }]);
        }
        const name = app.config.get().probe.name;
        const rec = await mailer.send({
          kind: 'test', to, subject: `Test message from ${name}`,
          text: `This is a test message from the network probe ${name}, sent by ${ctx.principal!.user.username}. ` +
            'E-mail works: password recovery can send temporary passwords.\n',
        });
        await ctx.audit('email.test', to, { outcome: rec.outcome, ...(rec.error ? { error_code: rec.error.code } : {}) },
          rec.outcome === 'sent' ? 'success' : 'failure');
        if (rec.outcome !== 'sent') {
          const code = rec.error!.code;
          const [status, problem] = code === 'EAUTH' ? [422, 'smtp_auth_failed'] : code === 'ETIMEDOUT' ? [504, 'smtp_timeout']
            : ['ESOCKET', 'ECONNECTION', 'EDNS'].includes(code) ? [502, 'smtp_unreachable'] : [502, 'smtp_failed'];
          throw new HttpError(status, problem, `The test message was not sent: ${code}: ${rec.error!.message}`, { extra: { email: rec } });
        }
        return rec;
      },
    }),
  ];
}
