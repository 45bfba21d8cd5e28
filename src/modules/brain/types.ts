// The inventory types: one definition per type (schema, short-ID prefix, reference fields, searchable and
// exact-match fields, list filters, cross-field checks, and the optional secret fields and hooks that the
// credentials type plugs in). The generic item service (items.ts) knows nothing type-specific beyond this.
import { z } from 'zod';
import type { FieldError } from '../../core/errors.js';
import type { Tx } from '../../core/store/types.js';
import { BRAIN_TYPES, SHORT_ID_PREFIX, type BrainType } from './contracts.js';
import { cidrContains, normaliseIp, normaliseMac, parseCidr, parseIp, type Cidr } from '../../core/ip.js';
import { timeZoneSchema } from '../../core/time-zone.js';

export { BRAIN_TYPES, SHORT_ID_PREFIX, type BrainType };

export type ItemData = Record<string, unknown>;

/** A field that holds the UUID of another inventory record (`many`: an array of them). */
export interface RefField { field: string; type: BrainType; many?: boolean }

/** A list filter: `eq` compares a stored field, `ref` a reference field (UUID or short ID accepted). */
export type FilterDef =
  | { kind: 'eq'; field: string; number?: boolean }
  | { kind: 'ref'; field: string; type: BrainType; many?: boolean }
  | { kind: 'contains' };

export interface TypeDef {
  type: BrainType;
  prefix: string;
  /** Body of a create (strict: unknown fields are a 400); its output is the normalised record. */
  create: z.ZodType<ItemData>;
  /** Body of an update: the same fields, all optional; null clears an optional field. */
  update: z.ZodType<ItemData>;
  /** Every field of the record besides name, in output order (absent ones are shown as null, [] or {}). */
  fields: readonly string[];
  /** Fields whose empty value is [] (the rest are null, custom_fields is {}). */
  listFields: readonly string[];
  refs: readonly RefField[];
  /** Fields whose values go into the full-text index (besides name, description, tags, notes, custom fields). */
  searchable: readonly string[];
  /** Fields whose values are exact-match keys in search (IPs, MACs, serials, hostnames...). */
  keyFields: readonly string[];
  /** List filters besides q and tag, by query parameter name. */
  filters: Readonly<Record<string, FilterDef>>;
  /** A name when the body gives none (e.g. a subnet's CIDR); undefined makes name required. */
  defaultName?(data: ItemData): string | undefined;
  /** Checks across fields on the merged record (after an update too); errors name the field. */
  check?(data: ItemData): FieldError[];
  /**
   * Write-only fields: taken out of the body before the record is stored, never in item data, history
   * (which shows "(changed)") or the audit trail; handed to onSecrets inside the write transaction.
   */
  secretFields?: readonly string[];
  onSecrets?(tx: Tx, itemId: string, values: Record<string, string | null>, action: 'create' | 'update'): void;
  /** Called inside the delete transaction (e.g. to remove stored secrets). */
  onRemove?(tx: Tx, itemId: string): void;
  /** Called before any write of this type, outside the transaction (e.g. a 423 while the vault is locked). */
  beforeWrite?(): void;
  /** Adds computed fields to the API object (e.g. which secrets are set). */
  present?(item: ItemData): ItemData;
}

// ---- field schemas -------------------------------------------------------------------------------

export const LIMITS = { name: 200, text: 500, description: 2000, notes: 20_000, tag: 50, tags: 20, customKeys: 50, list: 64 } as const;

export const str = (max: number = LIMITS.text) => z.string().trim().min(1).max(max);
export const opt = <T extends z.ZodType>(s: T) => s.nullable().optional();

const TagsField = z.array(z.string().trim().min(1).max(LIMITS.tag)).max(LIMITS.tags)
  .transform((t) => [...new Set(t)]);

const CustomFields = z.record(
  z.string().trim().min(1).max(64),
  z.union([z.string().max(2000), z.number(), z.boolean(), z.null()]),
).refine((o) => Object.keys(o).length <= LIMITS.customKeys, { message: `At most ${LIMITS.customKeys} custom fields` })
  .describe('Free-form key/value pairs (string, number, boolean or null values)');

