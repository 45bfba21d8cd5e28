// The monitor event log: status changes, incidents, pause/resume, create/update/delete, manual checks
// and the clearing of history. Rows keep the monitor's UUID and name, so they outlive the monitor.
// Also the CSV export (RFC 4180, formula cells neutralised).
import type { SqlValue, Store, Tx } from '../../core/store/types.js';
import { csvLine } from '../../core/csv.js';
import { parseJsonObject, type EventKind, type EventOut } from './schemas.js';

export interface NewEvent {
  t: number;
  kind: EventKind;
  monitor_id?: string | null;
  monitor_name?: string | null;
  from_status?: string | null;
  to_status?: string | null;
  message?: string | null;
  actor?: string | null;
  details?: Record<string, unknown> | null;
}

const MAX_MESSAGE = 1000;

export function insertEvent(tx: Tx, e: NewEvent): void {
  tx.run(
    `INSERT INTO monitor_events (t, monitor_id, monitor_name, kind, from_status, to_status, message, actor, details)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [e.t, e.monitor_id ?? null, e.monitor_name ?? null, e.kind, e.from_status ?? null, e.to_status ?? null,
      e.message == null ? null : e.message.slice(0, MAX_MESSAGE), e.actor ?? null,
      e.details && Object.keys(e.details).length ? JSON.stringify(e.details) : null],
  );
}

export interface EventFilter {
  monitor_id?: string;
  kind?: EventKind;
  /** Leave out events of this kind (manual checks must not crowd a recent-events view). */
  exclude_kind?: EventKind;
  since?: string;
  until?: string;
}

interface EventRow {
  id: number; t: number; monitor_id: string | null; monitor_name: string | null; kind: EventKind;
  from_status: string | null; to_status: string | null; message: string | null; actor: string | null; details: string | null;
}

const EVENT_COLUMNS = 'id, t, monitor_id, monitor_name, kind, from_status, to_status, message, actor, details';

function where(f: EventFilter): { sql: string; params: SqlValue[] } {
  const conds: string[] = [];
  const params: SqlValue[] = [];
  if (f.monitor_id) { conds.push('monitor_id = ?'); params.push(f.monitor_id); }
  if (f.kind) { conds.push('kind = ?'); params.push(f.kind); }
  if (f.exclude_kind) { conds.push('kind <> ?'); params.push(f.exclude_kind); }
  if (f.since) { conds.push('t >= ?'); params.push(Date.parse(f.since)); }
  if (f.until) { conds.push('t <= ?'); params.push(Date.parse(f.until)); }
  return { sql: conds.length ? `WHERE ${conds.join(' AND ')}` : '', params };
}

function eventOut(r: EventRow): EventOut {
  return {
    id: r.id,
    at: new Date(r.t).toISOString(),
    kind: r.kind,
    monitor_id: r.monitor_id,
    monitor_name: r.monitor_name,
    from_status: r.from_status,
    to_status: r.to_status,
    message: r.message,
    actor: r.actor,
    details: r.details ? parseJsonObject(r.details) : null,
  };
}

/** Newest first. */
export function queryEvents(store: Store, f: EventFilter & { limit: number; offset: number }): { items: EventOut[]; total: number } {
  const w = where(f);
  const total = store.get<{ n: number }>(`SELECT count(*) AS n FROM monitor_events ${w.sql}`, w.params)?.n ?? 0;
  const rows = store.all<EventRow>(
    `SELECT ${EVENT_COLUMNS} FROM monitor_events ${w.sql} ORDER BY t DESC, id DESC LIMIT ? OFFSET ?`,
    [...w.params, f.limit, f.offset],
  );
  return { items: rows.map(eventOut), total };
}

// ---- CSV ---------------------------------------------------------------------------------------

// One CSV writer for every export (core/csv.ts); re-exported for the callers that found it here.
export { csvCell, csvLine } from '../../core/csv.js';

export const CSV_HEADER = [
  'id', 'time', 'kind', 'monitor_id', 'monitor_name', 'from_status', 'to_status', 'message', 'actor', 'details',
] as const;

/**
 * The filtered log as CSV, oldest first, in pages (keyset on id) handed to `write`, which may return a
 * promise to apply backpressure.
 */
export async function exportCsv(store: Store, f: EventFilter, write: (chunk: string) => void | Promise<void>,
  pageSize = 500): Promise<number> {
  await write(csvLine(CSV_HEADER));
  const w = where(f);
  let after = 0;
  let n = 0;
  for (;;) {
    const rows = store.all<EventRow>(
      `SELECT ${EVENT_COLUMNS} FROM monitor_events ${w.sql ? `${w.sql} AND` : 'WHERE'} id > ? ORDER BY id LIMIT ?`,
      [...w.params, after, pageSize],
    );
    if (!rows.length) break;
    let chunk = '';
    for (const r of rows) {
      const e = eventOut(r);
      chunk += csvLine([e.id, e.at, e.kind, e.monitor_id, e.monitor_name, e.from_status, e.to_status, e.message, e.actor, e.details]);
    }
    await write(chunk);
    n += rows.length;
    after = rows[rows.length - 1]!.id;
    if (rows.length < pageSize) break;
  }
  return n;
}

/** attachment; filename="monitor-events-20260101-120000.csv" */
export function csvFilename(nowMs: number): string {
  const s = new Date(nowMs).toISOString().replace(/\.\d+Z$/, '').replace(/[-:]/g, '').replace('T', '-');
  return `monitor-events-${s}.csv`;
}
