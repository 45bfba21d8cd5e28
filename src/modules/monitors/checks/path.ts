// Path check (MTR): the hops to a host, each with its loss and latency, from Debian's `mtr` (mtr-tiny) run
// through core/exec with JSON output. Up when the destination answers, down when it does not; loss at the
// destination above the monitor's max_loss_pct is degraded (ping's rule). A route change (a hop now answers
// from another address, or the path to the answering destination is longer or shorter) is reported as the
// result's `change`: the service records it in the event log and raises a `route_changed` alert through the
// alert gate (results.ts). docs/monitors.md, "Path".
//
// Why mtr: a well-kept program that probes every hop several times per run (MTR-style loss per hop), with
// ICMP, UDP and TCP probes and a JSON report; no raw sockets are written here. mtr-packet, its privileged
// helper, needs CAP_NET_RAW and the unit's `SystemCallFilter=capset setuid` (docs/appliance.md).
import net from 'node:net';
import { promises as dns } from 'node:dns';
import { z } from 'zod';
import { HttpError } from '../../../core/errors.js';
import { installHint, run as execRun, type RunOptions, type RunResult } from '../../../core/exec.js';
import type { CheckChange, CheckContext, CheckDefinition, RunReport } from './types.js';
import { budgetMs, hostProblem, ms } from './net.js';
import { degradeOnLoss } from './ping.js';
import { segmentPath } from './path-segments.js';
import { routeToward, type RouteToward } from './route-toward.js';

/**
 * mtr refuses an interval below 1 s to any user but root ("non-root users cannot request an interval < 1.0
 * seconds"), whatever its capabilities, and the service runs as the user netprobe: one probe per hop per
 * second. A second apart also keeps a Linux router's ICMP rate limit (about one error a second per
 * destination after a short burst) from showing as loss at its hop.
 */
const INTERVAL_S = 1;
/** How long mtr waits for late answers after its last probe (`-G`; its default 5 s only adds wall time). */
const GRACE_S = 1;

export const settings = z.object({
  probe_type: z.enum(['icmp', 'udp', 'tcp']).default('icmp')
    .meta({ title: 'Probes', 'x-enum-titles': { icmp: 'ICMP echo (like ping)', udp: 'UDP', tcp: 'TCP SYN' },
      description: 'What mtr sends. Some networks drop ICMP or UDP; TCP SYN to an open port gets through most firewalls.' }),
  dest_port: z.number().int().min(1).max(65535).default(80)
    .meta({ title: 'Destination port', description: 'The port UDP or TCP probes go to. TCP: a port the host listens on ' +
      'completes the path; UDP: a closed one answers too (port unreachable).',
      'x-visible-when': { properties: { probe_type: { enum: ['udp', 'tcp'] } } } }),
  cycles: z.number().int().min(1).max(30).default(5)
    .meta({ title: 'Probes per hop', description: 'One a second: a check takes about this many seconds, plus one.' }),
  max_ttl: z.number().int().min(1).max(64).default(30).meta({ title: 'Most hops' }),
  reverse_dns: z.boolean().default(false)
    .meta({ title: 'Look up hop names', description: 'Reverse DNS of each hop after the run. Off by default: a lookup per hop ' +
      'per check, and a hop without a name costs the resolver\'s timeout.' }),
}).strict();

export type PathSettings = z.output<typeof settings>;

export function validateTarget(target: string): string | null {
  return hostProblem(target);
}

// ---- mtr's JSON report ------------------------------------------------------------------------------

