// Maintenance windows: kept in monitor_maintenance, held in memory with each one's open and next
// occurrence, and a timer at the next time one opens or closes. The alert gate asks openFor() at every
// event (alert-gate/maintenance.ts); when a window closes, the monitors it held that are still down are
// checked at once, so their outage alerts then (the gate releases the held down at that check).
import { randomUUID } from 'node:crypto';
import type { Actor } from '../../../core/audit/types.js';
import { iso } from '../../../core/clock.js';
import type { AppContext } from '../../../core/context.js';
import { fieldErrors, invalid, notFound } from '../../../core/errors.js';
import type { Logger } from '../../../core/log.js';
import type { Tx } from '../../../core/store/types.js';
import type { LiveMonitor, Registry } from '../live.js';
import { endedEvent, startedEvent, type EndReason, type OccurrenceFacts } from './events.js';
import { occurrencesAround, type DayName, type Occurrence, type Schedule } from './schedule.js';
import { CreateWindowBody, type CreateWindow, type MonitorMaintenance, type UpdateWindow, type WindowOut } from './schemas.js';

interface WindowRow {
  id: string; name: string; description: string; kind: 'once' | 'weekly' | 'cron';
  starts_at: number | null; ends_at: number | null; days: string | null; start_time: string | null; end_time: string | null;
  cron: string | null; duration_min: number | null; timezone: string;
  applies_to: 'all' | 'monitors' | 'tags'; monitor_ids: string; tags: string; enabled: number; ended_at: number | null;
  created_at: number; updated_at: number;
}

/** An occurrence as it happened: the monitors it applied to then, cut where it was ended early. */
interface Span {
  window_id: string; from: number; to: number; applies_to: WindowRow['applies_to']; monitors: Set<string>; tags: Set<string>;
}
interface SpanRow {
  window_id: string; from_t: number; to_t: number; applies_to: WindowRow['applies_to']; monitor_ids: string; tags: string;
}
/** Occurrences are kept this long after they close: the hours not yet rolled up are recounted from them at start-up. */
const SPANS_KEPT_MS = 48 * 3_600_000;

interface Live {
  row: WindowRow;
  schedule: Schedule;
  monitors: Set<string>;
  tags: Set<string>;
  current: Occurrence | null;
  next: Occurrence | null;
}

/** The timer never sleeps longer than this: a far occurrence is looked for again (and clock changes caught). */
const MAX_SLEEP_MS = 6 * 3_600_000;

export interface WindowsOptions {
  registry: Registry;
  log: Logger;
  /** The probe's time zone, for a window created without one. */
  timezone(): string;
  /** Windows closed: these monitors' held outages are due (the service checks them at once). */
  closed(monitors: LiveMonitor[]): void;
}

export class MaintenanceWindows {
  private windows = new Map<string, Live>();
  private timer: { cancel(): void } | null = null;
  private running = false;
  /** The windows open at the last evaluation, to tell which closed. */
  private open = new Set<string>();
  /** The occurrences that happened (monitor_maintenance_spans), oldest first. */
  private spans: Span[] = [];
  /** The occurrences whose end the event log has (spanKey()): each is logged once, across restarts too. */
  private endLogged = new Set<string>();

  constructor(private readonly app: AppContext, private readonly o: WindowsOptions) {}

  load(): void {
    const keepFrom = this.app.clock.now() - SPANS_KEPT_MS;
    this.spans = this.app.store.all<SpanRow>('SELECT * FROM monitor_maintenance_spans WHERE to_t > ? ORDER BY from_t', [keepFrom])
      .map((r) => ({ window_id: r.window_id, from: r.from_t, to: r.to_t, applies_to: r.applies_to,
        monitors: new Set(JSON.parse(r.monitor_ids) as string[]), tags: new Set(JSON.parse(r.tags) as string[]) }));
    this.endLogged = new Set(this.app.store.all<{ details: string | null }>(
      "SELECT details FROM monitor_events WHERE kind = 'maintenance_ended' AND t >= ?", [keepFrom])
      .flatMap((r) => {
        const d = r.details ? JSON.parse(r.details) as { window_id?: string; from?: string } : {};
        return d.window_id && d.from ? [spanKey(d.window_id, Date.parse(d.from))] : [];
      }));
    this.windows.clear();
    const rows = this.app.store.all<WindowRow>('SELECT * FROM monitor_maintenance ORDER BY created_at, id');
    for (const r of rows) this.windows.set(r.id, this.live(r));
    this.evaluate(this.app.clock.now());
  }

  start(): void {
    this.running = true;
    this.tick();
  }

