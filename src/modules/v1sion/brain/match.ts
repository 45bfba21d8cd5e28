// Which inventory record each discovered device is. Pure: discovered devices and inventory records in,
// pairings out, each saying why it matched and how sure it is.
//
// Order (docs/discovery.md, "Inventory bridge"): an existing link, then asset tag or serial, then MAC,
// then SNMP engine ID, then management address, then name. A step pairs a device with a record only on
// a unique hit both ways: the device hits one record, and no other unpaired device hits that record at
// the same step. A device with several hits at a step is left to the later steps, and those hits stay
// as candidates; a record paired at an earlier step is not available to later ones.
import { isIdentityMac, usableSerial, type DiscoveredDevice } from './discovered.js';

export const INVENTORY_TYPES = ['endpoints', 'assets'] as const;
export type InventoryType = (typeof INVENTORY_TYPES)[number];

/** An inventory record as matching needs it (endpoints and assets; unset values null or []). */
export interface InventoryRecord {
  type: InventoryType;
  id: string;
  short_id: string;
  name: string;
  hostname: string | null;
  ip_addresses: string[];
  mac_addresses: string[];
  serial_number: string | null;
  asset_tag: string | null;
  /** custom_fields.snmp_engine_id: the inventory has no engine-ID field; a person may record it there. */
  engine_id: string | null;
  /** An asset's endpoint_id: the endpoint this asset is. */
  endpoint_id: string | null;
  /** The record as the inventory shows it (the owned fields are read from here by the diff). */
  data: Record<string, unknown>;
}

export const MATCH_REASONS = ['linked', 'asset_tag', 'serial', 'mac', 'engine_id', 'address', 'name'] as const;
export type MatchReason = (typeof MATCH_REASONS)[number];

export interface RecordRef { type: InventoryType; id: string; short_id: string; name: string }

export interface Pairing {
  device_id: string;
  inventory: RecordRef;
  reason: MatchReason;
  /** The value that matched (the serial, the MAC, the address...). */
  matched_on: string;
  /** 0..1: the reason's strength, raised a little by other keys that agree, lowered by conflicts. */
  confidence: number;
  /** Safe to link without a person: confidence of 0.9 or more (an existing link, asset tag, serial, engine ID, MAC, no conflict). */
  certain: boolean;
  /** Other keys that point at the same record. */
  agrees: MatchReason[];
  /** What speaks against it: a different serial, no shared MAC, another record hit by an earlier key. */
  conflicts: string[];
  /** Assets that are this endpoint (their endpoint_id) and matched with it. */
  related: RecordRef[];
}

export interface Candidate extends RecordRef { reason: MatchReason; matched_on: string; note: string | null }

export interface Unmatched { device_id: string; candidates: Candidate[] }

export interface MatchResult { pairings: Pairing[]; unmatched: Unmatched[] }

const BASE: Record<MatchReason, number> = {
  linked: 1, asset_tag: 0.99, serial: 0.97, engine_id: 0.97, mac: 0.93, address: 0.7, name: 0.5,
};
export const CERTAIN = 0.9;

/** Names that many boxes carry out of the box: never a match. */
const GENERIC_NAMES = new Set(['localhost', 'localhost.localdomain', '(none)', 'router', 'switch', 'openwrt', 'unifi', 'mikrotik',
  'ubnt', 'ap', 'printer', 'default', 'unknown', 'unknown neighbour']);

export const normaliseEngineId = (s: string | null | undefined): string | null => {
  const v = s?.trim().toLowerCase().replace(/^0x/, '').replace(/[\s:.-]/g, '');
  return v && /^[0-9a-f]{10,64}$/.test(v) ? v : null;
};

/** The short, lower-case form of a name that can match: the first DNS label; not an address, not a factory default. */
export function nameKey(s: string | null | undefined): string | null {
  const v = s?.trim().toLowerCase().replace(/\.$/, '');
  if (!v || /^[0-9.]+$/.test(v) || v.includes(':')) return null;
  const short = v.split('.')[0]!;
  return short && !GENERIC_NAMES.has(short) && !GENERIC_NAMES.has(v) ? short : null;
}

const lc = (s: string | null | undefined) => s?.trim().toLowerCase() || null;

