// The server's vocabularies as the pages show them: the values of its enums (monitor statuses, event
// kinds, inventory roles and kinds, SNMP versions and protocols, what became of alerts and deliveries,
// user roles and scope areas; webhook providers come from GET /api/webhooks/providers) with the UI's
// words for them. Plain data without
// imports, so that test/unit/ui-contract.test.ts loads it in Node beside the server's own definitions and fails when
// the two disagree: a value the server has and the UI lacks, or one the UI has and the server does
// not. A new value on the server is a line here (the test says which). The inventory types' fields
// live in pages/inventory/types.js and the monitor form's choices in pages/monitors/model.js; the
// same test checks those.

// ---- monitors ----------------------------------------------------------------------------------------

/** Monitor statuses, worst first: the order of the list's filter chips and the dashboard's tiles. */
export const MONITOR_STATUSES = ['down', 'degraded', 'up', 'paused', 'unknown'];

export const STATUS_LABELS = { up: 'Up', down: 'Down', degraded: 'Degraded', paused: 'Paused', unknown: 'Unknown' };

/** A monitor's status in a sentence (its page). */
export const STATUS_TEXT = {
  up: 'Answering normally', degraded: 'Answering, but slow or failing some checks', down: 'Not answering',
  paused: 'Paused: not checked until resumed', unknown: 'Waiting for the first check',
};

/** The statuses of one check result (the results filter), worst first. */
export const RESULT_STATUSES = ['down', 'degraded', 'up'];

/** Kinds of the monitor event log, in the order of the kind filter. */
export const EVENT_KINDS = ['status_change', 'incident_opened', 'incident_closed', 'created', 'updated', 'deleted',
  'paused', 'resumed', 'manual_check', 'history_cleared', 'alert_released', 'uptime_recounted', 'maintenance_started', 'maintenance_ended',
  'route_changed'];

export const EVENT_KIND_LABELS = {
  status_change: 'Status change', incident_opened: 'Incident opened', incident_closed: 'Incident closed', created: 'Created',
  updated: 'Edited', deleted: 'Deleted', paused: 'Paused', resumed: 'Resumed', manual_check: 'Checked now', history_cleared: 'History cleared',
  alert_released: 'Alert released', uptime_recounted: 'Uptime recounted',
  maintenance_started: 'Maintenance started', maintenance_ended: 'Maintenance ended', route_changed: 'Route changed',
};

/** The status an event without a to_status leaves the monitor in, for its colour mark. */
export const EVENT_MARK = { incident_opened: 'down', incident_closed: 'up', paused: 'paused', resumed: 'unknown', created: 'unknown',
  alert_released: 'down', maintenance_started: 'maintenance', route_changed: 'degraded' };

// ---- maintenance windows (GET/POST /api/monitors/maintenance) ----------------------------------------

/** A window's state, with the words and tone of its badge (the open one in the maintenance colour). */
export const MAINTENANCE_STATES = {
  open: { label: 'Open', hint: 'Holding alerts now' },
  scheduled: { label: 'Scheduled', hint: 'Opens at its next time' },
  over: { label: 'Over', hint: 'A one-off window that has closed' },
  disabled: { label: 'Disabled', hint: 'Switched off: it holds nothing' },
};

/** The kinds of schedule, in the form's order. */
export const MAINTENANCE_KINDS = [
  { value: 'once', label: 'Once', hint: 'From a time to a time' },
  { value: 'weekly', label: 'Weekly', hint: 'Days of the week, a time range' },
  { value: 'cron', label: 'Cron', hint: 'A cron expression and a duration' },
];

/** What a window applies to. */
export const MAINTENANCE_APPLIES = [
  { value: 'all', label: 'All monitors' },
  { value: 'monitors', label: 'Chosen monitors' },
  { value: 'tags', label: 'Monitors with tags' },
];

/** The days of a weekly window, Monday first as the form lists them (the API's names). */
export const WEEK_DAYS = [
  { value: 'mon', label: 'Mon' }, { value: 'tue', label: 'Tue' }, { value: 'wed', label: 'Wed' }, { value: 'thu', label: 'Thu' },
  { value: 'fri', label: 'Fri' }, { value: 'sat', label: 'Sat' }, { value: 'sun', label: 'Sun' },
];

