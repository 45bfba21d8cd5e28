// The monitor service: CRUD, applying check results (state machine, incidents, history, rollups, event
// log, bus events), the stats read from rollups, and clearing history. Changes made through the API are
// 'sync' writes; scheduled check results are 'group' writes (one per result, holding the raw row, the
// rollups, the monitor's new state and any incident or event it causes).
import type { Actor } from '../../core/http/registry.js';
import { randomUUID } from 'node:crypto';
import type { AppContext } from '../../core/context.js';
import { badRequest, HttpError, notFound, unavailable, type FieldError } from '../../core/http/errors.js';
import type { Logger } from '../../core/log.js';
import { UNREADABLE_SECRET } from '../../core/secretbox.js';
import type { Durability, Store, Tx } from '../../core/store/types.js';
import { mergeSecrets, minimumTimeout, redactSettings, runCheck, settingsShapeErrors, validateCheck } from './checks/index.js';
import type { CheckResult, CheckType } from './checks/types.js';
import { insertEvent } from './events-log.js';
import {
  LIMITS, MONITOR_COLUMNS, monitorOut, normaliseTags, parseJsonObject, parseTags,
  type CreateMonitorInput, type IncidentOut, type MonitorDetail, type MonitorListItem, type MonitorOut,
  type MonitorRow, type MonitorStatus, type ResultOut, type UpdateMonitorInput,
} from './model.js';
import {
  addRollupHist, addToRollups, avgMs, needsMinuteRollups, emptyHist, expandRollup, fromRtUnits, KIND, quantile, RESULT_CODE, RESULT_STATUS,
  toRtUnits, uptimePct, windowStart, type Aggregate, type ResultStatus,
} from './rollups.js';
import { Scheduler, type ScheduleSpec } from './scheduler.js';
import { newStandIn, openSettings, sealSettings } from './secrets.js';

// ---- configuration -----------------------------------------------------------------------------

/** Defaults of the `monitors` config section (src/core/config.ts holds the schema with the same defaults). */
export const MONITOR_DEFAULTS = {
  raw_retention_hours: 24,
  minute_retention_hours: 24,
  hour_retention_days: 30,
  day_retention_days: 365,
  max_concurrent_checks: 32,
  retention_interval_minutes: 10,
};
export type MonitorConfig = typeof MONITOR_DEFAULTS;

export function monitorConfig(app: Pick<AppContext, 'config'>): MonitorConfig {
  return { ...MONITOR_DEFAULTS, ...app.config.get().monitors };
}

// ---- bus events --------------------------------------------------------------------------------

export interface MonitorBusEvent {
  monitor: { id: string; name: string; target: string; check_type: CheckType; tags: string[] };
  previous_status: MonitorStatus;
  status: MonitorStatus;
  /** Consecutive failed checks after this result (0 after a success). */
  fail_streak: number;
  failure_threshold: number;
  result: ResultOut;
  incident: IncidentOut | null;
  occurred_at: string;
}

declare module '../../core/events.js' {
  interface EventMap {
    /** The monitor became down (failure_threshold consecutive failures); an incident opened. */
    'monitor.down': MonitorBusEvent;
    /** The monitor became up (from unknown, degraded or down; from down, `incident` is the one closed). */
    'monitor.up': MonitorBusEvent;
    /** The monitor became degraded (slow, partial loss, or failing below the threshold). */
    'monitor.degraded': MonitorBusEvent;
    /** A check failed (every failed check, whether or not the status changed). */
    'monitor.check_failed': MonitorBusEvent;
    /** The monitor was deleted through the API (other modules drop what refers to it, e.g. inventory links). */
    'monitor.deleted': { id: string; name: string };
    /**
     * A TLS check saw a certificate: once a day per monitor (when the certificate facts are recorded) and
     * whenever the certificate's expiry differs from the one recorded before (a renewed or swapped certificate).
     */
    'monitor.certificate': MonitorCertificateEvent;
  }
}

export interface MonitorCertificateEvent {
  monitor: MonitorBusEvent['monitor'];
  /** Expiry (notAfter) of the certificate the check saw. */
  valid_to: string;
  /** Whole days left, rounded down (0: expires within a day; negative: expired). */
  days_left: number;
  /** What the check recorded about the certificate (subject_cn, issuer, fingerprint256, ...). */
  cert: Record<string, unknown>;
  occurred_at: string;
}

/** A monitor as alert dependencies see it: identity and current state. */
export interface DependencyNode {
  id: string;
  name: string;
  status: MonitorStatus;
  /** Consecutive failed checks so far (0 after a success). */
  fail_streak: number;
}

// ---- the state machine (pure) ------------------------------------------------------------------

export interface MachineState { status: MonitorStatus; fail_streak: number }
export interface Transition {
  status: MonitorStatus;
  fail_streak: number;
  changed: boolean;
  /** The monitor just became down: open an incident. */
  openIncident: boolean;
  /** The monitor was down and a check succeeded: close the open incident. */
  closeIncident: boolean;
}

/**
 * A success is up or degraded (as the check says) and resets the failure run. A failure while the run of
 * consecutive failures is below the threshold is degraded; at the threshold it is down, and a down
 * monitor stays down until a check succeeds (even if the threshold is raised meanwhile).
 */
export function nextState(prev: MachineState, result: ResultStatus, threshold: number): Transition {
  if (result !== 'down') {
    return { status: result, fail_streak: 0, changed: prev.status !== result, openIncident: false, closeIncident: prev.status === 'down' };
  }
  const streak = prev.fail_streak + 1;
  const isDown = prev.status === 'down' || streak >= threshold;
  const status: MonitorStatus = isDown ? 'down' : 'degraded';
  return { status, fail_streak: streak, changed: prev.status !== status, openIncident: isDown && prev.status !== 'down', closeIncident: false };
}

// ---- helpers -----------------------------------------------------------------------------------

/** Who made an API change, and the audit entry for it (see RequestCtx.auditEntry). */

