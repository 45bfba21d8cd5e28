// Small helpers the platform parsers share: output lines, MACs and addresses in every vendor's writing,
// fixed-width tables, `key: value` blocks, RouterOS `key=value` rows, NX-OS JSON tables, durations.
import { canonicalIp, normaliseMac, parseCidr } from '../../../../core/ip.js';
import type { Section, Sections } from './types.js';

/** The text of a section when its command worked (or produced output anyway), else ''. */
export function textOf(sections: Sections, name: string): string {
  const s: Section | undefined = sections[name];
  if (!s) return '';
  return s.text;
}

export function linesOf(text: string): string[] {
  return text.replace(/\r/g, '').split('\n');
}

/** A MAC in any common writing (colons, hyphens, Cisco dots, Aruba `9020c2-aabbc0`, bare hex), else null. */
export function mac(input: string | null | undefined): string | null {
  if (!input) return null;
  const s = input.trim();
  const m = normaliseMac(s);
  if (m) return m === '00:00:00:00:00:00' ? null : m;
  const hex = s.replace(/[-.:]/g, '').toLowerCase();
  if (/^[0-9a-f]{12}$/.test(hex) && /^[0-9a-f]{6}-[0-9a-f]{6}$/i.test(s)) return hex.match(/../g)!.join(':');
  return null;
}

/** An IP address in canonical form, else null. */
export function ip(input: string | null | undefined): string | null {
  if (!input) return null;
  return canonicalIp(input.trim().replace(/%.*$/, ''));
}

/** `10.0.0.1/24`, `10.0.0.1 255.255.255.0` or a bare address (as a host route) as `address/prefix`. */
export function cidrOf(address: string, maskOrPrefix?: string | number | null): string | null {
  const a = ip(address.includes('/') ? address.split('/')[0]! : address);
  if (!a) return null;
  let prefix: number | null = null;
  if (address.includes('/')) prefix = Number(address.split('/')[1]);
  else if (typeof maskOrPrefix === 'number') prefix = maskOrPrefix;
  else if (typeof maskOrPrefix === 'string' && /^\d+$/.test(maskOrPrefix)) prefix = Number(maskOrPrefix);
  else if (typeof maskOrPrefix === 'string' && ip(maskOrPrefix)) prefix = maskBits(maskOrPrefix);
  const max = a.includes(':') ? 128 : 32;
  if (prefix === null || !Number.isInteger(prefix) || prefix < 0 || prefix > max) prefix = max;
  return `${a}/${prefix}`;
}

function maskBits(mask: string): number | null {
  const parts = mask.split('.').map(Number);
  if (parts.length !== 4 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255)) return null;
  const bits = parts.map((p) => p.toString(2).padStart(8, '0')).join('');
  if (!/^1*0*$/.test(bits)) return null;
  const zero = bits.indexOf('0');
  return zero === -1 ? 32 : zero;
}

/** A route destination as a canonical CIDR (`default` is 0.0.0.0/0 or ::/0; host bits kept as written). */
export function destinationOf(input: string, family: 4 | 6 = 4): string | null {
  const s = input.trim();
  if (s === 'default') return family === 6 ? '::/0' : '0.0.0.0/0';
  const c = parseCidr(s, { loose: true });
  if (!c.ok) return cidrOf(s);
  const [addr, len] = s.split('/');
  return `${ip(addr!) ?? addr}/${len ?? (s.includes(':') ? 128 : 32)}`;
}

export function int(input: string | number | null | undefined): number | null {
  if (input === null || input === undefined) return null;
  const n = typeof input === 'number' ? input : Number(String(input).trim().replace(/,/g, ''));
  return Number.isFinite(n) ? Math.trunc(n) : null;
}

/** Trimmed text, or null for nothing or the placeholders devices print for "none". */
export function str(input: string | null | undefined): string | null {
  if (input === null || input === undefined) return null;
  const s = String(input).replace(/\0/g, '').trim();
  if (!s || /^(-+|n\/a|none|not advertised|not specified|to be filled by o\.e\.m\.|default string|unknown)$/i.test(s)) return null;
  return s;
}

/** `Key : value` (or `Key: value`) lines as a map of lower-cased keys; the first occurrence wins. */
export function keyValues(text: string, sep = ':'): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of linesOf(text)) {
    const at = line.indexOf(sep);
    if (at <= 0) continue;
    const key = line.slice(0, at).trim().toLowerCase();
    if (!key || out.has(key)) continue;
    out.set(key, line.slice(at + sep.length).trim());
  }
  return out;
}

/**
 * A fixed-width table: the header line (found by its first column's title) gives each column's start;
 * every following line is cut at those offsets. Lines that are empty, dashes or before the header are skipped.
 */
