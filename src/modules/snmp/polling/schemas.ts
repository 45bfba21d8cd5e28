// The interface-polling API's bodies and answers (routes.ts): devices polled over time, their interfaces
// with current rates, an interface's history, and the busiest ports across devices.
import { z } from 'zod';
import { IF_STATUSES } from '../interfaces.js';
import { Port, TargetHost } from '../targets.js';

export const POLL_INTERVALS = [60, 300] as const;
export const HISTORY_RANGES = ['hour', 'day', 'week', 'month', 'year'] as const;
export type HistoryRange = (typeof HISTORY_RANGES)[number];

/** How a polled device stands: waiting for its first poll, answering, failing (not yet backed off), backed off, refused, or paused. */
export const POLL_STATUSES = ['waiting', 'ok', 'failing', 'backed_off', 'refused', 'paused'] as const;

const AlertFields = {
  util_alert_pct: z.number().min(1).max(100).nullable().optional()
    .describe('Alert when a watched interface\'s in or out utilisation stays at or above this % (null: no utilisation alert)'),
  util_alert_minutes: z.number().int().min(1).max(1440).optional()
    .describe('For this many minutes before the utilisation alert (default 5)'),
  error_alert_ps: z.number().min(0.01).max(1_000_000).nullable().optional()
    .describe('Alert when a watched interface counts more errors per second than this, in plus out (null: no error alert)'),
};

const DeviceFields = {
  name: z.string().trim().min(1).max(100).optional().describe('Shown name; default the target'),
  target: TargetHost,
  port: Port.nullable().optional().describe('UDP port; null or absent: the credential\'s port, else 161'),
  credential_id: z.string().trim().min(1).max(100).describe('The stored SNMP credential (UUID or short ID) to poll with'),
  endpoint_id: z.string().trim().min(1).max(100).nullable().optional()
    .describe('The inventory endpoint this device is (UUID or short ID), shown on its page'),
  interval_s: z.union([z.literal(60), z.literal(300)]).optional().describe('Seconds between polls: 60 (default) or 300'),
  all_interfaces: z.boolean().optional()
    .describe('Poll every interface (default true); false: only those chosen with PATCH .../interfaces/:key {chosen: true}'),
  enabled: z.boolean().optional().describe('false pauses polling (history is kept)'),
  ...AlertFields,
};

export const PollDeviceCreateBody = z.strictObject(DeviceFields);
export const PollDeviceUpdateBody = z.strictObject(DeviceFields).partial();
export type PollDeviceInput = z.infer<typeof PollDeviceCreateBody>;

export const InterfaceUpdateBody = z.strictObject({
  chosen: z.boolean().optional().describe('Poll this interface when the device does not poll all of them'),
  watched: z.boolean().optional().describe('Alert when it goes down or comes up, and on utilisation and errors'),
}).refine((b) => b.chosen !== undefined || b.watched !== undefined, { message: 'give chosen or watched' });

const Rates = z.object({
  t: z.string().describe('When the poll read these counters'),
  in_bps: z.number().nullable(), out_bps: z.number().nullable(),
  in_util_pct: z.number().nullable(), out_util_pct: z.number().nullable(),
  in_pps: z.number().nullable(), out_pps: z.number().nullable(),
  in_errors_ps: z.number().nullable(), out_errors_ps: z.number().nullable(),
  in_discards_ps: z.number().nullable(), out_discards_ps: z.number().nullable(),
  why: z.string().nullable().describe('Why rates are missing: first poll, counter reset, discontinuity, gap, over speed'),
});

