// Where a stored credential may be sent: its scope. An administrator binds each credential to hosts and
// networks (the `scope` field: addresses, CIDRs, host names); the inventory endpoints that reference it
// count too (their addresses and host name). Every code path that sends a stored secret asks this first
// (CredentialSecrets.read takes the destination), and a use outside the scope is a 403 naming the
// credential and the rule. docs/vault.md, "Where a credential may go".
import { z } from 'zod';
import { HttpError } from '../../../core/errors.js';
import { canonicalIp, cidrContains, parseCidr, parseIp, type Cidr } from '../../../core/ip.js';
import type { Store } from '../../../core/store/types.js';

/** Entries an administrator may list, at most. */
export const SCOPE_MAX = 256;

const HOST_NAME = /^(?=.{1,253}$)[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*$/;

/** A host name as scope entries and destinations compare it: lower case, no trailing dot. */
export const hostName = (s: string): string => s.trim().toLowerCase().replace(/\.$/, '');

/** One scope entry, canonical: an address (`10.0.0.5`), a network (`10.0.0.0/24`, host bits masked) or a host name. */
export const ScopeEntry = z.string().trim().min(1).max(253).transform((s, ctx) => {
  const bare = s.replace(/^\[(.*)\]$/, '$1');
  const ip = canonicalIp(bare);
  if (ip) return ip;
  if (bare.includes('/') || bare.includes(':') || /^[\d.]+$/.test(bare)) {
    const c = parseCidr(bare, { loose: true });
    if (c.ok) return c.text;
    ctx.addIssue({ code: 'custom', message: c.message });
    return z.NEVER;
  }
  const h = hostName(s);
  if (!HOST_NAME.test(h)) {
    ctx.addIssue({ code: 'custom', message: `"${s}" is not an address, a network (CIDR) or a host name` });
    return z.NEVER;
  }
  return h;
});

export const ScopeField = z.array(ScopeEntry).max(SCOPE_MAX).describe(
  'Where this credential may be sent: addresses, networks (CIDR) and host names. The inventory endpoints that reference it ' +
  'count too. Empty: only those endpoints. Any other use is refused (403 credential_out_of_scope); docs/vault.md');

/** One rule of a scope: where it came from (an entry or an endpoint) and what it matches. */
export interface ScopeRule {
  /** As shown to people: `10.0.0.0/24`, `sw1.example`, `EP-12 10.0.0.2`. */
  text: string;
  cidr?: Cidr;
  name?: string;
}

/** Where a stored secret is about to be sent: the host as given, and the address reached once it is resolved. */
export interface SecretDestination {
  host: string;
  /** The address the connection goes to (a name resolved once, so what was checked is what is reached). */
  address?: string | null;
  /** What sends it, for messages: `SNMP`, `SSH`. */
  use: string;
}

/** The rules of a scope: its entries, then what the referencing endpoints add. */
export function rulesOf(entries: readonly string[],
  endpoints: readonly { short_id: string; ips: string[]; hostname: string | null }[]): ScopeRule[] {
  const out: ScopeRule[] = [];
  for (const e of entries) {
    const c = parseCidr(e, { loose: true });
    if (c.ok) out.push({ text: e, cidr: c.cidr });
    else out.push({ text: e, name: hostName(e) });
  }
  for (const ep of endpoints) {
    for (const ip of ep.ips) {
      const c = parseCidr(ip, { loose: true });
      if (c.ok) out.push({ text: `${ep.short_id} ${ip}`, cidr: c.cidr });
    }
    if (ep.hostname) out.push({ text: `${ep.short_id} ${ep.hostname}`, name: hostName(ep.hostname) });
  }
  return out;
}

/** The rule that lets a secret go to this destination, or null. A name matches a name rule; an address a network rule. */
export function ruleFor(rules: readonly ScopeRule[], dest: Pick<SecretDestination, 'host' | 'address'>): ScopeRule | null {
  const hostIp = canonicalIp(dest.host);
  const name = hostIp ? null : hostName(dest.host);
  const addresses = [hostIp, dest.address ? canonicalIp(dest.address) : null].filter((a): a is string => !!a);
  for (const r of rules) {
    if (r.name && name && r.name === name) return r;
    const inside = (a: string) => { const ip = parseIp(a); return !!ip && !!r.cidr && cidrContains(r.cidr, ip); };
    if (r.cidr && addresses.length && addresses.every(inside)) return r;
  }
  return null;
}

/** Whether a whole network (a scanned subnet) lies within the scope's networks. */
export function coversNetwork(rules: readonly ScopeRule[], cidr: Cidr): boolean {
  return rules.some((r) => r.cidr && r.cidr.family === cidr.family && r.cidr.first <= cidr.first && cidr.last <= r.cidr.last);
}

/** The rules of a stored credential, read from the store: its entries and the endpoints referencing it. */
export function storedRules(store: Pick<Store, 'get' | 'all'>, credentialId: string): ScopeRule[] {
  const row = store.get<{ scope: string | null }>(
    "SELECT json_extract(data, '$.scope') AS scope FROM brain_items WHERE id = ?", [credentialId]);
  const entries = row?.scope ? (JSON.parse(row.scope) as string[]) : [];
  const eps = store.all<{ seq: number; ips: string | null; hostname: string | null }>(
    `SELECT i.seq AS seq, json_extract(i.data, '$.ip_addresses') AS ips, json_extract(i.data, '$.hostname') AS hostname
       FROM brain_refs r JOIN brain_items i ON i.id = r.src
      WHERE r.dst = ? AND r.field = 'credential_id' AND i.type = 'endpoints' ORDER BY i.seq`, [credentialId]);
  return rulesOf(entries, eps.map((e) => ({ short_id: `EP-${e.seq}`, ips: e.ips ? (JSON.parse(e.ips) as string[]) : [],
    hostname: e.hostname })));
}

/** The 403 for a use outside the scope: names the credential, the destination and the rule. */
export function outOfScope(cred: { id: string; short_id: string; name: string }, dest: SecretDestination,
  rules: readonly ScopeRule[]): HttpError {
  const where = dest.address && dest.address !== dest.host ? `${dest.host} (${dest.address})` : dest.host;
  const scope = rules.length ? rules.slice(0, 8).map((r) => r.text).join(', ') + (rules.length > 8 ? ', …' : '') : 'empty';
  return new HttpError(403, 'credential_out_of_scope',
    `${cred.short_id} (${cred.name}) may not be sent to ${where} over ${dest.use}: a stored credential goes only to the hosts and ` +
    `networks an administrator bound to it (its scope: ${scope}). An administrator adds ${dest.host} to the scope of ${cred.short_id} ` +
    '(or references it from the inventory endpoint of that device)',
    { extra: { credential_id: cred.id, short_id: cred.short_id, destination: dest.host, rule: 'credential scope' } });
}

/** An endpoint's fields that extend a credential's scope: the reference, and the addresses of an endpoint holding one. */
const BINDING_FIELDS = ['ip_addresses', 'hostname'] as const;

/**
 * The fields of an endpoint write that would send a credential to other hosts: setting or changing its
 * credential_id, or changing the addresses or host name of an endpoint that references one. Those are an
 * administrator's act (the endpoint becomes part of the credential's scope). `credentialOf` resolves a
 * reference (UUID or CR-n) to the credential's UUID.
 */
export function bindingChanges(before: Record<string, unknown> | null, body: Record<string, unknown>,
  credentialOf: (ref: string) => string | undefined): string[] {
  const current = typeof before?.credential_id === 'string' ? before.credential_id : null;
  const asked = body.credential_id;
  const next = asked === undefined ? current : typeof asked === 'string' ? (credentialOf(asked) ?? asked) : null;
  const out: string[] = [];
  if (next && next !== current) out.push('credential_id');
  if (next) {
    const spell = (v: unknown) => JSON.stringify((Array.isArray(v) ? v : v == null ? [] : [v]).map((x) => String(x).trim().toLowerCase()));
    for (const f of BINDING_FIELDS) if (f in body && spell(body[f]) !== spell(before?.[f])) out.push(f);
  }
  return out;
}