function push<K, V>(m: Map<K, V[]>, k: K | null, v: V): void {
  if (k === null) return;
  const list = m.get(k);
  if (!list) m.set(k, [v]);
  else if (!list.includes(v)) list.push(v);
}

class Index {
  readonly byId = new Map<string, InventoryRecord>();
  readonly tag = new Map<string, InventoryRecord[]>();
  readonly serial = new Map<string, InventoryRecord[]>();
  readonly mac = new Map<string, InventoryRecord[]>();
  readonly engine = new Map<string, InventoryRecord[]>();
  readonly address = new Map<string, InventoryRecord[]>();
  readonly name = new Map<string, InventoryRecord[]>();
  /** endpoint id -> the assets that are it */
  readonly assetsOf = new Map<string, InventoryRecord[]>();

  constructor(records: readonly InventoryRecord[]) {
    for (const r of records) {
      this.byId.set(r.id, r);
      if (r.type === 'assets') push(this.assetsOf, r.endpoint_id, r);
      push(this.tag, lc(r.asset_tag), r);
      push(this.serial, lc(usableSerial(r.serial_number)), r);
      for (const m of r.mac_addresses) if (isIdentityMac(m)) push(this.mac, m, r);
      push(this.engine, normaliseEngineId(r.engine_id), r);
      for (const a of r.ip_addresses) push(this.address, a, r);
      push(this.name, nameKey(r.name), r);
      push(this.name, nameKey(r.hostname), r);
    }
  }
}

interface Hit { record: InventoryRecord; reason: MatchReason; value: string }

/** The records a device hits at one step (an asset that is an endpoint hit at the same step folds into it). */
function hitsAt(step: MatchReason, d: DiscoveredDevice, ix: Index): Hit[] {
  const out: Hit[] = [];
  const add = (list: InventoryRecord[] | undefined, reason: MatchReason, value: string) => {
    for (const record of list ?? []) if (!out.some((h) => h.record === record)) out.push({ record, reason, value });
  };
  switch (step) {
    case 'asset_tag': {
      const tag = lc(d.asset_tag);
      if (tag) add(ix.tag.get(tag), 'asset_tag', d.asset_tag!);
      const serial = usableSerial(d.serial);
      if (serial) add(ix.serial.get(serial.toLowerCase()), 'serial', serial);
      break;
    }
    case 'mac': for (const m of d.macs) if (isIdentityMac(m)) add(ix.mac.get(m), 'mac', m); break;
    case 'engine_id': { const e = normaliseEngineId(d.engine_id); if (e) add(ix.engine.get(e), 'engine_id', e); break; }
    case 'address': for (const a of d.addresses) add(ix.address.get(a), 'address', a); break;
    case 'name':
      for (const n of [d.sys_name, ...d.hostnames, d.name]) { const k = nameKey(n); if (k) add(ix.name.get(k), 'name', k); }
      break;
    default: break;
  }
  const endpoints = new Set(out.filter((h) => h.record.type === 'endpoints').map((h) => h.record.id));
  return out.filter((h) => !(h.record.type === 'assets' && h.record.endpoint_id && endpoints.has(h.record.endpoint_id)));
}

const STEPS: MatchReason[] = ['asset_tag', 'mac', 'engine_id', 'address', 'name'];

export const refOf = (r: InventoryRecord): RecordRef => ({ type: r.type, id: r.id, short_id: r.short_id, name: r.name });

/**
 * Pairs discovered devices with inventory records. `linked` maps a device id to the record a person
 * (or an earlier auto-match) linked it to: that pairing comes first and is certain. Devices missing from
 * `pairings` are in `unmatched` with the records they hit when none was unique.
 */
