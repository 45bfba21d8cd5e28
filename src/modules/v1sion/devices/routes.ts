// /api/v1sion/devices: the devices known over time from completed scans (devices/service.ts), their
// history, and "where is it?" (the search), with acknowledging new ones and marking expected or transient.
import { z } from 'zod';
import { actorOf, route } from '../../../core/http/registry.js';
import { listOf, paging } from '../../../core/http/schemas.js';
import { PRESENCES } from './merge.js';
import { DEVICE_STATES, type DeviceWatch } from './service.js';

const IdParams = z.object({ id: z.uuid() });

const ListQuery = z.object({
  ...paging(1000, 100),
  q: z.string().trim().min(1).max(200).optional().describe(
    'Where is it? A MAC in any notation (aa:bb:cc:dd:ee:ff, aabb.ccdd.eeff, AA-BB-…) or a prefix of one, an IP address or its ' +
    'start, or text in the name, vendor or model'),
  state: z.enum(DEVICE_STATES).optional()
    .describe('new: not acknowledged; missing: not answering; changed: moved or readdressed in the last 24 h'),
}).strict();

const Attachment = z.object({ switch: z.string(), port: z.string(), vlan: z.number().int().nullable() }).nullable()
  .describe('The switch port it is on now (an edge port from a forwarding table, uplinks left out) and its VLAN when known');

const DeviceSchema = z.object({
  id: z.string(), name: z.string(), vendor: z.string().nullable(), kind: z.string(), model: z.string().nullable(),
  addresses: z.array(z.string()), macs: z.array(z.string()), attachment: Attachment,
  first_seen: z.string(), last_seen: z.string(),
  presence: z.enum(PRESENCES)
    .describe('normal; expected: its absence is reported even if not seen regularly; transient: never reported missing'),
  states: z.array(z.enum(DEVICE_STATES)), missing_since: z.string().nullable(), changed_at: z.string().nullable(),
});

const HistorySchema = z.object({
  at: z.string(), kind: z.string().describe('discovered, seen_again, missing, moved, vlan, addresses, address_claimed, name, identity, ' +
    'acknowledged, presence'),
  from: z.unknown(), to: z.unknown(), text: z.string(), job_id: z.string().nullable(),
});

const UpdateBody = z.object({
  presence: z.enum(PRESENCES).optional(),
  acknowledged: z.literal(true).optional().describe('true: it stops being new'),
}).strict().refine((b) => Object.keys(b).length > 0, 'Give presence or acknowledged');

const AcknowledgeBody = z.object({
  ids: z.union([z.array(z.uuid()).min(1).max(1000), z.literal('all_new')]).describe('Device ids, or "all_new" for every new device'),
}).strict();

export function deviceWatchRoutes(svc: DeviceWatch) {
  return [
    route({
      method: 'GET', path: '/api/v1sion/devices', scope: 'v1sion:read',
      summary: 'Devices known over time, and where is it',
      description: 'Every device completed scans found (an identity merged by SNMP engine ID, serial, chassis ID or MAC), new ones ' +
        'first, then missing and changed; q searches by MAC, IP, name or vendor (docs/discovery.md, "Devices over time").',
      query: ListQuery, response: listOf(DeviceSchema),
      handler: (ctx) => svc.list(ctx.query),
    }),
    route({
      method: 'GET', path: '/api/v1sion/devices/:id', scope: 'v1sion:read',
      summary: 'A known device with its history',
      description: 'Its addresses, ports and names over time, newest first (the last 200 changes).',
      params: IdParams, response: DeviceSchema.extend({ history: z.array(HistorySchema) }),
      handler: (ctx) => svc.get(ctx.params.id),
    }),
    route({
      method: 'PATCH', path: '/api/v1sion/devices/:id', scope: 'v1sion:write',
      summary: 'Acknowledge a device or mark it expected or transient',
      description: 'Audited; the device\'s history says who.',
      params: IdParams, body: UpdateBody, response: DeviceSchema.extend({ history: z.array(HistorySchema) }),
      handler: (ctx) => svc.update(ctx.params.id, ctx.body, actorOf(ctx)),
    }),
    route({
      method: 'POST', path: '/api/v1sion/devices/acknowledge', scope: 'v1sion:write',
      summary: 'Acknowledge new devices',
      description: 'The listed devices, or every new one; one audit entry.',
      body: AcknowledgeBody, response: z.object({ acknowledged: z.number().int() }),
      handler: (ctx) => svc.acknowledge(ctx.body.ids, actorOf(ctx)),
    }),
  ];
}
