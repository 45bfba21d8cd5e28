// Interface polling against a real agent: the lab router's Debian snmpd (docs/lab.md) reports its veths'
// kernel counters through IF-MIB. The service (in the root namespace, as on the probe) polls it with a
// stored credential, a known number of bytes crosses the router's eth1 both ways in one TCP connection
// (srv -> router: the agent's "in"; router -> srv: its "out"; different sizes, so a swap fails), and the
// next poll's rates times the interval between the two polls' times must give those bytes back within
// 5 %, on the right side; eth2, which carried nothing, shows about 0; the hour view has the point.
// net-snmp serves interface counters from a cache reloaded every 3 s (../shared/notes/snmp-over-time.md
// §3), so the second poll waits over 4 s after the transfer. Veth counters include ~66 B of headers per
// GSO super-packet (§2): measured 0.13-0.15 % over the payload in, 0.23-0.35 % out (out carries the ACKs
// of in), well inside the 5 %. Both ends run on one CPU (nodeIn) so that no reordering retransmits.
// The kernel's own counters and the TCP retransmissions are printed beside the figures.
// Packets go only between the root namespace and the lab's namespaces.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { run } from '../../src/core/exec.js';
import { startTestApp, type TestApp } from '../helpers/harness.js';
import { labSkipReason, startLab, type Lab } from '../helpers/lab.js';

const skip = labSkipReason();

/** Payload bytes sent srv -> router (router eth1 in) and router -> srv (router eth1 out). */
const IN_BYTES = 24 * 2 ** 20;
const OUT_BYTES = 7 * 2 ** 20;
const TCP_PORT = 5201;
/** At most this many bytes over the interval on an interface that carried none of the transfer (0.02 % of it). */
const QUIET_BYTES = 5000;
/** net-snmp's interface cache is reloaded every 3 s: a poll this long after the transfer sees all of it. */
const AFTER_CACHE_MS = 4500;

// Both ends of the transfer, run by node inside a lab namespace: each writes its share (64 KiB at a time,
// minding backpressure), half-closes (allowHalfOpen: the other may still be sending), counts what it
// receives, and prints what it wrote and received when the socket closes.
const SEND_JS = `
const talk = (s, n, done) => {
  const chunk = Buffer.alloc(65536); let left = n; let sent = 0; let got = 0;
  const more = () => { while (left > 0) { const k = Math.min(left, chunk.length); left -= k;
    const ok = s.write(k === chunk.length ? chunk : chunk.subarray(0, k), (e) => { if (!e) sent += k; });
    if (!ok) return void s.once('drain', more); } s.end(); };
  s.on('data', (b) => { got += b.length; });
  s.on('close', () => { console.log(JSON.stringify({ sent, received: got })); done(); });
  more(); };`;
const SERVER_JS = `${SEND_JS}
const net = require('node:net'); const [host, port, n] = process.argv.slice(1);
const srv = net.createServer({ allowHalfOpen: true }, (s) => talk(s, Number(n), () => srv.close()));
srv.listen(Number(port), host, () => console.log('listening'));`;
const CLIENT_JS = `${SEND_JS}
const net = require('node:net'); const [host, port, n] = process.argv.slice(1);
const s = net.connect({ port: Number(port), host, allowHalfOpen: true }, () => talk(s, Number(n), () => undefined));`;

interface Counts { sent: number; received: number }

/**
 * Runs a JS program with node in a namespace, on one CPU (`cpu`); resolves with what it printed last (JSON)
 * once it exits. Both ends on the same CPU: a veth delivers through the sending CPU's input queue, so a
 * sender moving between CPUs reorders its segments, the other end takes that for loss and retransmits
 * (measured here: up to 4 % more bytes on the wire, all of them counted by the agent, as they should be).
 */
function nodeIn(ns: string, cpu: string, js: string, args: string[], onLine?: (line: string) => void): Promise<Counts> {
  const child = spawn('ip', ['netns', 'exec', ns, 'taskset', '-c', cpu, process.execPath, '-e', js, ...args],
    { stdio: ['ignore', 'pipe', 'pipe'] });
  const kill = setTimeout(() => child.kill('SIGKILL'), 30_000);
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    out += d;
    for (const line of d.split('\n')) if (line.trim()) onLine?.(line.trim());
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => { err += d; });
  return once(child, 'exit').then(([code]) => {
    clearTimeout(kill);
    const last = out.trim().split('\n').pop() ?? '';
    if (code !== 0 || !last.startsWith('{')) throw new Error(`node in ${ns} exited ${code}: ${out}${err}`);
    return JSON.parse(last) as Counts;
  });
}

const TCP_STATS = ['TcpRetransSegs', 'TcpExtTCPSACKReorder'] as const;

