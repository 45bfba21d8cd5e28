// Request and response schemas of the monitors API, and the mapping from table rows to API objects.
import { z } from 'zod';
import { invalid } from '../../core/errors.js';
import { SecretsDropped } from '../../core/http/schemas.js';
import { isoOrNull } from '../../core/clock.js';
import { CHECK_TYPES, type CheckType } from './checks/index.js';
import { MonitorMaintenanceSchema, type MonitorMaintenance } from './maintenance/schemas.js';

export const MONITOR_STATUSES = ['up', 'down', 'degraded', 'paused', 'unknown'] as const;
export type MonitorStatus = (typeof MONITOR_STATUSES)[number];
export const MonitorStatusSchema = z.enum(MONITOR_STATUSES);
export const CheckTypeSchema = z.enum(CHECK_TYPES);

export const EVENT_KINDS = [
  'created', 'updated', 'deleted', 'paused', 'resumed', 'status_change', 'incident_opened',
  'incident_closed', 'manual_check', 'history_cleared', 'alert_released', 'uptime_recounted',
  'maintenance_started', 'maintenance_ended', 'route_changed',
] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

// ---- bounds and defaults -----------------------------------------------------------------------

export const LIMITS = {
  interval: { min: 5, max: 86_400, default: 60 },
  timeout: { min: 1, max: 300, default: 10 },
  failure_threshold: { min: 1, max: 20, default: 3 },
  degraded_ms: { min: 1, max: 600_000 },
  name: 100,
  target: 2048,
  tag: 50,
  tags: 20,
  parents: 10,
} as const;

// ---- requests ----------------------------------------------------------------------------------

export const IdParams = z.object({ id: z.uuid() });

const Tag = z.string().trim().min(1).max(LIMITS.tag);

const MonitorFields = {
  name: z.string().trim().min(1).max(LIMITS.name),
  target: z.string().trim().min(1).max(LIMITS.target)
    .describe('URL (http), host or IP (ping), host:port (tcp), name to resolve (dns); see docs/monitors.md'),
  check_type: CheckTypeSchema,
  interval: z.number().int().min(LIMITS.interval.min).max(LIMITS.interval.max)
    .describe('Seconds between scheduled checks (default 60, at least 5)'),
  timeout: z.number().int().min(LIMITS.timeout.min).max(LIMITS.timeout.max)
    .describe('Seconds a check may take; below interval (default 10, or interval - 1 when that is smaller)'),
  failure_threshold: z.number().int().min(LIMITS.failure_threshold.min).max(LIMITS.failure_threshold.max)
    .describe('Consecutive failed checks before the monitor is down (default 3)'),
  tags: z.array(Tag).max(LIMITS.tags),
  degraded_ms: z.number().int().min(LIMITS.degraded_ms.min).max(LIMITS.degraded_ms.max).nullable()
    .describe('A successful check slower than this many milliseconds is degraded'),
  max_loss_pct: z.number().min(0).max(100).nullable()
    .describe('ping only: partial packet loss above this percentage is degraded'),
  settings: z.record(z.string(), z.unknown()).describe('Check-type specific settings; see docs/monitors.md'),
  parents: z.array(z.uuid()).max(LIMITS.parents)
    .describe('Parent monitors (alert dependencies): while one is down, this monitor\'s down and failure alerts are held back; ' +
      'see docs/webhooks.md'),
};

export const CreateMonitorBody = z.strictObject({
  name: MonitorFields.name,
  target: MonitorFields.target,
  check_type: MonitorFields.check_type,
  interval: MonitorFields.interval.optional(),
  timeout: MonitorFields.timeout.optional(),
  failure_threshold: MonitorFields.failure_threshold.optional(),
  tags: MonitorFields.tags.optional(),
  degraded_ms: MonitorFields.degraded_ms.optional(),
  max_loss_pct: MonitorFields.max_loss_pct.optional(),
  settings: MonitorFields.settings.optional(),
  parents: MonitorFields.parents.optional(),
});
export type CreateMonitorInput = z.infer<typeof CreateMonitorBody>;

/** Same fields as create, all optional: only the fields sent change. */
export const UpdateMonitorBody = CreateMonitorBody.partial();
export type UpdateMonitorInput = z.infer<typeof UpdateMonitorBody>;

const IsoTime = z.iso.datetime({ offset: true });

export const ListMonitorsQuery = z.object({
  status: MonitorStatusSchema.optional(),
  check_type: CheckTypeSchema.optional(),
  tag: z.string().min(1).max(LIMITS.tag).optional().describe('Only monitors carrying this tag'),
});

export const TimelineQuery = z.object({
  hours: z.coerce.number().int().min(1).max(24).default(24).describe('How many hours, the current one last (1-24)'),
  ids: z.string().min(1).max(200 * 37).optional()
    .describe('Comma-separated monitor ids (at most 200); all monitors when left out. Unknown ids are left out of the answer'),
});

