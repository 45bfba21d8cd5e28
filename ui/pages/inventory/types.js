// The seven inventory types as the pages show them: names, short-ID prefixes, icons, the form's fields
// (named as the API names them, so its messages land beside them), list filters and the records that
// point at one of them (shown on its page). Field kinds: text, textarea, number, email, url, date,
// select, timezone, list (one value per line), tags, ref (one record), refs (several), dhcp (ranges),
// custom (custom fields), secret (write-only credential secret). `when(values)` shows a field only
// when it applies; `empty` is what a record's page says for an empty list; `adminOnly` is the hint others
// read beside a control only an administrator may change (the API refuses them anyway). `filters` are the list's controls; `apiFilters` every filter the API takes for the
// type (a link from a record's page may use one without a control). The enums' values come from
// lib/vocabulary.js; test/unit/ui-contract.test.ts checks all of this against the server's types.
import {
  ASSET_STATUSES, CREDENTIAL_KINDS, CRITICALITIES, ENDPOINT_ROLE_LABELS, ENDPOINT_ROLES,
  SNMP_AUTH_PROTOCOLS, SNMP_PRIV_PROTOCOLS, SNMP_V3_LEVELS,
} from '../../lib/vocabulary.js';

const words = (v) => v.charAt(0).toUpperCase() + v.slice(1).replace(/_/g, ' ');
export const roleLabel = (v) => ENDPOINT_ROLE_LABELS[v] ?? words(v);
export const valueLabel = (v) => words(String(v));
export const kindLabel = (v) => CREDENTIAL_KINDS.find((k) => k.value === v)?.label ?? v;
const choices = (list, label = valueLabel) => list.map((v) => ({ value: v, label: label(v) }));

const COMMON_TAIL = [
  { name: 'tags', label: 'Tags', kind: 'tags', group: 'more' },
  { name: 'custom_fields', label: 'Custom fields', kind: 'custom', group: 'more' },
  { name: 'notes', label: 'Notes', kind: 'textarea', rows: 5, group: 'more', full: true },
];
const description = { name: 'description', label: 'Description', kind: 'textarea', rows: 2, full: true };

const v3 = (vals) => vals.kind === 'snmp_v3';
const level = (vals) => vals.snmpv3_level || 'authPriv';

/**
 * @typedef {{name: string, label: string, kind: string, required?: boolean, hint?: string, placeholder?: string,
 *   options?: {value: string, label: string}[], ref?: string, full?: boolean, rows?: number, group?: string,
 *   when?: (values: Record<string, any>) => boolean, mono?: boolean, empty?: string, adminOnly?: string}} FieldDef
 * @typedef {{type: string, label: string, one: string, prefix: string, icon: string, blurb: string,
 *   fields: FieldDef[], filters: {name: string, label: string, kind: 'select'|'ref'|'text', options?: any[], ref?: string}[],
 *   apiFilters: string[],
 *   related: {type: string, field: string, label: string}[], monitors?: boolean}} TypeDef
 */

