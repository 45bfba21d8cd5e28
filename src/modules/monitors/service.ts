// The monitor service: CRUD and reads, pause, manual checks, clearing history. Changes made through the
// API are 'sync' writes. The other concerns live beside it: check results and their write (results.ts),
// the state machine (state.ts), the dependency graph (dependencies.ts), the bus contract (contracts.ts),
// the scheduler (scheduler.ts). Monitors live in memory (live.ts); their results over time are a series
// each in the storage (storage/index.ts), loaded at start-up; reads are in queries.ts. See
// docs/monitors.md, "Storage".
import { randomUUID } from 'node:crypto';
import type { AppContext } from '../../core/context.js';
import type { Actor } from '../../core/audit/types.js';
import { badRequest, HttpError, notFound, unavailable, type FieldError } from '../../core/errors.js';
import type { Logger } from '../../core/log.js';
import type { Store, Tx } from '../../core/store/types.js';
import {
  CHECK_TYPES, CHECKS, checkReferences, mergeSecrets, minimumTimeout, movesSecrets, readsThreshold, redactSettings, secretsNotResent,
  settingsShapeErrors, validateCheck, type CheckType,
} from './checks/index.js';
import { checkServicesOf } from './check-services.js';
import { monitorConfig } from './config.js';
import type { ParentsSetBy, ProposedParents, ProposedParentsOutcome } from './contracts.js';
import { setParents, walk, type DependencyNode } from './dependencies.js';
import { insertEvent } from './events-log.js';
import { ListImage } from './list-image.js';
import { applyResult, applyState, capMsOf, Registry, type LiveMonitor } from './live.js';
import { rowImage } from './row-image.js';
import { SeriesStore, type ResultStatus, type SeriesNames, type SeriesState } from './storage/index.js';
import {
  LIMITS, normaliseTags, parseJsonObject, parseTags, MONITOR_COLUMNS,
  type CreateMonitorInput, type IncidentOut, type MonitorDetail, type MonitorOut,
  type MonitorRow, type MonitorStatus, type ResultOut, type UpdatedMonitor, type UpdateMonitorInput,
} from './schemas.js';
import * as q from './queries.js';
import { ResultRecorder, type Applied } from './results.js';
import { AlertGate } from './alert-gate/gate.js';
import { GATE_RULES } from './alert-gate/rules.js';
import { MaintenanceWindows } from './maintenance/windows.js';
import type { ListItems } from './stream.js';
import { iso } from '../../core/clock.js';
import { gridOf, Scheduler, type ScheduleSpec, type SchedulerStats } from './scheduler.js';
import { newStandIn, openSettings, sealSettings } from './secrets.js';

export { nextState, type MachineState, type Transition } from './state.js';
export type { DependencyNode } from './dependencies.js';

// ---- helpers -----------------------------------------------------------------------------------

const HOUR = 3_600_000;
const STATE_SAVED = 'state_saved_at';

/** The monitors' series: their channel, tables and start-up image (migrations.ts). */
export const MONITOR_SERIES: SeriesNames = {
  channel: 'monitors.results', rollups: 'monitor_rollups', measureRollups: 'monitor_measure_rollups',
  messages: 'monitor_messages', measures: 'monitor_measures', meta: 'monitor_meta', imageFile: 'netprobe.monitors.image',
  legacyResults: 'monitor_results',
};


/** Why a stored secret is missing after an update that moved the monitor (see movesSecrets). */
const DROPPED_NOTE = 'the stored value is not sent to a new destination (the target\'s scheme, host or port, or the check type, ' +
  'changed): send it again';

function spec(row: MonitorRow): ScheduleSpec {
  const intervalMs = row.interval_s * 1000;
  // Every check sits on a grid (scheduler.ts, gridOf): 50 ms for most, a few seconds for batched ones (ping:
  // one fping per batch), so that the checks due at one point start together and share their wake-ups.
  const batched = CHECKS[row.check_type]?.batched ?? false;
  return { pk: row.pk, id: row.id, intervalMs, lastCheck: row.last_check, paused: row.status === 'paused',
    alignMs: gridOf(intervalMs, batched), batched };
}

