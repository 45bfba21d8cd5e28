// Where a device <-> inventory link lives beyond one session (migration 415): each linked record, and
// the identity keys (discovered.ts identityKeys: engine ID, serial, chassis ID, MACs) of the devices
// linked to it, so a later scan, or another session, knows the device again. A key names one record: a
// person linking the device elsewhere moves it. last_seen_at is when discovery last saw a device linked
// to the record (the inventory has no such field: it would write history on every scan).
import type { AppContext } from '../../../core/context.js';
import type { Tx } from '../../../core/store/types.js';
import { identityKeys, type DiscoveredDevice } from './discovered.js';
import type { InventoryType } from './match.js';

export class InventoryLinks {
  constructor(private readonly app: AppContext) {}

  /**
   * The record each device is linked to: its session node's link first, else its strongest identity
   * key that names a record. Only records in `live` count (a record deleted in the inventory leaves its
   * keys behind until the device is linked again; they are ignored).
   */
  linkedRecords(devices: readonly DiscoveredDevice[], live: ReadonlySet<string>): Map<string, string> {
    const keys = new Map(this.app.store.all<{ key: string; inventory_id: string }>(
      'SELECT key, inventory_id FROM v1sion_inventory_link_keys').map((r) => [r.key, r.inventory_id]));
    const out = new Map<string, string>();
    for (const d of devices) {
      const viaNode = d.inventory && live.has(d.inventory.id) ? d.inventory.id : undefined;
      const viaKey = identityKeys(d).map((k) => keys.get(k)).find((id) => id !== undefined && live.has(id));
      const id = viaNode ?? viaKey;
      if (id) out.set(d.device_id, id);
    }
    return out;
  }

  /** When discovery last saw each linked record (epoch ms). */
  lastSeen(): Map<string, number> {
    return new Map(this.app.store.all<{ inventory_id: string; last_seen_at: number | null }>(
      'SELECT inventory_id, last_seen_at FROM v1sion_inventory_links').filter((r) => r.last_seen_at !== null)
      .map((r) => [r.inventory_id, r.last_seen_at!]));
  }

  /** Whether the link would change nothing: every key already names the record and it was seen at least this late. */
  upToDate(d: DiscoveredDevice, recordId: string, seenAt: number): boolean {
    const row = this.app.store.get<{ last_seen_at: number | null }>(
      'SELECT last_seen_at FROM v1sion_inventory_links WHERE inventory_id = ?', [recordId]);
    if (!row || (row.last_seen_at ?? 0) < seenAt) return false;
    return identityKeys(d).every((k) => this.app.store.get<{ inventory_id: string }>(
      'SELECT inventory_id FROM v1sion_inventory_link_keys WHERE key = ?', [k])?.inventory_id === recordId);
  }

  /**
   * Links the device's identity to the record inside the caller's write; returns the records its keys
   * named before (a relink). A record left without keys loses its link row.
   */
  write(tx: Tx, d: DiscoveredDevice, record: { type: InventoryType; id: string }, by: string | null, seenAt: number): string[] {
    const now = this.app.clock.now();
    tx.run(`INSERT INTO v1sion_inventory_links (inventory_id, inventory_type, linked_at, linked_by, last_seen_at)
            VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (inventory_id) DO UPDATE SET inventory_type = excluded.inventory_type,
              last_seen_at = max(coalesce(last_seen_at, 0), excluded.last_seen_at)`,
    [record.id, record.type, now, by, seenAt]);
    const before = new Set<string>();
    for (const key of identityKeys(d)) {
      const cur = tx.get<{ inventory_id: string }>('SELECT inventory_id FROM v1sion_inventory_link_keys WHERE key = ?', [key]);
      if (cur?.inventory_id === record.id) continue;
      if (cur) before.add(cur.inventory_id);
      tx.run(`INSERT INTO v1sion_inventory_link_keys (key, inventory_id, added_at) VALUES (?, ?, ?)
              ON CONFLICT (key) DO UPDATE SET inventory_id = excluded.inventory_id, added_at = excluded.added_at`, [key, record.id, now]);
    }
    for (const id of before) {
      if (!tx.get('SELECT 1 AS x FROM v1sion_inventory_link_keys WHERE inventory_id = ? LIMIT 1', [id])) {
        tx.run('DELETE FROM v1sion_inventory_links WHERE inventory_id = ?', [id]);
      }
    }
    return [...before];
  }
}