/** One hop as a result's details keep it (`address` null: no answer at that TTL, mtr's "???"). */
export interface Hop {
  hop: number;
  address: string | null;
  loss_pct: number;
  sent: number;
  received: number;
  avg_ms: number | null;
  best_ms: number | null;
  worst_ms: number | null;
  name?: string | null;
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/**
 * The hops of `mtr -j` (0.95: report.hubs[] with count, host, Loss%, Snt, Rcv when -o asks for it, Avg, Best,
 * Wrst, in ms). Null when the text is no mtr report. mtr keeps one address per hop, the latest it saw.
 */
export function parseMtrJson(text: string): Hop[] | null {
  let doc: unknown;
  try { doc = JSON.parse(text); } catch { return null; }
  const hubs = (doc as { report?: { hubs?: unknown } } | null)?.report?.hubs;
  if (!Array.isArray(hubs)) return null;
  return hubs.map((h: Record<string, unknown>, i): Hop => {
    const sent = num(h.Snt) ?? 0;
    const loss = num(h['Loss%']) ?? 100;
    const host = typeof h.host === 'string' && h.host !== '???' ? h.host : null;
    const received = num(h.Rcv) ?? Math.round(sent * (1 - loss / 100));
    const answered = host !== null && received > 0;
    const time = (k: string) => (answered && num(h[k]) !== null ? ms(num(h[k])!) : null);
    return { hop: num(h.count) ?? i + 1, address: host, loss_pct: Math.round(loss * 10) / 10, sent, received,
      avg_ms: time('Avg'), best_ms: time('Best'), worst_ms: time('Wrst') };
  });
}

/** The addresses along a path, hop by hop (null where nothing answered). */
export const addressesOf = (hops: readonly Hop[]): (string | null)[] => hops.map((h) => h.address);

/**
 * Whether the route differs from the previous check's: a hop that answered both times from different
 * addresses, or a different number of hops to a destination that answered both times. A hop that did not
 * answer (lost probes, a router that does not send time-exceeded) is no evidence either way, so it never
 * counts as a change on its own.
 */
export function routeChanged(before: readonly (string | null)[], after: readonly (string | null)[], reachedBoth: boolean): boolean {
  const n = Math.min(before.length, after.length);
  for (let i = 0; i < n; i++) {
    if (before[i] !== null && after[i] !== null && before[i] !== after[i]) return true;
  }
  return reachedBoth && before.length !== after.length;
}

/** "10.0.0.1 > ? > 192.0.2.7" */
export const pathText = (p: readonly (string | null)[]): string => p.map((a) => a ?? '?').join(' > ');

export function mtrArgs(address: string, s: PathSettings): string[] {
  const args = ['-j', '-n', '-o', 'LSRNABWV', '-c', String(s.cycles), '-i', String(INTERVAL_S), '-G', String(GRACE_S),
    '-m', String(s.max_ttl)];
  if (s.probe_type === 'udp') args.push('-u');
  if (s.probe_type === 'tcp') args.push('-T');
  if (s.probe_type !== 'icmp') args.push('-P', String(s.dest_port));
  args.push('--', address);
  return args;
}

/** Seconds mtr needs: a probe per hop a second, the grace after the last one, and a second to spare. */
export const pathDurationS = (s: PathSettings): number => s.cycles * INTERVAL_S + GRACE_S + 1;

// ---- the check ------------------------------------------------------------------------------------

export type ExecFn = (program: string, args: string[], opts?: RunOptions) => Promise<RunResult>;

/** What a path check remembers of its previous run (CheckContext.memory). */
interface PathMemory { path: (string | null)[]; reached: boolean }

async function resolve(target: string, deadline: number): Promise<{ address: string } | { error: string }> {
  if (net.isIP(target)) return { address: target };
  const left = Math.max(1, deadline - Date.now());
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error('timed out')), left); });
  try {
    const r = await Promise.race([dns.lookup(target), timeout]);
    return { address: r.address };
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'ENOTFOUND' ? 'Name or service not known' : e instanceof Error ? e.message : String(e);
    return { error: `cannot resolve ${target}: ${why}` };
  } finally { clearTimeout(timer); }
}

/** Reverse names of the hops, within what is left of the budget; a hop without one keeps null. */
async function reverseNames(hops: Hop[], deadline: number): Promise<void> {
  const left = deadline - Date.now();
  if (left < 200) return;
  const resolver = new dns.Resolver({ timeout: Math.min(2000, left), tries: 1 });
  await Promise.all(hops.map(async (h) => {
    if (!h.address) return;
    try { h.name = (await resolver.reverse(h.address))[0] ?? null; } catch { h.name = null; }
  }));
}

export function run(target: string, s: PathSettings, ctx: CheckContext): Promise<RunReport> {
  return runWith(execRun, target, s, ctx);
}

