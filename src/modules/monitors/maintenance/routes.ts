// /api/monitors/maintenance: maintenance windows, under the monitors scopes (monitors:read for GET,
// monitors:write for the rest). Every change is audited. See docs/monitors.md, "Maintenance windows".
import { z } from 'zod';
import { reply, route, type AnyRoute, actorOf } from '../../../core/http/registry.js';
import { CreateWindowBody, UpdateWindowBody, WindowIdParams, WindowSchema } from './schemas.js';
import type { MaintenanceWindows } from './windows.js';

export function maintenanceRoutes(windows: MaintenanceWindows): AnyRoute[] {
  return [
    route({
      method: 'GET', path: '/api/monitors/maintenance', scope: 'monitors:read',
      summary: 'Maintenance windows, each with its open and next occurrence',
      response: z.object({
        items: z.array(WindowSchema),
        timezone: z.string().describe("The probe's time zone: a window created without one takes it (the form's default)"),
      }),
      handler: () => ({ items: windows.list(), timezone: windows.defaultTimezone() }),
    }),
    route({
      method: 'POST', path: '/api/monitors/maintenance', scope: 'monitors:write', status: 201,
      summary: 'Create a maintenance window',
      description: 'While a window is open, the alerts of the monitors it applies to are held (nothing goes to webhooks, ' +
        'e-mail or the controller); checks still run and are recorded. An outage still going on when it closes alerts then. ' +
        'schedule: once (from, to), weekly (days, start, end: local times in timezone) or cron (five fields, duration_min). Audited.',
      body: CreateWindowBody, response: WindowSchema,
      handler: async (ctx) => reply(201, await windows.create(ctx.body, actorOf(ctx))),
    }),
    route({
      method: 'GET', path: '/api/monitors/maintenance/:id', scope: 'monitors:read',
      summary: 'One maintenance window',
      params: WindowIdParams, response: WindowSchema,
      handler: (ctx) => windows.get(ctx.params.id),
    }),
    route({
      method: 'PUT', path: '/api/monitors/maintenance/:id', scope: 'monitors:write',
      summary: 'Change a maintenance window (the fields given)',
      description: 'A new schedule starts afresh (an early end of the old one does not cut it). Audited.',
      params: WindowIdParams, body: UpdateWindowBody, response: WindowSchema,
      handler: (ctx) => windows.update(ctx.params.id, ctx.body, actorOf(ctx)),
    }),
    route({
      method: 'DELETE', path: '/api/monitors/maintenance/:id', scope: 'monitors:write',
      summary: 'Delete a maintenance window',
      description: 'An open window closes with it: outages it held alert then. Audited.',
      params: WindowIdParams,
      handler: async (ctx) => { await windows.remove(ctx.params.id, actorOf(ctx)); return undefined; },
    }),
    route({
      method: 'POST', path: '/api/monitors/maintenance/:id/end', scope: 'monitors:write',
      summary: 'End the open occurrence now',
      description: 'A one-off window is over; a recurring one opens again at its next time. 400 not_open when it is not open. ' +
        'Outages it held alert then. Audited.',
      params: WindowIdParams, response: WindowSchema,
      handler: (ctx) => windows.end(ctx.params.id, actorOf(ctx)),
    }),
  ];
}