const DAY = 86_400_000;
const MAX_MESSAGE = 500;
const MAX_DICT_MESSAGE = 200;
/** Above this many dictionary entries, new messages are stored inline (bounds a dictionary of unique texts). */
const MAX_DICT = 10_000;
const MAX_DETAILS = 4096;
/** Grace on top of a check's own timeout before the service gives up on it. */
const GUARD_MS = 3000;

const iso = (ms: number) => new Date(ms).toISOString();
const redact = (type: CheckType, s: Record<string, unknown>) => redactSettings(type, s) as Record<string, unknown>;

interface IncidentRow {
  id: string; m: number; opened_at: number; closed_at: number | null; open_message: string | null;
  close_message: string | null; failures: number;
}
interface ResultRow { t: number; s: number; rt: number | null; message: string | null; d: string | null }

const RESULT_SELECT = `SELECT r.t AS t, r.s AS s, r.rt AS rt,
    CASE WHEN typeof(r.msg) = 'integer' THEN mm.text ELSE r.msg END AS message, r.d AS d
  FROM monitor_results r LEFT JOIN monitor_messages mm ON typeof(r.msg) = 'integer' AND mm.id = r.msg`;

function resultOut(r: ResultRow): ResultOut {
  return {
    at: iso(r.t),
    status: RESULT_STATUS[r.s] ?? 'down',
    response_time: fromRtUnits(r.rt),
    message: r.message ?? '',
    details: r.d ? parseJsonObject(r.d) : null,
  };
}

function incidentOut(r: IncidentRow, monitorId: string, now: number): IncidentOut {
  const end = r.closed_at ?? Math.max(now, r.opened_at);
  return {
    id: r.id,
    monitor_id: monitorId,
    opened_at: iso(r.opened_at),
    closed_at: r.closed_at == null ? null : iso(r.closed_at),
    duration: Math.round((end - r.opened_at) / 1000),
    message: r.open_message,
    close_message: r.close_message,
    failures: r.failures,
  };
}

/** Details JSON within MAX_DETAILS: large values are dropped, keeping the small top-level facts. */
function detailsJson(details: Record<string, unknown>): string | null {
  if (!details || !Object.keys(details).length) return null;
  let text: string;
  try { text = JSON.stringify(details); } catch { return null; }
  if (text.length <= MAX_DETAILS) return text;
  const small: Record<string, unknown> = { truncated: true };
  for (const [k, v] of Object.entries(details)) {
    const s = JSON.stringify(v);
    if (s !== undefined && s.length <= 512) small[k] = v;
  }
  text = JSON.stringify(small);
  return text.length <= MAX_DETAILS ? text : JSON.stringify({ truncated: true });
}

/** Expiry of the certificate a check saw (details.cert or details.certificate), epoch ms. */
function certValidTo(details: Record<string, unknown>, now: number): number | null {
  const c = (details.cert ?? details.certificate) as Record<string, unknown> | null | undefined;
  if (!c || typeof c !== 'object') return null;
  if (typeof c.valid_to === 'string') { const t = Date.parse(c.valid_to); if (!Number.isNaN(t)) return t; }
  if (typeof c.days_left === 'number') return now + c.days_left * DAY;
  return null;
}

/** The certificate object a check recorded (details.cert or details.certificate). */
function certFacts(details: Record<string, unknown>): Record<string, unknown> {
  const c = details.cert ?? details.certificate;
  return c && typeof c === 'object' ? { ...(c as Record<string, unknown>) } : {};
}

function aggregate(rows: (Aggregate & { hist?: Uint8Array | null })[], withHist: boolean): Aggregate & { hist: number[] } {
  const a: Aggregate & { hist: number[] } = { checks: 0, up: 0, degraded: 0, down: 0, rt_sum: 0, rt_count: 0, rt_min: null, rt_max: null, hist: emptyHist() };
  for (const r0 of rows) {
    const r = expandRollup(r0);
    a.checks += r.checks; a.up += r.up; a.degraded += r.degraded; a.down += r.down;
    a.rt_sum += r.rt_sum; a.rt_count += r.rt_count;
    if (r.rt_min != null) a.rt_min = a.rt_min == null ? r.rt_min : Math.min(a.rt_min, r.rt_min);
    if (r.rt_max != null) a.rt_max = a.rt_max == null ? r.rt_max : Math.max(a.rt_max, r.rt_max);
    if (withHist) addRollupHist(r, a.hist);
  }
  return a;
}

function spec(row: MonitorRow): ScheduleSpec {
  return { pk: row.pk, id: row.id, intervalMs: row.interval_s * 1000, lastCheck: row.last_check, paused: row.status === 'paused' };
}

interface Applied {
  result: ResultOut;
  events: { name: 'monitor.down' | 'monitor.up' | 'monitor.degraded' | 'monitor.check_failed'; payload: MonitorBusEvent }[];
  certificate: MonitorCertificateEvent | null;
}

// ---- the service -------------------------------------------------------------------------------

export class MonitorService {
  readonly scheduler: Scheduler;
  private readonly store: Store;
  private readonly log: Logger;
  private dictSize = -1;

  constructor(private readonly app: AppContext) {
    this.store = app.store;
    this.log = app.log.child('monitors');
    this.scheduler = new Scheduler({
      clock: app.clock,
      log: this.log,
      maxConcurrent: monitorConfig(app).max_concurrent_checks,
      run: (pk, signal) => this.runScheduled(pk, signal),
    });
  }

  private now(): number { return this.app.clock.now(); }

  /** Loads every monitor into the scheduler (start-up). */
  startScheduler(): void {
    const rows = this.store.all<MonitorRow>(`SELECT ${MONITOR_COLUMNS} FROM monitors`);
    this.scheduler.load(rows.map(spec));
    this.log.info('monitor scheduler started', { monitors: rows.length, max_concurrent: monitorConfig(this.app).max_concurrent_checks });
  }

  // ---- reads -----------------------------------------------------------------------------------

  private row(id: string): MonitorRow | undefined {
    return this.store.get<MonitorRow>(`SELECT ${MONITOR_COLUMNS} FROM monitors WHERE id = ?`, [id]);
  }