  stop(): void {
    this.running = false;
    this.timer?.cancel();
    this.timer = null;
  }

  // ---- what the gate and the monitor views ask ------------------------------------------------------

  /** The open window holding monitor `m`'s alerts at `at` (the one closing last), or null. */
  openFor(m: { row: { id: string }; tags: readonly string[] }, at: number, only?: (w: Live) => boolean): MonitorMaintenance {
    let best: { w: Live; to: number } | null = null;
    for (const w of this.windows.values()) {
      if (!w.row.enabled || !this.applies(w, m) || (only && !only(w))) continue;
      // The next occurrence counts too once its time has come: the timer may not have run yet.
      for (const o of [w.current, w.next]) {
        if (o && o.from <= at && at < o.to && (!best || o.to > best.to)) best = { w, to: o.to };
      }
    }
    return best ? { id: best.w.row.id, name: best.w.row.name, until: iso(best.to) } : null;
  }

  /**
   * The parts of [from, to) monitor `m` spent in maintenance, sorted and apart (the storage credits that
   * time as set aside: storage/hours.ts).
   */
  asideFor(m: { row: { id: string }; tags: readonly string[] }, from: number, to: number): [number, number][] {
    let out: [number, number][] | null = null;
    for (const s of this.spans) {
      if (s.to <= from || s.from >= to || !appliesTo(s, m)) continue;
      (out ??= []).push([Math.max(s.from, from), Math.min(s.to, to)]);
    }
    if (!out) return NONE;
    out.sort((a, b) => a[0] - b[0]);
    const merged: [number, number][] = [out[0]!];
    for (const [a, b] of out.slice(1)) {
      const last = merged[merged.length - 1]!;
      if (a <= last[1]) last[1] = Math.max(last[1], b); else merged.push([a, b]);
    }
    return merged;
  }

  /**
   * The open window that applies to every monitor (applies_to all) at `at`, or null: it holds the alerts other
   * modules raise too (interface polling, discovery), which belong to no monitor.
   */
  openForEverything(at: number): MonitorMaintenance {
    return this.openFor({ row: { id: '' }, tags: [] }, at, (w) => w.row.applies_to === 'all');
  }

  /** openFor() now. */
  openNow(m: { row: { id: string }; tags: readonly string[] }): MonitorMaintenance {
    return this.openFor(m, this.app.clock.now());
  }

  /**
   * The occurrences open at `now` or opening before `now + horizonMs` of the enabled windows that apply to
   * any of `monitors`, each with those of them it applies to; soonest first, one per window (its open one,
   * else its next). What a status page's notice says; the window's own name and description stay out of it.
   */
  touching<M extends { row: { id: string }; tags: readonly string[] }>(monitors: readonly M[], now: number, horizonMs: number):
    { from: number; to: number; open: boolean; monitors: M[] }[] {
    const out: { from: number; to: number; open: boolean; monitors: M[] }[] = [];
    for (const w of this.windows.values()) {
      if (!w.row.enabled) continue;
      const o = [w.current, w.next].find((x) => x && x.to > now && x.from < now + horizonMs);
      if (!o) continue;
      const hit = monitors.filter((m) => this.applies(w, m));
      if (hit.length) out.push({ from: o.from, to: o.to, open: o.from <= now, monitors: hit });
    }
    return out.sort((a, b) => a.from - b.from || a.to - b.to);
  }

  // ---- the API --------------------------------------------------------------------------------------

  list(): WindowOut[] {
    const now = this.app.clock.now();
    return [...this.windows.values()].map((w) => this.out(w, now));
  }

  /** The zone a window created without one takes: the probe's (a form's default). */
  defaultTimezone(): string {
    return this.o.timezone();
  }

  get(id: string): WindowOut {
    return this.out(this.must(id), this.app.clock.now());
  }

  async create(body: CreateWindow, by: Actor): Promise<WindowOut> {
    this.checkMonitors(body.monitor_ids);
    const now = this.app.clock.now();
    const row = rowOf({ ...body, timezone: body.timezone ?? this.o.timezone() }, randomUUID(), now, now);
    await this.app.store.write((tx) => {
      insertRow(tx, row);
      this.app.audit.insert(tx, by.auditEntry('monitors.maintenance.create', row.name, { id: row.id, ...summary(row) }));
    });
    this.windows.set(row.id, this.live(row));
    this.changed();
    return this.get(row.id);
  }