// ---- inventory -----------------------------------------------------------------------------------------

/** The seven types in the order the pages list them (labels as in pages/inventory/types.js). */
export const INVENTORY_TYPES = [
  ['sites', 'Sites'], ['locations', 'Locations'], ['endpoints', 'Endpoints'], ['assets', 'Assets'],
  ['applications', 'Applications'], ['subnets', 'Subnets'], ['credentials', 'Credentials'],
];

export const ENDPOINT_ROLES = ['switch', 'router', 'firewall', 'access_point', 'wireless_controller', 'load_balancer', 'server',
  'virtual_machine', 'workstation', 'laptop', 'printer', 'camera', 'phone', 'storage', 'ups', 'pdu', 'iot', 'other'];
/** Roles whose label is not the value in words. */
export const ENDPOINT_ROLE_LABELS = { access_point: 'Access point', wireless_controller: 'Wireless controller', load_balancer: 'Load balancer',
  virtual_machine: 'Virtual machine', ups: 'UPS', pdu: 'PDU', iot: 'IoT' };

export const ASSET_STATUSES = ['in_use', 'spare', 'in_repair', 'retired', 'disposed'];
export const ASSET_STATUS_TONE = { in_use: 'ok', spare: 'info', in_repair: 'warn', retired: 'neutral', disposed: 'neutral' };

export const CRITICALITIES = ['low', 'medium', 'high', 'critical'];
export const CRITICALITY_TONE = { low: 'neutral', medium: 'info', high: 'warn', critical: 'bad' };

export const CREDENTIAL_KINDS = [
  { value: 'snmp_v2c', label: 'SNMP v2c' }, { value: 'snmp_v1', label: 'SNMP v1' }, { value: 'snmp_v3', label: 'SNMP v3' },
  { value: 'ssh_password', label: 'SSH password' }, { value: 'ssh_key', label: 'SSH key' },
  { value: 'http_basic', label: 'HTTP basic' }, { value: 'api_token', label: 'API token' },
];

/** Actions of a record's history. */
export const HISTORY_ACTION_TONE = { create: 'ok', update: 'info', delete: 'bad', detach: 'warn', link: 'accent', unlink: 'neutral' };

/** How a search hit matched. */
export const SEARCH_MATCH_LABELS = { short_id: 'Short ID', exact: 'Exact', subnet: 'Contains the address', text: 'Text' };

/** Link relations: how each reads from its `from` side, and from its `to` side. */
export const LINK_RELATIONS = {
  runs_on: ['Runs on', 'Hosts'],
  connected_to: ['Connected to', 'Connected to'],
  depends_on: ['Depends on', 'Needed by'],
  located_in: ['Located in', 'Contains'],
  monitored_by: ['Monitored by', 'Monitors'],
};

// ---- SNMP (walks, templates, device cards, and SNMP credentials) ---------------------------------------

export const SNMP_VERSIONS = [{ value: 'v2c', label: 'v2c' }, { value: 'v1', label: 'v1' }, { value: 'v3', label: 'v3' }];
export const SNMP_V3_LEVELS = [
  { value: 'authPriv', label: 'Authentication and privacy' },
  { value: 'authNoPriv', label: 'Authentication only' },
  { value: 'noAuthNoPriv', label: 'Neither' },
];
export const SNMP_AUTH_PROTOCOLS = ['sha', 'sha256', 'sha512', 'sha384', 'sha224', 'md5'].map((v) => ({ value: v, label: v.toUpperCase() }));
export const SNMP_PRIV_PROTOCOLS = [{ value: 'aes', label: 'AES-128' }, { value: 'aes256b', label: 'AES-256 (Blumenthal)' },
  { value: 'aes256r', label: 'AES-256 (Reeder)' }, { value: 'des', label: 'DES' }];
/** The walk options a template keeps. */
export const SNMP_WALK_OPTIONS = ['timeout', 'retries', 'max_repetitions', 'max_varbinds'];
/** Where a device's vendor profile came from. */
export const SNMP_VENDOR_FROM = { saved: 'pinned for this device', identified: 'identified live', default: 'default (not identified)' };