/** The ids of GET /api/monitors/timeline: UUIDs, at most 200; a 400 naming `query.ids` for anything else. */
export function parseMonitorIds(text: string | undefined): string[] | undefined {
  if (text === undefined) return undefined;
  const ids = [...new Set(text.split(',').map((x) => x.trim()).filter(Boolean))];
  const bad = (message: string) => invalid('query', [{ path: 'query.ids', message }]);
  if (!ids.length) throw bad('Give at least one monitor id');
  if (ids.length > 200) throw bad('At most 200 monitor ids');
  for (const id of ids) if (!z.uuid().safeParse(id).success) throw bad(`"${id.slice(0, 40)}" is not a monitor id`);
  return ids;
}

const TimelineHourSchema = z.object({
  up: z.number().describe('Seconds the monitor was up in this hour'),
  degraded: z.number().describe('Seconds degraded: answers that were slow or lost packets'),
  down: z.number().describe('Seconds down: after a failed check, also below the failure threshold'),
  maintenance: z.number().describe('Seconds in a maintenance window: in none of the others, so in no uptime'),
  checks: z.number().int().describe('Scheduled checks (manual ones do not count)'),
  uptime_pct: z.number().nullable().describe('Time available over time known, as everywhere else'),
});

export const TimelineSchema = z.object({
  hours: z.number().int(),
  step: z.number().int().describe('Seconds per segment (3600)'),
  from: z.string().describe('Start of the first segment'),
  to: z.string().describe('Now: the last segment runs to here'),
  monitors: z.array(z.object({ id: z.string(), segments: z.array(TimelineHourSchema) })),
});

export const ResultsQuery = z.object({
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  offset: z.coerce.number().int().min(0).default(0),
  since: IsoTime.optional().describe('Results at or after this time (ISO 8601)'),
  until: IsoTime.optional().describe('Results at or before this time (ISO 8601)'),
  status: z.enum(['up', 'degraded', 'down']).optional(),
});

export const IncidentsQuery = z.object({
  limit: z.coerce.number().int().min(1).max(500).default(50),
  offset: z.coerce.number().int().min(0).default(0),
  since: IsoTime.optional().describe('Incidents still open at or after this time (ISO 8601)'),
  until: IsoTime.optional().describe('Incidents opened at or before this time (ISO 8601)'),
});

export const EventsQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  offset: z.coerce.number().int().min(0).default(0),
  monitor_id: z.uuid().optional().describe('Only events of this monitor (also after it was deleted)'),
  kind: z.enum(EVENT_KINDS).optional(),
  exclude_kind: z.enum(EVENT_KINDS).optional().describe('Leave out events of this kind (e.g. manual_check)'),
  since: IsoTime.optional().describe('Events at or after this time (ISO 8601)'),
  until: IsoTime.optional().describe('Events at or before this time (ISO 8601)'),
});
export type EventsQueryInput = z.infer<typeof EventsQuery>;

export const ExportQuery = EventsQuery.omit({ limit: true, offset: true });

// ---- responses ---------------------------------------------------------------------------------

export const ResultSchema = z.object({
  at: z.string(),
  status: z.enum(['up', 'degraded', 'down']),
  response_time: z.number().nullable().describe('Milliseconds'),
  message: z.string(),
  details: z.record(z.string(), z.unknown()).nullable()
    .describe('Kept for failures, status changes, manual checks and once a day for certificate facts'),
  manual: z.boolean().describe('A manual check ("check now"): it counts in no uptime or response-time figure'),
  monitor_status: z.enum(['up', 'degraded', 'down', 'paused'])
    .describe('The monitor\'s status after this check: a failed check below the failure threshold leaves it degraded'),
  in_maintenance: z.boolean().describe('Checked in a maintenance window (its alerts held, its time in no uptime)'),
  measurements: z.record(z.string(), z.number())
    .describe('Named measurements the check type declares besides the response time, in their units, to hundredths ' +
      '(ping: loss_pct; http and tcp that saw a TLS certificate: days_left); {} when the check measured none'),
});
export type ResultOut = z.infer<typeof ResultSchema>;

export const MeasurementStatSchema = z.object({
  name: z.string().describe('The key in a result\'s measurements'),
  label: z.string(),
  unit: z.string().describe('What the values are counted in: %, days, ms, ...'),
  count: z.number().int().describe('Scheduled checks of the last 24 hours that measured it'),
  min: z.number().nullable(),
  avg: z.number().nullable(),
  max: z.number().nullable(),
});