/** A namespace's TCP retransmission and reordering counters so far (nstat's absolute values; -s: it keeps no history). */
async function tcpStats(lab: Lab, ns: string): Promise<Record<string, number>> {
  const r = await lab.exec(ns, 'nstat', ['-asz', ...TCP_STATS]);
  return Object.fromEntries(TCP_STATS.map((n) => [n, Number(new RegExp(`^${n}\\s+(\\d+)`, 'm').exec(r.stdout)?.[1] ?? NaN)]));
}
const grew = (a: Record<string, number>, b: Record<string, number>) =>
  TCP_STATS.map((n) => `${n.replace(/^Tcp(Ext)?/, '')} ${b[n]! - a[n]!}`).join(', ');

/** The first CPU this process may run on (the transfer's two ends are pinned to it). */
async function firstCpu(): Promise<string> {
  const r = await run('taskset', ['-pc', String(process.pid)]);
  const cpu = /:\s*(\d+)/.exec(r.stdout)?.[1];
  assert.ok(cpu !== undefined, `taskset -pc: ${r.stdout}${r.stderr}`);
  return cpu;
}

/** The kernel's own counters of a lab interface (sysfs as the namespace sees it): to explain what SNMP counted. */
async function kernelCounters(lab: Lab, ns: string, ifname: string): Promise<Record<'rx_bytes' | 'tx_bytes' | 'rx_packets' | 'tx_packets', number>> {
  const names = ['rx_bytes', 'tx_bytes', 'rx_packets', 'tx_packets'] as const;
  const r = await lab.exec(ns, 'cat', names.map((n) => `/sys/class/net/${ifname}/statistics/${n}`));
  assert.equal(r.code, 0, r.stderr);
  const v = r.stdout.trim().split('\n').map(Number);
  return Object.fromEntries(names.map((n, k) => [n, v[k]!])) as never;
}

interface Rates { t: string; in_bps: number | null; out_bps: number | null; why: string | null }
interface Iface { key: number; name: string | null; hc: boolean | null; gone_at: string | null; now: Rates | null }

