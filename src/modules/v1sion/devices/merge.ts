// Devices known over time: what one completed scan changes in them. Pure: the known devices and a
// scan's result in, the changes out (store.ts writes them, service.ts raises the alerts).
//
// A device is an identity merged across addresses, as the scan merges its hosts: its SNMP engine ID,
// serial, LLDP chassis ID and MACs are its keys. A host the probe sees without any of them (a routed
// host without SNMP: no MAC crosses a router) is known by its address, the weakest key, used only then.
// New means a key never seen before, never "an address that did not answer last time". The first
// completed scan of a subnet is its baseline: what it finds is known from then on, and nothing of it is
// new (every printer of the office is not news on the day the probe is plugged in).
import { cidrContains, parseCidr, parseIp } from '../../../core/ip.js';
import type { ScanDevice, ScanResult } from '../scan/result.js';

export const PRESENCES = ['normal', 'expected', 'transient'] as const;
export type Presence = (typeof PRESENCES)[number];

/** Where a device is plugged in, as a switch's forwarding table or LLDP knows it. */
export interface Attachment { switch: string; port: string; vlan: number | null }

export interface KnownDevice {
  id: string;
  first_seen: number;
  last_seen: number;
  name: string;
  vendor: string | null;
  kind: string;
  model: string | null;
  addresses: string[];
  macs: string[];
  /** Identity keys: engine:…, serial:…, chassis:…, mac:…, or ip:… for a device seen with none of the others. */
  keys: string[];
  attachment: Attachment | null;
  presence: Presence;
  /** Seen since it was first found and not yet acknowledged by a person (the baseline's are acknowledged). */
  acknowledged: boolean;
  /** When it stopped answering (the first completed scan of its subnet that missed it), else null. */
  missing_since: number | null;
  /** Its device_missing alert went out for this absence. */
  missing_alerted: boolean;
  /** Completed scans that found it; "seen regularly" is at least two. */
  runs_seen: number;
  /** Completed scans of its subnet in a row that did not find it. */
  runs_missed: number;
}

export type ChangeKind = 'discovered' | 'seen_again' | 'missing' | 'moved' | 'vlan' | 'addresses' | 'address_claimed' | 'name' | 'identity';

export interface DeviceChange {
  device_id: string;
  kind: ChangeKind;
  from: unknown;
  to: unknown;
  /** An alert is due: device_discovered, device_missing or device_changed. */
  alert: 'device_discovered' | 'device_missing' | 'device_changed' | null;
  /** In words, for the history and the alert ("moved from sw1 port 3 to sw2 port 7"). */
  text: string;
}

export interface MissingRule {
  /** Not answering for at least this long… */
  after_ms: number;
  /** …and in at least this many completed scans of its subnet in a row. */
  after_runs: number;
}

export interface MergeOutcome {
  /** Devices new, changed or seen again (written); an unchanged device's last_seen and counters move too. */
  upserts: KnownDevice[];
  /** Devices merged into another (an identity learnt that joins two): their keys and history go to it. */
  merged: { from: string; into: string }[];
  changes: DeviceChange[];
  baseline: boolean;
}

const IP_KEY = 'ip:';

/** A scanned device's identity keys, strongest first. */
export function keysOf(d: Pick<ScanDevice, 'engine_id' | 'serial' | 'vendor_key' | 'chassis_id' | 'macs' | 'addresses'>): string[] {
  const keys: string[] = [];
  if (d.engine_id) keys.push(`engine:${d.engine_id.toLowerCase()}`);
  if (d.serial) keys.push(`serial:${(d.vendor_key ?? '').toLowerCase()}:${d.serial.trim().toLowerCase()}`);
  if (d.chassis_id) keys.push(`chassis:${d.chassis_id.toLowerCase()}`);
  for (const m of d.macs) keys.push(`mac:${m.toLowerCase()}`);
  if (!keys.length) for (const a of d.addresses) keys.push(`${IP_KEY}${a}`);
  return keys;
}

const attachmentText = (a: Attachment | null) =>
  (a ? `${a.switch} port ${a.port}${a.vlan != null ? ` (VLAN ${a.vlan})` : ''}` : 'no known port');
const sameAttachment = (a: Attachment | null, b: Attachment | null) =>
  (a?.switch ?? null) === (b?.switch ?? null) && (a?.port ?? null) === (b?.port ?? null);