/** An interface's ifAdminStatus / ifOperStatus (GET /api/snmp/device-cards/:name/interfaces). */
export const IF_STATUSES = {
  up: { label: 'Up', tone: 'ok' }, down: { label: 'Down', tone: 'bad' }, testing: { label: 'Testing', tone: 'warn' },
  unknown: { label: 'Unknown', tone: 'neutral' }, dormant: { label: 'Dormant', tone: 'info' },
  not_present: { label: 'Not present', tone: 'neutral' }, lower_layer_down: { label: 'Lower layer down', tone: 'bad' },
};

/** What uses a stored credential (GET /api/brain/credentials/:id/usage `kind`), in the list's order. */
export const CREDENTIAL_USAGE_KINDS = {
  endpoint: { label: 'Endpoint', hint: 'Its management credential' },
  discovery: { label: 'Discovery', hint: 'In the list of credentials scans try' },
  ssh_target: { label: 'SSH target', hint: 'Signs in to it for SSH enrichment' },
  snmp_template: { label: 'SNMP walk template', hint: 'Walks with it' },
  snmp_device: { label: 'SNMP device cards', hint: 'Reads the device with it' },
  snmp_polled_device: { label: 'SNMP polled device', hint: 'Polls its interfaces with it' },
  monitor: { label: 'Monitor', hint: 'Its SNMP check reads with it' },
};

// ---- discovery (subnet scans, topology sessions, SSH enrichment, routes, the inventory bridge) ----------

/** The version of a scan's typed-in community or v3 user, in SPEC's spellings (POST /api/v1sion/scan snmp_version). */
export const SCAN_SNMP_VERSIONS = [{ value: '2c', label: 'v2c' }, { value: '1', label: 'v1' }, { value: '3', label: 'v3' }];

/** How a scan found a host alive (a host's alive_by), in the order the chips show them. */
export const SCAN_SOURCES = {
  icmp: { label: 'ICMP', hint: 'Answered a ping' },
  arp: { label: 'ARP', hint: 'Answered ARP or neighbour discovery on a link of the probe' },
  tcp: { label: 'TCP', hint: 'Accepted or refused a TCP connection' },
  snmp: { label: 'SNMP', hint: 'An SNMP agent answered' },
};

/** The stages of a scan (its `phase` messages). */
export const SCAN_PHASES = { liveness: 'Finding live hosts', identify: 'Identifying hosts', neighbours: 'Reading neighbours and forwarding tables' };

/** A scan's state: running, then one of the final three. */
export const SCAN_STATES = {
  running: { label: 'Running', tone: 'info' },
  completed: { label: 'Completed', tone: 'ok' },
  failed: { label: 'Failed', tone: 'bad' },
  cancelled: { label: 'Cancelled', tone: 'warn' },
};

/** What a discovered device (and a session's node) is. */
export const DEVICE_KINDS = {
  router: 'Router', switch: 'Switch', firewall: 'Firewall', access_point: 'Access point', server: 'Server', host: 'Host', unknown: 'Unknown',
};

/** What merged a device's addresses into one device (a device's merged_by). */
export const DEVICE_MERGE_KEYS = {
  engine_id: 'SNMP engine ID', lldp_chassis_id: 'LLDP chassis ID', bridge_mac: 'bridge MAC', serial: 'serial number', sys_name: 'sysName',
};

/** Where a link (a session's edge) came from. */
export const LINK_SOURCES = {
  lldp: { label: 'LLDP', hint: 'Both ends named by LLDP' },
  cdp: { label: 'CDP', hint: 'Named by Cisco Discovery Protocol' },
  fdb: { label: 'FDB', hint: 'A MAC learnt on a switch port (forwarding table)' },
  manual: { label: 'Manual', hint: 'Added by a person' },
};

/** What the last merged scan said of a session's node (null: seen again, or a manual node). */
export const NODE_SCAN_STATES = {
  new: { label: 'New', tone: 'info', hint: 'Found by the last merged scan' },
  missing: { label: 'Missing', tone: 'warn', hint: 'Not seen by the last merged scan' },
};

