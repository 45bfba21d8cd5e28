// SSDP (UPnP Device Architecture 1.1 §1.3): the M-SEARCH a control point multicasts, the unicast
// answers devices send back (one per device, service and root: LOCATION, SERVER, ST, USN), and the
// root device's description document that LOCATION points at (friendlyName, manufacturer, modelName,
// deviceType). Pure: the socket and the HTTP GET are ask.ts's and the stage's.

export const SSDP_PORT = 1900;
export const SSDP_V4 = '239.255.255.250';
/** Link-local scope (UDA 1.1 §1.1.2): the only IPv6 group asked, so nothing leaves the link. */
export const SSDP_V6 = 'ff02::c';
/** The largest description document read; the rest is not fetched. */
export const DESCRIPTION_MAX_BYTES = 64 * 1024;

/** The search for every device and service, answered within `mx` seconds. */
export function mSearch(host: string, mx: number): Buffer {
  return Buffer.from([
    'M-SEARCH * HTTP/1.1',
    `HOST: ${host}:${SSDP_PORT}`,
    'MAN: "ssdp:discover"',
    `MX: ${mx}`,
    'ST: ssdp:all',
    'USER-AGENT: Linux UPnP/1.1 netprobe/1',
    '', '',
  ].join('\r\n'), 'latin1');
}

export interface SsdpAnswer {
  location: string | null;
  server: string | null;
  st: string | null;
  usn: string | null;
}

/** A search answer ("HTTP/1.1 200 OK" and headers); anything else (a NOTIFY, another search, junk) is null. */
export function parseSsdpAnswer(packet: Buffer | string): SsdpAnswer | null {
  const text = typeof packet === 'string' ? packet : packet.toString('latin1');
  const lines = text.split(/\r?\n/);
  if (!/^HTTP\/1\.[01] 200\b/i.test(lines[0] ?? '')) return null;
  const h = new Map<string, string>();
  for (const line of lines.slice(1)) {
    const i = line.indexOf(':');
    if (i <= 0) continue;
    const k = line.slice(0, i).trim().toLowerCase();
    if (!h.has(k)) h.set(k, line.slice(i + 1).trim().slice(0, 300));
  }
  const get = (k: string) => h.get(k) || null;
  return { location: get('location'), server: get('server'), st: get('st'), usn: get('usn') };
}

/** `urn:schemas-upnp-org:device:Printer:1` -> `Printer:1`; a search target that is no device type -> null. */
export function deviceTypeOf(urn: string | null): string | null {
  const m = /^urn:[^:]+:device:([^:]+(?::\d+)?)$/i.exec(urn ?? '');
  return m ? m[1]! : null;
}

export interface UpnpDescription {
  device_type: string | null;
  friendly_name: string | null;
  manufacturer: string | null;
  model_name: string | null;
  model_number: string | null;
  serial: string | null;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
function xmlText(s: string): string {
  return s.replace(/<!\[CDATA\[([\s\S]*?)\]\]>/g, '$1')
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (all, e: string) => {
      if (e[0] === '#') {
        const n = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : Number(e.slice(1));
        return n > 31 && n < 0x110000 ? String.fromCodePoint(n) : ' ';
      }
      return ENTITIES[e.toLowerCase()] ?? all;
    }).replace(/\s+/g, ' ').trim();
}

/**
 * The root device's own fields: only what stands before its embedded devices (`<deviceList>`), so an
 * embedded device's name is never taken for the box's. Tags with a namespace prefix are matched too.
 */
export function parseDescription(xml: string): UpnpDescription | null {
  const start = xml.search(/<(?:\w+:)?device[\s>]/);
  if (start < 0) return null;
  let root = xml.slice(start);
  const inner = root.search(/<(?:\w+:)?deviceList[\s>]/);
  if (inner >= 0) root = root.slice(0, inner);
  const field = (tag: string) => {
    const m = new RegExp(`<(?:\\w+:)?${tag}(?:\\s[^>]*)?>([\\s\\S]*?)</(?:\\w+:)?${tag}>`).exec(root);
    const v = m ? xmlText(m[1]!).slice(0, 200) : '';
    return v || null;
  };
  const type = field('deviceType');
  return {
    device_type: deviceTypeOf(type) ?? type, friendly_name: field('friendlyName'), manufacturer: field('manufacturer'),
    model_name: field('modelName'), model_number: field('modelNumber'), serial: field('serialNumber'),
  };
}

/**
 * Where a description may be fetched from: plain HTTP to the very address that answered the search
 * (never another host, never a redirect), so the GET stays inside the scanned subnet.
 */
export function descriptionUrl(location: string | null, answeredFrom: string): URL | null {
  if (!location) return null;
  let u: URL;
  try { u = new URL(location); } catch { return null; }
  const host = u.hostname.replace(/^\[|\]$/g, '');
  if (u.protocol !== 'http:' || host !== answeredFrom || u.username || u.password) return null;
  return u;
}
