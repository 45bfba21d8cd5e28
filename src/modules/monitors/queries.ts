// The read side of the monitors API, from memory: the list and its 24-hour figures, one monitor's stats
// and raw results (its series in the storage), incidents and the dependency graph. Nothing here writes.
import type { Store } from '../../core/store/types.js';
import { canonicalIp } from '../../core/ip.js';
import { CHECKS, redactSettings, type CheckType } from './checks/index.js';
import type { IncidentRow, LiveMonitor, Registry } from './live.js';
import type { MeasurementDecl } from './checks/types.js';
import { declaredOf } from './measurements.js';
import {
  degradedReason, monitorOut, parseJsonObject, type IncidentOut, type MonitorDetail, type MonitorOut, type MonitorStatus,
  type ResultOut,
} from './schemas.js';
import {
  avgMs, fromRtUnits, hourOf, STANDING, uptimePct, type ResultStatus, type SeriesResult, type SeriesStore,
} from './storage/index.js';
import { iso } from '../../core/clock.js';
import type { ListImage } from './list-image.js';
import type { MaintenanceWindows } from './maintenance/windows.js';
import type { ListItems } from './stream.js';

const DAY = 86_400_000;

export interface ReadParts {
  store: Store;
  registry: Registry;
  /** The monitors' results over time. */
  storage: SeriesStore;
  /** The list's lines kept joined (list-image.ts). */
  image: ListImage;
  /** Which maintenance window holds a monitor's alerts now (set once the service has made it). */
  maintenance?: MaintenanceWindows;
}

/** A monitor as the API shows it (redacted settings cached on the entry until its row changes). */
export function outOf(p: Pick<ReadParts, 'registry' | 'maintenance'>, m: LiveMonitor): MonitorOut {
  m.shown ??= redactSettings(m.row.check_type, parseJsonObject(m.row.settings)) as Record<string, unknown>;
  // Lines are kept until the registry's generation moves: the windows move it when one opens or closes.
  return monitorOut(m.row, m.tags, m.shown, p.registry.parentIds(m), p.maintenance?.openNow(m) ?? null);
}

/**
 * GET /api/monitors as JSON (UTF-8): each monitor's line, in list order, made when stream.ts asks for it.
 * A line is kept encoded and made again only when what it shows changed (its row, a check, the hour, its
 * incidents): a list of 2,000 monitors copies 1.2 MiB of cached bytes instead of serializing 2,000
 * objects. Same fields, in the same order, as outOf() plus stats_24h.
 */
export function listLines(p: ReadParts, now: number, filter: { status?: MonitorStatus; check_type?: CheckType; tag?: string }):
  ListItems {
  const h = hourOf(now), gen = p.registry.gen, list = p.registry.inOrder();
  const at = (i: number): Buffer | null => {
    const m = list[i]!, r = m.row;
    if (filter.status && r.status !== filter.status) return null;
    if (filter.check_type && r.check_type !== filter.check_type) return null;
    if (filter.tag && !m.tags.includes(filter.tag)) return null;
    return lineBytes(p, m, now, h, gen);
  };
  if (filter.status || filter.check_type || filter.tag) return { length: list.length, at };
  return { length: list.length, at, run: (i, room) => p.image.runOf(list, i, room, now) };
}

/**
 * Makes a monitor's list line again after a check, when it has one: the list then copies it instead of
 * making the lines of the checks since the last list (at 2,000 monitors and a list every 2 s, about 70
 * lines and 2 ms of each list).
 */
export function refreshLine(p: ReadParts, m: LiveMonitor, now: number): void {
  if (m.line) lineBytes(p, m, now, hourOf(now), p.registry.gen);
}

