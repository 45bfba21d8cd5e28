// What discovery would change in the inventory, field by field. Pure: a source's devices, the inventory
// records, the pairings and who last wrote each field in; the report (and the update a link writes) out.
//
// Ownership: discovery owns addresses, MACs, vendor, model, serial and OS of an endpoint (serial, model
// and manufacturer of an asset). It proposes a value only when it learnt one; it never clears a field.
// A field whose last writer was a person is hand-set: shown beside the discovered value, never written.
// Lists are merged, never cut short: an address goes only when it lies in a subnet the source covers
// and the device no longer answers on it (a neighbour seen through LLDP only removes nothing); MACs are
// only added.
import { cidrContains, parseCidr, parseIp, type Cidr } from '../../../core/ip.js';
import { isIdentityMac, usableSerial, type DiscoveredDevice, type DiscoveredSource } from './discovered.js';
import {
  refOf, type Candidate, type InventoryRecord, type InventoryType, type MatchResult, type Pairing, type RecordRef,
} from './match.js';

/** The fields discovery owns, per inventory type, in the order a diff shows them. */
export const OWNED_FIELDS: Record<InventoryType, readonly string[]> = {
  endpoints: ['ip_addresses', 'mac_addresses', 'vendor', 'model', 'serial_number', 'os', 'os_version'],
  assets: ['manufacturer', 'model', 'serial_number'],
};

const LIST_MAX = 64;
const TEXT_MAX = 100;

export interface FieldChange {
  field: string;
  /** The record's value now. */
  inventory: unknown;
  /** What discovery would make it. */
  discovered: unknown;
  /** Last written by a person: never overwritten by discovery, only shown. */
  hand_set: boolean;
  /** A link (or an applied auto-match) writes it: not hand-set. */
  writes: boolean;
}

export type DiffStatus = 'new' | 'changed' | 'unchanged';

export interface DiffItem {
  status: DiffStatus;
  device: DiscoveredDevice;
  /** Linked before (by a person, an auto-match, or a session node's inventory link). */
  linked: boolean;
  match: Pairing | null;
  /** Records this device hit when no hit was unique (possible duplicates): a person decides. */
  candidates: Candidate[];
  changes: FieldChange[];
}

export interface MissingItem {
  inventory: RecordRef;
  /** Its addresses inside the source's subnets. */
  addresses: string[];
  /** When discovery last saw a device linked to it; null: never. */
  last_seen: string | null;
  linked: boolean;
}

export interface DiffCounts { new: number; changed: number; unchanged: number; missing: number; certain: number; candidates: number }

export interface DiffResult { counts: DiffCounts; items: DiffItem[]; missing: MissingItem[] }

/** Whether a person last wrote this field of this record (from the inventory's change history). */
export type HandSetLookup = (record: InventoryRecord, field: string) => boolean;

export function cidrsOf(subnets: readonly string[]): Cidr[] {
  return subnets.map((s) => parseCidr(s, { loose: true })).filter((c) => c.ok).map((c) => c.cidr);
}

const inside = (address: string, cidrs: readonly Cidr[]) => {
  const ip = parseIp(address);
  return !!ip && cidrs.some((c) => cidrContains(c, ip));
};

const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v : null);
const list = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const sameText = (a: string | null, b: string | null) => (a ?? '').trim().toLowerCase() === (b ?? '').trim().toLowerCase();
const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x) => b.includes(x));
const fit = (s: string | null) => (s ? s.trim().slice(0, TEXT_MAX) : null);

/** Addresses after discovery: the record's, less those in the covered subnets the device no longer has, plus the device's. */
export function mergedAddresses(current: readonly string[], d: DiscoveredDevice, cidrs: readonly Cidr[]): string[] {
  const kept = current.filter((a) => d.addresses.includes(a) || d.seen !== 'scan' || !inside(a, cidrs));
  return [...new Set([...kept, ...d.addresses])].slice(0, LIST_MAX);
}

export function mergedMacs(current: readonly string[], d: DiscoveredDevice): string[] {
  return [...new Set([...current, ...d.macs.filter(isIdentityMac)])].slice(0, LIST_MAX);
}