/** SSH targets' platforms (a target's `platform`): `auto` tells it from the SSH banner, then `uname`, then `show version`. */
export const SSH_PLATFORMS = [
  { value: 'auto', label: 'Detect automatically' },
  { value: 'linux', label: 'Linux' },
  { value: 'cisco_ios', label: 'Cisco IOS / IOS XE' },
  { value: 'cisco_nxos', label: 'Cisco NX-OS' },
  { value: 'junos', label: 'Juniper Junos' },
  { value: 'routeros', label: 'MikroTik RouterOS' },
  { value: 'arubaos_cx', label: 'ArubaOS-CX' },
  { value: 'fortios', label: 'FortiOS' },
];

/** How one target of an SSH enrichment ended (its `state`). */
export const ENRICH_TARGET_STATES = {
  ok: { label: 'Enriched', tone: 'ok' },
  failed: { label: 'Failed', tone: 'bad' },
  cancelled: { label: 'Cancelled', tone: 'warn' },
};

/** Where a documented route came from (a route's `source`). */
export const ROUTE_SOURCES = {
  manual: { label: 'Manual', hint: 'Typed in by a person' },
  snmp: { label: 'SNMP', hint: 'Imported from a routing table a scan read over SNMP' },
  ssh: { label: 'SSH', hint: 'Imported from a routing table SSH enrichment read' },
};

/** A discovered device against the inventory (a diff item's `status`). */
export const DIFF_STATUSES = {
  new: { label: 'New', tone: 'info', hint: 'No inventory record matches it' },
  changed: { label: 'Changed', tone: 'warn', hint: 'Matches a record, and some of the fields discovery keeps differ' },
  unchanged: { label: 'Unchanged', tone: 'ok', hint: 'Matches a record that already says what discovery found' },
};

/** A monitor's parents proposed from a session (GET /api/v1sion/sessions/:id/parent-proposals proposals[].status). */
export const PARENT_PROPOSAL_STATUSES = {
  new: { label: 'New', tone: 'info', hint: 'It has no parents: applying sets these' },
  changed: { label: 'Changed', tone: 'warn', hint: 'An earlier proposal set other parents: applying replaces them' },
  applied: { label: 'Applied', tone: 'ok', hint: 'It has these parents' },
  conflict: { label: 'Kept', tone: 'neutral', hint: 'A person set other parents: a proposal never replaces them' },
  none: { label: 'Nothing to apply', tone: 'neutral', hint: 'No monitor toward the probe to depend on' },
};

/** What applying a proposal did (POST .../parent-proposals/apply results[].outcome). */
export const PARENT_APPLY_OUTCOMES = {
  applied: 'Applied', unchanged: 'Already so', kept: 'Kept a person\'s parents', refused: 'Refused', not_proposed: 'Not proposed here',
};

/** Why a device was paired with an inventory record (a pairing's or candidate's `reason`), strongest first. */
export const MATCH_REASONS = {
  linked: 'Linked before', asset_tag: 'Asset tag', serial: 'Serial number', mac: 'MAC address', engine_id: 'SNMP engine ID',
  address: 'Management address', name: 'Name',
};

/** What a link or create did with one device (an item result's `status`). */
export const BRIDGE_RESULTS = {
  linked: { label: 'Linked', tone: 'ok' },
  created: { label: 'Created', tone: 'ok' },
  skipped: { label: 'Skipped', tone: 'warn' },
};

/** The inventory fields discovery keeps up to date (a diff change's `field`), as the inventory's forms name them. */
export const OWNED_FIELD_LABELS = {
  ip_addresses: 'IP addresses', mac_addresses: 'MAC addresses', vendor: 'Vendor', manufacturer: 'Manufacturer', model: 'Model',
  serial_number: 'Serial number', os: 'Operating system', os_version: 'OS version',
};

// ---- webhooks ------------------------------------------------------------------------------------------

/** The alert types a new webhook starts with. */
export const DEFAULT_ALERT_TYPES = ['monitor_down', 'monitor_up'];

/** What became of an alert (GET /api/webhooks/alerts `outcome`), and its badge tone. */
export const ALERT_OUTCOME_LABELS = { routed: 'Sent', held: 'Held back', released: 'Sent after a hold', reminder: 'Reminder' };
export const ALERT_OUTCOME_TONE = { routed: 'info', held: 'neutral', released: 'warn', reminder: 'warn' };

