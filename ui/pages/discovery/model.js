// What the discovery pages compute, without browser imports: the numeric order of addresses, the scan
// request from the form, the state a scan's stream messages build up, and how a credential, a port
// and a device read in a table. The words for the server's enums are in lib/vocabulary.js.

/** The message types that end a scan's stream. */
export const FINAL_TYPES = new Set(['completed', 'failed', 'cancelled']);

// ---- addresses ------------------------------------------------------------------------------------------

/** An address as numbers that sort it: [4, a, b, c, d] or [6, eight 16-bit groups]; text that is neither sorts last. */
export function ipParts(ip) {
  const s = String(ip ?? '');
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(s)) return [4, ...s.split('.').map(Number)];
  if (!s.includes(':')) return [9];
  let text = s.split('%')[0].toLowerCase();
  // An IPv4 tail (::ffff:10.0.0.1) becomes two groups.
  const v4 = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number);
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const left = head ? head.split(':') : [];
  const right = tail === undefined ? [] : tail ? tail.split(':') : [];
  const zeros = tail === undefined ? 0 : Math.max(0, 8 - left.length - right.length);
  const groups = [...left, ...Array(zeros).fill('0'), ...right].map((g) => parseInt(g, 16) || 0);
  return [6, ...groups];
}

/** Compares two addresses numerically (IPv4 before IPv6). */
export function compareIp(a, b) {
  const x = ipParts(a), y = ipParts(b);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? -1) - (y[i] ?? -1);
    if (d) return d;
  }
  return 0;
}

/** `rows` sorted by the address `get` returns (each key computed once). */
export function sortByIp(rows, get = (r) => r.ip) {
  return rows.map((r) => ({ r, k: ipParts(get(r)) }))
    .sort((a, b) => {
      for (let i = 0; i < Math.max(a.k.length, b.k.length); i++) {
        const d = (a.k[i] ?? -1) - (b.k[i] ?? -1);
        if (d) return d;
      }
      return 0;
    })
    .map((x) => x.r);
}

// ---- the request ------------------------------------------------------------------------------------------

/** The scan form's first values. The community and v3 keys live only in the form, for one request. */
export function initialScanForm(subnet = '') {
  return {
    subnet, snmp_enabled: true, snmp_version: '2c', community: '', use_saved: true, vault: [],
    'v3_params.username': '', 'v3_params.level': 'authPriv', 'v3_params.auth_protocol': 'sha', 'v3_params.auth_key': '',
    'v3_params.priv_protocol': 'aes', 'v3_params.priv_key': '',
  };
}

/**
 * The body of POST /api/v1sion/scan. Without SNMP only the subnet; with it the typed-in community (or
 * v3 user, with the keys its security level uses), and `credentials: []` when the saved discovery
 * credentials are not wanted (leaving `credentials` out makes the scan try them). Credentials chosen
 * from the vault (`v.vault`, ids) are named first, followed by the saved list (`savedIds`) when it is
 * wanted: naming any credential replaces the saved list, so it is named too.
 */
export function scanBody(v, savedIds = []) {
  const body = { subnet: String(v.subnet).trim(), snmp_enabled: !!v.snmp_enabled };
  if (!body.snmp_enabled) return body;
  body.snmp_version = v.snmp_version;
  if (v.snmp_version === '3') {
    const level = v['v3_params.level'];
    const p = { username: v['v3_params.username'].trim(), level };
    if (level !== 'noAuthNoPriv') Object.assign(p, { auth_protocol: v['v3_params.auth_protocol'], auth_key: v['v3_params.auth_key'] });
    if (level === 'authPriv') Object.assign(p, { priv_protocol: v['v3_params.priv_protocol'], priv_key: v['v3_params.priv_key'] });
    if (p.username) body.v3_params = p;
  } else if (v.community) {
    body.community = v.community;
  }
  const vault = v.vault ?? [];
  if (vault.length) body.credentials = [...vault, ...(v.use_saved ? savedIds.filter((id) => !vault.includes(id)) : [])];
  else if (!v.use_saved) body.credentials = [];
  return body;
}

/** An IPv6 prefix shorter than this is not swept address by address (the server's scan/ranges.ts V6_SWEEP_PREFIX). */
export const V6_SWEEP_PREFIX = 120;

