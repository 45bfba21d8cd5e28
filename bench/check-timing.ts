// How far each check type's reported time is from the network's: runs the project's check function
// (checks/index.ts runCheck, as the scheduler does) N times against a loopback target and a reference
// client N times against the same target, and prints medians, p90s and the difference (issue 32 §4: the
// reported figure should be within 0.3 ms of the reference). Prints figures, asserts nothing.
//
//   node --import tsx bench/check-timing.ts                 (or ./build.sh bench check-timing)
//   options: --runs N (per type and side, default 200), --types http,tcp,dns,ping (default all),
//            --load M (meanwhile M monitors' worth of checks run in the same process, a mix as in
//            bench/monitors.ts at a 60 s interval: 40 % http, 25 % tcp, 20 % dns, 15 % ping; default 0)
//
// Targets (bench/check-timing/targets.ts), all on 127.0.0.1 and none of them node: nginx (python3's
// http.server when nginx is missing, with a python3 accept loop for tcp) for http, https (a self-signed
// certificate, not verified by either side) and, as a plain listener, for tcp; dnsmasq for dns; the
// loopback address for ping. References: curl's -w timings (http); a connect() timed in C
// (bench/check-timing/reference.c), and nping --tcp-connect's averages when nping is there (tcp); a UDP
// query timed in C, and dig's "Query time" (whole milliseconds) (dns); fping's own per-packet RTT (ping).
// A missing tool skips its part with a message. Check and reference runs alternate in rounds, so that a
// drift of the machine's speed falls on both.
import { runCheck, type CheckType } from '../src/modules/monitors/checks/index.js';
import type { CheckResult } from '../src/modules/monitors/checks/types.js';
import { percentile } from './monitors/util.js';
import {
  buildReference, has, removeDir, runTool, startDnsServer, startHttpServer, tempDir, type DnsTarget, type HttpTarget,
} from './check-timing/targets.js';

function option(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}
const RUNS = Number(option('runs') ?? 200);
const TYPES = (option('types') ?? 'http,tcp,dns,ping').split(',').map((s) => s.trim()) as CheckType[];
const LOAD = Number(option('load') ?? 0);
const ROUNDS = 4;
const WARM_UP = 20;

// ---- figures ----------------------------------------------------------------------------------------

interface Row { type: string; what: string; check: number[]; reference: number[]; referenceName: string }
const rows: Row[] = [];

const f3 = (v: number): string => (Number.isFinite(v) ? v.toFixed(3) : 'n/a');
const med = (xs: number[]) => percentile(xs, 50);