  private mustRow(id: string): MonitorRow {
    const r = this.row(id);
    if (!r) throw notFound('Monitor');
    return r;
  }

  list(filter: { status?: MonitorStatus; check_type?: CheckType; tag?: string } = {}): MonitorListItem[] {
    const now = this.now();
    let rows = this.store.all<MonitorRow>(`SELECT ${MONITOR_COLUMNS} FROM monitors ORDER BY name COLLATE NOCASE, pk`);
    if (filter.status) rows = rows.filter((r) => r.status === filter.status);
    if (filter.check_type) rows = rows.filter((r) => r.check_type === filter.check_type);
    if (filter.tag) rows = rows.filter((r) => parseTags(r.tags).includes(filter.tag!));
    const aggs = new Map<number, Aggregate>();
    for (const a of this.store.all<Aggregate & { m: number }>(
      // CROSS JOIN fixes the loop order: per monitor, a range seek on the rollups' primary key.
      `SELECT mo.pk AS m, SUM(r.checks) AS checks, SUM(r.up) AS up, SUM(r.degraded) AS degraded, SUM(r.down) AS down,
              SUM(r.rt_sum) AS rt_sum, SUM(r.rt_count) AS rt_count, NULL AS rt_min, NULL AS rt_max
         FROM monitors mo CROSS JOIN monitor_rollups r ON r.m = mo.pk AND r.k = ? AND r.b >= ?
        GROUP BY mo.pk`, [KIND.hour, windowStart(KIND.hour, now, 24)])) aggs.set(a.m, a);
    const incidents = new Map<number, number>();
    for (const i of this.store.all<{ m: number; n: number }>(
      'SELECT m, count(*) AS n FROM monitor_incidents WHERE closed_at IS NULL OR closed_at >= ? GROUP BY m', [now - DAY])) {
      incidents.set(i.m, i.n);
    }
    const parents = this.parentMap();
    return rows.map((r) => {
      const a = aggs.get(r.pk);
      return {
        ...monitorOut(r, redact, parents.get(r.pk) ?? []),
        stats_24h: {
          uptime_pct: a ? uptimePct(a) : null,
          avg_response_ms: a ? avgMs(a) : null,
          checks: a?.checks ?? 0,
          incidents: incidents.get(r.pk) ?? 0,
        },
      };
    });
  }

  get(id: string): MonitorDetail {
    return this.detail(this.mustRow(id));
  }

  private detail(row: MonitorRow): MonitorDetail {
    const now = this.now();
    type R = Aggregate & { hist: Uint8Array | null };
    const sel = `SELECT checks, up, degraded, down, rt_sum, rt_count, rt_min, rt_max, hist
      FROM monitor_rollups WHERE m = ? AND k = ? AND b >= ?`;
    const h24 = aggregate(this.store.all<R>(sel, [row.pk, KIND.hour, windowStart(KIND.hour, now, 24)]), true);
    const h7d = aggregate(this.store.all<R>(sel.replace('rt_max, hist', 'rt_max, NULL AS hist'), [row.pk, KIND.hour, windowStart(KIND.hour, now, 24 * 7)]), false);
    const d30 = aggregate(this.store.all<R>(sel.replace('rt_max, hist', 'rt_max, NULL AS hist'), [row.pk, KIND.day, windowStart(KIND.day, now, 30)]), false);
    const open = this.store.get<IncidentRow>('SELECT * FROM monitor_incidents WHERE m = ? AND closed_at IS NULL ORDER BY opened_at DESC LIMIT 1', [row.pk]);
    const last = this.store.get<ResultRow>(`${RESULT_SELECT} WHERE r.m = ? ORDER BY r.t DESC LIMIT 1`, [row.pk]);
    const p95 = quantile(h24.hist, 0.95, h24.rt_min, h24.rt_max);
    return {
      ...monitorOut(row, redact, this.parentIds(this.store, row.pk)),
      stats: {
        uptime_24h: uptimePct(h24),
        uptime_7d: uptimePct(h7d),
        uptime_30d: uptimePct(d30),
        p95_response_ms_24h: p95 == null ? null : Math.round(p95) / 100,
        avg_response_ms_24h: avgMs(h24),
        checks_24h: h24.checks,
        current_incident: open ? incidentOut(open, row.id, now) : null,
        cert_days_left: row.cert_valid_to == null ? null : Math.floor((row.cert_valid_to - now) / DAY),
        last_result: last ? resultOut(last) : null,
      },
    };
  }

  counts(): Record<MonitorStatus | 'total', number> {
    const out = { up: 0, down: 0, degraded: 0, paused: 0, unknown: 0, total: 0 };
    for (const r of this.store.all<{ status: MonitorStatus; n: number }>('SELECT status, count(*) AS n FROM monitors GROUP BY status')) {
      out[r.status] += r.n;
      out.total += r.n;
    }
    return out;
  }

  tags(): string[] {
    const set = new Set<string>();
    for (const r of this.store.all<{ tags: string }>('SELECT tags FROM monitors')) for (const t of parseTags(r.tags)) set.add(t);
    return [...set].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }

  results(id: string, q: { limit: number; offset: number; since?: string; until?: string; status?: ResultStatus }): { items: ResultOut[]; total: number } {
    const row = this.mustRow(id);
    const since = q.since ? Date.parse(q.since) : -1;
    const until = q.until ? Date.parse(q.until) : Number.MAX_SAFE_INTEGER;
    const statusCond = q.status ? ' AND r.s = ?' : '';
    const params = q.status ? [row.pk, since, until, RESULT_CODE[q.status]] : [row.pk, since, until];
    const total = this.store.get<{ n: number }>(
      `SELECT count(*) AS n FROM monitor_results r WHERE r.m = ? AND r.t >= ? AND r.t <= ?${statusCond}`, params)?.n ?? 0;
    const rows = this.store.all<ResultRow>(
      `${RESULT_SELECT} WHERE r.m = ? AND r.t >= ? AND r.t <= ?${statusCond} ORDER BY r.t DESC LIMIT ? OFFSET ?`,
      [...params, q.limit, q.offset]);
    return { items: rows.map(resultOut), total };
  }