/** @type {TypeDef[]} */
export const TYPES = [
  {
    type: 'sites', label: 'Sites', one: 'site', prefix: 'ST', icon: 'building',
    blurb: 'Buildings and campuses: address, time zone and who to call.',
    fields: [
      { name: 'name', label: 'Name', kind: 'text', required: true, placeholder: 'Head office' },
      { name: 'time_zone', label: 'Time zone', kind: 'timezone', placeholder: 'Europe/Zurich' },
      description,
      { name: 'address', label: 'Address', kind: 'textarea', rows: 2, full: true },
      { name: 'latitude', label: 'Latitude', kind: 'number', hint: '-90 to 90; with the longitude.' },
      { name: 'longitude', label: 'Longitude', kind: 'number', hint: '-180 to 180.' },
      { name: 'contact_name', label: 'Contact', kind: 'text', group: 'contact' },
      { name: 'contact_email', label: 'Contact e-mail', kind: 'email', group: 'contact' },
      { name: 'contact_phone', label: 'Contact phone', kind: 'text', group: 'contact' },
      ...COMMON_TAIL,
    ],
    apiFilters: ['time_zone'],
    filters: [],
    related: [{ type: 'locations', field: 'site_id', label: 'Locations' }, { type: 'endpoints', field: 'site_id', label: 'Endpoints' },
      { type: 'subnets', field: 'site_id', label: 'Subnets' }],
  },
  {
    type: 'locations', label: 'Locations', one: 'location', prefix: 'LC', icon: 'pin',
    blurb: 'Rooms and racks inside a site.',
    fields: [
      { name: 'name', label: 'Name', kind: 'text', required: true, placeholder: 'Server room' },
      { name: 'site_id', label: 'Site', kind: 'ref', ref: 'sites', required: true },
      description,
      { name: 'building', label: 'Building', kind: 'text' },
      { name: 'floor', label: 'Floor', kind: 'text' },
      { name: 'room', label: 'Room', kind: 'text' },
      { name: 'rack', label: 'Rack', kind: 'text' },
      ...COMMON_TAIL,
    ],
    apiFilters: ['site_id'],
    filters: [{ name: 'site_id', label: 'Site', kind: 'ref', ref: 'sites' }],
    related: [{ type: 'endpoints', field: 'location_id', label: 'Endpoints' }, { type: 'assets', field: 'location_id', label: 'Assets' }],
  },
  {
    type: 'endpoints', label: 'Endpoints', one: 'endpoint', prefix: 'EP', icon: 'server', monitors: true,
    blurb: 'Anything with an address: switches, servers, printers, cameras.',
    fields: [
      { name: 'name', label: 'Name', kind: 'text', hint: 'Optional: defaults to the host name, else the first address.' },
      { name: 'hostname', label: 'Host name', kind: 'text', placeholder: 'core-sw1.lan', mono: true },
      { name: 'ip_addresses', label: 'IP addresses', kind: 'list', placeholder: '10.0.0.2', hint: 'One per line; IPv4 or IPv6.', mono: true },
      { name: 'mac_addresses', label: 'MAC addresses', kind: 'list', placeholder: 'aa:bb:cc:dd:ee:ff', hint: 'One per line; any common notation.', mono: true },
      { name: 'role', label: 'Role', kind: 'select', options: choices(ENDPOINT_ROLES, roleLabel) },
      { name: 'vendor', label: 'Vendor', kind: 'text' },
      { name: 'model', label: 'Model', kind: 'text' },
      { name: 'serial_number', label: 'Serial number', kind: 'text', mono: true },
      { name: 'os', label: 'Operating system', kind: 'text' },
      { name: 'os_version', label: 'OS version', kind: 'text' },
      { name: 'site_id', label: 'Site', kind: 'ref', ref: 'sites', group: 'where' },
      { name: 'location_id', label: 'Location', kind: 'ref', ref: 'locations', group: 'where' },
      // An endpoint that references a credential is part of where its secrets may go: linking one is an administrator's act.
      { name: 'credential_id', label: 'Management credential', kind: 'ref', ref: 'credentials', group: 'where',
        adminOnly: 'Only an administrator links a credential.' },
      description,
      ...COMMON_TAIL,
    ],
    apiFilters: ['role', 'vendor', 'site_id', 'location_id'],
    filters: [{ name: 'role', label: 'Role', kind: 'select', options: choices(ENDPOINT_ROLES, roleLabel) },
      { name: 'site_id', label: 'Site', kind: 'ref', ref: 'sites' }],
    related: [{ type: 'assets', field: 'endpoint_id', label: 'Assets' }, { type: 'applications', field: 'endpoint_id', label: 'Applications' }],
  },
  {
    type: 'assets', label: 'Assets', one: 'asset', prefix: 'AS', icon: 'box',
    blurb: 'Hardware you own: tags, serials, warranty and who has it.',
    fields: [
      { name: 'name', label: 'Name', kind: 'text', required: true, placeholder: 'Laptop 14"' },
      { name: 'status', label: 'Status', kind: 'select', options: choices(ASSET_STATUSES) },
      { name: 'asset_tag', label: 'Asset tag', kind: 'text', mono: true },
      { name: 'serial_number', label: 'Serial number', kind: 'text', mono: true },
      { name: 'manufacturer', label: 'Manufacturer', kind: 'text' },
      { name: 'model', label: 'Model', kind: 'text' },
      { name: 'purchase_date', label: 'Purchased', kind: 'date' },
      { name: 'warranty_expires', label: 'Warranty until', kind: 'date' },
      { name: 'assigned_to', label: 'Assigned to', kind: 'text' },
      { name: 'location_id', label: 'Location', kind: 'ref', ref: 'locations', group: 'where' },
      { name: 'endpoint_id', label: 'Is the endpoint', kind: 'ref', ref: 'endpoints', group: 'where', hint: 'When this asset is a device on the network.' },
      description,
      ...COMMON_TAIL,
    ],
    apiFilters: ['status', 'location_id', 'endpoint_id'],
    filters: [{ name: 'status', label: 'Status', kind: 'select', options: choices(ASSET_STATUSES) }],
    related: [],
  },
  {
    type: 'applications', label: 'Applications', one: 'application', prefix: 'AP', icon: 'app', monitors: true,
    blurb: 'Services people use, how critical they are and where they run.',
    fields: [
      { name: 'name', label: 'Name', kind: 'text', required: true, placeholder: 'Ticket system' },
      { name: 'criticality', label: 'Criticality', kind: 'select', options: choices(CRITICALITIES) },
      { name: 'url', label: 'URL', kind: 'url', placeholder: 'https://tickets.example.lan', mono: true },
      { name: 'owner', label: 'Owner', kind: 'text' },
      { name: 'endpoint_ids', label: 'Runs on', kind: 'refs', ref: 'endpoints', full: true },
      description,
      ...COMMON_TAIL,
    ],
    apiFilters: ['criticality', 'endpoint_id'],
    filters: [{ name: 'criticality', label: 'Criticality', kind: 'select', options: choices(CRITICALITIES) }],
    related: [],
  },
  {
    type: 'subnets', label: 'Subnets', one: 'subnet', prefix: 'SN', icon: 'network',
    blurb: 'IP networks with their VLAN, gateway, DHCP ranges and DNS.',
    fields: [
      { name: 'cidr', label: 'Network (CIDR)', kind: 'text', required: true, placeholder: '10.20.0.0/24', mono: true },
      { name: 'name', label: 'Name', kind: 'text', hint: 'Optional: defaults to the network.' },
      { name: 'vlan_id', label: 'VLAN ID', kind: 'number', hint: '1-4094' },
      { name: 'vlan_name', label: 'VLAN name', kind: 'text' },
      { name: 'gateway', label: 'Gateway', kind: 'text', placeholder: '10.20.0.1', mono: true },
      { name: 'site_id', label: 'Site', kind: 'ref', ref: 'sites' },
      { name: 'dns_servers', label: 'DNS servers', kind: 'list', hint: 'One per line.', mono: true },
      { name: 'dhcp_ranges', label: 'DHCP ranges', kind: 'dhcp' },
      description,
      ...COMMON_TAIL,
    ],
    apiFilters: ['site_id', 'vlan_id', 'contains'],
    filters: [{ name: 'site_id', label: 'Site', kind: 'ref', ref: 'sites' }, { name: 'contains', label: 'Contains address', kind: 'text' }],
    related: [],
  },
  {
    type: 'credentials', label: 'Credentials', one: 'credential', prefix: 'CR', icon: 'key',
    blurb: 'Logins for SNMP, SSH, HTTP and APIs. Secrets are kept encrypted in the vault and never shown.',
    fields: [
      { name: 'name', label: 'Name', kind: 'text', required: true, placeholder: 'Switches SNMP' },
      { name: 'kind', label: 'Kind', kind: 'select', options: CREDENTIAL_KINDS, required: true },
      { name: 'username', label: 'User name', kind: 'text', when: (v) => v.kind !== 'snmp_v1' && v.kind !== 'snmp_v2c' && v.kind !== 'api_token' },
      { name: 'port', label: 'Port', kind: 'number', hint: 'When not the protocol default.' },
      { name: 'scope', label: 'Where it may be used', kind: 'list', rows: 4, full: true, mono: true, placeholder: '10.20.0.0/24\ncore-sw1.lan',
        hint: 'One per line. Addresses, networks (CIDR) and host names this credential may be sent to. Inventory endpoints that use it count too. Anything else is refused.',
        empty: 'Only endpoints that use it' },
      { name: 'snmpv3_level', label: 'Security level', kind: 'select', options: SNMP_V3_LEVELS, when: v3 },
      { name: 'snmpv3_auth_protocol', label: 'Authentication protocol', kind: 'select', options: SNMP_AUTH_PROTOCOLS,
        when: (v) => v3(v) && level(v) !== 'noAuthNoPriv' },
      { name: 'snmpv3_priv_protocol', label: 'Privacy protocol', kind: 'select', options: SNMP_PRIV_PROTOCOLS, when: (v) => v3(v) && level(v) === 'authPriv' },
      { name: 'community', label: 'Community', kind: 'secret', group: 'secrets', when: (v) => v.kind === 'snmp_v1' || v.kind === 'snmp_v2c' },
      { name: 'snmpv3_auth_key', label: 'Authentication key', kind: 'secret', group: 'secrets', when: (v) => v3(v) && level(v) !== 'noAuthNoPriv' },
      { name: 'snmpv3_priv_key', label: 'Privacy key', kind: 'secret', group: 'secrets', when: (v) => v3(v) && level(v) === 'authPriv' },
      { name: 'password', label: 'Password', kind: 'secret', group: 'secrets', when: (v) => v.kind === 'ssh_password' || v.kind === 'http_basic' },
      { name: 'ssh_private_key', label: 'Private key', kind: 'secret', multiline: true, group: 'secrets', when: (v) => v.kind === 'ssh_key' },
      { name: 'ssh_passphrase', label: 'Key passphrase', kind: 'secret', group: 'secrets', when: (v) => v.kind === 'ssh_key' },
      { name: 'api_token', label: 'API token', kind: 'secret', group: 'secrets', when: (v) => v.kind === 'api_token' },
      description,
      ...COMMON_TAIL,
    ],
    apiFilters: ['kind'],
    filters: [{ name: 'kind', label: 'Kind', kind: 'select', options: CREDENTIAL_KINDS }],
    related: [],
  },
];

export const typeDef = (type) => TYPES.find((t) => t.type === type);

/** What a link can point at: a record of any type, or a monitor. */
export const LINK_TARGETS = [...TYPES.map((t) => ({ value: t.type, label: t.label })), { value: 'monitors', label: 'Monitors' }];
export const typeOfPrefix = (prefix) => TYPES.find((t) => t.prefix === prefix.toUpperCase());

/** "EP-12" (any case, spaces around allowed) -> "EP-12" when it is a short ID of a known type, else null. */
export function asShortId(q) {
  const m = /^\s*([a-z]{2})-(\d{1,9})\s*$/i.exec(q ?? '');
  return m && typeOfPrefix(m[1]) ? `${m[1].toUpperCase()}-${Number(m[2])}` : null;
}

/** Where a record's page is. */
export const recordHref = (type, rec) => `/inventory/${type}/${encodeURIComponent(rec.short_id ?? rec.id)}`;