const sorted = (xs: readonly string[]) => [...new Set(xs)].sort();
const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/** The switch port each scanned device hangs off, from the scan's forwarding-table links (already edge ports only). */
function attachments(result: ScanResult): Map<string, Attachment> {
  const byId = new Map(result.devices.map((d) => [d.id, d]));
  const out = new Map<string, Attachment>();
  for (const l of result.links) {
    if (l.source !== 'fdb' || !l.from_port || out.has(l.to)) continue;
    const sw = byId.get(l.from);
    if (sw) out.set(l.to, { switch: sw.sys_name ?? sw.name, port: l.from_port, vlan: l.vlan ?? null });
  }
  return out;
}

/** Whether a device belongs to the scanned subnet (any of its addresses in it): only then can the scan miss it. */
function inSubnet(d: KnownDevice, subnet: string): boolean {
  const c = parseCidr(subnet, { loose: true });
  if (!c.ok) return false;
  return d.addresses.some((a) => {
    const ip = parseIp(a);
    return ip !== null && cidrContains(c.cidr, ip);
  });
}

export interface MergeInput {
  known: readonly KnownDevice[];
  result: ScanResult;
  /** The subnet had a completed scan merged before (else this one is its baseline). */
  subnetKnown: boolean;
  now: number;
  missing: MissingRule;
  newId: () => string;
}