  async update(id: string, body: UpdateWindow, by: Actor): Promise<WindowOut> {
    const old = this.must(id).row;
    // The rules across fields hold for the window as it will be: the merged whole is checked as a create is.
    const parsed = CreateWindowBody.safeParse({ ...inputOf(old), ...body });
    if (!parsed.success) throw invalid('maintenance window', fieldErrors(parsed.error.issues));
    const merged = { ...parsed.data, timezone: parsed.data.timezone ?? old.timezone };
    if (body.monitor_ids) this.checkMonitors(body.monitor_ids);
    const now = this.app.clock.now();
    // A new schedule starts afresh: an early end of the old one does not cut the new one's occurrences.
    const row = rowOf(merged, id, old.created_at, now, body.schedule ? null : old.ended_at);
    await this.app.store.write((tx) => {
      tx.run('DELETE FROM monitor_maintenance WHERE id = ?', [id]);
      insertRow(tx, row);
      this.cutSpans(tx, id, now, 'changed', by.actor);
      this.app.audit.insert(tx, by.auditEntry('monitors.maintenance.update', row.name, { id, ...summary(row) }));
    });
    this.windows.set(id, this.live(row));
    this.changed();
    return this.get(id);
  }

  async remove(id: string, by: Actor): Promise<void> {
    const old = this.must(id).row;
    const now = this.app.clock.now();
    await this.app.store.write((tx) => {
      tx.run('DELETE FROM monitor_maintenance WHERE id = ?', [id]);
      this.cutSpans(tx, id, now, 'deleted', by.actor);
      this.app.audit.insert(tx, by.auditEntry('monitors.maintenance.delete', old.name, { id }));
    });
    this.windows.delete(id);
    this.changed();
  }

  /** Ends the open occurrence now (a one-off window is over; a recurring one opens again at its next time). */
  async end(id: string, by: Actor): Promise<WindowOut> {
    const w = this.must(id);
    const now = this.app.clock.now();
    const open = w.row.enabled ? [w.current, w.next].find((o) => o && o.from <= now && now < o.to) : null;
    if (!open) throw invalid('maintenance window', [{ path: 'id', message: `${w.row.name} is not open now` }], 'not_open');
    await this.app.store.write((tx) => {
      tx.run('UPDATE monitor_maintenance SET ended_at = ?, updated_at = ? WHERE id = ?', [now, now, id]);
      this.cutSpans(tx, id, now, 'ended_early', by.actor);
      this.app.audit.insert(tx, by.auditEntry('monitors.maintenance.end', w.row.name, { id, ended_at: iso(now), was_until: iso(open.to) }));
    });
    this.windows.set(id, this.live({ ...w.row, ended_at: now, updated_at: now }));
    this.changed();
    return this.get(id);
  }

  // ---- time -----------------------------------------------------------------------------------------

  /** Something changed: look again now (a window may have opened or closed) and rearm. */
  private changed(): void {
    this.tick();
  }

  private tick(): void {
    const now = this.app.clock.now();
    this.evaluate(now);
    if (!this.running) return;
    this.timer?.cancel();
    let at = now + MAX_SLEEP_MS;
    for (const w of this.windows.values()) {
      if (!w.row.enabled) continue;
      if (w.current) at = Math.min(at, w.current.to);
      if (w.next) at = Math.min(at, w.next.from);
    }
    this.timer = this.app.clock.setTimeout(() => this.tick(), Math.max(0, at - now));
  }

  /** Each window's occurrences at `now`; windows that closed since the last look release their monitors. */
  private evaluate(now: number): void {
    const open = new Set<string>();
    for (const w of this.windows.values()) {
      try {
        const { current, next } = occurrencesAround(w.schedule, now, w.row.ended_at);
        w.current = current;
        w.next = next;
      } catch (err) {
        // A stored schedule this build cannot read (never written by the API): it holds nothing.
        this.o.log.warn('maintenance window schedule unreadable', { id: w.row.id, error: (err as Error).message });
        w.current = w.next = null;
      }
      if (w.row.enabled && w.current) {
        open.add(w.row.id);
        this.opened(w, w.current);
      }
    }
    this.logEnds(now);
    if (this.spans.length && this.spans[0]!.to < now - SPANS_KEPT_MS) this.spans = this.spans.filter((s) => s.to >= now - SPANS_KEPT_MS);
    const closed = [...this.open].filter((id) => !open.has(id));
    const opened = [...open].filter((id) => !this.open.has(id));
    this.open = open;
    if (!closed.length && !opened.length) return;
    // Every list line shows the monitor's maintenance.
    this.o.registry.touch();
    if (!closed.length) return;
    this.app.bus.emit('maintenance.closed', { window_ids: closed });
    const due = this.o.registry.inOrder().filter((m) => m.hold?.rule === 'maintenance' && !this.openFor(m, now));
    if (due.length) this.o.closed(due);
  }