/** The monitor's line, made again if what it shows changed: its row (gen), a check (time, status), the hour, its incidents. */
export function lineBytes(p: ReadParts, m: LiveMonitor, now: number, h: number, gen: number): Buffer {
  const r = m.row, l = m.line;
  const incidents = p.registry.incidentsSince(m, now - DAY);
  if (l && l.gen === gen && l.t === r.last_check && l.status === r.status && l.hour === h && l.incidents === incidents) return l.bytes;
  m.line = { gen, t: r.last_check, status: r.status, hour: h, incidents, bytes: Buffer.from(lineOf(p, m, h, incidents)) };
  return m.line.bytes;
}

function lineOf(p: ReadParts, m: LiveMonitor, h: number, incidents: number): string {
  const r = m.row;
  if (m.view?.gen !== p.registry.gen) m.view = { gen: p.registry.gen, ...fragments(outOf(p, m)) };
  const a = p.storage.sum(r.pk, h - 23, h);
  return `${m.view.head}${JSON.stringify(r.status)},"last_check":${r.last_check == null ? 'null' : `"${iso(r.last_check)}"`}` +
    `,"response_time":${r.last_rt == null ? 'null' : r.last_rt / 100},"last_message":${JSON.stringify(r.last_message)}` +
    `,"failing_streak":${r.fail_streak},"degraded_reason":${JSON.stringify(degradedReason(r))}${m.view.tail}` +
    `,"stats_24h":{"uptime_pct":${uptimePct(a)},"avg_response_ms":${avgMs(a)},"checks":${a.checks},"incidents":${incidents}}` +
    `,"beats":"${p.storage.beats(r.pk)}"}`;
}

/** A monitor's JSON up to `"status":`, and from `,"degraded_ms"` to before stats_24h. */
function fragments(o: MonitorOut): { head: string; tail: string } {
  const head = JSON.stringify({ id: o.id, name: o.name, target: o.target, check_type: o.check_type, interval: o.interval,
    timeout: o.timeout, failure_threshold: o.failure_threshold, tags: o.tags });
  const tail = JSON.stringify({ degraded_ms: o.degraded_ms, max_loss_pct: o.max_loss_pct, settings: o.settings, parents: o.parents,
    maintenance: o.maintenance, created_at: o.created_at, updated_at: o.updated_at });
  return { head: `${head.slice(0, -1)},"status":`, tail: `,${tail.slice(1, -1)}` };
}

export function resultOut(r: SeriesResult): ResultOut {
  return {
    at: iso(r.t),
    status: r.status,
    response_time: fromRtUnits(r.rt),
    message: r.message,
    details: r.details ? parseJsonObject(r.details) : null,
    manual: r.manual,
    measurements: r.measurements ?? {},
    monitor_status: r.standing === STANDING.paused ? 'paused' : r.standing === STANDING.failing ? 'degraded' : r.status,
    in_maintenance: r.standing === STANDING.aside,
  };
}

export function incidentOut(r: IncidentRow, monitorId: string, now: number, failStreak?: number): IncidentOut {
  const end = r.closed_at ?? Math.max(now, r.opened_at);
  return {
    id: r.id,
    monitor_id: monitorId,
    opened_at: iso(r.opened_at),
    closed_at: r.closed_at == null ? null : iso(r.closed_at),
    duration: Math.round((end - r.opened_at) / 1000),
    message: r.open_message,
    close_message: r.close_message,
    // While open, every failed check counts: the monitor's failure run (the row is written when it closes).
    failures: r.closed_at == null && failStreak !== undefined ? Math.max(r.failures, failStreak) : r.failures,
  };
}

/** A measurement's unit for this monitor: its setting's value where the type lets the monitor choose (snmp: `unit`). */
function unitOf(d: MeasurementDecl, settings: string): string {
  if (!d.unitSetting) return d.unit;
  const v = parseJsonObject(settings)[d.unitSetting];
  return typeof v === 'string' && v !== '' ? v : d.unit;
}