/**
 * How a scan of `subnet` finds IPv6 hosts, told before it runs: 'neighbours' for a prefix too large to
 * sweep (a /64: one all-nodes echo on the link, then the neighbour cache), 'sweep' for /120 and longer;
 * null for IPv4 or text that is not an IPv6 CIDR.
 */
export function ipv6Scan(subnet) {
  const m = /^\s*([0-9a-f:.]*:[0-9a-f:.]*)(?:\/(\d{1,3}))?\s*$/i.exec(String(subnet ?? ''));
  if (!m) return null;
  const prefix = m[2] === undefined ? 128 : Number(m[2]);
  if (prefix > 128) return null;
  return { prefix, how: prefix < V6_SWEEP_PREFIX ? 'neighbours' : 'sweep' };
}

// ---- the stream -------------------------------------------------------------------------------------------

/** What a scan looks like before its first message. */
export function initialRun() {
  return { state: 'running', phase: null, message: '', progress: 0, counts: null, hosts: new Map(), links: 0, error: null };
}

/**
 * The run after some stream messages (in order): the phase and its message, progress, counts, each host
 * by address (a later message about a host replaces the earlier), links counted, and the final state.
 */
export function applyMessages(run, messages) {
  const next = { ...run };
  let hosts = run.hosts;
  for (const m of messages) {
    if (!m || typeof m.type !== 'string') continue;
    if (typeof m.progress === 'number') next.progress = Math.max(next.progress, Math.min(100, m.progress));
    if (m.type === 'phase') {
      next.phase = m.phase ?? null;
      next.message = m.message ?? '';
    } else if (m.type === 'progress') {
      if (m.counts) next.counts = m.counts;
    } else if (m.type === 'host' && m.host?.ip) {
      if (hosts === run.hosts) hosts = new Map(hosts);
      hosts.set(m.host.ip, m.host);
    } else if (m.type === 'link') {
      next.links += 1;
    } else if (FINAL_TYPES.has(m.type)) {
      next.state = m.type;
      // The final message carries {result: {counts, path}} (also for a kept scan after a restart).
      const counts = m.result?.counts;
      if (counts) next.counts = counts;
      if (m.type === 'completed') next.progress = 100;
      if (m.type === 'failed') next.error = m.error ?? null;
    }
  }
  next.hosts = hosts;
  return next;
}

// ---- how things read ---------------------------------------------------------------------------------------

/**
 * A credential as a result names it: a stored one by short ID and name (with a link), a typed-in one by
 * its place in the request. Never a secret: results hold none.
 */
export function credentialLabel(c) {
  if (!c) return null;
  if (c.inline) return { text: c.position === 1 ? 'Typed in' : `Typed in (entry ${c.position})`, version: c.version, href: null, sid: null };
  return { text: c.name, version: c.version, sid: c.short_id, href: c.short_id ? `/inventory/credentials/${c.short_id}` : null };
}

/** Names of the ports a scan usually finds open (discovery.tcp_ports and a few more). */
export const PORT_NAMES = {
  21: 'FTP', 22: 'SSH', 23: 'Telnet', 25: 'SMTP', 53: 'DNS', 80: 'HTTP', 110: 'POP3', 135: 'MS RPC', 139: 'NetBIOS', 143: 'IMAP',
  161: 'SNMP', 389: 'LDAP', 443: 'HTTPS', 445: 'SMB', 515: 'LPD', 554: 'RTSP', 631: 'IPP', 830: 'NETCONF', 993: 'IMAPS',
  1883: 'MQTT', 3306: 'MySQL', 3389: 'RDP', 5432: 'PostgreSQL', 5900: 'VNC', 8080: 'HTTP', 8443: 'HTTPS', 9100: 'Printer',
};

/** A host's best name: reverse DNS, else the agent's sysName. */
export const hostName = (h) => h.hostname || h.snmp?.sys_name || h.advertised?.name || null;

/** "Cisco C2960X" from the SNMP facts (vendor and model), or null. */
export function snmpTitle(s) {
  if (!s) return null;
  return [s.vendor, s.model].filter(Boolean).join(' ') || null;
}

/**
 * The short "identified by" line of SNMP facts: the decisive fact for the maker and for the kind, each
 * without the OIDs it rests on (`identifiedByTitle` has them all), or null for facts without evidence.
 */