const stateOf = (row: MonitorRow): SeriesState => ({ status: row.status, fail_streak: row.fail_streak });


// ---- the service -------------------------------------------------------------------------------

export class MonitorService {
  readonly scheduler: Scheduler;
  readonly registry = new Registry();
  /** Every monitor's results over time: a series each, its key the monitor's pk. */
  readonly storage: SeriesStore;
  private readonly store: Store;
  private readonly log: Logger;
  private readonly reads: q.ReadParts;
  /** Runs checks and applies their results (results.ts); the bench seeds history through it. */
  readonly recorder: ResultRecorder;
  /** Decides whether a monitor event alerts anybody (alert-gate/gate.ts). */
  readonly gate: AlertGate;
  /** Maintenance windows: the gate holds the alerts of the monitors in an open one (maintenance/windows.ts). */
  readonly maintenance: MaintenanceWindows;

  constructor(private readonly app: AppContext) {
    this.store = app.store;
    this.log = app.log.child('monitors');
    this.storage = new SeriesStore(app, {
      names: MONITOR_SERIES, log: this.log,
      settings: () => {
        const c = monitorConfig(app);
        return { rawRetentionHours: c.raw_retention_hours, imageEveryHours: c.startup_image_hours };
      },
      capOf: (pk) => {
        const m = this.registry.get(pk);
        return m ? capMsOf(m.row) : null;
      },
      keys: () => [...this.registry.all()].map((m) => m.row.pk).sort((a, b) => a - b),
      section: rowImage(this.registry),
      // The dropped entries may be a monitor's last: its state goes into the table first (unless saved since).
      beforeDrop: async (cut) => { if (this.stateSavedAt() < cut) await this.saveState(); },
      // Maintenance time counts in no uptime (maintenance/windows.ts keeps the windows as they happened).
      aside: (pk, from, to) => {
        const m = this.registry.get(pk);
        return m && this.maintenance ? this.maintenance.asideFor(m, from, to) : [];
      },
    });
    this.reads = {
      store: this.store, registry: this.registry, storage: this.storage,
      image: new ListImage(this.registry, (m, now, h, gen) => q.lineBytes(this.reads, m, now, h, gen)),
    };
    this.maintenance = new MaintenanceWindows(app, {
      registry: this.registry, log: this.log, timezone: () => app.config.get().probe.timezone,
      // Outages a window held are told at once: a check now carries the held down (alert-gate/gate.ts).
      closed: (monitors) => { for (const m of monitors) this.scheduler.checkSoon(m.row.pk); },
    });
    this.reads.maintenance = this.maintenance;
    this.gate = new AlertGate(GATE_RULES, (m) => walk(this.registry, m, 'up'), (m, at) => this.maintenance.openFor(m, at));
    this.recorder = new ResultRecorder(app, this);
    this.scheduler = new Scheduler({
      clock: app.clock,
      log: this.log,
      maxConcurrent: monitorConfig(app).max_concurrent_checks,
      run: (pk, signal) => this.runScheduled(pk, signal),
    });
  }

  private now(): number { return this.app.clock.now(); }

  /**
   * Start-up: the monitors (their rows, parents and open incidents), then their series (storage/), whose
   * latest entries say each monitor's state: the table holds it only as of its last save.
   */
  async init(): Promise<void> {
    const t0 = performance.now();
    this.registry.load(this.store, this.now());
    this.maintenance.load();
    const got = await this.storage.load();
    for (const [pk, l] of got.latest) {
      const row = this.registry.get(pk)!.row;
      if (l.state) applyState(row, l.state);
      if (l.result) applyResult(row, l.result, l.result.message);
    }
    const startup = this.storage.startup;
    this.log.info('monitors loaded', {
      monitors: this.registry.size, results: got.results, channel_entries: startup.entries, imported_rows: got.imported,
      startup_image: startup.image, ms: Math.round(performance.now() - t0),
    });
  }

  /** Loads every monitor into the scheduler and starts the hourly rollups (start-up). */
  startScheduler(): void {
    this.scheduler.load([...this.registry.all()].map((m) => spec(m.row)));
    this.storage.start();
    this.maintenance.start();
    const max = monitorConfig(this.app).max_concurrent_checks;
    this.log.info('monitor scheduler started', { monitors: this.registry.size, max_concurrent: max });
    this.warmUp();
  }