/** A monitor with its figures: uptime over 24 hours, 7 and 30 days, response times, the last result. */
export function detail(p: ReadParts, m: LiveMonitor, now: number): MonitorDetail {
  const pk = m.row.pk;
  const s = p.storage.summary(pk, now);
  const last = p.storage.last(pk);
  return {
    ...outOf(p, m),
    stats: {
      uptime_24h: uptimePct(s.day24),
      uptime_7d: uptimePct(s.week),
      uptime_30d: uptimePct(s.month),
      p95_response_ms_24h: s.p95 == null ? null : Math.round(s.p95) / 100,
      avg_response_ms_24h: avgMs(s.day24),
      checks_24h: s.day24.checks,
      current_incident: m.open ? incidentOut(m.open, m.row.id, now, m.row.fail_streak) : null,
      cert_days_left: m.row.cert_valid_to == null ? null : Math.floor((m.row.cert_valid_to - now) / DAY),
      last_result: last ? resultOut(last) : null,
      measurements_24h: declaredOf(m.row.check_type).map((d) => {
        const x = s.measures24h[d.name];
        return { name: d.name, unit: unitOf(d, m.row.settings), label: d.label,
          count: x?.count ?? 0, min: x?.min ?? null, avg: x?.avg ?? null, max: x?.max ?? null };
      }),
    },
    beats: p.storage.beats(pk),
  };
}

/** One hour of a monitor's timeline: the time (seconds) its status was up, degraded and down, in maintenance, and its checks. */
export interface TimelineHour { up: number; degraded: number; down: number; maintenance: number; checks: number; uptime_pct: number | null }

/**
 * The time-weighted status of the last `hours` hours (the current one last), per monitor, from memory:
 * what the status bars draw. Seconds with one decimal; an hour with no known time has zeros.
 */
export function timeline(p: Pick<ReadParts, 'storage'>, m: LiveMonitor, now: number, hours: number): TimelineHour[] {
  const h = hourOf(now);
  const sec = (ms: number) => Math.round(ms / 100) / 10;
  return p.storage.perHour(m.row.pk, h - hours + 1, h).map((a) => (a
    ? { up: sec(a.ms_up), degraded: sec(a.ms_degraded), down: sec(a.ms_down), maintenance: sec(a.ms_maint), checks: a.checks,
      uptime_pct: uptimePct(a) }
    : { up: 0, degraded: 0, down: 0, maintenance: 0, checks: 0, uptime_pct: null }));
}

export function results(p: ReadParts, m: LiveMonitor,
  q: { limit: number; offset: number; since?: string; until?: string; status?: ResultStatus }): { items: ResultOut[]; total: number } {
  const from = q.since ? Date.parse(q.since) : -Infinity;
  const to = q.until ? Date.parse(q.until) : Infinity;
  const r = p.storage.query(m.row.pk, { from, to, status: q.status, limit: q.limit, offset: q.offset });
  return { total: r.total, items: r.items.map(resultOut) };
}

/** Incidents overlapping [since, until], newest first. */
export function incidents(p: ReadParts, m: LiveMonitor, now: number, q: { limit: number; offset: number; since?: string; until?: string }):
  { items: IncidentOut[]; total: number } {
  const since = q.since ? Date.parse(q.since) : -1;
  const until = q.until ? Date.parse(q.until) : Number.MAX_SAFE_INTEGER;
  const cond = 'm = ? AND opened_at <= ? AND (closed_at IS NULL OR closed_at >= ?)';
  const total = p.store.get<{ n: number }>(`SELECT count(*) AS n FROM monitor_incidents WHERE ${cond}`, [m.row.pk, until, since])?.n ?? 0;
  const rows = p.store.all<IncidentRow>(`SELECT * FROM monitor_incidents WHERE ${cond} ORDER BY opened_at DESC, id LIMIT ? OFFSET ?`,
    [m.row.pk, until, since, q.limit, q.offset]);
  return { items: rows.map((r) => incidentOut(r, m.row.id, now, m.row.fail_streak)), total };
}

// ---- status badges (the topology canvas; GET /api/v1sion/monitor/status needs no sign-in) ----------