/** A webhook offered an alert: told, or why not, in plain words (`decisions[].decision`; a `reason` follows after a colon). */
export const ALERT_DECISION_TEXT = {
  queued: 'Told',
  cooldown: 'Not told: it got the same alert about this a short while ago, within its cooldown',
  no_problem_sent: 'Not told: it never heard of the problem this recovery ends',
  outbox_full: 'Not told: 200 deliveries already wait for it, its receiver is not taking them',
  not_routed: 'Not told: not routed to it',
  disabled: 'Not told: the webhook is disabled',
  held: 'Not told: held back',
};

/** The same, in a word or two for a badge. */
export const ALERT_DECISION_SHORT = {
  queued: 'Told', cooldown: 'Cooldown', no_problem_sent: 'Never heard the problem', outbox_full: 'Outbox full',
  not_routed: 'Not routed', disabled: 'Disabled', held: 'Held back',
};

/** Which monitors' alerts a webhook gets (`monitors.mode`). */
export const WEBHOOK_ROUTING = [
  { value: 'all', label: 'All monitors' },
  { value: 'tags', label: 'Monitors with tags' },
  { value: 'monitors', label: 'Chosen monitors' },
];

/** Where a queued delivery stands (`decisions[].delivery.state`), and its badge tone. */
export const DELIVERY_STATE_LABELS = { pending: 'Waiting', delivered: 'Delivered', failed: 'Failed', cancelled: 'Cancelled', unknown: 'No record left' };
export const DELIVERY_STATE_TONE = { pending: 'warn', delivered: 'ok', failed: 'bad', cancelled: 'neutral', unknown: 'neutral' };

/** What a delivery attempt came to (GET /api/webhooks/deliveries `outcome`), and its badge tone. */
export const ATTEMPT_OUTCOME_LABELS = { delivered: 'Delivered', retry: 'Failed, will retry', failed: 'Failed for good', cancelled: 'Cancelled', test: 'Test' };
export const ATTEMPT_OUTCOME_TONE = { delivered: 'ok', retry: 'warn', failed: 'bad', cancelled: 'neutral', test: 'info' };

// ---- users and API keys ----------------------------------------------------------------------------------

export const USER_ROLES = [
  { value: 'admin', label: 'Administrator — everything' },
  { value: 'operator', label: 'Operator — all but administration' },
  { value: 'viewer', label: 'Viewer — read only' },
];
export const USER_ROLE_TONE = { admin: 'accent', operator: 'info', viewer: 'neutral' };

/** Scope areas and their names. */
const SCOPE_AREAS = [
  ['monitors', 'Monitors'], ['brain', 'Inventory'], ['v1sion', 'Discovery'], ['snmp', 'SNMP'], ['webhooks', 'Webhooks'], ['system', 'System'],
];
/** Every scope an API key can hold: `<area>:read`, `<area>:write` and `admin`. */
export const SCOPE_OPTIONS = [
  ...SCOPE_AREAS.flatMap(([area, label]) => [
    { value: `${area}:read`, label: `${label}: read` },
    { value: `${area}:write`, label: `${label}: read and write` },
  ]),
  { value: 'admin', label: 'Administration', hint: 'Every scope, and administrator operations' },
];

// ---- the probe's own settings (pages/settings/) ---------------------------------------------------------