  /**
   * After start-up, 100 monitors at a time between other work: makes every monitor's list line once, so that the
   * first list after a restart copies cached lines like every other one (made cold in one request, 2,000
   * lines held that request for about 50 ms and a check due meanwhile up to 40 ms). Then the list image is
   * made from them: the first time, cold, that took 15 ms at 2,000 monitors, later ones 2-4 ms.
   */
  private warmUp(): void {
    const lines = this.listLines(), order = this.registry.inOrder();
    let i = 0;
    const step = () => {
      for (const end = Math.min(i + 100, lines.length); i < end; i++) {
        lines.at(i);
        // Its settings validated too: a check's first start after a restart did it, and every ping check due
        // at a point starts in one turn (167 of them at 1,000 ping monitors).
        const m = order[i];
        if (m) this.recorder.prepared(m);
      }
      if (i < lines.length) setImmediate(step);
      else setImmediate(() => this.reads.image.warm(this.now()));
    };
    setImmediate(step);
  }

  // ---- reads -----------------------------------------------------------------------------------

  /** The list's image (list-image.ts): its rebuild counts show whether start-up made it (tests, diagnostics). */
  get listImage(): ListImage { return this.reads.image; }

  private mustMonitor(id: string): LiveMonitor {
    const m = this.registry.byId(id);
    if (!m) throw notFound('Monitor');
    return m;
  }

  /** The list (GET /api/monitors) as each monitor's line of JSON, made as they are asked for (queries.ts). */
  listLines(filter: { status?: MonitorStatus; check_type?: CheckType; tag?: string } = {}): ListItems {
    return q.listLines(this.reads, this.now(), filter);
  }

  get(id: string): MonitorDetail {
    return q.detail(this.reads, this.mustMonitor(id), this.now());
  }

  /**
   * The time-weighted status of the last `hours` hours of the monitors asked for (all when `ids` is not
   * given; unknown ids are left out): what the status bars draw (queries.ts, timeline).
   */
  timeline(ids: string[] | undefined, hours: number): { hours: number; step: number; from: string; to: string;
    monitors: { id: string; segments: q.TimelineHour[] }[] } {
    const now = this.now();
    const from = (Math.floor(now / HOUR) - hours + 1) * HOUR;
    const list = ids ? ids.map((id) => this.registry.byId(id)).filter((m): m is LiveMonitor => !!m) : this.registry.inOrder();
    return { hours, step: 3600, from: iso(from), to: iso(now),
      monitors: list.map((m) => ({ id: m.row.id, segments: q.timeline(this.reads, m, now, hours) })) };
  }

  counts(): Record<MonitorStatus | 'total', number> {
    const out = { up: 0, down: 0, degraded: 0, paused: 0, unknown: 0, total: 0 };
    for (const m of this.registry.all()) { out[m.row.status]++; out.total++; }
    return out;
  }

  tags(): string[] {
    const set = new Set<string>();
    for (const m of this.registry.all()) for (const t of m.tags) set.add(t);
    return [...set].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }

  results(id: string, query: { limit: number; offset: number; since?: string; until?: string; status?: ResultStatus }):
    { items: ResultOut[]; total: number } {
    return q.results(this.reads, this.mustMonitor(id), query);
  }

  incidents(id: string, query: { limit: number; offset: number; since?: string; until?: string }): { items: IncidentOut[]; total: number } {
    return q.incidents(this.reads, this.mustMonitor(id), this.now(), query);
  }

  /** The scheduler's state and how late checks started; `recent` adds that many of the latest slots. */
  schedulerState(recent = 0): SchedulerStats & { recent?: { slot: string; lag_ms: number }[] } {
    const st = this.scheduler.stats();
    if (!recent) return st;
    return { ...st, recent: this.scheduler.recentLag(recent).map((r) => ({ slot: iso(r.slot), lag_ms: r.lag_ms })) };
  }

  /** Each monitor's id and status only (topology badges, served without sign-in). */
  badges(): { id: string; status: MonitorStatus }[] {
    return q.badges(this.reads);
  }