  /** Incidents overlapping [since, until], newest first. */
  incidents(id: string, q: { limit: number; offset: number; since?: string; until?: string }): { items: IncidentOut[]; total: number } {
    const row = this.mustRow(id);
    const since = q.since ? Date.parse(q.since) : -1;
    const until = q.until ? Date.parse(q.until) : Number.MAX_SAFE_INTEGER;
    const cond = 'm = ? AND opened_at <= ? AND (closed_at IS NULL OR closed_at >= ?)';
    const total = this.store.get<{ n: number }>(`SELECT count(*) AS n FROM monitor_incidents WHERE ${cond}`, [row.pk, until, since])?.n ?? 0;
    const rows = this.store.all<IncidentRow>(
      `SELECT * FROM monitor_incidents WHERE ${cond} ORDER BY opened_at DESC, id LIMIT ? OFFSET ?`,
      [row.pk, until, since, q.limit, q.offset]);
    const now = this.now();
    return { items: rows.map((r) => incidentOut(r, row.id, now)), total };
  }

  // ---- alert dependencies (parent monitors) ---------------------------------------------------

  /** Parent ids of every monitor that has parents, by monitor pk. */
  private parentMap(): Map<number, string[]> {
    const out = new Map<number, string[]>();
    for (const r of this.store.all<{ m: number; id: string }>(
      'SELECT mp.m AS m, p.id AS id FROM monitor_parents mp JOIN monitors p ON p.pk = mp.parent ORDER BY p.name COLLATE NOCASE, p.pk')) {
      const list = out.get(r.m);
      if (list) list.push(r.id); else out.set(r.m, [r.id]);
    }
    return out;
  }

  private parentIds(reader: Pick<Tx, 'all'>, pk: number): string[] {
    return reader.all<{ id: string }>(
      'SELECT p.id AS id FROM monitor_parents mp JOIN monitors p ON p.pk = mp.parent WHERE mp.m = ? ORDER BY p.name COLLATE NOCASE, p.pk',
      [pk]).map((r) => r.id);
  }

  /**
   * Replaces a monitor's parents inside its write. Each must exist, differ from the monitor and not
   * depend on it (directly or through others): that would be a cycle. Errors name `parents.<i>`.
   */
  private setParents(tx: Tx, pk: number, ids: readonly string[]): void {
    const errors: FieldError[] = [];
    const pks: number[] = [];
    const unique = [...new Set(ids)];
    unique.forEach((id) => {
      const i = ids.indexOf(id);
      const p = tx.get<{ pk: number; name: string }>('SELECT pk, name FROM monitors WHERE id = ?', [id]);
      if (!p) { errors.push({ path: `parents.${i}`, message: 'No monitor with this id' }); return; }
      if (p.pk === pk) { errors.push({ path: `parents.${i}`, message: 'A monitor cannot be its own parent' }); return; }
      // Would the parent (or one of its ancestors) be this monitor? Walk up from the parent.
      const seen = new Set<number>([p.pk]);
      let frontier = [p.pk];
      while (frontier.length) {
        const next: number[] = [];
        for (const f of frontier) {
          for (const r of tx.all<{ parent: number }>('SELECT parent FROM monitor_parents WHERE m = ?', [f])) {
            if (r.parent === pk) {
              errors.push({ path: `parents.${i}`, message: `"${p.name}" depends on this monitor: that would be a cycle` });
              return;
            }
            if (!seen.has(r.parent)) { seen.add(r.parent); next.push(r.parent); }
          }
        }
        frontier = next;
      }
      pks.push(p.pk);
    });
    if (errors.length) throw badRequest(`Invalid monitor: ${errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`, errors);
    tx.run('DELETE FROM monitor_parents WHERE m = ?', [pk]);
    for (const parent of pks) tx.run('INSERT INTO monitor_parents (m, parent) VALUES (?, ?)', [pk, parent]);
  }

  /** Walks the dependency graph from a monitor (up to its ancestors or down to its descendants), nearest first. */
  private walk(id: string, direction: 'up' | 'down'): DependencyNode[] {
    const start = this.row(id);
    if (!start) return [];
    const sql = direction === 'up'
      ? `SELECT mo.pk AS pk, mo.id AS id, mo.name AS name, mo.status AS status, mo.fail_streak AS fail_streak
           FROM monitor_parents mp JOIN monitors mo ON mo.pk = mp.parent WHERE mp.m = ?`
      : `SELECT mo.pk AS pk, mo.id AS id, mo.name AS name, mo.status AS status, mo.fail_streak AS fail_streak
           FROM monitor_parents mp JOIN monitors mo ON mo.pk = mp.m WHERE mp.parent = ?`;
    const seen = new Set<number>([start.pk]);
    const out: DependencyNode[] = [];
    let frontier = [start.pk];
    while (frontier.length) {
      const next: number[] = [];
      for (const f of frontier) {
        for (const r of this.store.all<DependencyNode & { pk: number }>(sql, [f])) {
          if (seen.has(r.pk)) continue;
          seen.add(r.pk);
          next.push(r.pk);
          out.push({ id: r.id, name: r.name, status: r.status, fail_streak: r.fail_streak });
        }
      }
      frontier = next;
    }
    return out;
  }

  /** The monitor's parents, their parents and so on, with their current state (nearest first). */
  ancestors(id: string): DependencyNode[] { return this.walk(id, 'up'); }

  /** The monitors that depend on this one, directly or through others, with their current state. */
  descendants(id: string): DependencyNode[] { return this.walk(id, 'down'); }

  // ---- validation ------------------------------------------------------------------------------

