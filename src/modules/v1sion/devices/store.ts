// The rows of devices known over time (migration 417): read whole (a network's devices are hundreds,
// read once per merged scan and per list), written per merged scan in one transaction.
import type { Store, Tx } from '../../../core/store/types.js';
import type { Attachment, DeviceChange, KnownDevice, MergeOutcome, Presence } from './merge.js';

interface DeviceRow {
  id: string; first_seen: number; last_seen: number; name: string; vendor: string | null; kind: string; model: string | null;
  addresses: string; macs: string; attachment: string | null; presence: Presence; acknowledged: number;
  missing_since: number | null; missing_alerted: number; runs_seen: number; runs_missed: number;
}

export interface HistoryRow {
  id: number; device_id: string; t: number; kind: string; from_v: string | null; to_v: string | null; text: string; job_id: string | null;
}

/** Kinds of history that make a device "changed" (moved, another VLAN or address, an address claimed from another). */
const CHANGED_KINDS = ['moved', 'vlan', 'addresses', 'address_claimed'] as const;

function fromRow(r: DeviceRow, keys: string[]): KnownDevice {
  return {
    id: r.id, first_seen: r.first_seen, last_seen: r.last_seen, name: r.name, vendor: r.vendor, kind: r.kind, model: r.model,
    addresses: JSON.parse(r.addresses) as string[], macs: JSON.parse(r.macs) as string[], keys,
    attachment: r.attachment ? JSON.parse(r.attachment) as Attachment : null, presence: r.presence,
    acknowledged: r.acknowledged === 1, missing_since: r.missing_since, missing_alerted: r.missing_alerted === 1,
    runs_seen: r.runs_seen, runs_missed: r.runs_missed,
  };
}

export function loadDevices(store: Store): KnownDevice[] {
  const keys = new Map<string, string[]>();
  for (const k of store.all<{ key: string; device_id: string }>('SELECT key, device_id FROM v1sion_device_keys ORDER BY key')) {
    (keys.get(k.device_id) ?? keys.set(k.device_id, []).get(k.device_id)!).push(k.key);
  }
  return store.all<DeviceRow>('SELECT * FROM v1sion_devices ORDER BY first_seen, id').map((r) => fromRow(r, keys.get(r.id) ?? []));
}

export function loadDevice(store: Store, id: string): KnownDevice | null {
  const r = store.get<DeviceRow>('SELECT * FROM v1sion_devices WHERE id = ?', [id]);
  if (!r) return null;
  const keys = store.all<{ key: string }>('SELECT key FROM v1sion_device_keys WHERE device_id = ? ORDER BY key', [id]);
  return fromRow(r, keys.map((k) => k.key));
}

/** When each device last changed in a way that makes it "changed" (CHANGED_KINDS), epoch ms. */
export function lastChanges(store: Store): Map<string, number> {
  const marks = CHANGED_KINDS.map(() => '?').join(', ');
  return new Map(store.all<{ device_id: string; t: number }>(
    `SELECT device_id, max(t) AS t FROM v1sion_device_history WHERE kind IN (${marks}) GROUP BY device_id`, [...CHANGED_KINDS])
    .map((r) => [r.device_id, r.t]));
}

export function historyOf(store: Store, id: string, limit: number): HistoryRow[] {
  return store.all<HistoryRow>('SELECT * FROM v1sion_device_history WHERE device_id = ? ORDER BY t DESC, id DESC LIMIT ?', [id, limit]);
}

export function isSubnetKnown(store: Store, subnet: string): boolean {
  return !!store.get('SELECT 1 FROM v1sion_watched_subnets WHERE subnet = ?', [subnet]);
}