/** Worst first: the badge of an address shows the worst status of the monitors watching it. */
const SEVERITY: Record<MonitorStatus, number> = { down: 4, degraded: 3, unknown: 2, up: 1, paused: 0 };

/** Each monitor's id and status, nothing else. */
export function badges(p: Pick<ReadParts, 'registry'>): { id: string; status: MonitorStatus }[] {
  return p.registry.inOrder().map((m) => ({ id: m.row.id, status: m.row.status }));
}

/** The address a monitor watches (CheckDefinition.host), canonical; null for a name or none. By row object. */
const watched = new WeakMap<LiveMonitor['row'], string | null>();
export function watchedAddress(m: LiveMonitor): string | null {
  let a = watched.get(m.row);
  if (a === undefined) {
    const host = CHECKS[m.row.check_type]?.host(m.row.target, parseJsonObject(m.row.settings)) ?? null;
    a = host === null ? null : canonicalIp(host);
    watched.set(m.row, a);
  }
  return a;
}

/**
 * What the monitors on one address say. `status` and `monitors`: the worst status of them all and how
 * many. A host and the services on it fail apart (an HTTP 500 on a host that answers ping), so the
 * same monitors are also read twice: `reachability` says whether the host answers (reachable when any
 * monitor on it answered its last check: a ping, or a service, which proves the host too;
 * unreachable when a ping monitor on it is down and nothing answered; null when nothing tells), and
 * `services` counts the other monitors (everything but ping) and those down or degraded among them.
 */
export interface AddressStatus {
  ip: string;
  status: MonitorStatus | null;
  monitors: number;
  reachability: 'reachable' | 'unreachable' | null;
  /**
   * Failing: failed checks below the failure threshold (apart from degraded: slow or lossy answers).
   * Maintenance: services a maintenance window holds now, counted there and not as down, failing or degraded.
   */
  services: { total: number; down: number; failing: number; degraded: number; maintenance: number };
}

/** Check types that ask whether the host answers at all; every other check watches a service on it. */
const REACHABILITY_CHECKS: ReadonlySet<CheckType> = new Set<CheckType>(['ping']);
/** The target answered its last check: up, or degraded by slowness or loss (not a failure below the threshold). */
const answered = (m: LiveMonitor) => m.row.status === 'up' || (m.row.status === 'degraded' && m.row.fail_streak === 0);

/**
 * Per address (canonical IPs, as asked): the monitors whose target is that address, read as
 * AddressStatus; null and zeros when none watches it. Targets given as names do not match.
 */
export function statusByAddress(p: Pick<ReadParts, 'registry' | 'maintenance'>, ips: readonly string[]): AddressStatus[] {
  const out = new Map(ips.map((ip) => [ip, {
    ip, status: null as MonitorStatus | null, monitors: 0, answered: false, pingDown: false,
    services: { total: 0, down: 0, failing: 0, degraded: 0, maintenance: 0 },
  }]));
  for (const m of p.registry.inOrder()) {
    const a = watchedAddress(m);
    const hit = a === null ? undefined : out.get(a);
    if (!hit) continue;
    const st = m.row.status;
    hit.monitors++;
    if (hit.status === null || SEVERITY[st] > SEVERITY[hit.status]) hit.status = st;
    if (answered(m)) hit.answered = true;
    if (REACHABILITY_CHECKS.has(m.row.check_type)) {
      if (st === 'down') hit.pingDown = true;
      continue;
    }
    hit.services.total++;
    if (st !== 'paused' && p.maintenance?.openNow(m)) hit.services.maintenance++;
    else if (st === 'down') hit.services.down++;
    else if (st === 'degraded' && m.row.fail_streak > 0) hit.services.failing++;
    else if (st === 'degraded') hit.services.degraded++;
  }
  return [...out.values()].map(({ answered: ok, pingDown, ...rest }) => ({
    ...rest, reachability: ok ? 'reachable' : pingDown ? 'unreachable' : null,
  }));
}