/** run() with a given exec (unit tests feed recorded mtr output). */
export async function runWith(exec: ExecFn, target: string, s: PathSettings, ctx: CheckContext): Promise<RunReport> {
  const down = (message: string, details: Record<string, unknown> = {}): RunReport =>
    ({ status: 'down', response_time_ms: null, message, details });
  const problem = validateTarget(target);
  if (problem) return down(problem);
  const deadline = Date.now() + budgetMs(ctx.timeout);
  const r = await resolve(target, deadline);
  if ('error' in r) return down(r.error);
  let out: RunResult;
  try {
    out = await exec('mtr', mtrArgs(r.address, s), { timeoutMs: Math.max(1000, deadline - Date.now()), signal: ctx.signal,
      maxBytes: 1024 * 1024 });
  } catch (e) {
    if (e instanceof HttpError && e.status === 503) {
      return down('mtr is not installed (apt-get install mtr-tiny)', { install_hint: installHint('mtr') });
    }
    return down(ctx.signal?.aborted ? 'check aborted' : `mtr could not run: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (out.timed_out) return down(`mtr did not finish within ${Math.round(budgetMs(ctx.timeout) / 1000)} s`);
  const hops = parseMtrJson(out.stdout);
  if (!hops) {
    // mtr's own words: "mtr-packet: Unable to drop elevated permissions: ..." under a unit without capset/setuid.
    const why = out.stderr.split('\n').map((l) => l.trim()).find(Boolean) ?? `exit code ${out.code}`;
    return down(`mtr failed: ${why}`);
  }
  if (s.reverse_dns) await reverseNames(hops, deadline);
  return pathResult(target, r.address, hops, s, ctx, await routeToward(r.address));
}

/**
 * mtr's hops as run()'s result, and the route compared with the previous check's; `route`, how the probe
 * reaches the address (its gateway), splits the path into LAN, ISP and internet (details.segments).
 */
export function pathResult(target: string, address: string, hops: Hop[], s: PathSettings, ctx: Pick<CheckContext, 'memory'>,
  route: RouteToward | null = null): RunReport {
  const last = hops[hops.length - 1];
  const dest = last && last.address === address && last.received > 0 ? last : null;
  const path = addressesOf(hops);
  const details: Record<string, unknown> = { address, probe_type: s.probe_type, hops,
    ...(hops.length ? { segments: segmentPath(hops, route, s.reverse_dns) } : {}) };
  const measurements: Record<string, number> = { hops: hops.length };
  let change: CheckChange | undefined;
  const before = ctx.memory?.previous as PathMemory | undefined;
  if (path.some((a) => a !== null)) {
    if (before && routeChanged(before.path, path, before.reached && dest !== null)) {
      change = { kind: 'route_changed', message: `Route to ${target} changed: ${pathText(before.path)} became ${pathText(path)}`,
        details: { from: before.path, to: path } };
      details.route_change = { from: before.path, to: path };
    }
    ctx.memory?.keep({ path, reached: dest !== null } satisfies PathMemory);
  }
  if (!dest) {
    const seen = hops.filter((h) => h.address !== null);
    const lastSeen = seen.length ? `; last answer from hop ${seen[seen.length - 1]!.hop} (${seen[seen.length - 1]!.address})` : '';
    return { status: 'down', response_time_ms: null, details, measurements: { ...measurements, loss_pct: 100 },
      message: `no answer from ${target} within ${hops.length} hops${lastSeen}`, ...(change ? { change } : {}) };
  }
  details.loss_pct = dest.loss_pct;
  measurements.loss_pct = dest.loss_pct;
  const lossy = hops.filter((h) => h !== dest && h.address !== null && h.loss_pct > 0).length;
  const message = `${hops.length} ${hops.length === 1 ? 'hop' : 'hops'}, ${dest.loss_pct}% loss at ${target}` +
    (lossy ? ` (loss at ${lossy} ${lossy === 1 ? 'hop' : 'hops'} on the way)` : '');
  return { status: 'up', response_time_ms: dest.avg_ms, message, details, measurements, ...(change ? { change } : {}) };
}

/** The check type as the monitor service sees it (checks/index.ts, CHECKS). */
export const check: CheckDefinition<PathSettings> = {
  label: 'Path (MTR)', icon: 'discovery', hint: 'Hops, loss and route changes',
  target: { title: 'Host', placeholder: '192.0.2.10 or gateway.example.net',
    description: 'An IP address or host name to trace the path to.' },
  settings, validateTarget, run, degrade: degradeOnLoss, degradeReads: ['max_loss_pct'], host: (target) => target,
  keepsDetails: true,
  measurements: [{ name: 'hops', unit: 'hops', label: 'Hop count' }, { name: 'loss_pct', unit: '%', label: 'Loss at the destination' }],
  minimumTimeout: pathDurationS,
  minimumTimeoutReason: 'one probe per hop a second (mtr refuses faster to a non-root user), plus 2 s',
};