export const PolledInterface = z.object({
  key: z.number().int().describe('Stable across renumbering: the history is kept under it'),
  if_index: z.number().int(), name: z.string().nullable(), descr: z.string().nullable(), alias: z.string().nullable(),
  type: z.number().int().nullable(), speed_bps: z.number().nullable(),
  admin_status: z.enum(IF_STATUSES).nullable(), oper_status: z.enum(IF_STATUSES).nullable(),
  oper_since: z.string().nullable().describe('When the poller saw its oper status change last'),
  polled: z.boolean().describe('Its rates are kept (the device polls all interfaces, or it is chosen)'),
  chosen: z.boolean(), watched: z.boolean(),
  watched_by: z.enum(['person', 'lldp']).nullable().describe('lldp: watched by default, an LLDP neighbour is on it'),
  neighbour: z.string().nullable().describe('The LLDP neighbour seen on it'),
  renumbered: z.object({ from: z.number().int(), at: z.string() }).nullable()
    .describe('Its ifIndex changed (after a reboot, on some platforms): matched by ifName/ifDescr'),
  gone_at: z.string().nullable().describe('The agent no longer lists it'),
  hc: z.boolean().nullable().describe('64-bit counters (true) or 32-bit ones that wrap (false)'),
  now: Rates.nullable(),
  spark: z.object({ in: z.array(z.number().nullable()), out: z.array(z.number().nullable()) })
    .describe('bits per second of the last hour, one value a poll'),
});

export const PollDeviceState = z.object({
  status: z.enum(POLL_STATUSES),
  last_poll_at: z.string().nullable(), last_ok_at: z.string().nullable(), next_poll_at: z.string().nullable(),
  failures: z.number().int().describe('Polls failed in a row'),
  error: z.string().nullable(), elapsed_ms: z.number().nullable(), requests: z.number().int().nullable(),
  interfaces: z.number().int(), polled: z.number().int(),
});

export const PolledDevice = z.object({
  id: z.string(), name: z.string(), target: z.string(), port: z.number().int().nullable(),
  credential_id: z.string(),
  credential: z.object({ id: z.string(), short_id: z.string(), name: z.string() }).nullable()
    .describe('null when the credential was deleted since (polls then fail until another is set)'),
  endpoint_id: z.string().nullable(), interval_s: z.number().int(), all_interfaces: z.boolean(), enabled: z.boolean(),
  util_alert_pct: z.number().nullable(), util_alert_minutes: z.number().int(), error_alert_ps: z.number().nullable(),
  state: PollDeviceState,
  created_at: z.string(), updated_at: z.string(),
});
export type PolledDeviceOut = z.infer<typeof PolledDevice>;

export const PolledDeviceDetail = PolledDevice.extend({ interfaces: z.array(PolledInterface) });

export const HistoryQuery = z.object({
  range: z.enum(HISTORY_RANGES).default('day').describe('hour: every poll; day: 5-minute steps; week 30 min; month 2 h; year 1 day'),
});

const Step = z.object({
  t: z.string(),
  in_avg: z.number().nullable(), in_max: z.number().nullable(), out_avg: z.number().nullable(), out_max: z.number().nullable(),
  in_util_avg: z.number().nullable(), in_util_max: z.number().nullable(),
  out_util_avg: z.number().nullable(), out_util_max: z.number().nullable(),
  in_errors: z.number().nullable(), out_errors: z.number().nullable(),
  in_discards: z.number().nullable(), out_discards: z.number().nullable(),
  up_share: z.number().nullable().describe('Share of the step\'s polls that found it up (0-1)'),
});

export const InterfaceHistory = z.object({
  device: z.object({ id: z.string(), name: z.string() }),
  interface: PolledInterface.omit({ spark: true }),
  range: z.enum(HISTORY_RANGES), step_s: z.number().int(),
  points: z.array(Step).describe('Oldest first; a step with nulls is a gap (no poll answered, or a counter reset)'),
  p95: z.object({
    in_bps: z.number().nullable(), out_bps: z.number().nullable(), samples: z.number().int(), expected: z.number().int(),
    rule: z.string(),
  }).nullable().describe('The month view only: the 95th percentile of the 5-minute averages'),
});

export const BusiestQuery = z.object({
  by: z.enum(['util', 'bps', 'errors']).default('util'),
  limit: z.coerce.number().int().min(1).max(200).default(20),
});

export const BusiestPort = z.object({
  device: z.object({ id: z.string(), name: z.string() }),
  interface: z.object({ key: z.number().int(), if_index: z.number().int(), name: z.string().nullable(), alias: z.string().nullable(),
    speed_bps: z.number().nullable(), oper_status: z.enum(IF_STATUSES).nullable() }),
  now: Rates,
});