export function mergeScan(input: MergeInput): MergeOutcome {
  const { result, now } = input;
  const baseline = !input.subnetKnown;
  const byKey = new Map<string, KnownDevice>();
  const byAddress = new Map<string, KnownDevice>();
  const devices = new Map<string, KnownDevice>();
  for (const k of input.known) {
    const copy: KnownDevice = { ...k, addresses: [...k.addresses], macs: [...k.macs], keys: [...k.keys] };
    devices.set(copy.id, copy);
    for (const key of copy.keys) byKey.set(key, copy);
    for (const a of copy.addresses) byAddress.set(a, copy);
  }
  const changes: DeviceChange[] = [];
  const touched = new Set<string>();
  const merged: MergeOutcome['merged'] = [];
  const change = (d: KnownDevice, kind: ChangeKind, from: unknown, to: unknown, alert: DeviceChange['alert'], text: string) => {
    changes.push({ device_id: d.id, kind, from, to, alert, text });
    touched.add(d.id);
  };
  const ports = attachments(result);
  const seen = new Set<string>();
  const scanned = result.devices.filter((s) => s.seen === 'scan'); // a neighbour named only in another's LLDP table did not answer
  // A key two devices of this scan share says nothing of either (two simulated agents with one engine ID): the
  // scan kept them apart, and so does this.
  const uses = new Map<string, number>();
  for (const s of scanned) for (const k of new Set(keysOf(s))) uses.set(k, (uses.get(k) ?? 0) + 1);

  for (const s of scanned) {
    const keys = keysOf(s).filter((k) => uses.get(k) === 1);
    if (!keys.length) keys.push(...s.addresses.map((a) => `${IP_KEY}${a}`));
    const strong = keys.some((k) => !k.startsWith(IP_KEY));
    // Every known device any key points at; two of them are one device now (a key learnt that joins them).
    const hits = [...new Set(keys.map((k) => byKey.get(k)).filter((d): d is KnownDevice => !!d))]
      .sort((a, b) => a.first_seen - b.first_seen || a.id.localeCompare(b.id));
    // Seen without a MAC or SNMP identity (the probe's own address, a host behind a router): the device that holds
    // the address is the one seen; a sighting without a MAC cannot say it is another.
    if (!strong && !hits.length) {
      const holder = s.addresses.map((a) => byAddress.get(a)).find((x) => x && devices.has(x.id));
      if (holder) hits.push(holder);
    }
    let d = hits[0];
    for (const other of hits.slice(1)) {
      d!.keys = sorted([...d!.keys, ...other.keys]);
      d!.addresses = sorted([...d!.addresses, ...other.addresses]);
      d!.macs = sorted([...d!.macs, ...other.macs]);
      d!.first_seen = Math.min(d!.first_seen, other.first_seen);
      for (const key of other.keys) byKey.set(key, d!);
      devices.delete(other.id);
      merged.push({ from: other.id, into: d!.id });
      const shared = keys.filter((k) => other.keys.includes(k)).join(', ');
      change(d!, 'identity', other.name, d!.name, null, `${other.name} is the same device (${shared})`);
    }
    const name = s.sys_name ?? s.name;
    const attachment = ports.get(s.id) ?? null;
    const addresses = sorted(s.addresses);
    if (!d) {
      d = {
        id: input.newId(), first_seen: now, last_seen: now, name, vendor: s.vendor, kind: s.kind, model: s.model,
        addresses, macs: sorted(s.macs), keys: sorted(keys), attachment, presence: 'normal', acknowledged: baseline,
        missing_since: null, missing_alerted: false, runs_seen: 0, runs_missed: 0,
      };
      devices.set(d.id, d);
      change(d, 'discovered', null, { addresses, macs: d.macs }, baseline ? null : 'device_discovered',
        baseline ? `first seen in the first scan of ${result.subnet} (baseline)`
          : `new device: ${name} (${[...addresses, ...d.macs].join(', ')})`);
    } else {
      // A weak (address) identity is replaced once the device shows a strong key, and never added to one.
      if (strong) d.keys = sorted([...d.keys.filter((k) => !k.startsWith(IP_KEY)), ...keys]);
      else if (d.keys.every((k) => k.startsWith(IP_KEY))) d.keys = sorted([...d.keys, ...keys]);
      if (d.missing_since !== null) {
        change(d, 'seen_again', d.missing_since, now, null, `answers again after ${Math.round((now - d.missing_since) / 60_000)} min`);
        d.missing_since = null;
        d.missing_alerted = false;
      }
      if (attachment && !sameAttachment(d.attachment, attachment)) {
        if (d.attachment) {
          change(d, 'moved', d.attachment, attachment, 'device_changed',
            `moved from ${attachmentText(d.attachment)} to ${attachmentText(attachment)}`);
        }
        d.attachment = attachment;
      } else if (attachment && d.attachment && attachment.vlan !== d.attachment.vlan) {
        change(d, 'vlan', d.attachment.vlan, attachment.vlan, 'device_changed',
          `VLAN ${d.attachment.vlan ?? 'unknown'} → ${attachment.vlan ?? 'unknown'}`);
        d.attachment = attachment;
      }
      if (!sameList(d.addresses, addresses)) {
        change(d, 'addresses', d.addresses, addresses, 'device_changed',
          `addresses ${d.addresses.join(', ') || 'none'} → ${addresses.join(', ')}`);
        d.addresses = addresses;
      }
      if (name !== d.name) {
        change(d, 'name', d.name, name, null, `name ${d.name} → ${name}`);
        d.name = name;
      }
      d.macs = sorted([...d.macs, ...s.macs]);
      d.vendor = s.vendor ?? d.vendor;
      d.model = s.model ?? d.model;
      if (s.kind !== 'unknown') d.kind = s.kind;
    }
    // An address this device answers on that another known device held: a duplicate or a spoofed address.
    for (const a of addresses) {
      const was = byAddress.get(a);
      if (was && was !== d && devices.has(was.id)) {
        const mac = s.macs[0] ?? null;
        change(d, 'address_claimed', { address: a, device_id: was.id, device: was.name, macs: was.macs },
          { address: a, macs: s.macs }, 'device_changed',
          `${a} now answers from ${mac ?? 'another device'} (${name}); it was ${was.name}${was.macs[0] ? ` (${was.macs[0]})` : ''}`);
        was.addresses = was.addresses.filter((x) => x !== a);
        touched.add(was.id);
      }
      byAddress.set(a, d);
    }
    for (const key of d.keys) byKey.set(key, d);
    d.last_seen = now;
    d.runs_seen += 1;
    d.runs_missed = 0;
    seen.add(d.id);
    touched.add(d.id);
  }

  // Who this subnet's scan did not find. Only a completed scan counts (the service merges no other).
  for (const d of devices.values()) {
    if (seen.has(d.id) || !inSubnet(d, result.subnet)) continue;
    d.runs_missed += 1;
    d.missing_since ??= now;
    touched.add(d.id);
    const regular = d.presence === 'expected' || d.runs_seen >= 2;
    const due = now - d.last_seen >= input.missing.after_ms && d.runs_missed >= input.missing.after_runs;
    if (!d.missing_alerted && d.presence !== 'transient' && regular && due) {
      d.missing_alerted = true;
      change(d, 'missing', d.last_seen, null, 'device_missing',
        `${d.name} has not answered since ${new Date(d.last_seen).toISOString()} (${d.runs_missed} scans of ${result.subnet})`);
    }
  }

  return { upserts: [...devices.values()].filter((d) => touched.has(d.id)), merged, changes, baseline };
}