/** Where the certificate HTTPS serves came from (GET /api/ssl/status `mode`). */
export const TLS_MODES = {
  'self-signed': { label: 'Self-signed', tone: 'warn' },
  uploaded: { label: 'Uploaded (PFX)', tone: 'ok' },
  acme: { label: 'ACME', tone: 'ok' },
};
/** ACME challenge types (POST /api/ssl/letsencrypt `challenge`). */
export const ACME_CHALLENGES = { 'http-01': 'http-01 (port 80 of each name)', 'dns-01': 'dns-01 (RFC 2136 DNS update)' };
/** The named ACME directories (`directory_url`); any https:// directory URL is accepted too. */
export const ACME_DIRECTORIES = { letsencrypt: "Let's Encrypt", 'letsencrypt-staging': "Let's Encrypt staging (test certificates)" };
/** SMTP connection security (configuration key smtp.security). */
export const SMTP_SECURITY = [
  { value: 'starttls', label: 'STARTTLS (required)' },
  { value: 'tls', label: 'TLS from the first byte' },
  { value: 'none', label: 'None (plain text)' },
];
/** What an outgoing message was (GET /api/dev/emails/recent `kind`). */
export const MAIL_KIND_TEXT = { test: 'Test', password_reset: 'Password recovery', email_changed: 'Address change notice', alert: 'Alert' };
/** The outcome of an update run (GET /api/update/status `last_run.result`). */
export const UPDATE_OUTCOMES = {
  updated: { label: 'Updated', tone: 'ok' },
  up_to_date: { label: 'Already up to date', tone: 'ok' },
  rolled_back: { label: 'Rolled back', tone: 'bad' },
  refused: { label: 'Refused', tone: 'warn' },
  failed: { label: 'Failed', tone: 'bad' },
};
/** The controller connection (GET /api/hivemind/status `state`). */
export const HIVEMIND_STATES = {
  connected: { label: 'Connected', tone: 'ok' },
  connecting: { label: 'Connecting', tone: 'info' },
  disconnected: { label: 'Disconnected', tone: 'neutral' },
  error: { label: 'Error', tone: 'bad' },
};

/** Scopes in people's words: "Inventory: read", "Discovery: read and write", "Administration". */
const SCOPE_LABELS = Object.fromEntries(SCOPE_OPTIONS.map((o) => [o.value, o.label]));
export const scopeLabel = (scope) => SCOPE_LABELS[scope] ?? scope;

/**
 * A list of scopes as people read it: a write scope stands for its read scope too, so "Monitors: read"
 * is left out beside "Monitors: read and write"; "admin" alone says "Administration (every scope)".
 */
export function scopeLabels(scopes) {
  const set = new Set(scopes ?? []);
  if (set.has('admin')) return ['Administration (every scope)'];
  return SCOPE_OPTIONS.filter((o) => set.has(o.value) && !(o.value.endsWith(':read') && set.has(o.value.replace(':read', ':write'))))
    .map((o) => o.label);
}

// ---- names for people: short IDs and the audit log -------------------------------------------------------

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A UUID shortened to its first eight characters (the whole one belongs in a tooltip); other ids as they are. */
export const shortId = (id) => (typeof id === 'string' && UUID.test(id) ? id.slice(0, 8) : String(id ?? ''));

/** Areas of the audit log's actions (the first part of `action`). */
export const AUDIT_AREAS = {
  auth: 'Sign-in', user: 'Users', api_key: 'API keys', setup: 'Setup', vault: 'Vault', brain: 'Inventory', v1sion: 'Discovery',
  monitors: 'Monitors', snmp: 'SNMP', webhooks: 'Webhooks', hivemind: 'Controller', system: 'System', tls: 'TLS', update: 'Update',
  config: 'Configuration', oob: 'Remote access', two_factor: 'Two-factor sign-in',
};

/** "snmp.template.create" -> "SNMP: template create"; "auth.login" -> "Sign-in: login". */
export function auditActionLabel(action) {
  const [area, ...rest] = String(action ?? '').split('.');
  const what = rest.join(' ').replace(/_/g, ' ');
  const name = AUDIT_AREAS[area] ?? area.replace(/_/g, ' ');
  return what ? `${name}: ${what}` : name;
}

/**
 * An audit entry's target by name with a short ID: {text, title}. A target that is a UUID becomes the
 * entry's `details.name` (when it has one) with the ID shortened; a named target gets the short form of
 * `details.id` beside it. `title` holds the whole ID for the tooltip.
 */
export function auditTarget(entry) {
  const target = entry?.target ?? null;
  const d = entry?.details && typeof entry.details === 'object' ? entry.details : {};
  const id = typeof d.id === 'string' ? d.id : UUID.test(target ?? '') ? target : null;
  const name = target && !UUID.test(target) ? target : typeof d.name === 'string' ? d.name : null;
  if (!name && !id) return { text: '—', title: '' };
  if (!id) return { text: name, title: name };
  return { text: name ? `${name} · ${shortId(id)}` : shortId(id), title: id };
}