  private validate(v: {
    check_type: CheckType; target: string; interval: number; timeout: number; max_loss_pct: number | null;
    settings: unknown;
  }, blame: { timeout: 'timeout' | 'interval'; max_loss_pct: 'max_loss_pct' | 'check_type' }): Record<string, unknown> {
    const errors: FieldError[] = [];
    if (v.timeout >= v.interval) {
      errors.push(blame.timeout === 'timeout'
        ? { path: 'timeout', message: `Must be less than interval (${v.interval} s)` }
        : { path: 'interval', message: `Must be greater than timeout (${v.timeout} s)` });
    }
    if (v.max_loss_pct != null && v.check_type !== 'ping') {
      errors.push({ path: blame.max_loss_pct, message: 'max_loss_pct applies only to ping monitors' });
    }
    const c = validateCheck(v.check_type, v.target, v.settings);
    if (!c.ok) errors.push(...c.errors);
    // A ping run takes count x per-packet timeout; a shorter monitor timeout would fail every check.
    const needed = c.ok ? minimumTimeout(v.check_type, c.settings) : 1;
    if (c.ok && v.timeout < needed) {
      errors.push({ path: 'timeout', message: `Must be at least ${needed} s: the ping settings take that long (count x per_packet_timeout_ms, plus 1 s)` });
    }
    if (errors.length || !c.ok) {
      const first = errors.slice(0, 3).map((e) => `${e.path}: ${e.message}`).join('; ');
      throw badRequest(`Invalid monitor: ${first}${errors.length > 3 ? ` (and ${errors.length - 3} more)` : ''}`, errors);
    }
    return c.settings;
  }

  // ---- changes through the API (sync writes) ---------------------------------------------------

  async create(input: CreateMonitorInput, by: Actor): Promise<MonitorDetail> {
    const interval = input.interval ?? LIMITS.interval.default;
    const timeout = input.timeout ?? Math.min(LIMITS.timeout.default, interval - 1);
    const max_loss_pct = input.max_loss_pct ?? null;
    const settings = this.validate(
      { check_type: input.check_type, target: input.target, interval, timeout, max_loss_pct, settings: input.settings ?? {} },
      { timeout: 'timeout', max_loss_pct: 'max_loss_pct' });
    const id = randomUUID();
    const now = this.now();
    const tags = normaliseTags(input.tags ?? []);
    const stored = sealSettings(this.app.secretbox, input.check_type, settings, {});
    const row = await this.store.write((tx) => {
      tx.run(
        `INSERT INTO monitors (id, name, target, check_type, interval_s, timeout_s, failure_threshold, degraded_ms,
           max_loss_pct, tags, settings, status, fail_streak, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'unknown', 0, ?, ?)`,
        [id, input.name, input.target, input.check_type, interval, timeout,
          input.failure_threshold ?? LIMITS.failure_threshold.default, input.degraded_ms ?? null, max_loss_pct,
          JSON.stringify(tags), JSON.stringify(stored), now, now]);
      const r = tx.get<MonitorRow>(`SELECT ${MONITOR_COLUMNS} FROM monitors WHERE id = ?`, [id])!;
      if (input.parents?.length) this.setParents(tx, r.pk, input.parents);
      const shown = monitorOut(r, redact, this.parentIds(tx, r.pk));
      insertEvent(tx, { t: now, kind: 'created', monitor_id: id, monitor_name: r.name, to_status: 'unknown', actor: by.actor,
        details: configOf(shown) });
      this.app.audit.insert(tx, by.auditEntry('monitors.create', r.name, { id, check_type: r.check_type, target: r.target }));
      return r;
    }, 'sync');
    this.scheduler.add(spec(row));
    return this.detail(row);
  }

  async update(id: string, input: UpdateMonitorInput, by: Actor): Promise<MonitorDetail> {
    const old = this.mustRow(id);
    const type = input.check_type ?? old.check_type;
    const typeChanged = type !== old.check_type;
    if (input.settings !== undefined) {
      // Before anything walks the input (merge, clone): a wrong shape, however deep, is a 400 here.
      const shape = settingsShapeErrors(type, input.settings);
      if (shape.length) throw badRequest(`Invalid monitor: ${shape.slice(0, 3).map((e) => `${e.path}: ${e.message}`).join('; ')}`, shape);
    }
    const storedSettings = parseJsonObject(old.settings);
    // Stored secrets opened for the merge and the comparison; one this probe cannot open is kept as it is.
    const standIn = newStandIn();
    const oldSettings = openSettings(this.app.secretbox, old.check_type, storedSettings, standIn).settings;
    const rawSettings = input.settings !== undefined
      ? (typeChanged ? input.settings : mergeSecrets(type, input.settings, oldSettings))
      : (typeChanged ? {} : oldSettings);
    const interval = input.interval ?? old.interval_s;
    const timeout = input.timeout ?? old.timeout_s;
    let max_loss_pct = input.max_loss_pct !== undefined ? input.max_loss_pct : old.max_loss_pct;
    if (type !== 'ping' && input.max_loss_pct === undefined) max_loss_pct = null; // type changed away from ping
    const target = input.target ?? old.target;
    const settings = this.validate(
      { check_type: type, target, interval, timeout, max_loss_pct, settings: rawSettings },
      { timeout: input.timeout !== undefined ? 'timeout' : 'interval', max_loss_pct: input.max_loss_pct != null ? 'max_loss_pct' : 'check_type' });
    const next = {
      name: input.name ?? old.name,
      target,
      check_type: type,
      interval_s: interval,
      timeout_s: timeout,
      failure_threshold: input.failure_threshold ?? old.failure_threshold,
      degraded_ms: input.degraded_ms !== undefined ? input.degraded_ms : old.degraded_ms,
      max_loss_pct,
      tags: input.tags !== undefined ? JSON.stringify(normaliseTags(input.tags)) : old.tags,
      settings: JSON.stringify(typeChanged ? sealSettings(this.app.secretbox, type, settings, {})
        : sealSettings(this.app.secretbox, type, settings, storedSettings, standIn)),
    };
    const changed = (Object.keys(next) as (keyof typeof next)[]).filter((k) => next[k] !== old[k]);
    const oldParents = this.parentIds(this.store, old.pk);
    const parentsChanged = input.parents !== undefined &&
      JSON.stringify([...new Set(input.parents)].sort()) !== JSON.stringify([...oldParents].sort());
    if (!changed.length && !parentsChanged) return this.detail(old);
    const recheck = changed.some((k) => ['target', 'check_type', 'settings', 'timeout_s', 'degraded_ms', 'max_loss_pct'].includes(k));
    const targetChanged = changed.includes('target') || changed.includes('check_type');
    const now = this.now();
    const row = await this.store.write((tx) => {
      const cur = tx.get<MonitorRow>(`SELECT ${MONITOR_COLUMNS} FROM monitors WHERE pk = ?`, [old.pk]);
      if (!cur) throw notFound('Monitor');
      tx.run(
        `UPDATE monitors SET name = ?, target = ?, check_type = ?, interval_s = ?, timeout_s = ?, failure_threshold = ?,
           degraded_ms = ?, max_loss_pct = ?, tags = ?, settings = ?, updated_at = ?,
           cert_valid_to = CASE WHEN ? THEN NULL ELSE cert_valid_to END,
           cert_checked_at = CASE WHEN ? THEN NULL ELSE cert_checked_at END
         WHERE pk = ?`,
        [next.name, next.target, next.check_type, next.interval_s, next.timeout_s, next.failure_threshold, next.degraded_ms,
          next.max_loss_pct, next.tags, next.settings, now, targetChanged ? 1 : 0, targetChanged ? 1 : 0, old.pk]);
      if (parentsChanged) this.setParents(tx, old.pk, input.parents!);
      const r = tx.get<MonitorRow>(`SELECT ${MONITOR_COLUMNS} FROM monitors WHERE pk = ?`, [old.pk])!;
      const before = configOf(monitorOut(old, redact, oldParents));
      const after = configOf(monitorOut(r, redact, this.parentIds(tx, old.pk)));
      const changes: Record<string, { from: unknown; to: unknown }> = {};
      for (const k of Object.keys(after)) {
        if (JSON.stringify(before[k]) !== JSON.stringify(after[k])) changes[k] = { from: before[k], to: after[k] };
      }
      if (changed.includes('settings') && !changes.settings) changes.settings = { from: '(secret changed)', to: '(secret changed)' };
      insertEvent(tx, { t: now, kind: 'updated', monitor_id: id, monitor_name: r.name, actor: by.actor, details: { changes } });
      this.app.audit.insert(tx, by.auditEntry('monitors.update', r.name, { id, fields: Object.keys(changes) }));
      return r;
    }, 'sync');
    this.scheduler.update(spec(row), recheck);
    return this.detail(row);
  }