export function matchDevices(devices: readonly DiscoveredDevice[], records: readonly InventoryRecord[],
  linked: ReadonlyMap<string, string> = new Map()): MatchResult {
  const ix = new Index(records);
  const paired = new Map<string, { record: InventoryRecord; reason: MatchReason; value: string }>();
  const taken = new Map<string, string>(); // record id -> the device id it is paired with
  const seenHits = new Map<string, Candidate[]>(); // device id -> hits that were not unique

  for (const d of devices) {
    const record = ix.byId.get(linked.get(d.device_id) ?? '');
    if (!record) continue;
    paired.set(d.device_id, { record, reason: 'linked', value: record.short_id });
    taken.set(record.id, d.device_id);
  }

  for (const step of STEPS) {
    const hits = new Map<string, Hit[]>();
    const perRecord = new Map<string, number>();
    for (const d of devices) {
      if (paired.has(d.device_id)) continue;
      const all = hitsAt(step, d, ix);
      const free = all.filter((h) => !taken.has(h.record.id));
      for (const h of all) {
        if (!taken.has(h.record.id)) continue;
        const other = taken.get(h.record.id)!;
        addCandidate(seenHits, d.device_id, h, `already paired with device ${other}`);
      }
      hits.set(d.device_id, free);
      for (const h of free) perRecord.set(h.record.id, (perRecord.get(h.record.id) ?? 0) + 1);
    }
    for (const [deviceId, free] of hits) {
      const only = free.length === 1 ? free[0]! : undefined;
      if (only && perRecord.get(only.record.id) === 1) {
        paired.set(deviceId, { record: only.record, reason: only.reason, value: only.value });
        taken.set(only.record.id, deviceId);
      } else {
        for (const h of free) {
          addCandidate(seenHits, deviceId, h,
            free.length > 1 ? `${free.length} records match this ${label(h.reason)}` : `other devices match ${h.record.short_id} too`);
        }
      }
    }
  }

  const pairings: Pairing[] = [];
  const unmatched: Unmatched[] = [];
  for (const d of devices) {
    const p = paired.get(d.device_id);
    const candidates = seenHits.get(d.device_id) ?? [];
    if (!p) { unmatched.push({ device_id: d.device_id, candidates }); continue; }
    pairings.push(explain(d, p.record, p.reason, p.value, ix, candidates.filter((c) => c.id !== p.record.id)));
  }
  return { pairings, unmatched };
}

function addCandidate(m: Map<string, Candidate[]>, deviceId: string, h: Hit, note: string): void {
  const list = m.get(deviceId) ?? m.set(deviceId, []).get(deviceId)!;
  if (!list.some((c) => c.id === h.record.id && c.reason === h.reason)) {
    list.push({ ...refOf(h.record), reason: h.reason, matched_on: h.value, note });
  }
}

const label = (r: MatchReason) => (r === 'asset_tag' ? 'asset tag' : r === 'engine_id' ? 'engine ID' : r);

/** The pairing with what agrees with it, what speaks against it, and its confidence. */
function explain(d: DiscoveredDevice, record: InventoryRecord, reason: MatchReason, value: string, ix: Index,
  others: Candidate[]): Pairing {
  const agrees: MatchReason[] = [];
  for (const step of STEPS) {
    for (const h of hitsAt(step, d, ix)) {
      if (h.record.id === record.id && h.reason !== reason && !agrees.includes(h.reason)) agrees.push(h.reason);
    }
  }
  const conflicts: string[] = [];
  const ds = usableSerial(d.serial), rs = usableSerial(record.serial_number);
  if (ds && rs && ds.toLowerCase() !== rs.toLowerCase()) conflicts.push(`serial: the inventory says ${rs}, discovery found ${ds}`);
  const dm = d.macs.filter(isIdentityMac), rm = record.mac_addresses.filter(isIdentityMac);
  if (dm.length && rm.length && !dm.some((m) => rm.includes(m))) conflicts.push('no MAC address in common');
  const de = normaliseEngineId(d.engine_id), re = normaliseEngineId(record.engine_id);
  if (de && re && de !== re) conflicts.push(`engine ID: the inventory says ${re}, discovery found ${de}`);
  for (const c of others) conflicts.push(`${label(c.reason)} ${c.matched_on} also matches ${c.short_id}`);
  let confidence = BASE[reason];
  if (reason !== 'linked') {
    confidence = Math.min(0.99, confidence + 0.02 * agrees.length) - 0.25 * conflicts.length;
    confidence = Math.max(0.05, Math.round(confidence * 100) / 100);
  }
  const related = record.type === 'endpoints' ? (ix.assetsOf.get(record.id) ?? []).map(refOf) : [];
  return {
    device_id: d.device_id, inventory: refOf(record), reason, matched_on: value, confidence,
    certain: confidence >= CERTAIN, agrees, conflicts, related,
  };
}