  // ---- rows -----------------------------------------------------------------------------------------

  private applies(w: Live, m: { row: { id: string }; tags: readonly string[] }): boolean {
    return appliesTo({ applies_to: w.row.applies_to, monitors: w.monitors, tags: w.tags }, m);
  }

  /** Records the occurrence open now (once: a restart finds it kept), from when the window is as it is. */
  private opened(w: Live, o: Occurrence): void {
    const from = Math.max(o.from, w.row.updated_at);
    if (from >= o.to || this.spans.some((s) => s.window_id === w.row.id && s.from === from)) return;
    const span: Span = { window_id: w.row.id, from, to: o.to, applies_to: w.row.applies_to, monitors: w.monitors, tags: w.tags };
    this.spans.push(span);
    this.app.store.write((tx) => {
      tx.run(`INSERT OR IGNORE INTO monitor_maintenance_spans (window_id, from_t, to_t, applies_to, monitor_ids, tags)
        VALUES (?, ?, ?, ?, ?, ?)`, [span.window_id, span.from, span.to, span.applies_to, w.row.monitor_ids, w.row.tags]);
      startedEvent(tx, this.facts(span));
    }, 'group').catch((err: Error) => this.o.log.warn('maintenance occurrence not kept', { id: w.row.id, error: err.message }));
  }

  /** The window's open occurrence ends at `now` (ended early, changed or deleted), in this write, and says so in the log. */
  private cutSpans(tx: Tx, id: string, now: number, reason: EndReason, actor: string | null): void {
    tx.run('UPDATE monitor_maintenance_spans SET to_t = ? WHERE window_id = ? AND from_t <= ? AND to_t > ?', [now, id, now, now]);
    const cut = this.spans.filter((s) => s.window_id === id && s.from <= now && s.to > now);
    for (const s of cut) endedEvent(tx, this.facts(s), now, reason, actor);
    tx.onCommit(() => {
      for (const s of cut) {
        s.to = now;
        this.endLogged.add(spanKey(s.window_id, s.from));
      }
    });
  }

  /** Occurrences that closed on schedule since the last look: one event each. */
  private logEnds(now: number): void {
    const due = this.spans.filter((s) => s.to <= now && !this.endLogged.has(spanKey(s.window_id, s.from)));
    if (!due.length) return;
    for (const s of due) this.endLogged.add(spanKey(s.window_id, s.from));
    this.app.store.write((tx) => {
      for (const s of due) endedEvent(tx, this.facts(s), s.to, 'scheduled');
    }, 'group').catch((err: Error) => {
      for (const s of due) this.endLogged.delete(spanKey(s.window_id, s.from));
      this.o.log.warn('maintenance end not logged', { error: err.message });
    });
  }

  /** What the event log says of an occurrence (its window as it is now; a deleted one by its id). */
  private facts(s: Span): OccurrenceFacts {
    const row = this.windows.get(s.window_id)?.row;
    return { window_id: s.window_id, name: row?.name ?? s.window_id, timezone: row?.timezone ?? this.o.timezone(),
      from: s.from, to: s.to, applies_to: s.applies_to, monitor_ids: [...s.monitors], tags: [...s.tags] };
  }

  private checkMonitors(ids: readonly string[]): void {
    const errors = ids.flatMap((id, i) => (this.o.registry.byId(id) ? []
      : [{ path: `monitor_ids.${i}`, message: `No monitor with id ${id}` }]));
    if (errors.length) throw invalid('maintenance window', errors);
  }

  private must(id: string): Live {
    const w = this.windows.get(id);
    if (!w) throw notFound('Maintenance window');
    return w;
  }

  private live(row: WindowRow): Live {
    return { row, schedule: scheduleOf(row), monitors: new Set(JSON.parse(row.monitor_ids) as string[]),
      tags: new Set(JSON.parse(row.tags) as string[]), current: null, next: null };
  }

  private out(w: Live, now: number): WindowOut {
    const r = w.row;
    const span = (o: Occurrence | null) => (o ? { from: iso(o.from), to: iso(o.to) } : null);
    const current = w.current && w.current.from <= now && now < w.current.to ? w.current
      : w.next && w.next.from <= now && now < w.next.to ? w.next : null;
    const next = w.next && w.next.from > now ? w.next : null;
    return {
      id: r.id, name: r.name, description: r.description, schedule: inputOf(r).schedule, timezone: r.timezone,
      applies_to: r.applies_to, monitor_ids: JSON.parse(r.monitor_ids) as string[], tags: JSON.parse(r.tags) as string[],
      enabled: r.enabled === 1,
      state: !r.enabled ? 'disabled' : current ? 'open' : next ? 'scheduled' : 'over',
      current: r.enabled ? span(current) : null, next: r.enabled ? span(next) : null,
      created_at: iso(r.created_at), updated_at: iso(r.updated_at),
    };
  }
}