export const IpField = z.string().trim().max(64).transform((s, ctx) => {
  const n = normaliseIp(s);
  if (!n) { ctx.addIssue({ code: 'custom', message: `Not an IPv4 or IPv6 address: ${s}` }); return z.NEVER; }
  return n;
}).describe('IPv4 or IPv6 address; stored in canonical form (RFC 5952 for IPv6)');

const MacField = z.string().trim().max(32).transform((s, ctx) => {
  const n = normaliseMac(s);
  if (!n) {
    ctx.addIssue({ code: 'custom', message: `Not a MAC address: ${s} (use aa:bb:cc:dd:ee:ff, aa-bb-..., aabb.ccdd.eeff or bare hex)` });
    return z.NEVER;
  }
  return n;
}).describe('MAC address; stored as aa:bb:cc:dd:ee:ff');

const CidrField = z.string().trim().max(64).transform((s, ctx) => {
  const r = parseCidr(s);
  if (!r.ok) {
    ctx.addIssue({ code: 'custom', message: r.message, params: r.suggestion ? { suggestion: r.suggestion } : undefined });
    return z.NEVER;
  }
  return r.text;
}).describe('Network in CIDR notation; host bits must be zero (10.0.0.5/24 is a 400 naming 10.0.0.0/24 as its `suggestion`)');

const uniq = <T>(a: T[]) => [...new Set(a)];
const ipList = z.array(IpField).max(LIMITS.list).transform(uniq);
const macList = z.array(MacField).max(LIMITS.list).transform(uniq);

