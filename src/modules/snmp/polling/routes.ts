// Interface polling: the devices polled over time, their interfaces with current rates, an interface's
// history, the busiest ports (docs/snmp.md, "Interface polling"). The logic is in service.ts.
import { z } from 'zod';
import { actorOf, reply, route, type AnyRoute } from '../../../core/http/registry.js';
import {
  BusiestPort, BusiestQuery, HistoryQuery, InterfaceHistory, InterfaceUpdateBody, PollDeviceCreateBody, PollDeviceUpdateBody,
  PolledDevice, PolledDeviceDetail, PolledInterface,
} from './schemas.js';
import type { PollingService } from './service.js';

const IdParams = z.object({ id: z.uuid().describe('Polled device id') });
const IfParams = IdParams.extend({ key: z.coerce.number().int().min(1).max(2 ** 31).describe('Interface key') });

export function pollingRoutes(polling: PollingService): AnyRoute[] {
  return [
    route({
      method: 'GET', path: '/api/snmp/polling', scope: 'snmp:read', tag: 'snmp', summary: 'Devices whose interfaces are polled over time',
      response: z.object({ items: z.array(PolledDevice), total: z.number().int() }),
      handler: () => polling.list(),
    }),
    route({
      method: 'POST', path: '/api/snmp/polling', scope: 'snmp:write', tag: 'snmp', status: 201,
      summary: 'Poll a device\'s interfaces over time (a stored SNMP credential; every 60 or 300 s)',
      body: PollDeviceCreateBody, response: PolledDeviceDetail,
      handler: async (ctx) => reply(201, await polling.create(ctx.body, actorOf(ctx))),
    }),
    route({
      method: 'GET', path: '/api/snmp/polling/busiest', scope: 'snmp:read', tag: 'snmp',
      summary: 'The busiest ports across polled devices now (by utilisation, bits per second or errors)',
      query: BusiestQuery, response: z.object({ items: z.array(BusiestPort), total: z.number().int() }),
      handler: (ctx) => polling.busiest(ctx.query.by, ctx.query.limit),
    }),
    route({
      method: 'GET', path: '/api/snmp/polling/:id', scope: 'snmp:read', tag: 'snmp',
      summary: 'A polled device with every interface, its current rates and the last hour as a sparkline',
      params: IdParams, response: PolledDeviceDetail,
      handler: (ctx) => polling.get(ctx.params.id),
    }),
    route({
      method: 'PATCH', path: '/api/snmp/polling/:id', scope: 'snmp:write', tag: 'snmp',
      summary: 'Change a polled device (fields left out keep their values)',
      params: IdParams, body: PollDeviceUpdateBody, response: PolledDeviceDetail,
      handler: (ctx) => polling.update(ctx.params.id, ctx.body, actorOf(ctx)),
    }),
    route({
      method: 'DELETE', path: '/api/snmp/polling/:id', scope: 'snmp:write', tag: 'snmp',
      summary: 'Stop polling a device (its interfaces\' history is no longer shown and ages out with retention)',
      params: IdParams,
      handler: async (ctx) => { await polling.remove(ctx.params.id, actorOf(ctx)); return undefined; },
    }),
    route({
      method: 'POST', path: '/api/snmp/polling/:id/poll', scope: 'snmp:write', tag: 'snmp',
      summary: 'Poll a device now (its rates need the poll before: the first poll gives none)',
      params: IdParams, response: PolledDeviceDetail,
      handler: (ctx) => polling.pollNow(ctx.params.id),
    }),
    route({
      method: 'PATCH', path: '/api/snmp/polling/:id/interfaces/:key', scope: 'snmp:write', tag: 'snmp',
      summary: 'Choose an interface for polling, or watch it (alerts)',
      params: IfParams, body: InterfaceUpdateBody, response: PolledInterface,
      handler: (ctx) => polling.setInterface(ctx.params.id, ctx.params.key, ctx.body, actorOf(ctx)),
    }),
    route({
      method: 'GET', path: '/api/snmp/polling/:id/interfaces/:key/history', scope: 'snmp:read', tag: 'snmp',
      summary: 'An interface\'s traffic, utilisation, errors and status over the last hour, day, week, month or year',
      params: IfParams, query: HistoryQuery, response: InterfaceHistory,
      handler: (ctx) => polling.historyOf(ctx.params.id, ctx.params.key, ctx.query.range),
    }),
  ];
}