function scheduleOf(r: WindowRow): Schedule {
  if (r.kind === 'once') return { kind: 'once', from: r.starts_at!, to: r.ends_at! };
  if (r.kind === 'weekly') {
    return { kind: 'weekly', days: JSON.parse(r.days ?? '[]') as DayName[], start: r.start_time!, end: r.end_time!, timezone: r.timezone };
  }
  return { kind: 'cron', cron: r.cron!, duration_min: r.duration_min!, timezone: r.timezone };
}

/** A row as the API takes it (for a PUT merged over it, and for the response). */
function inputOf(r: WindowRow): CreateWindow & { timezone: string } {
  const s = scheduleOf(r);
  return {
    name: r.name, description: r.description, timezone: r.timezone, applies_to: r.applies_to,
    monitor_ids: JSON.parse(r.monitor_ids) as string[], tags: JSON.parse(r.tags) as string[], enabled: r.enabled === 1,
    schedule: s.kind === 'once' ? { kind: 'once', from: iso(s.from), to: iso(s.to) }
      : s.kind === 'weekly' ? { kind: 'weekly', days: [...s.days], start: s.start, end: s.end }
        : { kind: 'cron', cron: s.cron, duration_min: s.duration_min },
  };
}

function rowOf(b: CreateWindow & { timezone: string }, id: string, created: number, updated: number,
  endedAt: number | null = null): WindowRow {
  const s = b.schedule;
  return {
    id, name: b.name, description: b.description, kind: s.kind, timezone: b.timezone,
    starts_at: s.kind === 'once' ? Date.parse(s.from) : null, ends_at: s.kind === 'once' ? Date.parse(s.to) : null,
    days: s.kind === 'weekly' ? JSON.stringify([...new Set(s.days)]) : null,
    start_time: s.kind === 'weekly' ? s.start : null, end_time: s.kind === 'weekly' ? s.end : null,
    cron: s.kind === 'cron' ? s.cron : null, duration_min: s.kind === 'cron' ? s.duration_min : null,
    applies_to: b.applies_to,
    monitor_ids: JSON.stringify(b.applies_to === 'monitors' ? [...new Set(b.monitor_ids)] : []),
    tags: JSON.stringify(b.applies_to === 'tags' ? [...new Set(b.tags)] : []),
    enabled: b.enabled ? 1 : 0, ended_at: endedAt, created_at: created, updated_at: updated,
  };
}

function insertRow(tx: Tx, r: WindowRow): void {
  tx.run(`INSERT INTO monitor_maintenance (id, name, description, kind, starts_at, ends_at, days, start_time, end_time, cron,
      duration_min, timezone, applies_to, monitor_ids, tags, enabled, ended_at, created_at, updated_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  [r.id, r.name, r.description, r.kind, r.starts_at, r.ends_at, r.days, r.start_time, r.end_time, r.cron, r.duration_min,
    r.timezone, r.applies_to, r.monitor_ids, r.tags, r.enabled, r.ended_at, r.created_at, r.updated_at]);
}

/** What the audit entry records of a window. */
function summary(r: WindowRow): Record<string, unknown> {
  return { kind: r.kind, applies_to: r.applies_to, enabled: r.enabled === 1,
    ...(r.kind === 'once' ? { from: iso(r.starts_at!), to: iso(r.ends_at!) } : {}),
    ...(r.kind === 'weekly' ? { days: JSON.parse(r.days ?? '[]'), start: r.start_time, end: r.end_time, timezone: r.timezone } : {}),
    ...(r.kind === 'cron' ? { cron: r.cron, duration_min: r.duration_min, timezone: r.timezone } : {}) };
}

const NONE: [number, number][] = [];

const spanKey = (windowId: string, from: number) => `${windowId}@${from}`;

function appliesTo(w: { applies_to: WindowRow['applies_to']; monitors: Set<string>; tags: Set<string> },
  m: { row: { id: string }; tags: readonly string[] }): boolean {
  if (w.applies_to === 'all') return true;
  if (w.applies_to === 'monitors') return w.monitors.has(m.row.id);
  return m.tags.some((t) => w.tags.has(t));
}
