// The monitor form's model: the four check types with their target formats and settings, the form
// values of a monitor (flat, named by the API's field paths so errors like settings.auth.password land
// beside their field), and the request body built back from them. Defaults match the API's: plain
// module, checked against the server's check definitions by test/unit/ui-contract.test.ts.

export const CHECK_TYPES = [
  { value: 'http', label: 'HTTP(S)', icon: 'external', hint: 'Web page or API',
    target: 'URL', placeholder: 'https://intranet.example.lan/health', targetHint: 'http:// or https://; credentials go under Authentication, not in the URL.' },
  { value: 'ping', label: 'Ping', icon: 'monitors', hint: 'ICMP echo',
    target: 'Host', placeholder: '192.0.2.10 or router1.lan', targetHint: 'An IP address or host name.' },
  { value: 'tcp', label: 'TCP port', icon: 'snmp', hint: 'Connect to host:port',
    target: 'Host and port', placeholder: 'nas.lan:445', targetHint: 'host:port, or [IPv6]:port.' },
  { value: 'dns', label: 'DNS', icon: 'search', hint: 'Resolve a name',
    target: 'Name to resolve', placeholder: 'example.lan', targetHint: 'A DNS name; an IP address with record type PTR.' },
];
export const checkType = (v) => CHECK_TYPES.find((t) => t.value === v) ?? CHECK_TYPES[0];

export const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
export const DNS_RECORD_TYPES = ['A', 'AAAA', 'CNAME', 'MX', 'NS', 'PTR', 'SOA', 'SRV', 'TXT', 'CAA'];
/** HTTP authentication types (besides none). */
export const HTTP_AUTH_TYPES = [{ value: 'basic', label: 'Basic (user name and password)' }, { value: 'bearer', label: 'Bearer token' }];
export const KEYWORD_MODES = [{ value: 'present', label: 'Present' }, { value: 'absent', label: 'Absent' }];
export const DNS_MATCHES = [{ value: 'contains', label: 'An answer contains it' }, { value: 'equals', label: 'An answer equals it' }];

const S = 'settings.';
const str = (v) => (v === undefined || v === null ? '' : String(v));
const isMarker = (v) => v !== null && typeof v === 'object' && v.set === true;

/** Form values for a monitor (null: a new one). */
export function toForm(m) {
  const s = m?.settings ?? {};
  const auth = s.auth ?? {};
  const headers = Object.entries(s.headers ?? {}).map(([name, value]) => (isMarker(value)
    ? { name, value: '', stored: true, placeholder: { value: 'Stored — type to replace' } }
    : { name, value }));
  return {
    name: m?.name ?? '',
    check_type: m?.check_type ?? 'http',
    target: m?.target ?? '',
    interval: str(m?.interval ?? 60),
    timeout: str(m?.timeout ?? ''),
    failure_threshold: str(m?.failure_threshold ?? 3),
    degraded_ms: str(m?.degraded_ms),
    max_loss_pct: str(m?.max_loss_pct),
    tags: m?.tags ?? [],
    parents: m?.parents ?? [],
    // http
    [`${S}method`]: s.method ?? 'GET',
    [`${S}accepted_status`]: (s.accepted_status ?? ['200-299']).join(', '),
    [`${S}keyword`]: str(s.keyword),
    [`${S}keyword_mode`]: s.keyword_mode ?? 'present',
    [`${S}json_path`]: str(s.json_path),
    [`${S}json_expected`]: str(s.json_expected),
    [`${S}follow_redirects`]: s.follow_redirects ?? true,
    [`${S}max_redirects`]: str(s.max_redirects ?? 5),
    [`${S}verify_tls`]: s.verify_tls ?? true,
    [`${S}headers`]: headers,
    [`${S}body`]: str(s.body),
    [`${S}auth.type`]: auth.type ?? '',
    [`${S}auth.username`]: str(auth.username),
    [`${S}auth.password`]: '',
    [`${S}auth.token`]: '',
    // ping
    [`${S}count`]: str(s.count ?? 3),
    [`${S}packet_size`]: str(s.packet_size ?? 56),
    [`${S}per_packet_timeout_ms`]: str(s.per_packet_timeout_ms ?? 1000),
    // tcp
    [`${S}tls`]: s.tls ?? false,
    [`${S}servername`]: str(s.servername),
    // dns
    [`${S}record_type`]: s.record_type ?? 'A',
    [`${S}resolver`]: str(s.resolver),
    [`${S}port`]: str(s.port ?? 53),
    [`${S}expected`]: str(s.expected),
    [`${S}match`]: s.match ?? 'contains',
  };
}

/** A number from a text field; text that is not a number goes as is, so the API names the field. */
const num = (v) => {
  const t = String(v).trim();
  return t !== '' && Number.isFinite(Number(t)) ? Number(t) : t;
};
const opt = (v) => (String(v).trim() === '' ? undefined : String(v).trim());