export function identifiedBy(s) {
  const e = s?.evidence;
  if (!e) return null;
  const maker = e.manufacturer?.split(/; | \(sysObjectID|, owned by|, from IANA/)[0];
  const kind = e.kind.split(/ \(/)[0];
  return [maker, kind].filter(Boolean).join('; ');
}

/** All of the evidence, one line each, for a title or a list. */
export function identifiedByLines(s) {
  const e = s?.evidence;
  if (!e) return [];
  return [['Maker', e.manufacturer], ['Profile', e.variant], ['Model', e.model], ['Kind', e.kind]]
    .filter(([, v]) => v).map(([k, v]) => `${k}: ${v}`);
}

/** "IOS 15.2(7)E" from the SNMP facts, or null. */
export function snmpOs(s) {
  if (!s) return null;
  return [s.os, s.os_version].filter(Boolean).join(' ') || null;
}

/** Text a host matches a filter on: address, names, MAC and vendors, ports, SNMP facts. */
export function hostText(h) {
  const s = h.snmp ?? {};
  const a = h.advertised ?? {};
  return [h.ip, h.hostname, h.mac, h.mac_vendor, ...(h.open_ports ?? []), s.sys_name, s.vendor, s.model, s.os, s.os_version, s.serial,
    a.name, a.category, a.vendor, a.model, ...(a.services ?? []).map((x) => x.type)]
    .filter((x) => x !== null && x !== undefined).join(' ').toLowerCase();
}

/** A session's name suggested for a scan: "127.0.0.0/29 · 2025-11-22 10:15". */
export function sessionNameFor(subnet, at = new Date()) {
  const p = (n) => String(n).padStart(2, '0');
  return `${subnet} · ${at.getFullYear()}-${p(at.getMonth() + 1)}-${p(at.getDate())} ${p(at.getHours())}:${p(at.getMinutes())}`;
}

/** Counts of a session's nodes by what the last scan said and whether a person added them. */
export function nodeCounts(nodes) {
  const c = { all: nodes.length, new: 0, missing: 0, manual: 0 };
  for (const n of nodes) {
    if (n.scan_state === 'new') c.new++;
    if (n.scan_state === 'missing') c.missing++;
    if (n.manual) c.manual++;
  }
  return c;
}

// ---- SSH enrichment ------------------------------------------------------------------------------------------

/** An enrichment before its first message. `targets` are the ones the start answered ({id, name, host, port, created}). */
export function initialEnrich(targets = []) {
  return { state: 'running', message: '', progress: 0, done: 0, total: targets.length, targets, results: [], counts: null };
}

/**
 * The enrichment after some stream messages: its phase message, progress (done of total), one outcome per
 * target as it finishes (a later one for the same target replaces the earlier), and the final state.
 */
export function applyEnrichMessages(run, messages) {
  const next = { ...run };
  let results = run.results;
  for (const m of messages) {
    if (!m || typeof m.type !== 'string') continue;
    if (typeof m.progress === 'number') next.progress = Math.max(next.progress, Math.min(100, m.progress));
    if (m.type === 'phase') {
      next.message = m.message ?? '';
      if (Number.isFinite(m.total)) next.total = m.total;
    } else if (m.type === 'progress') {
      if (Number.isFinite(m.done)) next.done = m.done;
      if (Number.isFinite(m.total)) next.total = m.total;
    } else if (m.type === 'target' && m.target?.target_id) {
      results = [...results.filter((r) => r.target_id !== m.target.target_id), m.target];
    } else if (FINAL_TYPES.has(m.type)) {
      next.state = m.type;
      if (m.result?.counts) next.counts = m.result.counts;
      if (Array.isArray(m.result?.results)) results = m.result.results;
      if (m.type === 'completed') next.progress = 100;
      if (m.type === 'failed') next.error = m.error ?? null;
    }
  }
  next.results = results;
  next.done = Math.max(next.done, results.length);
  return next;
}

/**
 * The addresses a session enrichment tries: the first address (IPv4 first) of each node of the chosen
 * kinds; nodes marked missing only when asked. Nodes without an address cannot be reached.
 */
export function enrichAddresses(nodes, { kinds, includeMissing = false }) {
  const out = [];
  for (const n of nodes) {
    if (!kinds.includes(n.kind ?? 'unknown')) continue;
    if (n.scan_state === 'missing' && !includeMissing) continue;
    const addr = [...(n.addresses ?? [])].sort(compareIp)[0];
    if (addr && !out.includes(addr)) out.push(addr);
  }
  return out;
}

/** "up 3 d 4 h" style: seconds of uptime as days, hours and minutes. */
export function uptime(seconds) {
  if (!Number.isFinite(seconds)) return null;
  const d = Math.floor(seconds / 86_400), h = Math.floor((seconds % 86_400) / 3600), m = Math.floor((seconds % 3600) / 60);
  return d ? `${d} d ${h} h` : h ? `${h} h ${m} min` : `${m} min`;
}

// ---- routes --------------------------------------------------------------------------------------------------

/** Whether text is a whole IPv4 or IPv6 address (the routes list's "contains" filter waits for one). */
export function isAddress(text) {
  const s = String(text ?? '').trim();
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(s)) return s.split('.').every((o) => Number(o) <= 255);
  if (!/^[0-9a-f:.]+$/i.test(s) || !s.includes(':')) return false;
  // The URL parser knows IPv6 (compressed forms, an IPv4 tail) in the browser and in Node alike.
  try { new URL(`http://[${s}]/`); return true; } catch { return false; }
}

/** A route's device as the form holds it, from the device the API answered: {kind, session_id, node_id, endpoint}. */
export function deviceFormOf(device) {
  if (device?.type === 'session_node') return { kind: 'session_node', session_id: device.session_id, node_id: device.node_id, endpoint: null };
  if (device?.type === 'endpoint') {
    return { kind: 'endpoint', session_id: '', node_id: '', endpoint: { id: device.id, short_id: device.short_id, name: device.name } };
  }
  return { kind: 'none', session_id: '', node_id: '', endpoint: null };
}

/** The API's device from the form's: null, a session node, or an endpoint. */
export function deviceBodyOf(v) {
  if (v.kind === 'session_node') return { type: 'session_node', session_id: v.session_id, node_id: v.node_id };
  if (v.kind === 'endpoint') return { type: 'endpoint', id: v.endpoint?.id ?? '' };
  return null;
}

/**
 * The body of POST /api/v1sion/routes from the form's values; with `before` (the route being edited)
 * only the fields that changed, for PUT. Empty next hop and interface are null (directly connected, not
 * said); the metric is a number or null.
 */
export function routeBody(v, before = null) {
  const trimmed = (s) => String(s ?? '').trim();
  const metricText = trimmed(v.metric);
  const all = {
    destination: trimmed(v.destination),
    next_hop: trimmed(v.next_hop) || null,
    device: deviceBodyOf(v.device),
    interface: trimmed(v.interface) || null,
    metric: metricText === '' ? null : Number(metricText),
    source: v.source,
    note: String(v.note ?? ''),
  };
  if (!before) return all;
  const prev = {
    destination: before.destination, next_hop: before.next_hop, device: deviceBodyOf(deviceFormOf(before.device)),
    interface: before.interface, metric: before.metric, source: before.source, note: before.note,
  };
  const changed = {};
  for (const [k, val] of Object.entries(all)) if (JSON.stringify(val) !== JSON.stringify(prev[k])) changed[k] = val;
  return changed;
}

/** A scan route offered for import, as the body of POST /api/v1sion/routes (source snmp), for a device or none. */
export function importBody(r, device, source = 'snmp') {
  const note = [r.agent ? `Read from ${r.agent}` : null, r.protocol ? `protocol ${r.protocol}` : null].filter(Boolean).join(', ');
  return {
    destination: r.destination, next_hop: r.next_hop ?? r.gateway ?? null, device, interface: r.interface ?? null,
    metric: Number.isInteger(r.metric) && r.metric >= 0 ? r.metric : null, source, note,
  };
}

// ---- the inventory bridge ------------------------------------------------------------------------------------

/**
 * The groups a comparison with the inventory shows, in plain words. A device a record matches but that
 * is not linked to it is neither "unchanged" nor "changed": nothing ties the two together until a
 * person links them, whatever their fields say.
 */
export const DIFF_GROUPS = {
  new: { label: 'New', tone: 'info', sub: 'no record matches', hint: 'No inventory record matches it' },
  unlinked: { label: 'Matched, not linked', tone: 'warn', sub: 'a record matches, not linked',
    hint: 'An inventory record matches it, but the device is not linked to it: link it to tie the two together' },
  changed: { label: 'Changed', tone: 'warn', sub: 'linked, a kept field differs',
    hint: 'Linked to its record, and some of the fields discovery keeps differ' },
  unchanged: { label: 'Unchanged', tone: 'ok', sub: 'linked, the inventory agrees',
    hint: 'Linked to its record, which already says what discovery found' },
};

/** The group of a diff item: new, matched but not linked, or (linked) changed or unchanged. */
export const diffGroupOf = (it) => (it.status === 'new' ? 'new' : !it.linked ? 'unlinked' : it.status);

/** A diff's items by group (DIFF_GROUPS), each list in the source's order. */
export function diffGroups(diff) {
  const g = { new: [], unlinked: [], changed: [], unchanged: [] };
  for (const it of diff?.items ?? []) (g[diffGroupOf(it)] ??= []).push(it);
  return g;
}

/** Text a diff item matches a filter on: names, addresses, MACs, vendor, model, serial, the record it matched. */
export function diffText(it) {
  const d = it.device;
  return [d.name, d.sys_name, ...d.addresses, ...d.macs, ...d.hostnames, d.vendor, d.model, d.serial, d.os,
    it.match?.inventory?.short_id, it.match?.inventory?.name].filter(Boolean).join(' ').toLowerCase();
}

/** A field's value in a diff, as text: lists joined, empty as null. */
export function fieldText(v) {
  if (v === null || v === undefined || v === '') return null;
  if (Array.isArray(v)) return v.length ? v.join(', ') : null;
  return String(v);
}

// ---- the hosts of a scan: sorting and CSV export -------------------------------------------------------

/** How the host table sorts: each key's value (compared as text, numbers or addresses). */
export const HOST_SORTS = [
  { value: 'ip', label: 'Address' },
  { value: 'name', label: 'Name' },
  { value: 'mac_vendor', label: 'MAC vendor' },
  { value: 'vendor', label: 'Vendor and model' },
  { value: 'ports', label: 'Open ports' },
  { value: 'alive_by', label: 'Found by' },
];

const hostVendor = (h) => [h.snmp?.vendor, h.snmp?.model].filter(Boolean).join(' ');

/** The hosts sorted by `key` (address order breaks ties; empty values last), `desc` reverses. */
export function sortHosts(hosts, key = 'ip', desc = false) {
  const base = sortByIp(hosts);
  if (key === 'ip') return desc ? base.reverse() : base;
  const value = {
    name: (h) => hostName(h) ?? '', mac_vendor: (h) => h.mac_vendor ?? '', vendor: hostVendor,
    ports: (h) => h.open_ports?.length ?? 0, alive_by: (h) => (h.alive_by ?? []).join(' '),
  }[key] ?? (() => '');
  const rank = new Map(base.map((h, i) => [h, i]));
  return [...base].sort((a, b) => {
    const x = value(a);
    const y = value(b);
    const empty = (v) => v === '' || v === 0;
    if (empty(x) !== empty(y)) return empty(x) ? 1 : -1;
    const c = typeof x === 'number' ? x - y : String(x).localeCompare(String(y), undefined, { numeric: true, sensitivity: 'base' });
    return (desc ? -c : c) || rank.get(a) - rank.get(b);
  });
}

/**
 * One CSV field: quoted when needed; a value a spreadsheet would run as a formula (starting with = + - @,
 * a tab or a carriage return) gets a leading apostrophe, so an agent's sysName cannot become a formula.
 */
export function csvField(v) {
  let s = v === null || v === undefined ? '' : String(v);
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** The hosts as CSV (RFC 4180, CRLF): address, name, MAC, MAC vendor, vendor, model, OS, open ports, found by. */
export function hostsCsv(hosts) {
  const head = ['address', 'name', 'mac', 'mac_vendor', 'vendor', 'model', 'os', 'serial', 'open_ports', 'found_by', 'rtt_ms'];
  const rows = hosts.map((h) => [h.ip, hostName(h), h.mac, h.mac_vendor, h.snmp?.vendor, h.snmp?.model, snmpOs(h.snmp ?? {}),
    h.snmp?.serial, (h.open_ports ?? []).join(' '), (h.alive_by ?? []).join(' '), Number.isFinite(h.rtt_ms) ? h.rtt_ms : null]);
  return [head, ...rows].map((r) => r.map(csvField).join(',')).join('\r\n') + '\r\n';
}