export const IncidentSchema = z.object({
  id: z.string(),
  monitor_id: z.string(),
  opened_at: z.string(),
  closed_at: z.string().nullable(),
  duration: z.number().describe('Seconds; for an open incident, so far'),
  message: z.string().nullable().describe('The failure that opened it'),
  close_message: z.string().nullable(),
  failures: z.number().int().describe('Failed checks during the incident'),
});
export type IncidentOut = z.infer<typeof IncidentSchema>;

export const DEGRADED_REASONS = ['slow', 'loss', 'failing'] as const;
export type DegradedReason = (typeof DEGRADED_REASONS)[number];

/**
 * Beat letters (history.ts beatOf): u up, s degraded answer, f failing, d down, p checked while paused, m checked in a
 * maintenance window; upper case manual. ui/pages/monitors/model.js BEAT_KINDS has the same (ui-contract.test.ts).
 */
export const BEAT_LETTERS = ['u', 's', 'f', 'd', 'p', 'm'] as const;

export const Stats24hSchema = z.object({
  uptime_pct: z.number().nullable().describe('Time-weighted: time available (up, or slow or lossy answers) over time known; '
    + 'a failed check\'s time is down, also below the failure threshold. 3 decimals'),
  avg_response_ms: z.number().nullable(),
  checks: z.number().int(),
  incidents: z.number().int(),
});

export const MonitorSchema = z.object({
  id: z.string(),
  name: z.string(),
  target: z.string(),
  check_type: CheckTypeSchema,
  interval: z.number().int(),
  timeout: z.number().int(),
  failure_threshold: z.number().int(),
  tags: z.array(z.string()),
  status: MonitorStatusSchema,
  last_check: z.string().nullable(),
  response_time: z.number().nullable().describe('Milliseconds, of the last check'),
  last_message: z.string().nullable(),
  failing_streak: z.number().int().describe('Consecutive failed checks now (down at failure_threshold)'),
  degraded_reason: z.enum(DEGRADED_REASONS).nullable()
    .describe('Why a degraded monitor is degraded: slow (slower than degraded_ms), loss (ping loss above max_loss_pct) or ' +
      'failing (failed checks below failure_threshold); null unless degraded'),
  degraded_ms: z.number().int().nullable(),
  max_loss_pct: z.number().nullable(),
  settings: z.record(z.string(), z.unknown()).describe('Secrets are redacted'),
  parents: z.array(z.string()).describe('IDs of the parent monitors (alert dependencies)'),
  maintenance: MonitorMaintenanceSchema,
  created_at: z.string(),
  updated_at: z.string(),
});
export type MonitorOut = z.infer<typeof MonitorSchema>;

const BeatsSchema = z.string().regex(/^[usfdpmUSFDPM]*$/)
  .describe('The newest checks (up to 30), oldest first, a letter each: u up, s answered but degraded (slow or loss), ' +
    'f failed below the failure threshold, d failed while down, p checked while paused, m checked in a maintenance window; ' +
    'upper case: a manual check');

export const MonitorListItemSchema = MonitorSchema.extend({ stats_24h: Stats24hSchema, beats: BeatsSchema });
export type MonitorListItem = z.infer<typeof MonitorListItemSchema>;

export const MonitorStatsSchema = z.object({
  uptime_24h: z.number().nullable()
    .describe('Percent of the known time the monitor was available, over the current hour and the 23 before; null if none'),
  uptime_7d: z.number().nullable().describe('The same over today (UTC) and the 6 days before'),
  uptime_30d: z.number().nullable().describe('The same over today (UTC) and the 29 days before'),
  p95_response_ms_24h: z.number().nullable(),
  avg_response_ms_24h: z.number().nullable(),
  checks_24h: z.number().int(),
  current_incident: IncidentSchema.nullable(),
  cert_days_left: z.number().int().nullable(),
  last_result: ResultSchema.nullable(),
  measurements_24h: z.array(MeasurementStatSchema)
    .describe('Each measurement the check type declares, over the current hour and the 23 before (nulls when none was measured)'),
});
export const MonitorDetailSchema = MonitorSchema.extend({ stats: MonitorStatsSchema, beats: BeatsSchema });
export type MonitorDetail = z.infer<typeof MonitorDetailSchema>;

/** An update's answer: the monitor, and which stored secrets it dropped (a new destination, docs/monitors.md). */
export const UpdatedMonitorSchema = MonitorDetailSchema.extend({ secrets_dropped: SecretsDropped.optional() });
export type UpdatedMonitor = z.infer<typeof UpdatedMonitorSchema>;

export const CountsSchema = z.object({
  up: z.number().int(), down: z.number().int(), degraded: z.number().int(),
  paused: z.number().int(), unknown: z.number().int(), total: z.number().int(),
});