/**
 * The settings object of the chosen type. A secret left empty where one is stored is sent as the
 * API's {set: true} marker, which keeps it (only while the authentication type is unchanged).
 */
export function settingsOf(v, stored) {
  const g = (k) => v[S + k];
  switch (v.check_type) {
    case 'http': {
      const s = {
        method: g('method'),
        accepted_status: g('accepted_status').split(/[\s,]+/).filter(Boolean),
        keyword: opt(g('keyword')),
        keyword_mode: g('keyword_mode'),
        json_path: opt(g('json_path')),
        json_expected: opt(g('json_expected')),
        follow_redirects: g('follow_redirects'),
        max_redirects: num(g('max_redirects')),
        verify_tls: g('verify_tls'),
        headers: Object.fromEntries(g('headers').filter((h) => h.name.trim()).map((h) => [h.name.trim(),
          h.stored && h.value === '' ? { set: true } : h.value])),
        body: g('body') === '' ? undefined : g('body'),
      };
      const type = g('auth.type');
      const was = stored?.check_type === 'http' ? stored.settings?.auth : undefined;
      const keep = (k) => (was?.type === type && isMarker(was[k]) ? { set: true } : undefined);
      if (type === 'basic') s.auth = { type, username: g('auth.username'), password: g('auth.password') || keep('password') };
      if (type === 'bearer') s.auth = { type, token: g('auth.token') || keep('token') };
      return s;
    }
    case 'ping':
      return { count: num(g('count')), packet_size: num(g('packet_size')), per_packet_timeout_ms: num(g('per_packet_timeout_ms')) };
    case 'tcp':
      return { tls: g('tls'), servername: g('tls') ? opt(g('servername')) : undefined, verify_tls: g('verify_tls') };
    case 'dns':
      return { record_type: g('record_type'), resolver: opt(g('resolver')), port: opt(g('resolver')) ? num(g('port')) : undefined,
        expected: opt(g('expected')), match: g('match') };
    default:
      return {};
  }
}

/** JSON without undefined members, for comparing settings. */
const canon = (x) => JSON.stringify(x, (_k, val) => (val === undefined ? undefined : val));

/**
 * The request body: everything for a new monitor; for an existing one only what changed (settings
 * as a whole when any of them changed, or the type did).
 */
export function toBody(v, stored) {
  const full = {
    name: v.name.trim(),
    check_type: v.check_type,
    target: v.target.trim(),
    interval: num(v.interval),
    timeout: opt(v.timeout) === undefined ? undefined : num(v.timeout),
    failure_threshold: num(v.failure_threshold),
    degraded_ms: opt(v.degraded_ms) === undefined ? null : num(v.degraded_ms),
    max_loss_pct: v.check_type === 'ping' && opt(v.max_loss_pct) !== undefined ? num(v.max_loss_pct) : null,
    tags: v.tags,
    parents: v.parents,
    settings: settingsOf(v, stored),
  };
  if (!stored) {
    const body = {};
    for (const [k, val] of Object.entries(full)) if (val !== undefined && val !== null) body[k] = val;
    return body;
  }
  const before = toForm(stored);
  const prev = toBody(before, null);
  const body = {};
  for (const k of ['name', 'check_type', 'target', 'interval', 'timeout', 'failure_threshold', 'degraded_ms', 'tags', 'parents']) {
    if (full[k] !== undefined && canon(full[k]) !== canon(prev[k] ?? null)) body[k] = full[k];
  }
  // Leaving ping clears max_loss_pct on the server; only ping monitors send it.
  if (v.check_type === 'ping' && canon(full.max_loss_pct) !== canon(stored.max_loss_pct)) body.max_loss_pct = full.max_loss_pct;
  if (v.check_type !== stored.check_type || canon(full.settings) !== canon(settingsOf(before, stored))) body.settings = full.settings;
  return body;
}

// ---- at a glance (the API's degraded_reason and beat letters; checked by ui-contract) -------------

/** Why a degraded monitor is degraded (GET /api/monitors `degraded_reason`). */
export const DEGRADED_REASONS = [
  { value: 'slow', label: 'Slow', hint: 'Answered, slower than its limit' },
  { value: 'loss', label: 'Packet loss', hint: 'Answered, with loss above its limit' },
  { value: 'failing', label: 'Failing', hint: 'Failed checks, fewer than make it down' },
];

/** The beat letters of `beats` (lower case; upper case is the same for a manual check). */
export const BEAT_KINDS = [
  { value: 'u', label: 'Up', tone: 'up' },
  { value: 's', label: 'Answered, degraded (slow or loss)', tone: 'degraded' },
  { value: 'f', label: 'Failed, below the failure threshold', tone: 'failing' },
  { value: 'd', label: 'Failed, down', tone: 'down' },
  { value: 'p', label: 'Checked while paused', tone: 'paused' },
];
