// A device's OID cards: read them (live values when the device can be read) and store its own
// selection (SPEC.md, "SNMP"). The logic is in service.ts.
import { z } from 'zod';
import { clientGone } from '../../../core/http/abort.js';
import { actorOf, route, type AnyRoute } from '../../../core/http/registry.js';
import { IF_STATUSES } from '../interfaces.js';
import { DeviceCardsBody, ExtraOid } from '../schemas.js';
import type { DeviceCardService } from './service.js';

const Params = z.object({ device_name: z.string().trim().min(1).max(200)
  .describe('Device name (or an inventory endpoint\'s UUID or short ID)') });
const Query = z.object({ live: z.enum(['true', 'false', '1', '0']).optional().describe('Read values now (default true)') });

const RowReadingOut = z.object({ index: z.string(), label: z.string(), value: z.union([z.number(), z.string(), z.null()]),
  display: z.string() });
const CardOut = z.object({
  key: z.string(), title: z.string(), error: z.string().optional(), error_code: z.string().optional(),
  items: z.array(z.object({
    key: z.string(), label: z.string(), unit: z.string().nullable(), oid: z.string().nullable(), name: z.string().nullable(),
    value: z.union([z.number(), z.string(), z.array(RowReadingOut), z.null()]),
    display: z.string().nullable(), read_at: z.string().nullable(),
  })),
});
const DeviceCards = z.object({
  device_name: z.string(),
  source: z.enum(['saved', 'inventory', 'saved+inventory']).describe('Where the device\'s address and selection come from'),
  target: z.string().nullable(), port: z.number().int(),
  credential: z.object({ id: z.string(), short_id: z.string(), name: z.string() }).nullable(),
  vendor: z.object({ key: z.string(), name: z.string(), variant: z.string().nullable(), from: z.enum(['saved', 'identified', 'default']) }),
  identification: z.record(z.string(), z.unknown()).nullable()
    .describe('What live identification found (profile, variant, model, kind, and the evidence that decided), when it ran'),
  selection: z.object({ custom: z.boolean(), cards: z.array(z.string()), extra_oids: z.array(ExtraOid) }),
  available_cards: z.array(z.object({ key: z.string(), title: z.string() })),
  live: z.object({ attempted: z.boolean(), ok: z.boolean(), error: z.string().optional(), error_code: z.string().optional() }),
  cards: z.array(CardOut),
  updated_at: z.string().nullable(),
});

const Counter = z.number().nullable();
const Interfaces = z.object({
  device_name: z.string(), target: z.string().nullable(), port: z.number().int(),
  credential: z.object({ id: z.string(), short_id: z.string(), name: z.string() }).nullable(),
  read_at: z.string().nullable().describe('When the table was read; null when it could not be'),
  items: z.array(z.object({
    index: z.number().int(), name: z.string(), description: z.string().nullable(), alias: z.string().nullable(),
    type: z.string().nullable().describe('IANAifType name, e.g. ethernetCsmacd'), mac: z.string().nullable(),
    admin_status: z.enum(IF_STATUSES).nullable(), oper_status: z.enum(IF_STATUSES).nullable(),
    speed_bps: Counter.describe('Bits per second (ifHighSpeed when ifSpeed saturates)'),
    in_octets: Counter, out_octets: Counter, in_errors: Counter, out_errors: Counter, in_discards: Counter, out_discards: Counter,
    hc: z.boolean().describe('Octet counters are the 64-bit ifHC ones'),
  })),
  total: z.number().int(), truncated: z.boolean(),
  error: z.string().optional(), error_code: z.string().optional(),
});

export function deviceCardRoutes(service: DeviceCardService): AnyRoute[] {
  return [
    route({
      method: 'GET', path: '/api/snmp/device-cards/:device_name', scope: 'snmp:read', tag: 'snmp',
      summary: 'The OID cards of a device, with live values when it can be read',
      description: 'Reading values needs the device\'s address and a stored credential; a device that cannot be read '
        + 'still returns its cards, without values, and `live.error` says why.',
      params: Params, query: Query, response: DeviceCards,
      handler: (ctx) => service.get(ctx.params.device_name, ctx.query.live !== 'false' && ctx.query.live !== '0'),
    }),
    route({
      method: 'GET', path: '/api/snmp/device-cards/:device_name/interfaces', scope: 'snmp:read', tag: 'snmp',
      summary: 'The interface table of a device (IF-MIB): name, status, speed, traffic and error counters, read now',
      description: 'Reads ifTable and ifXTable through the device\'s stored credential (64-bit counters when the agent has them). '
        + 'A device that cannot be read answers with no rows and `error`, `error_code` saying why; 404 for an unknown device.',
      params: Params, response: Interfaces,
      handler: (ctx) => service.interfaces(ctx.params.device_name, clientGone(ctx)),
    }),
    route({
      method: 'PUT', path: '/api/snmp/device-cards/:device_name', scope: 'snmp:write', tag: 'snmp',
      summary: 'Store a device\'s own selection and order of cards, extra OIDs, address and credential',
      params: Params, body: DeviceCardsBody, response: DeviceCards,
      handler: (ctx) => service.put(ctx.params.device_name, ctx.body, actorOf(ctx)),
    }),
  ];
}