export const EventSchema = z.object({
  id: z.number().int(),
  at: z.string(),
  kind: z.enum(EVENT_KINDS),
  monitor_id: z.string().nullable(),
  monitor_name: z.string().nullable(),
  from_status: z.string().nullable(),
  to_status: z.string().nullable(),
  message: z.string().nullable(),
  actor: z.string().nullable(),
  details: z.record(z.string(), z.unknown()).nullable(),
});
export type EventOut = z.infer<typeof EventSchema>;

export const CheckNowSchema = z.object({ result: ResultSchema, monitor: MonitorDetailSchema });

export const SchedulerQuery = z.object({
  recent: z.coerce.number().int().min(0).max(8192).default(0).describe('Also list the latest this many slots with their lag'),
});

export const SchedulerSchema = z.object({
  monitors: z.number().int(),
  scheduled: z.number().int().describe('Not paused'),
  running: z.number().int(),
  queued: z.number().int().describe('Due, waiting for a free place under max_concurrent_checks'),
  started: z.number().int(),
  missed: z.number().int().describe('Slots skipped: the previous check was still running, or the slot was already past'),
  max_concurrent: z.number().int(),
  lag: z.object({
    checks: z.number().int(),
    p50_ms: z.number().nullable(),
    p99_ms: z.number().nullable(),
    max_ms: z.number().nullable(),
    over_20ms: z.number().int(),
    histogram: z.array(z.object({ le_ms: z.number(), count: z.number().int() })),
  }).describe('How late scheduled checks started, since the service started'),
  recent: z.array(z.object({ slot: z.string(), lag_ms: z.number() })).optional(),
});

export const ClearedSchema = z.object({
  deleted: z.object({ results: z.number().int(), rollups: z.number().int(), incidents: z.number().int(), events: z.number().int() }),
  kept_open_incidents: z.number().int(),
});

// ---- rows --------------------------------------------------------------------------------------

export interface MonitorRow {
  pk: number;
  id: string;
  name: string;
  target: string;
  check_type: CheckType;
  interval_s: number;
  timeout_s: number;
  failure_threshold: number;
  degraded_ms: number | null;
  max_loss_pct: number | null;
  tags: string;
  settings: string;
  status: MonitorStatus;
  fail_streak: number;
  last_check: number | null;
  last_rt: number | null;
  last_message: string | null;
  cert_valid_to: number | null;
  cert_checked_at: number | null;
  created_at: number;
  updated_at: number;
}

export const MONITOR_COLUMNS = `pk, id, name, target, check_type, interval_s, timeout_s, failure_threshold, degraded_ms,
  max_loss_pct, tags, settings, status, fail_streak, last_check, last_rt, last_message, cert_valid_to, cert_checked_at,
  created_at, updated_at`;

export function parseJsonObject(text: string | null | undefined): Record<string, unknown> {
  if (!text) return {};
  try {
    const v: unknown = JSON.parse(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

export function parseTags(text: string | null | undefined): string[] {
  if (!text) return [];
  try {
    const v: unknown = JSON.parse(text);
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

/** Trimmed, unique tags in the order given. */
export function normaliseTags(tags: readonly string[]): string[] {
  return [...new Set(tags.map((t) => t.trim()).filter(Boolean))];
}

/**
 * Why a monitor is degraded: failing while its run of failed checks is below the threshold, otherwise its
 * last check answered degraded: loss when ping saw loss above max_loss_pct (checks/ping.ts says "loss
 * above"), slow when it was slower than degraded_ms. Null unless degraded.
 */
export function degradedReason(row: Pick<MonitorRow, 'status' | 'fail_streak' | 'last_message'>): DegradedReason | null {
  if (row.status !== 'degraded') return null;
  if (row.fail_streak > 0) return 'failing';
  return row.last_message?.includes('(loss above ') ? 'loss' : 'slow';
}

/** The API view of a row; `tags` and `settings` (redacted) come parsed, as the service caches them. */
export function monitorOut(row: MonitorRow, tags: string[], settings: Record<string, unknown>, parents: string[],
  maintenance: MonitorMaintenance = null): MonitorOut {
  return {
    id: row.id,
    name: row.name,
    target: row.target,
    check_type: row.check_type,
    interval: row.interval_s,
    timeout: row.timeout_s,
    failure_threshold: row.failure_threshold,
    tags,
    status: row.status,
    last_check: isoOrNull(row.last_check),
    response_time: row.last_rt == null ? null : row.last_rt / 100,
    last_message: row.last_message,
    failing_streak: row.fail_streak,
    degraded_reason: degradedReason(row),
    degraded_ms: row.degraded_ms,
    max_loss_pct: row.max_loss_pct,
    settings,
    parents,
    maintenance,
    created_at: isoOrNull(row.created_at)!,
    updated_at: isoOrNull(row.updated_at)!,
  };
}