const Hostname = z.string().trim().max(253).transform((s, ctx) => {
  const h = s.toLowerCase().replace(/\.$/, '');
  const ok = h.length > 0 && h.split('.').every((l) => /^[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?$/.test(l));
  if (!ok) { ctx.addIssue({ code: 'custom', message: `Not a valid host name: ${s}` }); return z.NEVER; }
  return h;
}).describe('DNS host name (stored lowercase, without a trailing dot)');

const TimeZone = timeZoneSchema((s) => `Unknown IANA time zone: ${s}`).describe('IANA time zone, e.g. Europe/Zurich');

const DateField = z.iso.date().describe('YYYY-MM-DD');
const Ref = (type: BrainType) => z.string().trim().min(1).max(64).describe(`UUID or short ID of a record in ${type}`);

export const common = {
  name: str(LIMITS.name),
  description: opt(z.string().trim().max(LIMITS.description)),
  tags: TagsField.optional(),
  custom_fields: CustomFields.optional(),
  notes: opt(z.string().max(LIMITS.notes)),
};
const COMMON_FIELDS = ['description', 'tags', 'custom_fields', 'notes'] as const;

export const ENDPOINT_ROLES = [
  'switch', 'router', 'firewall', 'access_point', 'wireless_controller', 'load_balancer', 'server', 'virtual_machine',
  'workstation', 'laptop', 'printer', 'camera', 'phone', 'storage', 'ups', 'pdu', 'iot', 'other',
] as const;
export const CRITICALITIES = ['low', 'medium', 'high', 'critical'] as const;
export const ASSET_STATUSES = ['in_use', 'spare', 'in_repair', 'retired', 'disposed'] as const;

// ---- the six types -------------------------------------------------------------------------------

const siteShape = {
  ...common,
  address: opt(str(1000)),
  time_zone: opt(TimeZone),
  latitude: opt(z.number().min(-90).max(90)),
  longitude: opt(z.number().min(-180).max(180)),
  contact_name: opt(str(200)),
  contact_email: opt(z.email().max(254)),
  contact_phone: opt(str(50)),
};

const locationShape = {
  ...common,
  site_id: Ref('sites'),
  building: opt(str(200)),
  floor: opt(str(50)),
  room: opt(str(100)),
  rack: opt(str(100)),
};

const endpointShape = {
  ...common,
  name: str(LIMITS.name).optional().describe('Defaults to the host name, else the first IP address'),
  hostname: opt(Hostname),
  ip_addresses: ipList.optional(),
  mac_addresses: macList.optional(),
  role: opt(z.enum(ENDPOINT_ROLES)),
  vendor: opt(str(100)),
  model: opt(str(100)),
  serial_number: opt(str(100)),
  os: opt(str(100)),
  os_version: opt(str(100)),
  site_id: opt(Ref('sites')),
  location_id: opt(Ref('locations')),
  credential_id: opt(Ref('credentials').describe('Management credential: UUID or short ID of a record in credentials')),
};

const assetShape = {
  ...common,
  asset_tag: opt(str(100)),
  serial_number: opt(str(100)),
  model: opt(str(100)),
  manufacturer: opt(str(100)),
  status: opt(z.enum(ASSET_STATUSES)),
  purchase_date: opt(DateField),
  warranty_expires: opt(DateField),
  assigned_to: opt(str(200)),
  location_id: opt(Ref('locations')),
  endpoint_id: opt(Ref('endpoints').describe('The endpoint this asset is: UUID or short ID')),
};

const applicationShape = {
  ...common,
  url: opt(z.url().max(2048)),
  owner: opt(str(200)),
  criticality: opt(z.enum(CRITICALITIES)),
  endpoint_ids: z.array(Ref('endpoints')).max(LIMITS.list).optional().describe('Endpoints the application runs on'),
};

const DhcpRange = z.strictObject({ start: IpField, end: IpField });

const subnetShape = {
  ...common,
  name: str(LIMITS.name).optional().describe('Defaults to the CIDR'),
  cidr: CidrField,
  vlan_id: opt(z.number().int().min(1).max(4094)),
  vlan_name: opt(str(100)),
  gateway: opt(IpField),
  dhcp_ranges: z.array(DhcpRange).max(16).optional(),
  dns_servers: ipList.optional(),
  site_id: opt(Ref('sites')),
};

export type Shape = Record<string, z.ZodType>;

function schemas(shape: Shape): { create: z.ZodType<ItemData>; update: z.ZodType<ItemData> } {
  const create = z.strictObject(shape);
  return { create: create as unknown as z.ZodType<ItemData>, update: create.partial() as unknown as z.ZodType<ItemData> };
}

const fieldsOf = (shape: Shape) => Object.keys(shape).filter((k) => k !== 'name');

/** Gateway and DHCP ranges inside the network, each range in order; without a valid network, the order only. */
function subnetCheck(d: ItemData): FieldError[] {
  const errors: FieldError[] = [];
  const c = typeof d.cidr === 'string' ? parseCidr(d.cidr) : null;
  const net = c?.ok ? c.cidr : null;
  const inside = (ip: unknown, path: string) => {
    const p = typeof ip === 'string' ? parseIp(ip) : null;
    if (p && net && !cidrContains(net, p)) errors.push({ path, message: `${ip as string} is not inside ${d.cidr as string}` });
    return p;
  };
  if (d.gateway != null) inside(d.gateway, 'gateway');
  const ranges = Array.isArray(d.dhcp_ranges) ? (d.dhcp_ranges as { start: string; end: string }[]) : [];
  ranges.forEach((r, i) => {
    const a = inside(r.start, `dhcp_ranges.${i}.start`), b = inside(r.end, `dhcp_ranges.${i}.end`);
    if (a && b && a.family === b.family && a.value > b.value) errors.push({ path: `dhcp_ranges.${i}.end`, message: 'end is before start' });
  });
  return errors;
}

export function typeOfPrefix(prefix: string): BrainType | undefined {
  const p = prefix.toUpperCase();
  return BRAIN_TYPES.find((t) => SHORT_ID_PREFIX[t] === p);
}

/** A TypeDef from a zod shape: create/update schemas and the field list derive from it. */
export const defineType = (type: BrainType, shape: Shape,
  rest: Omit<TypeDef, 'type' | 'prefix' | 'create' | 'update' | 'fields'>): TypeDef => ({
  type, prefix: SHORT_ID_PREFIX[type], ...schemas(shape), fields: fieldsOf(shape), ...rest,
});

const BUILTIN: TypeDef[] = [];

BUILTIN.push(defineType('sites', siteShape, {
  listFields: ['tags'], refs: [],
  searchable: ['address', 'time_zone', 'contact_name', 'contact_email', 'contact_phone'],
  keyFields: [], filters: { time_zone: { kind: 'eq', field: 'time_zone' } },
  check: (d) => ((d.latitude == null) !== (d.longitude == null)
    ? [{ path: d.latitude == null ? 'latitude' : 'longitude', message: 'latitude and longitude go together' }] : []),
}));

BUILTIN.push(defineType('locations', locationShape, {
  listFields: ['tags'], refs: [{ field: 'site_id', type: 'sites' }],
  searchable: ['building', 'floor', 'room', 'rack'],
  keyFields: [], filters: { site_id: { kind: 'ref', field: 'site_id', type: 'sites' } },
}));

BUILTIN.push(defineType('endpoints', endpointShape, {
  listFields: ['tags', 'ip_addresses', 'mac_addresses'],
  refs: [{ field: 'site_id', type: 'sites' }, { field: 'location_id', type: 'locations' }, { field: 'credential_id', type: 'credentials' }],
  searchable: ['hostname', 'ip_addresses', 'mac_addresses', 'role', 'vendor', 'model', 'serial_number', 'os', 'os_version'],
  keyFields: ['hostname', 'ip_addresses', 'mac_addresses', 'serial_number'],
  filters: {
    role: { kind: 'eq', field: 'role' }, vendor: { kind: 'eq', field: 'vendor' },
    site_id: { kind: 'ref', field: 'site_id', type: 'sites' }, location_id: { kind: 'ref', field: 'location_id', type: 'locations' },
  },
  defaultName: (d) => (typeof d.hostname === 'string' ? d.hostname
    : Array.isArray(d.ip_addresses) && typeof d.ip_addresses[0] === 'string' ? d.ip_addresses[0] : undefined),
}));

BUILTIN.push(defineType('assets', assetShape, {
  listFields: ['tags'], refs: [{ field: 'location_id', type: 'locations' }, { field: 'endpoint_id', type: 'endpoints' }],
  searchable: ['asset_tag', 'serial_number', 'model', 'manufacturer', 'assigned_to', 'status'],
  keyFields: ['asset_tag', 'serial_number'],
  filters: {
    status: { kind: 'eq', field: 'status' }, location_id: { kind: 'ref', field: 'location_id', type: 'locations' },
    endpoint_id: { kind: 'ref', field: 'endpoint_id', type: 'endpoints' },
  },
  check: (d) => (typeof d.purchase_date === 'string' && typeof d.warranty_expires === 'string' && d.warranty_expires < d.purchase_date
    ? [{ path: 'warranty_expires', message: 'The warranty cannot expire before the purchase date' }] : []),
}));

BUILTIN.push(defineType('applications', applicationShape, {
  listFields: ['tags', 'endpoint_ids'], refs: [{ field: 'endpoint_ids', type: 'endpoints', many: true }],
  searchable: ['url', 'owner', 'criticality'],
  keyFields: ['url'],
  filters: {
    criticality: { kind: 'eq', field: 'criticality' },
    endpoint_id: { kind: 'ref', field: 'endpoint_ids', type: 'endpoints', many: true },
  },
}));

BUILTIN.push(defineType('subnets', subnetShape, {
  listFields: ['tags', 'dhcp_ranges', 'dns_servers'], refs: [{ field: 'site_id', type: 'sites' }],
  searchable: ['cidr', 'vlan_id', 'vlan_name', 'gateway', 'dns_servers'],
  keyFields: ['cidr', 'gateway'],
  filters: {
    site_id: { kind: 'ref', field: 'site_id', type: 'sites' }, vlan_id: { kind: 'eq', field: 'vlan_id', number: true },
    contains: { kind: 'contains' },
  },
  defaultName: (d) => (typeof d.cidr === 'string' ? d.cidr : undefined),
  check: subnetCheck,
}));

/**
 * The six types of this step. The item service starts with these; credentials are added per app with
 * ItemService.registerType (they need the app's vault in their hooks).
 */
export const BUILTIN_TYPES: readonly TypeDef[] = BUILTIN;

export { COMMON_FIELDS };

/** The parsed CIDR of a subnet record (null when missing or invalid). */
export function subnetCidr(data: ItemData): Cidr | null {
  if (typeof data.cidr !== 'string') return null;
  const c = parseCidr(data.cidr);
  return c.ok ? c.cidr : null;
}