  /** Per canonical IP address: the worst status of the monitors watching it, how many, reachability and services. */
  statusByAddress(ips: readonly string[]): q.AddressStatus[] {
    return q.statusByAddress(this.reads, ips);
  }

  /** The monitor's parents, their parents and so on, with their current state (nearest first). */
  ancestors(id: string): DependencyNode[] {
    const m = this.registry.byId(id);
    return m ? walk(this.registry, m, 'up') : [];
  }

  /** The monitors that depend on this one, directly or through others, with their current state. */
  descendants(id: string): DependencyNode[] {
    const m = this.registry.byId(id);
    return m ? walk(this.registry, m, 'down') : [];
  }

  // ---- parents proposed from elsewhere (discovery's topology) ------------------------------------

  /**
   * Who set each monitor's parents, by monitor id (monitors without parents are left out): `person` when
   * any of its links came from the API's parents field, else `proposal` with the proposal that set them.
   */
  parentsSetBy(): Map<string, ParentsSetBy> {
    const out = new Map<string, ParentsSetBy>();
    const rows = this.store.all<{ m: number; proposed_from: string | null }>('SELECT m, proposed_from FROM monitor_parents');
    const byPk = new Map<number, (string | null)[]>();
    for (const r of rows) (byPk.get(r.m) ?? byPk.set(r.m, []).get(r.m)!).push(r.proposed_from);
    for (const [pk, froms] of byPk) {
      const m = this.registry.get(pk);
      if (!m) continue;
      const person = froms.some((f) => f === null);
      out.set(m.row.id, { parents: this.registry.parentIds(m), set_by: person ? 'person' : 'proposal',
        proposed_from: person ? null : froms[0]! });
    }
    return out;
  }

  /**
   * Sets proposed parents in one write, never over a person's: a monitor whose parents a person set keeps
   * them (`kept`); one without parents, or whose parents an earlier proposal set, gets the proposed ones
   * (`applied`; an empty list clears a proposal's). A parent that is gone or would make a cycle refuses that
   * monitor only (`refused`). Each change is in the monitor's event log with why; one audit entry for all.
   */
  async applyProposedParents(items: readonly ProposedParents[], origin: string, by: Actor): Promise<ProposedParentsOutcome[]> {
    const now = this.now();
    return this.store.write((tx) => {
      const out: ProposedParentsOutcome[] = [];
      for (const item of items) {
        const m = this.registry.byId(item.id);
        if (!m) { out.push({ id: item.id, outcome: 'refused', message: 'No monitor with this id' }); continue; }
        const links = tx.all<{ parent: number; proposed_from: string | null }>(
          'SELECT parent, proposed_from FROM monitor_parents WHERE m = ?', [m.row.pk]);
        if (links.some((l) => l.proposed_from === null)) {
          out.push({ id: item.id, outcome: 'kept', message: 'A person set its parents: they are kept' });
          continue;
        }
        const before = this.registry.parentIds(m);
        const want = [...new Set(item.parents)];
        if (want.length === before.length && want.every((p) => before.includes(p))) {
          out.push({ id: item.id, outcome: 'unchanged' });
          continue;
        }
        try {
          setParents(tx, this.registry, m.row.pk, want, origin);
        } catch (e) {
          if (!(e instanceof HttpError)) throw e;
          out.push({ id: item.id, outcome: 'refused', message: e.message });
          continue;
        }
        insertEvent(tx, { t: now, kind: 'updated', monitor_id: m.row.id, monitor_name: m.row.name, actor: by.actor,
          message: `Parents from the topology: ${item.why}`,
          details: { changes: { parents: { from: before, to: want } }, proposed_from: origin } });
        out.push({ id: item.id, outcome: 'applied' });
      }
      const applied = out.filter((o) => o.outcome === 'applied').map((o) => o.id);
      if (applied.length) {
        this.app.audit.insert(tx, by.auditEntry('monitors.parents_proposed', origin,
          { applied: applied.length, monitors: applied.slice(0, 100) }));
      }
      return out;
    }, 'sync');
  }

