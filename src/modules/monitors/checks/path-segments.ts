// A traced path split into LAN, ISP and internet (issue 37 §2), from what the probe knows without any
// lookup on the internet: its route toward the destination (route-toward.ts), the hops' address ranges and,
// when the monitor looks them up, their reverse names. The rules, in order (docs/monitors.md, "Segments"):
//   LAN: the hops up to and including the probe's gateway (the hop answering from the gateway's address,
//        else hop 1, the first router, which the route goes through), then the hops after it in the same
//        private range as it (an office's own routers); no gateway known: the first hops in one private range.
//   ISP: after the LAN, the hops in shared address space (100.64.0.0/10, carrier-grade NAT) or private ranges
//        (the operator's own core), then its first public hop, then the later public hops whose reverse
//        name is in that first public hop's domain.
//   internet: the rest.
// Kept in a result's details as counts and two sentences (not a label per hop): small, and the UI reads a
// hop's segment from its position.
import { parseIp, parseCidr, cidrContains, type Cidr } from '../../../core/ip.js';
import type { RouteToward } from './route-toward.js';

export type Segment = 'lan' | 'isp' | 'internet';

/** How many hops (from hop 1) each segment holds, and why each boundary lies where it does. */
export interface PathSegments {
  lan: number;
  isp: number;
  internet: number;
  why: { lan: string; isp: string };
}

interface HopIn { address: string | null; name?: string | null }

const block = (text: string, label: string) => ({ cidr: (parseCidr(text) as { ok: true; cidr: Cidr }).cidr, text, label });
/** Ranges a LAN (or an operator's core) numbers itself from: one LAN stays within one of them. */
const PRIVATE = [block('10.0.0.0/8', 'private'), block('172.16.0.0/12', 'private'), block('192.168.0.0/16', 'private'),
  block('169.254.0.0/16', 'link-local'), block('fc00::/7', 'unique local'), block('fe80::/10', 'link-local')];
const SHARED = block('100.64.0.0/10', 'shared address space (carrier-grade NAT)');

/** The private range an address is in (null: public, shared, or not an address). */
export function privateRange(address: string | null): (typeof PRIVATE)[number] | null {
  const ip = address ? parseIp(address) : null;
  return ip ? PRIVATE.find((b) => cidrContains(b.cidr, ip)) ?? null : null;
}

const isShared = (address: string) => { const ip = parseIp(address); return !!ip && cidrContains(SHARED.cidr, ip); };
const isPublic = (address: string | null): address is string => !!address && !privateRange(address) && !isShared(address);

/** Second-level labels under which a country's names are registered (example.co.uk): a domain is then three labels. */
const SECOND_LEVEL = new Set(['co', 'com', 'net', 'org', 'ac', 'gov', 'edu', 'ne', 'or', 'go', 'gob', 'mil', 'ltd', 'plc']);

/**
 * The domain a reverse name is registered under, without the public suffix list: its last two labels, or
 * three under a country code with a second level such as co.uk or net.au. Null for a name of one label.
 */
export function domainOf(name: string | null | undefined): string | null {
  const labels = (name ?? '').toLowerCase().replace(/\.$/, '').split('.').filter(Boolean);
  if (labels.length < 2) return null;
  const n = labels.length >= 3 && labels.at(-1)!.length === 2 && SECOND_LEVEL.has(labels.at(-2)!) ? 3 : 2;
  return labels.slice(-n).join('.');
}

const hopText = (hops: readonly HopIn[], i: number) =>
  `hop ${i + 1} (${hops[i]!.name ?? hops[i]!.address ?? 'no answer'})`;
const span = (from: number, to: number) => (from === to ? `hop ${from + 1}` : `hops ${from + 1}–${to + 1}`);