  async remove(id: string, by: Actor): Promise<void> {
    const old = this.mustRow(id);
    const now = this.now();
    await this.store.write((tx) => {
      const cur = tx.get<{ pk: number }>('SELECT pk FROM monitors WHERE pk = ?', [old.pk]);
      if (!cur) throw notFound('Monitor');
      const results = tx.run('DELETE FROM monitor_results WHERE m = ?', [old.pk]).changes;
      tx.run('DELETE FROM monitor_rollups WHERE m = ?', [old.pk]);
      const incidents = tx.run('DELETE FROM monitor_incidents WHERE m = ?', [old.pk]).changes;
      tx.run('DELETE FROM monitor_parents WHERE m = ? OR parent = ?', [old.pk, old.pk]);
      tx.run('DELETE FROM monitors WHERE pk = ?', [old.pk]);
      insertEvent(tx, { t: now, kind: 'deleted', monitor_id: id, monitor_name: old.name, from_status: old.status, actor: by.actor,
        details: { results_deleted: results, incidents_deleted: incidents } });
      this.app.audit.insert(tx, by.auditEntry('monitors.delete', old.name, { id, check_type: old.check_type, target: old.target }));
    }, 'sync');
    this.scheduler.remove(old.pk);
    this.app.bus.emit('monitor.deleted', { id, name: old.name });
  }

  /**
   * Pause toggles: a paused monitor is not checked; pausing closes an open incident ("monitor paused").
   * Resuming makes it unknown (fresh failure run) and checks it at once.
   */
  async togglePause(id: string, by: Actor): Promise<MonitorDetail> {
    const old = this.mustRow(id);
    const now = this.now();
    const row = await this.store.write((tx) => {
      const cur = tx.get<MonitorRow>(`SELECT ${MONITOR_COLUMNS} FROM monitors WHERE pk = ?`, [old.pk]);
      if (!cur) throw notFound('Monitor');
      const to: MonitorStatus = cur.status === 'paused' ? 'unknown' : 'paused';
      tx.run('UPDATE monitors SET status = ?, fail_streak = 0, updated_at = ? WHERE pk = ?', [to, now, cur.pk]);
      if (to === 'paused') this.closeOpenIncident(tx, cur, now, 'monitor paused');
      insertEvent(tx, { t: now, kind: to === 'paused' ? 'paused' : 'resumed', monitor_id: cur.id, monitor_name: cur.name,
        from_status: cur.status, to_status: to, actor: by.actor });
      this.app.audit.insert(tx, by.auditEntry(to === 'paused' ? 'monitors.pause' : 'monitors.resume', cur.name, { id: cur.id }));
      return tx.get<MonitorRow>(`SELECT ${MONITOR_COLUMNS} FROM monitors WHERE pk = ?`, [cur.pk])!;
    }, 'sync');
    if (row.status === 'paused') this.scheduler.pause(row.pk);
    else this.scheduler.resume(spec(row));
    return this.detail(row);
  }

  /**
   * Runs a check now, outside the schedule (after a running one ends), applies it like a scheduled
   * result (also on a paused monitor, whose status then stays paused) and records a manual_check event.
   */
  async checkNow(id: string, by: Actor): Promise<{ result: ResultOut; monitor: MonitorDetail }> {
    const first = this.mustRow(id);
    let applied: Applied | null;
    try {
      applied = await this.scheduler.exclusive(first.pk, async (signal) => {
        const row = this.store.get<MonitorRow>(`SELECT ${MONITOR_COLUMNS} FROM monitors WHERE pk = ?`, [first.pk]);
        if (!row) throw notFound('Monitor');
        const at = this.now();
        const result = await this.execute(row, signal);
        if (signal.aborted) throw new HttpError(409, 'conflict', 'The monitor was changed, paused or deleted while it was being checked');
        return this.apply(row, result, at, { manualBy: by.actor }, 'sync');
      });
    } catch (e) {
      if (e instanceof HttpError) throw e;
      if (e instanceof Error && /scheduler is stopped/.test(e.message)) throw unavailable('The service is stopping', 'stopping');
      throw e;
    }
    if (!applied) throw notFound('Monitor');
    this.emit(applied);
    return { result: applied.result, monitor: this.get(id) };
  }