describe('interface polling against a real agent, in the lab', { skip: skip ?? false }, () => {
  let lab: Lab;
  let t: TestApp;
  let dir: string;
  let key: string;
  let id: string;
  const api = (method: string, path: string, body?: unknown) => t.request(method, path, { key, body });

  async function poll(): Promise<Iface[]> {
    const r = await api('POST', `/api/snmp/polling/${id}/poll`);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.state.status, 'ok', r.body.state.error ?? r.text);
    return r.body.interfaces as Iface[];
  }
  const named = (ifs: Iface[], name: string): Iface => {
    const i = ifs.find((x) => x.name === name && !x.gone_at);
    assert.ok(i, `the agent lists ${name}: ${ifs.map((x) => x.name).join(', ')}`);
    return i;
  };

  before(async () => {
    // No corpus: corp stays an empty segment, so the router's eth2 carries nothing. No LLDP wait: not used here.
    lab = await startLab({ corpus: false, waitLldp: false });
    dir = await mkdtemp(join(tmpdir(), 'netprobe-polling-lab-'));
    t = await startTestApp({ dataDir: dir });
    key = (await t.admin()).key;
    assert.equal((await api('POST', '/api/brain/vault/setup', { passphrase: 'Polling-Lab-Vault-Passphrase-4' })).status, 200);
  });
  after(async () => {
    await t?.close();
    await lab?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test('the rates times the interval give the bytes that crossed the router\'s eth1, in and out; eth2 shows ~0; the hour view has the point',
    async (tc) => {
      const router = lab.host('router');
      const agent = router.addresses[0]!; // its lan leg, where the probe reaches it
      const farLeg = router.addresses[1]!; // eth1, towards srv
      const srv = lab.host('srv');
      const c = await api('POST', '/api/brain/credentials', { name: 'lab router', kind: 'snmp_v2c', community: lab.snmp.community,
        scope: [agent] });
      assert.equal(c.status, 201, c.text);
      // Paused: only the polls this test asks for, so no scheduled poll splits the measured interval.
      const d = await api('POST', '/api/snmp/polling', { name: 'lab router', target: agent, credential_id: c.body.id, enabled: false });
      assert.equal(d.status, 201, d.text);
      id = d.body.id;

      const first = await poll();
      const t1 = Date.parse(named(first, 'eth1').now!.t);
      assert.equal(named(first, 'eth1').hc, true, 'a veth has 64-bit counters');
      assert.equal(named(first, 'eth1').now!.why, 'first');

      const k1 = await kernelCounters(lab, router.ns, 'eth1');
      const tcp1 = [await tcpStats(lab, srv.ns), await tcpStats(lab, router.ns)] as const;

      // The router listens on its eth1 address; srv connects to it. Both send their share at once.
      let listening!: () => void;
      const ready = new Promise<void>((r) => { listening = r; });
      const cpu = await firstCpu();
      const server = nodeIn(router.ns, cpu, SERVER_JS, [farLeg, String(TCP_PORT), String(OUT_BYTES)], (l) => { if (l === 'listening') listening(); });
      await Promise.race([ready, server]);
      const client = await nodeIn(srv.ns, cpu, CLIENT_JS, [farLeg, String(TCP_PORT), String(IN_BYTES)]);
      const served = await server;
      assert.deepEqual([client.sent, client.received, served.sent, served.received], [IN_BYTES, OUT_BYTES, OUT_BYTES, IN_BYTES],
        'each end received all the other sent');
      const k2 = await kernelCounters(lab, router.ns, 'eth1');
      const tcp2 = [await tcpStats(lab, srv.ns), await tcpStats(lab, router.ns)] as const;
      await new Promise((r) => setTimeout(r, AFTER_CACHE_MS));

      const second = await poll();
      const eth1 = named(second, 'eth1');
      const eth2 = named(second, 'eth2');
      assert.equal(eth1.now!.why, null, JSON.stringify(eth1.now));
      const s = (Date.parse(eth1.now!.t) - t1) / 1000;
      assert.ok(s >= AFTER_CACHE_MS / 1000, `${s} s between the polls`);
      const bytesIn = (eth1.now!.in_bps! * s) / 8;
      const bytesOut = (eth1.now!.out_bps! * s) / 8;
      const errIn = ((bytesIn - IN_BYTES) / IN_BYTES) * 100;
      const errOut = ((bytesOut - OUT_BYTES) / OUT_BYTES) * 100;
      tc.diagnostic(`interval ${s.toFixed(3)} s; eth1 in: ${IN_BYTES} B sent, rate x interval ${Math.round(bytesIn)} B (${errIn.toFixed(2)} %)`);
      tc.diagnostic(`eth1 out: ${OUT_BYTES} B sent, rate x interval ${Math.round(bytesOut)} B (${errOut.toFixed(2)} %)`);
      const kIn = k2.rx_bytes - k1.rx_bytes;
      const kOut = k2.tx_bytes - k1.tx_bytes;
      tc.diagnostic(`kernel (sysfs) over the transfer: rx ${kIn} B in ${k2.rx_packets - k1.rx_packets} packets ` +
        `(${(((kIn - IN_BYTES) / IN_BYTES) * 100).toFixed(2)} % over the payload), tx ${kOut} B in ${k2.tx_packets - k1.tx_packets} packets ` +
        `(${(((kOut - OUT_BYTES) / OUT_BYTES) * 100).toFixed(2)} %); srv: ${grew(tcp1[0], tcp2[0])}; router: ${grew(tcp1[1], tcp2[1])}`);
      assert.ok(Math.abs(errIn) < 5, `eth1 in: ${Math.round(bytesIn)} B counted for ${IN_BYTES} B sent srv -> router (${errIn.toFixed(2)} %)`);
      assert.ok(Math.abs(errOut) < 5, `eth1 out: ${Math.round(bytesOut)} B counted for ${OUT_BYTES} B sent router -> srv (${errOut.toFixed(2)} %)`);

      // eth2 carried nothing of it: a few stray link-local frames at most (0-500 B over the interval in runs
      // here, in 70-B frames, the size of an IPv6 router solicitation).
      assert.equal(eth2.now!.why, null, JSON.stringify(eth2.now));
      const quietIn = (eth2.now!.in_bps! * s) / 8;
      const quietOut = (eth2.now!.out_bps! * s) / 8;
      tc.diagnostic(`eth2 (no traffic): in ${Math.round(quietIn)} B, out ${Math.round(quietOut)} B over the interval`);
      assert.ok(quietIn < QUIET_BYTES && quietOut < QUIET_BYTES, `eth2 in ${quietIn} B, out ${quietOut} B`);

      // The hour view has the poll as a point: at its time (whole seconds), with its rates (the hour view's
      // points are kept as 16-bit log codes: 0.03 % at worst, history/codec.ts).
      const h = await api('GET', `/api/snmp/polling/${id}/interfaces/${eth1.key}/history?range=hour`);
      assert.equal(h.status, 200, h.text);
      const point = (h.body.points as { t: string; in_avg: number | null; out_avg: number | null }[])
        .find((p) => Date.parse(p.t) === Math.floor(Date.parse(eth1.now!.t) / 1000) * 1000);
      assert.ok(point, `no point at ${eth1.now!.t}: ${JSON.stringify(h.body.points)}`);
      assert.ok(Math.abs(point.in_avg! - eth1.now!.in_bps!) <= eth1.now!.in_bps! * 5e-4, `in ${point.in_avg} vs ${eth1.now!.in_bps}`);
      assert.ok(Math.abs(point.out_avg! - eth1.now!.out_bps!) <= eth1.now!.out_bps! * 5e-4, `out ${point.out_avg} vs ${eth1.now!.out_bps}`);
    });
});
