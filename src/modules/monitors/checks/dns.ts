// DNS check: one query through node:dns's c-ares Resolver, against the system's resolvers or a given
// one, with the answers normalised to strings so they can be shown, stored and compared.
//
// Normalisation (answers and `expected` alike):
// - names lower-cased, trailing dot trimmed; IPv6 addresses in their canonical compressed form;
// - MX "10 mail.example.com"; SRV "priority weight port target"; CAA "flags tag value";
//   SOA "mname rname serial refresh retry expire minimum"; TXT: a record's chunks joined with no separator;
// - whitespace runs in `expected` collapse to one space.
// Matching: `equals` means one answer equals `expected`; `contains` means one answer contains it as a
// substring. Comparison ignores case except for TXT, whose values (tokens, keys) are case-sensitive.

import dns from 'node:dns';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { z } from 'zod';
import type { CheckContext, CheckDefinition, RunReport } from './types.js';
import { Deadline, isHostName, ms } from './net.js';

export const RECORD_TYPES = ['A', 'AAAA', 'CNAME', 'MX', 'NS', 'PTR', 'SOA', 'SRV', 'TXT', 'CAA'] as const;
export type RecordType = typeof RECORD_TYPES[number];

export const settings = z.object({
  record_type: z.enum(RECORD_TYPES).default('A').meta({ title: 'Record type', 'x-section': 'Query' }),
  /** Resolver IP address; without it the system's resolvers (/etc/resolv.conf) answer. */
  resolver: z.string().refine((s) => net.isIP(s) !== 0, 'expected an IPv4 or IPv6 address').optional()
    .meta({ title: 'Resolver', examples: ['192.0.2.53'],
      description: 'Optional: an IP address; without one the system\'s resolvers answer.' }),
  /** The resolver's port; used only with `resolver`. */
  port: z.number().int().min(1).max(65535).default(53).meta({ title: 'Resolver port', 'x-visible-when': { required: ['resolver'] } }),
  expected: z.string().min(1).max(1024).optional()
    .meta({ title: 'Expected answer', description: 'Optional: the check fails unless an answer matches.' }),
  match: z.enum(['equals', 'contains']).default('contains')
    .meta({ title: 'Match', 'x-enum-titles': { contains: 'An answer contains it', equals: 'An answer equals it' },
      'x-visible-when': { required: ['expected'] } }),
}).strict();

export type DnsSettings = z.output<typeof settings>;

/** A name to query, or an IP address (PTR checks of an address). */
export function validateTarget(target: string): string | null {
  if (net.isIP(target)) return null;
  return isHostName(target) ? null : `"${target}" is not a valid DNS name`;
}

/** Target and settings together: an IP address is only a PTR target. */
export function validateWithSettings(target: string, s: DnsSettings): string | null {
  if (net.isIP(target) && s.record_type !== 'PTR') return `an IP address can only be checked with record_type PTR, not ${s.record_type}`;
  return validateTarget(target);
}

// ---- normalisation ----------------------------------------------------------------------------------

const normName = (n: string) => n.toLowerCase().replace(/\.$/, '');

function normIp(ip: string): string {
  if (net.isIPv6(ip)) {
    try { return new URL(`http://[${ip}]/`).hostname.slice(1, -1); } catch { return ip.toLowerCase(); }
  }
  return ip;
}

/** What node:dns returns for each record type, as our answer strings. */
export function normaliseAnswers(type: RecordType, raw: unknown[]): string[] {
  return raw.map((r): string => {
    switch (type) {
      case 'A': return String(r);
      case 'AAAA': return normIp(String(r));
      case 'CNAME': case 'NS': case 'PTR': return normName(String(r));
      case 'MX': { const m = r as dns.MxRecord; return `${m.priority} ${normName(m.exchange)}`; }
      case 'SRV': { const v = r as dns.SrvRecord; return `${v.priority} ${v.weight} ${v.port} ${normName(v.name)}`; }
      case 'SOA': {
        const v = r as dns.SoaRecord;
        return `${normName(v.nsname)} ${normName(v.hostmaster)} ${v.serial} ${v.refresh} ${v.retry} ${v.expire} ${v.minttl}`;
      }
      case 'TXT': return (r as string[]).join('');
      case 'CAA': {
        const v = r as dns.CaaRecord & Record<string, unknown>;
        const tag = Object.keys(v).find((k) => k !== 'critical') ?? '';
        return `${v.critical} ${tag.toLowerCase()} ${String(v[tag] ?? '')}`;
      }
    }
  });
}

/** `expected` in the answers' form: trimmed, single spaces, names without a trailing dot, canonical IPs. */
export function normaliseExpected(type: RecordType, expected: string): string {
  const words = expected.trim().split(/\s+/);
  if (type === 'TXT') return expected;
  if (type === 'A' || type === 'AAAA') return normIp(words.join(' '));
  if (type === 'CAA') return words.map((w, i) => (i === 1 ? w.toLowerCase() : w)).join(' ');
  return words.map(normName).join(' ');
}

export function answersMatch(type: RecordType, answers: string[], expected: string, match: 'equals' | 'contains'): boolean {
  const fold = type === 'TXT' ? (s: string) => s : (s: string) => s.toLowerCase();
  const want = fold(normaliseExpected(type, expected));
  return answers.some((a) => (match === 'equals' ? fold(a) === want : fold(a).includes(want)));
}