  /**
   * Clears all monitor check history: raw results, rollups, closed incidents, the event log and the
   * message dictionary. An open incident is kept (the monitor is still down; it closes on recovery).
   * Monitors keep their current status and last check. Then one history_cleared event is recorded.
   */
  async clearHistory(by: Actor): Promise<{ deleted: { results: number; rollups: number; incidents: number; events: number }; kept_open_incidents: number }> {
    const now = this.now();
    const out = await this.store.write((tx) => {
      const deleted = {
        results: tx.run('DELETE FROM monitor_results').changes,
        rollups: tx.run('DELETE FROM monitor_rollups').changes,
        incidents: tx.run('DELETE FROM monitor_incidents WHERE closed_at IS NOT NULL').changes,
        events: tx.run('DELETE FROM monitor_events').changes,
      };
      tx.run('DELETE FROM monitor_messages');
      const kept = tx.get<{ n: number }>('SELECT count(*) AS n FROM monitor_incidents')?.n ?? 0;
      insertEvent(tx, { t: now, kind: 'history_cleared', actor: by.actor, details: { deleted, kept_open_incidents: kept } });
      this.app.audit.insert(tx, by.auditEntry('monitors.history_cleared', null, { ...deleted, kept_open_incidents: kept }));
      return { deleted, kept_open_incidents: kept };
    }, 'sync');
    this.dictSize = 0;
    return out;
  }

  // ---- checks ----------------------------------------------------------------------------------

  /** One scheduled check: starts the check in this turn, then applies the result in a group write. */
  private async runScheduled(pk: number, signal: AbortSignal): Promise<void> {
    const row = this.store.get<MonitorRow>(`SELECT ${MONITOR_COLUMNS} FROM monitors WHERE pk = ?`, [pk]);
    if (!row || row.status === 'paused') return;
    const at = this.now();
    const result = await this.execute(row, signal);
    if (signal.aborted) return; // paused, deleted, changed or stopping: the result is thrown away
    const applied = await this.apply(row, result, at, {}, 'group');
    if (applied) this.emit(applied);
  }

  /**
   * Runs the check (started synchronously, so checks due together start in one turn) with a guard a
   * little past its timeout, in case a check ignores its deadline.
   */
  private execute(row: MonitorRow, signal: AbortSignal): Promise<CheckResult> {
    const opened = openSettings(this.app.secretbox, row.check_type, parseJsonObject(row.settings));
    if (opened.unreadable.length) {
      // Sealed under another probe's machine key (a restored database) or altered: only a new value helps.
      return Promise.resolve({ status: 'down', response_time_ms: null, message: `${UNREADABLE_SECRET} (${opened.unreadable.join(', ')})`,
        details: { unreadable_secrets: opened.unreadable } });
    }
    const ctrl = new AbortController();
    const onAbort = () => ctrl.abort(signal.reason);
    if (signal.aborted) ctrl.abort(signal.reason);
    else signal.addEventListener('abort', onAbort, { once: true });
    let guard: NodeJS.Timeout | undefined;
    const check = runCheck(row.check_type, row.target, opened.settings, {
      timeout: row.timeout_s, degraded_ms: row.degraded_ms, max_loss_pct: row.max_loss_pct, signal: ctrl.signal,
    });
    const limit = new Promise<CheckResult>((resolve) => {
      guard = setTimeout(() => {
        ctrl.abort(new Error('check guard'));
        resolve({ status: 'down', response_time_ms: null, message: `check did not finish within ${row.timeout_s} s`, details: {} });
      }, row.timeout_s * 1000 + GUARD_MS);
      guard.unref?.();
    });
    return Promise.race([check, limit]).finally(() => {
      if (guard) clearTimeout(guard);
      signal.removeEventListener('abort', onAbort);
    });
  }

  private messageRef(tx: Tx, text: string): number | string {
    if (text.length > MAX_DICT_MESSAGE) return text.slice(0, MAX_MESSAGE);
    const hit = tx.get<{ id: number }>('SELECT id FROM monitor_messages WHERE text = ?', [text]);
    if (hit) return hit.id;
    if (this.dictSize < 0) this.dictSize = tx.get<{ n: number }>('SELECT count(*) AS n FROM monitor_messages')?.n ?? 0;
    if (this.dictSize >= MAX_DICT) return text;
    const r = tx.get<{ id: number }>('INSERT INTO monitor_messages (text) VALUES (?) RETURNING id', [text]);
    this.dictSize++;
    return r!.id;
  }

  /** After the retention job collected unused dictionary entries. */
  resetDictionaryCount(): void { this.dictSize = -1; }

  private closeOpenIncident(tx: Tx, row: MonitorRow, t: number, message: string): IncidentRow | null {
    const inc = tx.get<IncidentRow>('SELECT * FROM monitor_incidents WHERE m = ? AND closed_at IS NULL ORDER BY opened_at DESC LIMIT 1', [row.pk]);
    if (!inc) return null;
    tx.run('UPDATE monitor_incidents SET closed_at = ?, close_message = ? WHERE m = ? AND closed_at IS NULL', [t, message, row.pk]);
    const closed = { ...inc, closed_at: t, close_message: message };
    insertEvent(tx, { t, kind: 'incident_closed', monitor_id: row.id, monitor_name: row.name, message,
      details: { incident_id: inc.id, opened_at: iso(inc.opened_at), duration: Math.round((t - inc.opened_at) / 1000), failures: inc.failures } });
    return closed;
  }