function printRows(): void {
  const head = ['type', 'figure', 'check p50', 'p90', 'reference', 'p50', 'p90', 'check - ref (p50)'];
  const lines = rows.map((r) => [r.type, r.what, f3(med(r.check)), f3(percentile(r.check, 90)), r.referenceName,
    f3(med(r.reference)), f3(percentile(r.reference, 90)), f3(med(r.check) - med(r.reference))]);
  const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (cells: string[]) => cells.map((c, i) => (i < 2 || i === 4 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  console.log(fmt(head));
  for (const l of lines) console.log(fmt(l));
  console.log('(milliseconds; check - ref within 0.3 ms is the goal)');
}

/** N check results of one type, sequential, as one monitor's checks are. */
async function checks(type: CheckType, target: string, settings: Record<string, unknown>, n: number): Promise<CheckResult[]> {
  const out: CheckResult[] = [];
  for (let i = 0; i < n; i++) {
    const r = await runCheck(type, target, settings, { timeout: 5 });
    if (r.status === 'down') throw new Error(`${type} check of ${target} failed: ${r.message}`);
    out.push(r);
  }
  return out;
}

/** Alternates ROUNDS rounds of `check(n)` and `reference(n)`, after a warm-up of the check. */
async function alternate<C, R>(check: (n: number) => Promise<C[]>, reference: (n: number) => Promise<R[]>): Promise<[C[], R[]]> {
  await check(WARM_UP);
  const c: C[] = [];
  const r: R[] = [];
  const per = Math.max(1, Math.ceil(RUNS / ROUNDS));
  for (let i = 0; i < ROUNDS; i++) {
    c.push(...await check(per));
    r.push(...await reference(per));
  }
  return [c, r];
}

const lines = (out: string): number[] => out.split('\n').filter((l) => l.trim()).map(Number);
const num = (v: unknown): number => (typeof v === 'number' ? v : 0);

// ---- per type ---------------------------------------------------------------------------------------

async function benchHttp(url: string, type: 'http' | 'https'): Promise<void> {
  if (!has('curl')) { console.log(`${type}: skipped (curl is not installed: apt-get install curl)`); return; }
  const curl = async (n: number) => {
    // One curl for n transfers; `Connection: close` (as the check sends) makes each its own connection.
    const args = ['-s', '-k', '-H', 'Connection: close', '-w', '%{time_connect} %{time_appconnect} %{time_starttransfer} %{time_total}\\n'];
    for (let i = 0; i < n; i++) args.push('-o', '/dev/null', url);
    return (await runTool('curl', args)).trim().split('\n').map((l) => l.split(' ').map((s) => Number(s) * 1000));
  };
  const [c, r] = await alternate((n) => checks('http', url, { verify_tls: false }, n), curl);
  const timing = c.map((x) => x.details.timing as Record<string, unknown>);
  const connect = timing.map((t) => num(t.dns_ms) + num(t.connect_ms));
  const handshake = timing.map((t, i) => connect[i]! + num(t.tls_ms));
  const firstByte = timing.map((t, i) => handshake[i]! + num(t.ttfb_ms));
  const name = 'curl -w';
  rows.push({ type, what: 'connect', check: connect, reference: r.map((x) => x[0]!), referenceName: `${name} time_connect` });
  if (type === 'https') {
    rows.push({ type, what: 'TLS done', check: handshake, reference: r.map((x) => x[1]!), referenceName: `${name} time_appconnect` });
  }
  rows.push({ type, what: 'first byte', check: firstByte, reference: r.map((x) => x[2]!), referenceName: `${name} time_starttransfer` });
  rows.push({ type, what: 'total (response_time)', check: c.map((x) => x.response_time_ms!), reference: r.map((x) => x[3]!),
    referenceName: `${name} time_total` });
}

async function benchTcp(web: HttpTarget, reference: string | null): Promise<void> {
  const target = `127.0.0.1:${web.tcpPort}`;
  const check = async (n: number) => (await checks('tcp', target, {}, n)).map((x) => x.response_time_ms!);
  if (reference) {
    const [c, r] = await alternate(check, async (n) => lines(await runTool(reference, ['tcp', '127.0.0.1', String(web.tcpPort), String(n)])));
    rows.push({ type: 'tcp', what: 'connect (response_time)', check: c, reference: r, referenceName: 'connect() timed in C' });
  }
  if (has('nping')) {
    // nping prints only min/avg/max; its average is shown beside the check's mean.
    const out = await runTool('nping', ['--tcp-connect', '-c', String(RUNS), '--delay', '5ms', '-p', String(web.tcpPort), '127.0.0.1']);
    const m = /Max rtt: ([\d.]+)ms \| Min rtt: ([\d.]+)ms \| Avg rtt: ([\d.]+)ms/.exec(out);
    const c = await check(RUNS);
    const mean = c.reduce((a, b) => a + b, 0) / c.length;
    if (m) console.log(`tcp: nping --tcp-connect min/avg/max ${m[2]}/${m[3]}/${m[1]} ms; the check's mean ${f3(mean)} ms (min ${f3(Math.min(...c))})`);
  } else {
    console.log('tcp: nping is not installed (apt-get install nmap): the C reference alone');
  }
}

async function benchDns(d: DnsTarget, reference: string | null): Promise<void> {
  const settings = { resolver: '127.0.0.1', port: d.port };
  const check = async (n: number) => (await checks('dns', d.name, settings, n)).map((x) => x.response_time_ms!);
  if (reference) {
    const [c, r] = await alternate(check, async (n) => lines(await runTool(reference, ['dns', '127.0.0.1', String(d.port), d.name, String(n)])));
    rows.push({ type: 'dns', what: 'query (response_time)', check: c, reference: r, referenceName: 'UDP query timed in C' });
  }
  if (has('dig')) {
    const times: number[] = [];
    for (let i = 0; i < Math.min(RUNS, 50); i++) {
      const out = await runTool('dig', [`@127.0.0.1`, '-p', String(d.port), d.name, 'A', '+tries=1', '+time=2']);
      const m = /Query time: (\d+) msec/.exec(out);
      if (m) times.push(Number(m[1]));
    }
    console.log(`dns: dig's query time (whole milliseconds) p50 ${med(times)} ms, max ${Math.max(...times)} ms over ${times.length} queries`);
  } else {
    console.log('dns: dig is not installed (apt-get install bind9-dnsutils): the C reference alone');
  }
}

async function benchPing(): Promise<void> {
  if (!has('fping')) { console.log('ping: skipped (fping is not installed: apt-get install fping)'); return; }
  // One packet per check, so that the check's figure (fping's average) is one RTT like the reference's.
  const settings = { count: 1, per_packet_timeout_ms: 100 };
  const check = async (n: number) => (await checks('ping', '127.0.0.1', settings, n)).map((x) => x.response_time_ms!);
  const fping = async (n: number) => {
    const out = await runTool('fping', ['-c', String(n), '-p', '20', '-t', '500', '127.0.0.1']).catch((e: Error) => e.message);
    return [...out.matchAll(/, ([\d.]+) ms \(/g)].map((m) => Number(m[1]));
  };
  const [c, r] = await alternate(check, fping);
  rows.push({ type: 'ping', what: 'RTT (response_time)', check: c, reference: r, referenceName: "fping's per-packet RTT" });
}

// ---- load -------------------------------------------------------------------------------------------

/** M monitors at a 60 s interval, a mix as bench/monitors.ts: their checks, spread evenly over the minute. */
function startLoad(m: number, web: HttpTarget | null, d: DnsTarget | null): () => Promise<void> {
  const mix: Array<[CheckType, string, Record<string, unknown>] | null> = [
    ...Array<[CheckType, string, Record<string, unknown>] | null>(8).fill(web ? ['http', web.url, {}] : null),
    ...Array<[CheckType, string, Record<string, unknown>] | null>(5).fill(web ? ['tcp', `127.0.0.1:${web.tcpPort}`, {}] : null),
    ...Array<[CheckType, string, Record<string, unknown>] | null>(4).fill(d ? ['dns', d.name, { resolver: '127.0.0.1', port: d.port }] : null),
    ...Array<[CheckType, string, Record<string, unknown>] | null>(3).fill(['ping', '127.0.0.2', {}]),
  ];
  const running = new Set<Promise<unknown>>();
  let i = 0;
  const timer = setInterval(() => {
    const pick = mix[i++ % mix.length];
    if (!pick) return;
    const p = runCheck(pick[0], pick[1], pick[2], { timeout: 5 }).finally(() => running.delete(p));
    running.add(p);
  }, 60_000 / m);
  return async () => { clearInterval(timer); await Promise.all(running); };
}

// ---- main -------------------------------------------------------------------------------------------

const dir = await tempDir();
let web: HttpTarget | null = null;
let dnsServer: DnsTarget | null = null;
try {
  const ref = buildReference(dir);
  const reference = 'path' in ref ? ref.path : null;
  if (!reference) console.log(`tcp and dns: no C reference (${'error' in ref ? ref.error : ''})`);
  if (TYPES.some((t) => t === 'http' || t === 'tcp')) {
    web = await startHttpServer(dir);
    console.log(web ? `http and tcp target: ${web.server} on ${web.url}` : 'http and tcp: skipped (neither nginx nor python3 is installed)');
  }
  if (TYPES.includes('dns')) {
    dnsServer = await startDnsServer().catch((e: Error) => { console.log(`dns: ${e.message}`); return null; });
    console.log(dnsServer ? `dns target: dnsmasq on 127.0.0.1:${dnsServer.port}` : 'dns: skipped (dnsmasq is not installed: apt-get install dnsmasq-base)');
  }
  console.log(`${RUNS} runs per type and side, node ${process.version}${LOAD ? `, while ${LOAD} monitors' checks run` : ', idle'}\n`);
  const stopLoad = LOAD > 0 ? startLoad(LOAD, web, dnsServer) : null;
  if (TYPES.includes('http') && web) await benchHttp(web.url, 'http');
  if (TYPES.includes('http') && web?.httpsUrl) await benchHttp(web.httpsUrl, 'https');
  else if (TYPES.includes('http')) console.log('https: skipped (needs nginx and openssl)');
  if (TYPES.includes('tcp') && web) await benchTcp(web, reference);
  if (TYPES.includes('dns') && dnsServer) await benchDns(dnsServer, reference);
  if (TYPES.includes('ping')) await benchPing();
  await stopLoad?.();
  console.log('');
  printRows();
} finally {
  await web?.stop();
  await dnsServer?.stop();
  await removeDir(dir);
}
