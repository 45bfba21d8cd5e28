// Every monitor in memory, as the service reads it: its row (configuration, and the state checks change:
// status, failure run, last check, certificate expiry), what the API shows parsed once (tags, redacted
// settings, parent ids), its open incident and the incidents it closed in the last day. Reads (the list
// of 2,000 monitors, every scheduled check) never go to SQL for these.
//
// The state checks change is authoritative here: the monitors channel carries it with every result
// (channel.ts), and the monitors table holds it only as of the last time it was saved (service.ts,
// saveState), which is enough for monitors whose channel entries are all gone.
import type { Store } from '../../core/store/types.js';
import { holdOfRow, type Hold, type HoldRow } from './alert-gate/hold.js';
import type { PreparedCheck } from './checks/index.js';
import { MONITOR_COLUMNS, parseTags, type MonitorRow } from './schemas.js';
import type { SeriesState } from './storage/index.js';

export interface IncidentRow {
  id: string; m: number; opened_at: number; closed_at: number | null; open_message: string | null;
  close_message: string | null; failures: number;
}

export interface LiveMonitor {
  row: MonitorRow;
  /** The name folded as SQLite's NOCASE folds it (ASCII only), for the list's order. */
  key: string;
  tags: string[];
  /** Redacted settings as responses show them (computed on first use, dropped when the row changes). */
  shown: Record<string, unknown> | null;
  /** The list item's JSON around the fields checks change (queries.ts), and the registry generation it is of. */
  view: { gen: number; head: string; tail: string } | null;
  /** The whole list line (queries.ts, listLines), and what it was made from. */
  line: { gen: number; t: number | null; status: string; hour: number; incidents: number; bytes: Buffer } | null;
  /** Settings a scheduled check runs with, validated once (kept only when they hold no secret). */
  prepared: PreparedCheck | null;
  parents: number[];
  open: IncidentRow | null;
  /** When incidents of the last day closed (stats_24h.incidents counts these and the open one). */
  closed: number[];
  /** The problem alert the alert gate holds back until its rule lets go (alert-gate/gate.ts). */
  hold: Hold | null;
  /**
   * What its last check kept for the next (CheckContext.memory: snmp's "changed"), with the target and settings it
   * was read under: in memory only, and not handed to a check of other target or settings.
   */
  memory: { of: string; value: unknown } | null;
}

const DAY = 86_400_000;

/** How long a monitor's status counts after the result that set it (its series' capMs): two intervals plus the timeout. */
export const capMsOf = (row: { interval_s: number; timeout_s: number }): number => (2 * row.interval_s + row.timeout_s) * 1000;

/** The state fields an entry sets on a monitor's row. */
export function applyState(row: MonitorRow, state: SeriesState): void {
  row.status = state.status;
  row.fail_streak = state.fail_streak;
  if (state.cert) {
    row.cert_valid_to = state.cert.valid_to;
    row.cert_checked_at = state.cert.checked_at;
  }
}

/** The last-check fields a result sets on a monitor's row (rt in hundredths of a millisecond). */
export function applyResult(row: MonitorRow, r: { t: number; rt: number | null }, message: string): void {
  row.last_check = r.t;
  row.last_rt = r.rt;
  row.last_message = message;
}

export class Registry {
  private byPk = new Map<number, LiveMonitor>();
  private byUuid = new Map<string, LiveMonitor>();
  private sorted: LiveMonitor[] | null = null;
  /** Monitors whose list line may show something new since the list image last asked (list-image.ts). */
  private changedSet = new Set<LiveMonitor>();
  /** Bumped by every change a cached view may depend on (rows, names, parents). */
  gen = 0;

  /** Loads the monitors, their parents and incidents (start-up). */
  load(store: Pick<Store, 'all'>, now: number): void {
    for (const row of store.all<MonitorRow>(`SELECT ${MONITOR_COLUMNS} FROM monitors`)) this.put(row);
    for (const p of store.all<{ m: number; parent: number }>('SELECT m, parent FROM monitor_parents')) {
      this.byPk.get(p.m)?.parents.push(p.parent);
    }
    for (const i of store.all<IncidentRow>(
      'SELECT * FROM monitor_incidents WHERE closed_at IS NULL OR closed_at >= ? ORDER BY opened_at', [now - DAY])) {
      const m = this.byPk.get(i.m);
      if (!m) continue;
      if (i.closed_at == null) m.open = i; else m.closed.push(i.closed_at);
    }
    for (const h of store.all<HoldRow>('SELECT * FROM monitor_alert_holds')) {
      const m = this.byPk.get(h.m);
      if (m) m.hold = holdOfRow(h);
    }
  }