export function writeDevice(tx: Tx, d: KnownDevice): void {
  tx.run(`INSERT OR REPLACE INTO v1sion_devices (id, first_seen, last_seen, name, vendor, kind, model, addresses, macs, attachment,
      presence, acknowledged, missing_since, missing_alerted, runs_seen, runs_missed)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  [d.id, d.first_seen, d.last_seen, d.name, d.vendor, d.kind, d.model, JSON.stringify(d.addresses), JSON.stringify(d.macs),
    d.attachment ? JSON.stringify(d.attachment) : null, d.presence, d.acknowledged ? 1 : 0, d.missing_since,
    d.missing_alerted ? 1 : 0, d.runs_seen, d.runs_missed]);
}

export function addHistory(tx: Tx, deviceId: string, t: number, kind: string, from: unknown, to: unknown, text: string,
  jobId: string | null = null): void {
  tx.run('INSERT INTO v1sion_device_history (device_id, t, kind, from_v, to_v, text, job_id) VALUES (?, ?, ?, ?, ?, ?, ?)',
    [deviceId, t, kind, from == null ? null : JSON.stringify(from), to == null ? null : JSON.stringify(to), text, jobId]);
}

/** One merged scan: devices, their keys, what changed, the subnet's count, in one transaction. */
export function writeMerge(tx: Tx, out: MergeOutcome, subnet: string, jobId: string, now: number): void {
  for (const m of out.merged) {
    tx.run('UPDATE v1sion_device_history SET device_id = ? WHERE device_id = ?', [m.into, m.from]);
    tx.run('DELETE FROM v1sion_device_keys WHERE device_id = ?', [m.from]);
    tx.run('DELETE FROM v1sion_devices WHERE id = ?', [m.from]);
  }
  for (const d of out.upserts) {
    writeDevice(tx, d);
    tx.run('DELETE FROM v1sion_device_keys WHERE device_id = ?', [d.id]);
    for (const key of d.keys) tx.run('INSERT OR REPLACE INTO v1sion_device_keys (key, device_id) VALUES (?, ?)', [key, d.id]);
  }
  for (const c of out.changes) addHistory(tx, c.device_id, now, c.kind, c.from, c.to, c.text, jobId);
  tx.run(`INSERT INTO v1sion_watched_subnets (subnet, first_scan, last_scan, scans) VALUES (?, ?, ?, 1)
    ON CONFLICT (subnet) DO UPDATE SET last_scan = excluded.last_scan, scans = scans + 1`, [subnet, now, now]);
}

const DAY = 86_400_000;
/** History older than this keeps the first and last change of each kind per device and day… */
export const THIN_DAILY_AFTER_MS = 30 * DAY;
/** …and older than this, per device and 30 days. */
export const THIN_MONTHLY_AFTER_MS = 365 * DAY;
/** A device no scan has found for this long goes, with its history (a phone's random MAC of last year). */
export const FORGET_AFTER_MS = 400 * DAY;

/**
 * Keeps the history bounded as years pass (docs/discovery.md, "Devices over time"): recent changes all,
 * older ones thinned to the first and last of each kind per day, then per month; devices unseen for 400
 * days forgotten. One transaction; returns the rows it removed.
 */
export function thinHistory(tx: Tx, now: number): { history: number; devices: number } {
  let history = 0;
  // CAST: sql.js binds a number beyond 32 bits (30 days in ms) as a double, and t / 2.592e9 would be no bucket at all.
  for (const [olderThan, bucket] of [[now - THIN_MONTHLY_AFTER_MS, 30 * DAY], [now - THIN_DAILY_AFTER_MS, DAY]] as const) {
    history += tx.run(`DELETE FROM v1sion_device_history WHERE t < ? AND id NOT IN (
        SELECT min(id) FROM v1sion_device_history WHERE t < ? GROUP BY device_id, kind, CAST(t / ? AS INTEGER)
        UNION ALL SELECT max(id) FROM v1sion_device_history WHERE t < ? GROUP BY device_id, kind, CAST(t / ? AS INTEGER))`,
    [olderThan, olderThan, bucket, olderThan, bucket]).changes;
  }
  const gone = tx.all<{ id: string }>('SELECT id FROM v1sion_devices WHERE last_seen < ?', [now - FORGET_AFTER_MS]).map((r) => r.id);
  for (const id of gone) {
    history += tx.run('DELETE FROM v1sion_device_history WHERE device_id = ?', [id]).changes;
    tx.run('DELETE FROM v1sion_device_keys WHERE device_id = ?', [id]);
    tx.run('DELETE FROM v1sion_devices WHERE id = ?', [id]);
  }
  return { history, devices: gone.length };
}

export type { DeviceChange };
