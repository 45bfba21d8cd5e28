// The monitor endpoints of SPEC.md, "Monitors". Scopes: monitors:read for GET, monitors:write
// for everything else (the registry enforces the method/scope pairing).
import { z } from 'zod';
import { reply, route, type AnyRoute, actorOf } from '../../core/http/registry.js';
import { listOf } from '../../core/http/schemas.js';
import { csvFilename, exportCsv, queryEvents } from './events-log.js';
import {
  CheckNowSchema, ClearedSchema, CountsSchema, CreateMonitorBody, EventSchema, EventsQuery, ExportQuery, IdParams,
  IncidentSchema, IncidentsQuery, ListMonitorsQuery, MonitorDetailSchema, MonitorListItemSchema, parseMonitorIds, ResultSchema,
  ResultsQuery, SchedulerQuery, SchedulerSchema, TimelineQuery, TimelineSchema, UpdatedMonitorSchema, UpdateMonitorBody,
} from './schemas.js';
import type { MonitorService } from './service.js';
import { drainOrClose, writeJsonList } from './stream.js';

export function monitorRoutes(svc: MonitorService): AnyRoute[] {
  return [
    route({
      method: 'GET', path: '/api/monitors', scope: 'monitors:read',
      summary: 'List all monitors with current status and 24-hour stats',
      description: 'stats_24h counts the last 24 hour buckets (the current hour and the 23 before it), kept in memory ' +
        'as results arrive.',
      query: ListMonitorsQuery, response: z.object({ monitors: z.array(MonitorListItemSchema) }),
      // Written in pieces (stream.ts): a list of 2,000 monitors is 1.2 MiB of JSON.
      handler: (ctx) => writeJsonList(ctx.res, 'monitors', svc.listLines(ctx.query)),
    }),

    route({
      method: 'POST', path: '/api/monitors', scope: 'monitors:write', status: 201,
      summary: 'Create a monitor',
      description: 'A new monitor is `unknown` and is checked at once. interval and timeout are seconds ' +
        '(defaults 60 and 10; interval at least 5; timeout below interval); failure_threshold is consecutive failed checks ' +
        '(default 3, 1-20).',
      body: CreateMonitorBody, response: MonitorDetailSchema,
      handler: async (ctx) => reply(201, await svc.create(ctx.body, actorOf(ctx))),
    }),

    route({
      method: 'GET', path: '/api/monitors/stats', scope: 'monitors:read',
      summary: 'Aggregate counts of monitors by status',
      response: CountsSchema,
      handler: () => svc.counts(),
    }),

    route({
      method: 'GET', path: '/api/monitors/scheduler', scope: 'monitors:read',
      summary: 'The check scheduler: monitors scheduled, checks running and queued, and how late checks started',
      description: 'lag counts every scheduled check since the service started: start minus slot, in ms (1 ms buckets up ' +
        'to one second). recent=N adds the latest N slots (up to 8192) with their lag.',
      query: SchedulerQuery, response: SchedulerSchema,
      handler: (ctx) => svc.schedulerState(ctx.query.recent),
    }),

    route({
      method: 'GET', path: '/api/monitors/timeline', scope: 'monitors:read',
      summary: 'Time-weighted status per hour of the last 24 hours (what the status bars draw)',
      description: 'Per monitor and hour, the seconds its status was up, degraded and down (a status holds from the check ' +
        'that set it until the next, for at most two intervals plus the timeout; paused and unknown time is not counted), ' +
        'its scheduled checks and its uptime. A 7-second outage is 7 seconds of an hour, not a red hour.',
      query: TimelineQuery, response: TimelineSchema,
      handler: (ctx) => svc.timeline(parseMonitorIds(ctx.query.ids), ctx.query.hours),
    }),

    route({
      method: 'GET', path: '/api/monitors/tags', scope: 'monitors:read',
      summary: 'Unique tags across all monitors, sorted',
      response: z.array(z.string()),
      handler: () => svc.tags(),
    }),

    route({
      method: 'GET', path: '/api/monitors/events', scope: 'monitors:read',
      summary: 'Monitor event log, newest first',
      description: 'Status changes, incidents opened and closed, pause and resume, create, update and delete, manual checks ' +
        'and the clearing of history.',
      query: EventsQuery, response: listOf(EventSchema),
      handler: (ctx) => queryEvents(ctx.app.store, ctx.query),
    }),

    route({
      method: 'GET', path: '/api/monitors/events/export', scope: 'monitors:read',
      summary: 'Monitor event log as a CSV download (oldest first)',
      description: 'RFC 4180 (CRLF, quoted cells) with a header row; cells that a spreadsheet would run as a formula ' +
        '(starting with = + - @, tab or CR) get a leading single quote. Same filters as the event log, without paging.',
      query: ExportQuery, produces: 'text/csv',
      handler: async (ctx) => {
        const res = ctx.res;
        res.writeHead(200, {
          'Content-Type': 'text/csv; charset=utf-8',
          'Content-Disposition': `attachment; filename="${csvFilename(ctx.app.clock.now())}"`,
          'Cache-Control': 'no-store',
        });
        await exportCsv(ctx.app.store, ctx.query, async (chunk) => {
          if (res.destroyed) throw new Error('client went away during the CSV export');
          if (!res.write(chunk)) await drainOrClose(res);
        });
        res.end();
      },
    }),

    route({
      method: 'DELETE', path: '/api/monitors/events', scope: 'monitors:write',
      summary: 'Clear all monitor check history',
      description: 'Deletes raw results, rollups, closed incidents and the event log, then records one history_cleared event. ' +
        'An open incident is kept (it closes when its monitor recovers); monitors keep their current status. Audited.',
      response: ClearedSchema,
      handler: (ctx) => svc.clearHistory(actorOf(ctx)),
    }),

    route({
      method: 'GET', path: '/api/monitors/:id', scope: 'monitors:read',
      summary: 'One monitor with enriched stats',
      description: 'uptime over 24 h and 7 d from hourly rollups, 30 d from daily rollups; p95 from the rollups\' histograms.',
      params: IdParams, response: MonitorDetailSchema,
      handler: (ctx) => svc.get(ctx.params.id),
    }),

    route({
      method: 'PUT', path: '/api/monitors/:id', scope: 'monitors:write',
      summary: 'Update a monitor (only the fields given change)',
      description: 'Secret settings shown as {"set": true} keep their stored value when sent back or left out, while the ' +
        'destination stays: a new check type or a new target origin (http: scheme, host, port) drops each one not sent again ' +
        '(listed in secrets_dropped; a 400 where the settings need it). ' +
        'Changing what is checked (target, type, settings, timeout, degraded_ms, max_loss_pct) checks the monitor at once.',
      params: IdParams, body: UpdateMonitorBody, response: UpdatedMonitorSchema,
      handler: (ctx) => svc.update(ctx.params.id, ctx.body, actorOf(ctx)),
    }),

    route({
      method: 'DELETE', path: '/api/monitors/:id', scope: 'monitors:write',
      summary: 'Delete a monitor with its results, rollups and incidents',
      description: 'The event log keeps its entries (with the monitor\'s id and name) and records the deletion.',
      params: IdParams,
      handler: async (ctx) => { await svc.remove(ctx.params.id, actorOf(ctx)); return undefined; },
    }),

    route({
      method: 'POST', path: '/api/monitors/:id/pause', scope: 'monitors:write',
      summary: 'Toggle the paused state',
      description: 'Pausing stops checks and closes an open incident; resuming makes the monitor unknown and checks it at once.',
      params: IdParams, response: MonitorDetailSchema,
      handler: (ctx) => svc.togglePause(ctx.params.id, actorOf(ctx)),
    }),

    route({
      method: 'POST', path: '/api/monitors/:id/check', scope: 'monitors:write',
      summary: 'Run a check at once, outside the schedule',
      description: 'Waits for the check (within the monitor\'s timeout), applies it like a scheduled result and records ' +
        'a manual_check event.',
      params: IdParams, response: CheckNowSchema,
      handler: (ctx) => svc.checkNow(ctx.params.id, actorOf(ctx)),
    }),

    route({
      method: 'GET', path: '/api/monitors/:id/results', scope: 'monitors:read',
      summary: 'Historical check results of one monitor, newest first',
      description: 'Raw results are kept for monitors.raw_retention_hours (default 24 h).',
      params: IdParams, query: ResultsQuery, response: listOf(ResultSchema),
      handler: (ctx) => svc.results(ctx.params.id, ctx.query),
    }),

    route({
      method: 'GET', path: '/api/monitors/:id/incidents', scope: 'monitors:read',
      summary: 'Incidents (DOWN periods) with open and closed timestamps, newest first',
      params: IdParams, query: IncidentsQuery, response: listOf(IncidentSchema),
      handler: (ctx) => svc.incidents(ctx.params.id, ctx.query),
    }),
  ];
}