  /**
   * Applies one result: raw row, rollups, the state machine, incidents, events, in one write.
   * Returns null when the monitor is gone, or paused and the check was a scheduled one.
   */
  private async apply(row0: MonitorRow, result: CheckResult, at: number, opts: { manualBy?: string | null }, durability: Durability): Promise<Applied | null> {
    const manual = opts.manualBy !== undefined;
    return this.store.write((tx): Applied | null => {
      const row = tx.get<MonitorRow>(`SELECT ${MONITOR_COLUMNS} FROM monitors WHERE pk = ?`, [row0.pk]);
      if (!row || row.id !== row0.id) return null;
      const paused = row.status === 'paused';
      if (paused && !manual) return null;
      // Unique per monitor and increasing, even with a clock that stands still or steps back.
      const t = Math.max(at, (row.last_check ?? -Infinity) + 1);
      const status = result.status;
      const rt = toRtUnits(result.response_time_ms);
      const message = (result.message || (status === 'up' ? 'OK' : 'check failed')).slice(0, MAX_MESSAGE);
      const trans = paused
        ? { status: row.status, fail_streak: row.fail_streak, changed: false, openIncident: false, closeIncident: false }
        : nextState(row, status, row.failure_threshold);
      const validTo = certValidTo(result.details ?? {}, t);
      const certDue = validTo != null && (row.cert_checked_at == null || t - row.cert_checked_at >= DAY);
      const keepDetails = status !== 'up' || trans.changed || manual || certDue;
      const d = keepDetails ? detailsJson(result.details ?? {}) : null;

      tx.run('INSERT INTO monitor_results (m, t, s, rt, msg, d) VALUES (?, ?, ?, ?, ?, ?)',
        [row.pk, t, RESULT_CODE[status], rt, this.messageRef(tx, message), d]);
      addToRollups(tx, row.pk, t, status, rt, needsMinuteRollups(row.interval_s));
      tx.run(
        `UPDATE monitors SET status = ?, fail_streak = ?, last_check = ?, last_rt = ?, last_message = ?,
           cert_valid_to = ?, cert_checked_at = ? WHERE pk = ?`,
        [trans.status, trans.fail_streak, t, rt, message, validTo ?? row.cert_valid_to,
          certDue ? t : row.cert_checked_at, row.pk]);

      let incident: IncidentRow | null = null;
      if (trans.openIncident) {
        incident = { id: randomUUID(), m: row.pk, opened_at: t, closed_at: null, open_message: message, close_message: null, failures: trans.fail_streak };
        tx.run('INSERT INTO monitor_incidents (id, m, opened_at, open_message, failures) VALUES (?, ?, ?, ?, ?)',
          [incident.id, row.pk, t, message, trans.fail_streak]);
      } else if (status === 'down' && row.status === 'down') {
        tx.run('UPDATE monitor_incidents SET failures = failures + 1 WHERE m = ? AND closed_at IS NULL', [row.pk]);
        incident = tx.get<IncidentRow>('SELECT * FROM monitor_incidents WHERE m = ? AND closed_at IS NULL ORDER BY opened_at DESC LIMIT 1', [row.pk]) ?? null;
      }
      if (trans.changed) {
        insertEvent(tx, { t, kind: 'status_change', monitor_id: row.id, monitor_name: row.name, from_status: row.status,
          to_status: trans.status, message, details: { response_time: fromRtUnits(rt), fail_streak: trans.fail_streak } });
      }
      if (trans.openIncident && incident) {
        insertEvent(tx, { t, kind: 'incident_opened', monitor_id: row.id, monitor_name: row.name, message,
          details: { incident_id: incident.id, failures: trans.fail_streak } });
      }
      if (trans.closeIncident) incident = this.closeOpenIncident(tx, row, t, message);
      if (manual) {
        insertEvent(tx, { t, kind: 'manual_check', monitor_id: row.id, monitor_name: row.name, from_status: row.status,
          to_status: trans.status, message, actor: opts.manualBy ?? null,
          details: { result: status, response_time: fromRtUnits(rt) } });
      }

      const out: ResultOut = { at: iso(t), status, response_time: fromRtUnits(rt), message, details: result.details ?? {} };
      const base: Omit<MonitorBusEvent, 'incident'> = {
        monitor: { id: row.id, name: row.name, target: row.target, check_type: row.check_type, tags: parseTags(row.tags) },
        previous_status: row.status,
        status: trans.status,
        fail_streak: trans.fail_streak,
        failure_threshold: row.failure_threshold,
        result: out,
        occurred_at: iso(t),
      };
      const payload: MonitorBusEvent = { ...base, incident: incident ? incidentOut(incident, row.id, t) : null };
      const events: Applied['events'] = [];
      if (paused) return { result: out, events, certificate: null }; // no alerts for a paused monitor
      const certificate: MonitorCertificateEvent | null = validTo != null && (certDue || validTo !== row.cert_valid_to)
        ? { monitor: base.monitor, valid_to: iso(validTo), days_left: Math.floor((validTo - t) / DAY),
          cert: certFacts(result.details ?? {}), occurred_at: iso(t) }
        : null;
      if (trans.changed) {
        if (trans.status === 'down') events.push({ name: 'monitor.down', payload });
        else if (trans.status === 'up') events.push({ name: 'monitor.up', payload });
        else if (trans.status === 'degraded') events.push({ name: 'monitor.degraded', payload });
      }
      if (status === 'down') events.push({ name: 'monitor.check_failed', payload });
      return { result: out, events, certificate };
    }, durability);
  }

  private emit(applied: Applied): void {
    for (const e of applied.events) this.app.bus.emit(e.name, e.payload);
    if (applied.certificate) this.app.bus.emit('monitor.certificate', applied.certificate);
  }
}

/** The configuration fields of a monitor as the event log shows them (settings redacted). */
function configOf(m: MonitorOut): Record<string, unknown> {
  return {
    name: m.name, target: m.target, check_type: m.check_type, interval: m.interval, timeout: m.timeout,
    failure_threshold: m.failure_threshold, tags: m.tags, degraded_ms: m.degraded_ms, max_loss_pct: m.max_loss_pct,
    settings: m.settings, parents: m.parents,
  };
}

