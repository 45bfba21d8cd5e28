// The inventory side of the bridge: endpoints and assets as matching sees them, the site a device's
// subnet belongs to, and the body of a record created from a discovered device. Reads go through the
// inventory's item service (never its tables); nothing here writes.
import { cidrContains, parseCidr, parseIp, type Cidr } from '../../../core/ip.js';
import type { BrainServices } from '../../brain/index.js';
import { isIdentityMac, usableSerial, type DiscoveredDevice } from './discovered.js';
import type { InventoryRecord, InventoryType } from './match.js';

type Items = BrainServices['items'];
type Item = Record<string, unknown>;

/** Every record of a type, as the inventory shows it (an inventory holds thousands, not millions). */
export function allOf(items: Items, type: 'endpoints' | 'assets' | 'applications' | 'subnets'): Item[] {
  return items.list(type, { limit: Number.MAX_SAFE_INTEGER, offset: 0 }).items;
}

const str = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);
const strs = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

export function toRecord(type: InventoryType, item: Item): InventoryRecord {
  const custom = item.custom_fields && typeof item.custom_fields === 'object' ? item.custom_fields as Record<string, unknown> : {};
  return {
    type, id: String(item.id), short_id: String(item.short_id), name: String(item.name),
    hostname: str(item.hostname), ip_addresses: strs(item.ip_addresses), mac_addresses: strs(item.mac_addresses),
    serial_number: str(item.serial_number), asset_tag: str(item.asset_tag),
    engine_id: str(custom.snmp_engine_id) ?? str(custom.engine_id), endpoint_id: str(item.endpoint_id), data: item,
  };
}

/** Endpoints and assets: what discovered devices are matched against. */
export function inventoryRecords(items: Items): InventoryRecord[] {
  return [...allOf(items, 'endpoints').map((i) => toRecord('endpoints', i)), ...allOf(items, 'assets').map((i) => toRecord('assets', i))];
}

export interface SubnetSite { cidr: Cidr; site_id: string }

/** Inventory subnets that name a site, longest prefix first. */
export function subnetSites(items: Items): SubnetSite[] {
  const out: SubnetSite[] = [];
  for (const s of allOf(items, 'subnets')) {
    const c = typeof s.cidr === 'string' ? parseCidr(s.cidr) : null;
    if (c?.ok && typeof s.site_id === 'string') out.push({ cidr: c.cidr, site_id: s.site_id });
  }
  return out.sort((a, b) => b.cidr.prefix - a.cidr.prefix);
}

/** The site of the subnet holding the device's first address that any site-bearing subnet holds. */
export function siteOf(d: DiscoveredDevice, subnets: readonly SubnetSite[]): string | null {
  for (const a of d.addresses) {
    const ip = parseIp(a);
    const hit = ip && subnets.find((s) => cidrContains(s.cidr, ip));
    if (hit) return hit.site_id;
  }
  return null;
}

const HOST_LABEL = /^[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?$/;
const validHostname = (h: string) => h.length <= 253 && h.split('.').every((l) => HOST_LABEL.test(l));

const ROLES: Record<string, string> = {
  router: 'router', switch: 'switch', firewall: 'firewall', access_point: 'access_point', server: 'server',
};

export interface CreateOverrides {
  name?: string | undefined;
  role?: string | undefined;
  site_id?: string | undefined;
  location_id?: string | undefined;
}

const cut = (s: string | null, n = 100) => (s ? s.slice(0, n) : undefined);

/**
 * The body of an inventory record made from a discovered device: its addresses, MACs, vendor, model,
 * serial and OS, and the site of its subnet (given overrides win). The item service validates it.
 */
export function createBody(d: DiscoveredDevice, type: InventoryType, o: CreateOverrides, site: string | null): Item {
  const serial = cut(usableSerial(d.serial));
  const name = (o.name ?? d.name).slice(0, 200);
  if (type === 'assets') {
    return strip({ name, serial_number: serial, model: cut(d.model), manufacturer: cut(d.vendor), location_id: o.location_id });
  }
  return strip({
    name, hostname: d.hostnames.find(validHostname), ip_addresses: d.addresses.slice(0, 64),
    mac_addresses: d.macs.filter(isIdentityMac).slice(0, 64), role: o.role ?? ROLES[d.kind],
    vendor: cut(d.vendor), model: cut(d.model), serial_number: serial, os: cut(d.os), os_version: cut(d.os_version),
    site_id: o.site_id ?? site ?? undefined, location_id: o.location_id,
  });
}

function strip(o: Item): Item {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && !(Array.isArray(v) && v.length === 0)));
}
