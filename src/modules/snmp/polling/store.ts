// The polled devices and their interfaces as the database keeps them (migration 501). Only what changes
// rarely is written: a device's settings, and an interface's names, speed, status changes, choice and
// watch. Rates live in the history (history/), never in these rows.
import type { Store, Tx } from '../../../core/store/types.js';

export interface DeviceRow {
  id: string; name: string; target: string; port: number | null; credential_id: string; endpoint_id: string | null;
  interval_s: number; all_interfaces: number; enabled: number;
  util_alert_pct: number | null; util_alert_minutes: number; error_alert_ps: number | null;
  created_at: number; updated_at: number;
}

export interface IfRow {
  id: number; device_id: string; if_index: number; name: string | null; descr: string | null; alias: string | null;
  type: number | null; speed_bps: number | null; chosen: number; watched: number; watched_by: 'person' | 'lldp' | null;
  neighbour: string | null; oper: number | null; admin: number | null; oper_since: number | null;
  renumbered_from: number | null; renumbered_at: number | null; first_seen: number; gone_at: number | null;
}

const DEVICE_COLUMNS = `id, name, target, port, credential_id, endpoint_id, interval_s, all_interfaces, enabled, util_alert_pct,
  util_alert_minutes, error_alert_ps, created_at, updated_at`;
const IF_COLUMNS = `id, device_id, if_index, name, descr, alias, type, speed_bps, chosen, watched, watched_by, neighbour, oper, admin,
  oper_since, renumbered_from, renumbered_at, first_seen, gone_at`;

export const devices = {
  all: (store: Pick<Store, 'all'>): DeviceRow[] =>
    store.all<DeviceRow>(`SELECT ${DEVICE_COLUMNS} FROM snmp_poll_devices ORDER BY name COLLATE NOCASE, id`),
  get: (store: Pick<Store, 'get'>, id: string): DeviceRow | undefined =>
    store.get<DeviceRow>(`SELECT ${DEVICE_COLUMNS} FROM snmp_poll_devices WHERE id = ?`, [id]),
  byTarget: (store: Pick<Store, 'get'>, target: string, port: number | null): { id: string } | undefined =>
    store.get<{ id: string }>('SELECT id FROM snmp_poll_devices WHERE target = ? COLLATE NOCASE AND port IS ?', [target, port]),
  insert(tx: Tx, r: DeviceRow): void {
    tx.run(`INSERT INTO snmp_poll_devices (${DEVICE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [r.id, r.name, r.target, r.port, r.credential_id, r.endpoint_id, r.interval_s, r.all_interfaces, r.enabled, r.util_alert_pct,
        r.util_alert_minutes, r.error_alert_ps, r.created_at, r.updated_at]);
  },
  update(tx: Tx, r: DeviceRow): number {
    return tx.run(`UPDATE snmp_poll_devices SET name = ?, target = ?, port = ?, credential_id = ?, endpoint_id = ?, interval_s = ?,
      all_interfaces = ?, enabled = ?, util_alert_pct = ?, util_alert_minutes = ?, error_alert_ps = ?, updated_at = ? WHERE id = ?`,
    [r.name, r.target, r.port, r.credential_id, r.endpoint_id, r.interval_s, r.all_interfaces, r.enabled, r.util_alert_pct,
      r.util_alert_minutes, r.error_alert_ps, r.updated_at, r.id]).changes;
  },
  remove(tx: Tx, id: string): void {
    tx.run('DELETE FROM snmp_poll_interfaces WHERE device_id = ?', [id]);
    tx.run('DELETE FROM snmp_poll_devices WHERE id = ?', [id]);
  },
};

export const interfaces = {
  ofDevice: (store: Pick<Store, 'all'>, deviceId: string): IfRow[] =>
    store.all<IfRow>(`SELECT ${IF_COLUMNS} FROM snmp_poll_interfaces WHERE device_id = ? ORDER BY if_index, id`, [deviceId]),
  all: (store: Pick<Store, 'all'>): IfRow[] =>
    store.all<IfRow>(`SELECT ${IF_COLUMNS} FROM snmp_poll_interfaces ORDER BY device_id, if_index`),
  /** A new interface; its id (the history's key) comes back. */
  insert(tx: Tx, r: Omit<IfRow, 'id'>): number {
    tx.run(`INSERT INTO snmp_poll_interfaces (${IF_COLUMNS.replace('id, ', '')})
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [r.device_id, r.if_index, r.name, r.descr, r.alias, r.type, r.speed_bps, r.chosen, r.watched, r.watched_by, r.neighbour, r.oper,
        r.admin, r.oper_since, r.renumbered_from, r.renumbered_at, r.first_seen, r.gone_at]);
    return tx.get<{ id: number }>('SELECT last_insert_rowid() AS id')!.id;
  },
  update(tx: Tx, r: IfRow): void {
    tx.run(`UPDATE snmp_poll_interfaces SET if_index = ?, name = ?, descr = ?, alias = ?, type = ?, speed_bps = ?, chosen = ?,
      watched = ?, watched_by = ?, neighbour = ?, oper = ?, admin = ?, oper_since = ?, renumbered_from = ?, renumbered_at = ?,
      gone_at = ? WHERE id = ?`,
    [r.if_index, r.name, r.descr, r.alias, r.type, r.speed_bps, r.chosen, r.watched, r.watched_by, r.neighbour, r.oper, r.admin,
      r.oper_since, r.renumbered_from, r.renumbered_at, r.gone_at, r.id]);
  },
  remove: (tx: Tx, id: number): void => { tx.run('DELETE FROM snmp_poll_interfaces WHERE id = ?', [id]); },
};

/** The fields of an interface row the poller compares to decide whether to write it. */
export function sameInterface(a: IfRow, b: IfRow): boolean {
  return a.if_index === b.if_index && a.name === b.name && a.descr === b.descr && a.alias === b.alias && a.type === b.type
    && a.speed_bps === b.speed_bps && a.oper === b.oper && a.admin === b.admin && a.gone_at === b.gone_at
    && a.neighbour === b.neighbour && a.watched === b.watched && a.watched_by === b.watched_by && a.chosen === b.chosen
    && a.renumbered_from === b.renumbered_from;
}