/** The LAN's last hop index (-1: none) and why. */
function lanEnd(hops: readonly HopIn[], route: RouteToward | null): { end: number; why: string } {
  const last = hops.length - 1;
  if (route?.kind === 'local') return { end: last, why: 'the destination is the probe itself' };
  if (route?.kind === 'direct') {
    return { end: last, why: `the destination is on the probe's own subnet (${route.route}): no router between` };
  }
  let anchor = -1;
  let why: string;
  if (route?.kind === 'gateway') {
    anchor = hops.findIndex((h) => h.address === route.gateway);
    if (anchor >= 0) why = `${hopText(hops, anchor)} is the probe's gateway (${route.route})`;
    else {
      anchor = 0;
      why = `the probe's gateway ${route.gateway} (${route.route}) is not on the path: hop 1, the first router, is taken as it` +
        (hops[0]?.address ? ` (it answered from ${hops[0].address})` : ' (it did not answer)');
    }
  } else {
    anchor = hops.findIndex((h) => h.address !== null);
    const range = anchor >= 0 ? privateRange(hops[anchor]!.address) : null;
    if (!range) {
      return { end: -1, why: anchor < 0 ? 'no gateway known and no hop answered: no LAN hop'
        : `no gateway known and ${hopText(hops, anchor)} is public: no LAN hop` };
    }
    why = '';
  }
  // Past the anchor, hops in its private range are still the LAN (an office's firewall behind its core switch).
  const range = privateRange(hops[anchor]?.address ?? (route?.kind === 'gateway' ? route.gateway : null));
  let end = anchor;
  if (range) {
    for (let i = anchor + 1; i <= last; i++) {
      const a = hops[i]!.address;
      if (a === null) continue;
      if (privateRange(a) !== range) break;
      end = i;
    }
  }
  const are = (from: number) => `${span(from, end)} ${end > from ? 'are' : 'is'}`;
  if (route?.kind !== 'gateway') why = `no gateway known: ${are(0)} in one ${range!.label} range (${range!.text}), taken as the LAN`;
  else if (end > anchor) why += `; ${are(anchor + 1)} in its range (${range!.text})`;
  return { end, why };
}

/** The ISP's last hop index (from the LAN's end: no ISP hop) and why. */
function ispEnd(hops: readonly HopIn[], from: number, reverseDns: boolean): { end: number; why: string } {
  const last = hops.length - 1;
  if (from >= last) return { end: last, why: 'the path ends in the LAN' };
  const first = hops.findIndex((h, i) => i > from && isPublic(h.address));
  if (first < 0) {
    const are = last > from + 1 ? 'are' : 'is';
    return { end: last, why: `no public hop after the LAN: ${span(from + 1, last)} ${are} the operator's (shared or private ranges)` };
  }
  const inner = first > from + 1 ? `${span(from + 1, first - 1)} in shared or private ranges, then ` : '';
  if (!reverseDns) {
    return { end: first,
      why: `${inner}${hopText(hops, first)}, the first public hop; reverse names are off, so the ISP is taken to end there` };
  }
  const domain = domainOf(hops[first]!.name);
  if (!domain) {
    return { end: first, why: `${inner}${hopText(hops, first)}, the first public hop, has no reverse name: the ISP is taken to end there` };
  }
  let end = first;
  let outside = -1;
  for (let i = first + 1; i <= last; i++) {
    const h = hops[i]!;
    if (!isPublic(h.address) || !h.name) continue; // no evidence either way
    if (domainOf(h.name) !== domain) { outside = i; break; }
    end = i;
  }
  return { end, why: `${inner}${span(first, end)} named in ${domain}, the first public hop's domain` +
    (outside >= 0 ? `; ${hopText(hops, outside)} is outside it` : end < last ? '; no later hop is named in another domain' : '') };
}

/** The path's segments; `route`: how the probe reaches the destination (null: unknown). */
export function segmentPath(hops: readonly HopIn[], route: RouteToward | null, reverseDns: boolean): PathSegments {
  const lan = lanEnd(hops, route);
  const isp = ispEnd(hops, lan.end, reverseDns);
  return { lan: lan.end + 1, isp: isp.end - lan.end, internet: hops.length - 1 - isp.end, why: { lan: lan.why, isp: isp.why } };
}

/** The segment of hop index i (0-based) under `s`. */
export const segmentAt = (s: Pick<PathSegments, 'lan' | 'isp'>, i: number): Segment =>
  (i < s.lan ? 'lan' : i < s.lan + s.isp ? 'isp' : 'internet');