/** What discovery knows for each owned field of the type (null: nothing to say). */
function discoveredValues(d: DiscoveredDevice, type: InventoryType, current: Record<string, unknown>, cidrs: readonly Cidr[]):
  Record<string, unknown> {
  const vendor = d.vendor_from_mac && text(current[type === 'assets' ? 'manufacturer' : 'vendor']) ? null : fit(d.vendor);
  const common = { model: fit(d.model), serial_number: fit(usableSerial(d.serial)) };
  if (type === 'assets') return { manufacturer: vendor, ...common };
  return {
    ip_addresses: mergedAddresses(list(current.ip_addresses), d, cidrs),
    mac_addresses: mergedMacs(list(current.mac_addresses), d),
    vendor, ...common, os: fit(d.os), os_version: fit(d.os_version),
  };
}

/** The owned fields where discovery's value differs from the record's, each marked hand-set or written. */
export function fieldChanges(d: DiscoveredDevice, record: InventoryRecord, cidrs: readonly Cidr[], handSet: HandSetLookup): FieldChange[] {
  const found = discoveredValues(d, record.type, record.data, cidrs);
  const out: FieldChange[] = [];
  for (const field of OWNED_FIELDS[record.type]) {
    const now = record.data[field];
    const next = found[field];
    if (Array.isArray(next)) {
      const cur = list(now);
      if (sameSet(cur, next as string[])) continue;
      const hand = handSet(record, field);
      out.push({ field, inventory: cur, discovered: next, hand_set: hand, writes: !hand });
    } else {
      if (next == null || sameText(text(now), next as string)) continue;
      const hand = handSet(record, field);
      out.push({ field, inventory: text(now), discovered: next, hand_set: hand, writes: !hand });
    }
  }
  return out;
}

/** The inventory update a link writes: the changed fields that are not hand-set. */
export function updateOf(changes: readonly FieldChange[]): Record<string, unknown> {
  return Object.fromEntries(changes.filter((c) => c.writes).map((c) => [c.field, c.discovered]));
}

/**
 * The diff of a source against the inventory: every device new, changed or unchanged, and every
 * endpoint with an address inside the source's subnets that no device matched (nor hit as a candidate):
 * missing, with when discovery last saw it.
 */
export function diffSource(source: DiscoveredSource, records: readonly InventoryRecord[], matched: MatchResult,
  opts: { handSet: HandSetLookup; lastSeen: (recordId: string) => string | null; linked: (recordId: string) => boolean }): DiffResult {
  const cidrs = cidrsOf(source.subnets);
  const byId = new Map(records.map((r) => [r.id, r]));
  const pairing = new Map(matched.pairings.map((p) => [p.device_id, p]));
  const candidates = new Map(matched.unmatched.map((u) => [u.device_id, u.candidates]));
  const counts: DiffCounts = { new: 0, changed: 0, unchanged: 0, missing: 0, certain: 0, candidates: 0 };
  const items: DiffItem[] = [];
  const seen = new Set<string>();
  for (const d of source.devices) {
    const p = pairing.get(d.device_id);
    const record = p ? byId.get(p.inventory.id) : undefined;
    if (!p || !record) {
      const c = candidates.get(d.device_id) ?? [];
      if (c.length) counts.candidates++;
      for (const x of c) seen.add(x.id); // a possible duplicate of a device seen is not missing
      counts.new++;
      items.push({ status: 'new', device: d, linked: false, match: null, candidates: c, changes: [] });
      continue;
    }
    seen.add(record.id);
    for (const r of p.related) seen.add(r.id);
    if (p.certain) counts.certain++;
    const changes = fieldChanges(d, record, cidrs, opts.handSet);
    const status: DiffStatus = changes.length ? 'changed' : 'unchanged';
    counts[status]++;
    items.push({ status, device: d, linked: p.reason === 'linked', match: p, candidates: [], changes });
  }
  const missing: MissingItem[] = [];
  if (cidrs.length) {
    for (const r of records) {
      if (r.type !== 'endpoints' || seen.has(r.id)) continue;
      const addresses = r.ip_addresses.filter((a) => inside(a, cidrs));
      if (!addresses.length) continue;
      missing.push({ inventory: refOf(r), addresses, last_seen: opts.lastSeen(r.id), linked: opts.linked(r.id) });
    }
  }
  counts.missing = missing.length;
  return { counts, items, missing };
}