  get(pk: number): LiveMonitor | undefined { return this.byPk.get(pk); }
  byId(id: string): LiveMonitor | undefined { return this.byUuid.get(id); }
  get size(): number { return this.byPk.size; }
  all(): IterableIterator<LiveMonitor> { return this.byPk.values(); }

  /** Sorted by name (ASCII case-insensitive, as SQLite's NOCASE), then pk: the list's order. */
  inOrder(): readonly LiveMonitor[] {
    this.sorted ??= [...this.byPk.values()].sort(byName);
    return this.sorted;
  }

  /** Adds a monitor or replaces its row (keeping what the row does not hold); the row is copied. */
  put(given: MonitorRow): LiveMonitor {
    const row = fastRow(given);
    const old = this.byPk.get(row.pk);
    const m: LiveMonitor = { row, key: row.name.replace(/[A-Z]+/g, (c) => c.toLowerCase()), tags: parseTags(row.tags), shown: null,
      view: null, line: null, prepared: null, parents: old?.parents ?? [], open: old?.open ?? null, closed: old?.closed ?? [],
      hold: old?.hold ?? null, memory: old?.memory ?? null };
    this.gen++;
    if (old) this.changedSet.delete(old);
    this.byPk.set(row.pk, m);
    this.byUuid.set(row.id, m);
    if (!old || old.row.name !== row.name) this.sorted = null;
    else if (this.sorted) this.sorted[this.sorted.indexOf(old)] = m;
    return m;
  }

  remove(pk: number): void {
    const m = this.byPk.get(pk);
    if (!m) return;
    this.byPk.delete(pk);
    this.byUuid.delete(m.row.id);
    this.changedSet.delete(m);
    for (const other of this.byPk.values()) other.parents = other.parents.filter((p) => p !== pk);
    this.sorted = null;
    this.gen++;
  }

  /** A result or an incident changed what the monitor's list line shows (its row stays the same). */
  changed(m: LiveMonitor): void {
    this.changedSet.add(m);
  }

  /** The monitors changed since the last call. */
  takeChanged(): LiveMonitor[] {
    if (!this.changedSet.size) return [];
    const all = [...this.changedSet];
    this.changedSet.clear();
    return all;
  }

  /** Something every list line shows changed (the history was cleared): lines are made again. */
  touch(): void {
    this.gen++;
  }

  /** A monitor's parents changed. */
  setParents(m: LiveMonitor, parents: number[]): void {
    m.parents = parents;
    this.gen++;
  }

  /** Monitors that list `pk` as a parent. */
  children(pk: number): LiveMonitor[] {
    return [...this.byPk.values()].filter((m) => m.parents.includes(pk));
  }

  /** Parent ids as responses show them: ordered by the parents' names. */
  parentIds(m: LiveMonitor): string[] {
    if (!m.parents.length) return [];
    return m.parents.map((p) => this.byPk.get(p)).filter((p): p is LiveMonitor => !!p).sort(byName).map((p) => p.row.id);
  }

  /** stats_24h.incidents: the open incident and those closed in the last day. */
  incidentsSince(m: LiveMonitor, since: number): number {
    if (m.closed.length && m.closed[0]! < since) m.closed = m.closed.filter((t) => t >= since);
    return (m.open ? 1 : 0) + m.closed.length;
  }
}

/**
 * The row as an object of one fixed shape. A row as the store reads it is built a column at a time, and
 * with 21 columns V8 keeps it as a dictionary: each field read was a hash lookup, and the list's check of
 * 2,000 lines (two fields each) took 0.7 ms instead of 0.1 (measured). Every check reads these rows too.
 */
function fastRow(r: MonitorRow): MonitorRow {
  return {
    pk: r.pk, id: r.id, name: r.name, target: r.target, check_type: r.check_type, interval_s: r.interval_s, timeout_s: r.timeout_s,
    failure_threshold: r.failure_threshold, degraded_ms: r.degraded_ms, max_loss_pct: r.max_loss_pct, tags: r.tags, settings: r.settings,
    status: r.status, fail_streak: r.fail_streak, last_check: r.last_check, last_rt: r.last_rt, last_message: r.last_message,
    cert_valid_to: r.cert_valid_to, cert_checked_at: r.cert_checked_at, created_at: r.created_at, updated_at: r.updated_at,
  };
}

function byName(a: LiveMonitor, b: LiveMonitor): number {
  return a.key < b.key ? -1 : a.key > b.key ? 1 : a.row.pk - b.row.pk;
}