export function table(text: string, firstTitle: RegExp, titles: string[]): Record<string, string>[] {
  const lines = linesOf(text);
  const at = lines.findIndex((l) => firstTitle.test(l));
  if (at < 0) return [];
  const header = lines[at]!;
  const starts = titles.map((t) => header.indexOf(t));
  if (starts.some((s) => s < 0)) return [];
  const rows: Record<string, string>[] = [];
  for (const line of lines.slice(at + 1)) {
    if (!line.trim() || /^[\s=-]+$/.test(line)) continue;
    const row: Record<string, string> = {};
    titles.forEach((t, i) => {
      const end = i + 1 < starts.length ? starts[i + 1]! : line.length;
      row[t] = line.slice(starts[i]!, end).trim();
    });
    rows.push(row);
  }
  return rows;
}

/**
 * RouterOS `print terse` rows: ` 0 R  name=ether1 mac-address=... comment=two words`. Flags are the letters
 * between the row number and the first key; values run to the next ` key=`.
 */
export function terseRows(text: string): { flags: string; values: Record<string, string> }[] {
  const out: { flags: string; values: Record<string, string> }[] = [];
  for (const line of linesOf(text)) {
    const m = /^\s*\d+\s+(?:([A-Za-z*]+)\s+)?(.*)$/.exec(line);
    if (!m || !m[2]!.includes('=')) continue;
    const flags = m[1] ?? '';
    const rest = m[2]!;
    const values: Record<string, string> = {};
    for (const part of rest.split(/ (?=[a-z][a-z0-9-]*=)/)) {
      const eq = part.indexOf('=');
      if (eq <= 0) continue;
      values[part.slice(0, eq)] = part.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1');
    }
    out.push({ flags, values });
  }
  return out;
}

/** NX-OS `| json` tables: TABLE_x.ROW_x is an object for one row and an array for more. */
export function rows(node: unknown, name: string): Record<string, unknown>[] {
  if (!node || typeof node !== 'object') return [];
  const t = (node as Record<string, unknown>)[`TABLE_${name}`];
  if (!t || typeof t !== 'object') return [];
  const r = (t as Record<string, unknown>)[`ROW_${name}`];
  if (Array.isArray(r)) return r.filter((x): x is Record<string, unknown> => !!x && typeof x === 'object');
  return r && typeof r === 'object' ? [r as Record<string, unknown>] : [];
}

/** The JSON document in a command's output (a CLI may print a line before or after it), else null. */
export function jsonIn(text: string): unknown {
  const first = text.search(/[[{]/);
  if (first < 0) return null;
  const last = Math.max(text.lastIndexOf('}'), text.lastIndexOf(']'));
  if (last <= first) return null;
  try {
    return JSON.parse(text.slice(first, last + 1));
  } catch {
    return null;
  }
}

const UNITS: Record<string, number> = {
  year: 365 * 86400, week: 7 * 86400, day: 86400, hour: 3600, minute: 60, second: 1,
  y: 365 * 86400, w: 7 * 86400, d: 86400, h: 3600, m: 60, s: 1,
};

/** "1 year, 12 weeks, 3 days, 4 hours, 5 minutes" or RouterOS "1w2d3h4m5s" in seconds, else null. */
export function duration(text: string | null | undefined): number | null {
  if (!text) return null;
  let total = 0;
  let found = false;
  for (const m of text.matchAll(/(\d+)\s*(years?|weeks?|days?|hours?|minutes?|seconds?|[ywdhms])(?![a-z])/gi)) {
    const unit = m[2]!.toLowerCase().replace(/s$/, '');
    const mult = UNITS[unit] ?? UNITS[m[2]!.toLowerCase()];
    if (mult === undefined) continue;
    total += Number(m[1]) * mult;
    found = true;
  }
  return found ? total : null;
}

/** Capability words as lower-case names (LLDP letters B, R, W, T, S, C, P, O and CDP words alike). */
export function capabilities(input: string | string[] | null | undefined): string[] {
  if (!input) return [];
  const letters: Record<string, string> = {
    b: 'bridge', r: 'router', w: 'wlan', t: 'telephone', s: 'station', c: 'docsis', p: 'repeater', o: 'other',
  };
  const words = (Array.isArray(input) ? input : input.split(/[\s,]+/)).map((w) => w.trim().toLowerCase()).filter(Boolean);
  const out = new Set<string>();
  for (const w of words) {
    if (letters[w]) out.add(letters[w]);
    else if (w === 'switch') out.add('bridge');
    else if (w === 'host') out.add('station');
    else if (w === 'trans-bridge' || w === 'source-route-bridge') out.add('bridge');
    else if (w === 'phone') out.add('telephone');
    else if (['router', 'bridge', 'wlan', 'station', 'telephone', 'repeater', 'docsis', 'igmp'].includes(w)) out.add(w);
  }
  return [...out];
}