  // ---- validation ------------------------------------------------------------------------------

  private validate(v: {
    check_type: CheckType; target: string; interval: number; timeout: number; max_loss_pct: number | null;
    settings: unknown;
  }, blame: { timeout: 'timeout' | 'interval'; max_loss_pct: 'max_loss_pct' | 'check_type' },
  dropped: readonly string[] = []): Record<string, unknown> {
    const errors: FieldError[] = [];
    if (v.timeout >= v.interval) {
      errors.push(blame.timeout === 'timeout'
        ? { path: 'timeout', message: `Must be less than interval (${v.interval} s)` }
        : { path: 'interval', message: `Must be greater than timeout (${v.timeout} s)` });
    }
    if (v.max_loss_pct != null && !readsThreshold(v.check_type, 'max_loss_pct')) {
      const types = CHECK_TYPES.filter((t) => readsThreshold(t, 'max_loss_pct')).join(' and ');
      errors.push({ path: blame.max_loss_pct, message: `max_loss_pct applies only to ${types} monitors` });
    }
    const c = validateCheck(v.check_type, v.target, v.settings);
    if (!c.ok) errors.push(...c.errors.map((e) => (dropped.includes(e.path) ? { ...e, message: `${e.message}; ${DROPPED_NOTE}` } : e)));
    // A ping run takes count x per-packet timeout: a shorter monitor timeout would fail every check.
    const needed = c.ok ? minimumTimeout(v.check_type, c.settings) : 1;
    if (c.ok && v.timeout < needed) {
      errors.push({
        path: 'timeout',
        message: `Must be at least ${needed} s: the ${v.check_type} settings take that long (${CHECKS[v.check_type].minimumTimeoutReason})`,
      });
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
    await checkReferences(input.check_type, input.target, settings, checkServicesOf(this.app));
    const id = randomUUID();
    const now = this.now();
    const tags = normaliseTags(input.tags ?? []);
    const stored = sealSettings(this.app.secretbox, input.check_type, settings, {});
    const m = await this.store.write((tx) => {
      tx.run(
        `INSERT INTO monitors (id, name, target, check_type, interval_s, timeout_s, failure_threshold, degraded_ms,
           max_loss_pct, tags, settings, status, fail_streak, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'unknown', 0, ?, ?)`,
        [id, input.name, input.target, input.check_type, interval, timeout,
          input.failure_threshold ?? LIMITS.failure_threshold.default, input.degraded_ms ?? null, max_loss_pct,
          JSON.stringify(tags), JSON.stringify(stored), now, now]);
      const r = tx.get<MonitorRow>(`SELECT ${MONITOR_COLUMNS} FROM monitors WHERE id = ?`, [id])!;
      // In the registry at once: setParents and the event below read it (a failed write drops it again).
      const live = this.registry.put(r);
      try {
        if (input.parents?.length) setParents(tx, this.registry, r.pk, input.parents);
        live.parents = input.parents?.length ? [...new Set(input.parents)].map((p) => this.registry.byId(p)!.row.pk) : [];
        insertEvent(tx, { t: now, kind: 'created', monitor_id: id, monitor_name: r.name, to_status: 'unknown', actor: by.actor,
          details: configOf(q.outOf(this.reads, live)) });
        this.app.audit.insert(tx, by.auditEntry('monitors.create', r.name, { id, check_type: r.check_type, target: r.target }));
      } catch (e) {
        this.registry.remove(r.pk);
        throw e;
      }
      return live;
    }, 'sync');
    this.scheduler.add(spec(m.row));
    return q.detail(this.reads, m, this.now());
  }

  async update(id: string, input: UpdateMonitorInput, by: Actor): Promise<UpdatedMonitor> {
    const live = this.mustMonitor(id);
    const old = live.row;
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
    const target = input.target ?? old.target;
    // Stored secrets are bound to the type and the target's destination: elsewhere, only those sent again go.
    const moved = movesSecrets(old.check_type, old.target, type, target);
    const rawSettings = input.settings !== undefined
      ? mergeSecrets(type, input.settings, moved ? {} : oldSettings)
      : typeChanged ? {} : moved ? mergeSecrets(type, redactSettings(type, oldSettings), {}) : oldSettings;
    const dropped = moved ? secretsNotResent(old.check_type, oldSettings, type, rawSettings) : [];
    const interval = input.interval ?? old.interval_s;
    const timeout = input.timeout ?? old.timeout_s;
    let max_loss_pct = input.max_loss_pct !== undefined ? input.max_loss_pct : old.max_loss_pct;
    // The type changed to one without a loss threshold (away from ping): the old value goes.
    if (!readsThreshold(type, 'max_loss_pct') && input.max_loss_pct === undefined) max_loss_pct = null;
    const settings = this.validate(
      { check_type: type, target, interval, timeout, max_loss_pct, settings: rawSettings },
      { timeout: input.timeout !== undefined ? 'timeout' : 'interval',
        max_loss_pct: input.max_loss_pct != null ? 'max_loss_pct' : 'check_type' }, dropped);
    // What the settings refer to (snmp: a stored credential within its scope), when what refers changes.
    if (input.target !== undefined || input.check_type !== undefined || input.settings !== undefined) {
      await checkReferences(type, target, settings, checkServicesOf(this.app));
    }
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
    const oldParents = this.registry.parentIds(live);
    const parentsChanged = input.parents !== undefined &&
      JSON.stringify([...new Set(input.parents)].sort()) !== JSON.stringify([...oldParents].sort());
    if (!changed.length && !parentsChanged) return q.detail(this.reads, live, this.now());
    const recheck = changed.some((k) => ['target', 'check_type', 'settings', 'timeout_s', 'degraded_ms', 'max_loss_pct'].includes(k));
    const targetChanged = changed.includes('target') || changed.includes('check_type');
    const now = this.now();
    const m = await this.store.write((tx) => {
      const cur = this.registry.get(old.pk);
      if (!cur) throw notFound('Monitor');
      tx.run(
        `UPDATE monitors SET name = ?, target = ?, check_type = ?, interval_s = ?, timeout_s = ?, failure_threshold = ?,
           degraded_ms = ?, max_loss_pct = ?, tags = ?, settings = ?, updated_at = ?,
           cert_valid_to = CASE WHEN ? THEN NULL ELSE cert_valid_to END,
           cert_checked_at = CASE WHEN ? THEN NULL ELSE cert_checked_at END
         WHERE pk = ?`,
        [next.name, next.target, next.check_type, next.interval_s, next.timeout_s, next.failure_threshold, next.degraded_ms,
          next.max_loss_pct, next.tags, next.settings, now, targetChanged ? 1 : 0, targetChanged ? 1 : 0, old.pk]);
      const row: MonitorRow = { ...cur.row, ...next, updated_at: now };
      if (targetChanged) {
        // The certificate facts were the old target's: the state in the channel says so too.
        row.cert_valid_to = null;
        row.cert_checked_at = null;
        this.storage.setState(tx, row.pk, { ...stateOf(row), cert: { valid_to: null, checked_at: null } }, now, capMsOf(row));
      }
      if (parentsChanged) setParents(tx, this.registry, old.pk, input.parents!);
      const before = configOf(q.outOf(this.reads, live));
      const after = configOf(q.outOf(this.reads, { ...live, row, tags: parseTags(row.tags), shown: null,
        parents: parentsChanged ? [...new Set(input.parents!)].map((p) => this.registry.byId(p)!.row.pk) : live.parents }));
      const changes: Record<string, { from: unknown; to: unknown }> = {};
      for (const k of Object.keys(after)) {
        if (JSON.stringify(before[k]) !== JSON.stringify(after[k])) changes[k] = { from: before[k], to: after[k] };
      }
      if (changed.includes('settings') && !changes.settings) changes.settings = { from: '(secret changed)', to: '(secret changed)' };
      insertEvent(tx, { t: now, kind: 'updated', monitor_id: id, monitor_name: row.name, actor: by.actor, details: { changes } });
      this.app.audit.insert(tx, by.auditEntry('monitors.update', row.name,
        { id, fields: Object.keys(changes), ...(dropped.length ? { secrets_dropped: dropped } : {}) }));
      let put: LiveMonitor = cur;
      tx.onCommit(() => { put = this.registry.put(row); });
      return () => put;
    }, 'sync');
    const updated = m();
    this.scheduler.update(spec(updated.row), recheck);
    return { ...q.detail(this.reads, updated, this.now()), ...(dropped.length ? { secrets_dropped: dropped } : {}) };
  }

  async remove(id: string, by: Actor): Promise<void> {
    const old = this.mustMonitor(id).row;
    const now = this.now();
    await this.store.write((tx) => {
      if (!this.registry.get(old.pk)) throw notFound('Monitor');
      const results = this.storage.forget(tx, old.pk);
      const incidents = tx.run('DELETE FROM monitor_incidents WHERE m = ?', [old.pk]).changes;
      tx.run('DELETE FROM monitor_parents WHERE m = ? OR parent = ?', [old.pk, old.pk]);
      tx.run('DELETE FROM monitors WHERE pk = ?', [old.pk]);
      insertEvent(tx, { t: now, kind: 'deleted', monitor_id: id, monitor_name: old.name, from_status: old.status, actor: by.actor,
        details: { results_deleted: results, incidents_deleted: incidents } });
      this.app.audit.insert(tx, by.auditEntry('monitors.delete', old.name, { id, check_type: old.check_type, target: old.target }));
      tx.onCommit(() => this.registry.remove(old.pk));
    }, 'sync');
    this.scheduler.remove(old.pk);
    this.app.bus.emit('monitor.deleted', { id, name: old.name });
  }

  /**
   * Pause toggles: a paused monitor is not checked; pausing closes an open incident ("monitor paused").
   * Resuming makes it unknown (fresh failure run) and checks it at once.
   */
  async togglePause(id: string, by: Actor): Promise<MonitorDetail> {
    const old = this.mustMonitor(id);
    const now = this.now();
    const m = await this.store.write((tx) => {
      const cur = this.registry.get(old.row.pk);
      if (!cur) throw notFound('Monitor');
      const from = cur.row.status;
      const to: MonitorStatus = from === 'paused' ? 'unknown' : 'paused';
      tx.run('UPDATE monitors SET status = ?, fail_streak = 0, updated_at = ? WHERE pk = ?', [to, now, cur.row.pk]);
      if (to === 'paused') this.recorder.closeOpenIncident(tx, cur, now, 'monitor paused');
      // Paused and unknown time does not count in uptime (storage/hours.ts).
      this.storage.setState(tx, cur.row.pk, { status: to, fail_streak: 0 }, now, capMsOf(cur.row));
      insertEvent(tx, { t: now, kind: to === 'paused' ? 'paused' : 'resumed', monitor_id: cur.row.id, monitor_name: cur.row.name,
        from_status: from, to_status: to, actor: by.actor });
      this.app.audit.insert(tx, by.auditEntry(to === 'paused' ? 'monitors.pause' : 'monitors.resume', cur.row.name, { id: cur.row.id }));
      let put = cur;
      tx.onCommit(() => { put = this.registry.put({ ...cur.row, status: to, fail_streak: 0, updated_at: now }); });
      return () => put;
    }, 'sync');
    const updated = m();
    if (updated.row.status === 'paused') this.scheduler.pause(updated.row.pk);
    else this.scheduler.resume(spec(updated.row));
    return q.detail(this.reads, updated, this.now());
  }

  /**
   * Runs a check now, outside the schedule (after a running one ends), applies it like a scheduled
   * result (also on a paused monitor, whose status then stays paused) and records a manual_check event.
   */
  async checkNow(id: string, by: Actor): Promise<{ result: ResultOut; monitor: MonitorDetail }> {
    const first = this.mustMonitor(id);
    let applied: Applied | null;
    try {
      applied = await this.scheduler.exclusive(first.row.pk, async (signal) => {
        const m = this.registry.get(first.row.pk);
        if (!m) throw notFound('Monitor');
        const at = this.now();
        const result = await this.recorder.execute(m, signal);
        if (signal.aborted) throw new HttpError(409, 'conflict', 'The monitor was changed, paused or deleted while it was being checked');
        return this.recorder.apply(m, result, at, { manualBy: by.actor }, 'sync');
      });
    } catch (e) {
      if (e instanceof HttpError) throw e;
      if (e instanceof Error && /scheduler is stopped/.test(e.message)) throw unavailable('The service is stopping', 'stopping');
      throw e;
    }
    if (!applied) throw notFound('Monitor');
    this.recorder.emit(applied);
    return { result: applied.result, monitor: this.get(id) };
  }

  /**
   * Clears all monitor check history: raw results, rollups, closed incidents, the event log and the
   * message dictionary. An open incident is kept (the monitor is still down; it closes on recovery).
   * Monitors keep their current status and last check. Then one history_cleared event is recorded.
   */
  async clearHistory(by: Actor):
    Promise<{ deleted: { results: number; rollups: number; incidents: number; events: number }; kept_open_incidents: number }> {
    const now = this.now();
    const out = await this.store.write((tx) => {
      // The channel's results go too: what they say of each monitor's state is saved in the table first.
      this.saveStateIn(tx, now);
      const series = this.storage.clear(tx);
      const deleted = {
        ...series,
        incidents: tx.run('DELETE FROM monitor_incidents WHERE closed_at IS NOT NULL').changes,
        events: tx.run('DELETE FROM monitor_events').changes,
      };
      const kept = tx.get<{ n: number }>('SELECT count(*) AS n FROM monitor_incidents')?.n ?? 0;
      insertEvent(tx, { t: now, kind: 'history_cleared', actor: by.actor, details: { deleted, kept_open_incidents: kept } });
      this.app.audit.insert(tx, by.auditEntry('monitors.history_cleared', null, { ...deleted, kept_open_incidents: kept }));
      tx.onCommit(() => {
        for (const m of this.registry.all()) m.closed = [];
        this.registry.touch();
      });
      return { deleted, kept_open_incidents: kept };
    }, 'sync');
    await this.storage.dropCleared();
    return out;
  }

  /**
   * Writes every monitor's state (status, failure run, last check, certificate expiry) into the table:
   * before the retention job drops channel segments, the last entries of a monitor may be in them.
   * 'sync': the segments are deleted right after, so the saved state must be on disk first (a 'group'
   * write resolves at commit, up to group_commit_ms before its fsync). About once a day.
   */
  async saveState(): Promise<void> {
    const now = this.now();
    await this.store.write((tx) => this.saveStateIn(tx, now), 'sync');
  }

  /** When the table last got the state (monitor_meta state_saved_at), or 0. */
  stateSavedAt(): number {
    return this.store.get<{ value: number }>('SELECT value FROM monitor_meta WHERE key = ?', [STATE_SAVED])?.value ?? 0;
  }

  private saveStateIn(tx: Tx, now: number): void {
    const rows = [...this.registry.all()].map(({ row: r }) =>
      [r.pk, r.status, r.fail_streak, r.last_check, r.last_rt, r.last_message, r.cert_valid_to, r.cert_checked_at]);
    tx.run(`UPDATE monitors SET status = j.value->>1, fail_streak = j.value->>2, last_check = j.value->>3, last_rt = j.value->>4,
        last_message = j.value->>5, cert_valid_to = j.value->>6, cert_checked_at = j.value->>7
      FROM json_each(?) AS j WHERE monitors.pk = j.value->>0`, [JSON.stringify(rows)]);
    tx.run('INSERT INTO monitor_meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value', [STATE_SAVED, now]);
  }

  // ---- checks ----------------------------------------------------------------------------------

  /** One scheduled check: starts the check in this turn, then applies the result in a group write. */
  private async runScheduled(pk: number, signal: AbortSignal): Promise<void> {
    const m = this.registry.get(pk);
    if (!m || m.row.status === 'paused') return;
    const at = this.now();
    const result = await this.recorder.execute(m, signal);
    if (signal.aborted) return; // paused, deleted, changed or stopping: the result is thrown away
    const applied = await this.recorder.apply(m, result, at, {}, 'group');
    if (!applied) return;
    this.recorder.emit(applied);
    const live = this.registry.get(pk); // the same entry unless the monitor was changed meanwhile
    if (live) q.refreshLine(this.reads, live, this.now());
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