// ---- the query --------------------------------------------------------------------------------------

/** c-ares error codes as the DNS names people know, with what they mean. */
const DNS_ERRORS: Record<string, [string, string]> = {
  ENOTFOUND: ['NXDOMAIN', 'the name does not exist'],
  ENODATA: ['NODATA', 'the name exists but has no records of this type'],
  ESERVFAIL: ['SERVFAIL', 'the resolver failed to answer'],
  EREFUSED: ['REFUSED', 'the resolver refused the query'],
  ETIMEOUT: ['TIMEOUT', 'no answer from the resolver'],
  ECONNREFUSED: ['CONNREFUSED', 'could not contact the resolver'],
  EFORMERR: ['FORMERR', 'the resolver reported a malformed query'],
  ENOTIMP: ['NOTIMP', 'the resolver does not implement this query'],
  EBADRESP: ['BADRESP', 'malformed answer from the resolver'],
  EBADNAME: ['BADNAME', 'the name is malformed'],
};

async function query(r: dns.promises.Resolver, type: RecordType, target: string): Promise<unknown[]> {
  switch (type) {
    case 'A': return r.resolve4(target);
    case 'AAAA': return r.resolve6(target);
    case 'CNAME': return r.resolveCname(target);
    case 'MX': return r.resolveMx(target);
    case 'NS': return r.resolveNs(target);
    case 'PTR': return net.isIP(target) ? r.reverse(target) : r.resolvePtr(target);
    case 'SOA': return [await r.resolveSoa(target)];
    case 'SRV': return r.resolveSrv(target);
    case 'TXT': return r.resolveTxt(target);
    case 'CAA': return r.resolveCaa(target);
  }
}

const serverString = (ip: string, port: number) => (net.isIPv6(ip) ? `[${ip}]:${port}` : `${ip}:${port}`);

export async function run(target: string, s: DnsSettings, ctx: CheckContext): Promise<RunReport> {
  const problem = validateWithSettings(target, s);
  const resolverText = s.resolver ? serverString(s.resolver, s.port) : `system (${dns.getServers().join(', ') || 'none configured'})`;
  const base = { record_type: s.record_type, resolver: resolverText };
  if (problem) return { status: 'down', response_time_ms: null, message: problem, details: base };

  const dl = new Deadline(ctx.timeout, ctx.signal);
  dl.phase = 'query';
  // Two tries inside the budget (c-ares doubles the wait on the retry); the deadline cancels the rest.
  const resolver = new dns.promises.Resolver({ timeout: Math.max(100, Math.floor(dl.timeoutMs / 3)), tries: 2 });
  if (s.resolver) resolver.setServers([serverString(s.resolver, s.port)]);
  const onAbort = () => resolver.cancel();
  dl.signal.addEventListener('abort', onAbort, { once: true });
  try {
    // From the query handed to c-ares to its answer: not the resolver's set-up before it, nor the
    // normalising after (c-ares does not tell when the packet left: its socket set-up is in the figure).
    const t0 = performance.now();
    const raw = await query(resolver, s.record_type, target);
    const elapsed = ms(performance.now() - t0);
    const answers = normaliseAnswers(s.record_type, raw);
    const details = { ...base, answers };
    // Sorted for the message: resolvers rotate the order, and the message should not change with it.
    const sorted = [...answers].sort();
    const shown = sorted.length > 3 ? `${sorted.slice(0, 3).join(', ')} (+${sorted.length - 3} more)` : sorted.join(', ');
    if (s.expected !== undefined && !answersMatch(s.record_type, answers, s.expected, s.match)) {
      const how = s.match === 'equals' ? 'equals' : 'contains';
      return { status: 'down', response_time_ms: elapsed, details,
        message: `no ${s.record_type} answer ${how} "${s.expected}" (got ${shown || 'no answers'})` };
    }
    return { status: 'up', response_time_ms: elapsed, message: `${s.record_type} ${shown}`, details };
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? '';
    if (dl.expired || code === 'ETIMEOUT') {
      return { status: 'down', response_time_ms: null, details: { ...base, error_code: 'TIMEOUT' },
        message: `TIMEOUT: no answer from ${s.resolver ? serverString(s.resolver, s.port) : 'the system resolver'} `
          + `within ${ms(dl.timeoutMs / 1000)} s (${s.record_type} ${target})` };
    }
    if (dl.aborted) return { status: 'down', response_time_ms: null, message: 'check aborted', details: base };
    const [name, meaning] = DNS_ERRORS[code] ?? [code || 'ERROR', (e as Error).message];
    return { status: 'down', response_time_ms: null, details: { ...base, error_code: name },
      message: `${name}: ${meaning} (${s.record_type} ${target})` };
  } finally {
    dl.signal.removeEventListener('abort', onAbort);
    dl.dispose();
  }
}

/** The check type as the monitor service sees it (checks/index.ts, CHECKS). */
export const check: CheckDefinition<DnsSettings> = {
  label: 'DNS', icon: 'search', hint: 'Resolve a name',
  target: { title: 'Name to resolve', placeholder: 'example.lan', description: 'A DNS name; an IP address with record type PTR.' },
  settings, validateTarget, validateWithSettings, run,
  // The name it queries is not a host it watches; the resolver it asks is.
  host: (_target, s) => s.resolver ?? null,
};
