// Monitor parents from the topology, in the lab (docs/lab.md): scan the lan, save the session, ping sw1,
// sw2 and the hosts behind sw2, apply the proposed parents, then take sw2 down. One alert goes out, sw2's,
// naming the monitors it held; none per host. The probe is its own node (its address, on sw1's swp1 by
// sw1's forwarding table). Every edge is one the scan read, none drawn by hand: ssh is behind sw2 by LLDP, the
// router by CDP, and plain3, the printer and plain5 on sw2's swp6-8 by sw2's forwarding table (BRIDGE-MIB),
// which sees them on its access ports while sw1 sees them on its uplink to sw2.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/harness.js';
import { labSkipReason, startLab, type Lab } from '../helpers/lab.js';
import { Receiver } from '../helpers/webhook-receiver.js';

const skip = labSkipReason();
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

describe('monitor parents from the topology, in the lab', { skip: skip ?? false }, () => {
  let lab: Lab;
  let t: TestApp;
  let dir: string;
  let key: string;
  let rx: Receiver;
  let session: any;
  const monitors: Record<string, string> = {};
  const api = (method: string, path: string, body?: unknown) => t.request(method, path, { key, body });
  const ip = (host: string) => lab.host(host).addresses[0]!;
  const nodeOf = (host: string) => session.nodes.find((n: any) => n.addresses.includes(ip(host)));
  const statuses = async () => Object.fromEntries(await Promise.all(Object.entries(monitors)
    .map(async ([name, id]) => [name, (await api('GET', `/api/monitors/${id}`)).body.status])));
  const until = async (want: (s: Record<string, string>) => boolean, what: string, ms = 60_000) => {
    const end = Date.now() + ms;
    let s = await statuses();
    while (!want(s)) {
      if (Date.now() > end) assert.fail(`${what}: ${JSON.stringify(s)}`);
      await sleep(500);
      s = await statuses();
    }
  };

  before(async () => {
    lab = await startLab({ corpus: false });
    dir = await mkdtemp(join(tmpdir(), 'netprobe-parentslab-'));
    t = await startTestApp({ dataDir: dir });
    key = (await t.admin()).key;
    rx = await Receiver.start();
    const lan = lab.subnets.find((s) => s.name === 'lan')!;
    const r = await api('POST', '/api/v1sion/scan', { subnet: lan.cidr, community: lab.snmp.community, snmp_version: '2c' });
    assert.equal(r.status, 202, r.text);
    await t.service.app.jobs.waitFor(r.body.job_id);
    for (let i = 0; i < 50 && (await api('GET', `/api/v1sion/scan/${r.body.job_id}/result`)).status !== 200; i++) await sleep(100);
    const s = await api('POST', '/api/v1sion/sessions', { name: 'lab lan', scan_job_id: r.body.job_id });
    assert.equal(s.status, 201, s.text);
    session = s.body;
  });
  after(async () => {
    await t?.close();
    await rx?.close();
    await lab?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test('the probe is its own node, on sw1\'s swp1; sw2 behind sw1 by LLDP', () => {
    const probe = session.nodes.find((n: any) => n.addresses.includes(lab.probe.address));
    assert.ok(probe, 'the scan found the probe itself');
    assert.ok(session.edges.some((e: any) => e.from === nodeOf('sw1').id && e.to === probe.id && e.from_port === 'swp1' && e.source === 'fdb'),
      JSON.stringify(session.edges));
  });

  test('proposals: each host behind sw2 under sw2\'s ping, sw2 under sw1\'s; one alert when sw2 goes down', async () => {
    for (const name of ['sw1', 'sw2', 'ssh', 'router', 'plain3', 'printer', 'plain5']) {
      const m = await api('POST', '/api/monitors', { name, check_type: 'ping', target: ip(name), interval: 5, timeout: 4, failure_threshold: 2 });
      assert.equal(m.status, 201, m.text);
      monitors[name] = m.body.id;
    }
    // A parent holds its children's alerts only once it is down itself: the port's check fails faster than a ping
    // times out (2 s against 4), so it needs more failures in a row than the pings (4 against 2) to be down after
    // them, as it would be set on a real probe (docs/monitors.md, "Dependencies"). With 2 it raced them.
    const sshd = await api('POST', '/api/monitors', { name: 'ssh port', check_type: 'tcp', target: `${ip('ssh')}:22`, interval: 5, timeout: 2,
      failure_threshold: 4 });
    assert.equal(sshd.status, 201, sshd.text);
    monitors['ssh port'] = sshd.body.id;

    const path = `/api/v1sion/sessions/${session.id}/parent-proposals`;
    const list = (await api('GET', path)).body;
    assert.equal(list.root?.node_id, session.nodes.find((n: any) => n.addresses.includes(lab.probe.address)).id, JSON.stringify(list));
    assert.match(list.root.why, new RegExp(`the probe's own address ${lab.probe.address.replace(/\./g, '\\.')}`));
    const p = (name: string) => list.proposals.find((x: any) => x.monitor.name === name);
    assert.ok(!session.edges.some((e: any) => e.source === 'manual'), 'no edge drawn by hand');
    const parents = Object.fromEntries(list.proposals.map((x: any) => [x.monitor.name, x.parents.map((m: any) => m.name)]));
    assert.deepEqual(parents, { sw1: [], sw2: ['sw1'], ssh: ['sw2'], 'ssh port': ['ssh'], router: ['sw2'], plain3: ['sw2'], printer: ['sw2'], plain5: ['sw2'] });
    assert.match(p('ssh').why, /^\S+ \(\S+\) is behind sw2 port swp2 \(LLDP\); sw2's ping "sw2" is the nearest monitor toward the probe/);
    assert.match(p('router').why, /is behind sw2 port swp3 \(CDP\)/);
    // The hosts on sw2's access ports, from sw2's forwarding table alone.
    for (const [name, port] of [['plain3', 'swp6'], ['printer', 'swp7'], ['plain5', 'swp8']] as const) {
      assert.match(p(name).why, new RegExp(`^${ip(name).replace(/\./g, '\\.')} \\([^)]*\\) is behind sw2 port ${port} \\(FDB\\); sw2's ping "sw2" is the nearest`));
      assert.ok(session.edges.some((e: any) => e.from === nodeOf('sw2').id && e.to === nodeOf(name).id && e.from_port === port && e.source === 'fdb'),
        `${name} on sw2 ${port} by the scan's FDB: ${JSON.stringify(session.edges.filter((e: any) => e.to === nodeOf(name).id))}`);
    }
    assert.match(p('sw2').why, /is behind sw1 port swp2 \(LLDP\); sw1's ping "sw1"/);

    const applied = await api('POST', `${path}/apply`, { monitor_ids: 'all' });
    assert.equal(applied.status, 200, applied.text);
    assert.equal(applied.body.applied, 7);
    const hook = await api('POST', '/api/webhooks', { name: 'sink', url: `${rx.url}/alerts`, cooldown: 0 });
    assert.equal(hook.status, 201, hook.text);
    await until((s) => Object.values(s).every((x) => x === 'up'), 'every monitor up first');

    const from = rx.requests.length;
    const down = await lab.exec('sw2', 'ip', ['link', 'set', 'br0', 'down']);
    assert.equal(down.code, 0, down.stderr);
    try {
      const behind = ['sw2', 'ssh', 'ssh port', 'router', 'plain3', 'printer', 'plain5'];
      await until((s) => behind.every((n) => s[n] === 'down'), 'sw2 and everything behind it down');
      assert.equal((await statuses()).sw1, 'up');
      await sleep(6000); // another round of checks: nothing more may come
      const alerts = rx.requests.slice(from).map((r) => r.json.alert);
      const problems = alerts.filter((a) => a.type !== 'monitor_up');
      assert.deepEqual(problems.map((a) => `${a.type}:${a.monitor.name}`), ['monitor_down:sw2'],
        alerts.map((a) => `${a.type}:${a.monitor?.name}`).join(', '));
      const d = problems[0].details.dependents;
      assert.equal(d.total, 6);
      assert.deepEqual(d.monitors.map((m: any) => m.name).sort(), ['plain3', 'plain5', 'printer', 'router', 'ssh', 'ssh port']);
      // Which of them were down yet is of the moment sw2 went down (the ssh port needs more failures than the pings):
      // the names are what the alert must carry; every one of them is down by now (the wait above).
      assert.match(problems[0].message, /6 dependent monitors are affected/);
    } finally {
      await lab.exec('sw2', 'ip', ['link', 'set', 'br0', 'up']);
    }
    await until((s) => Object.values(s).every((x) => x === 'up'), 'everything back up');
    await sleep(1000);
    const after = rx.requests.slice(from).map((r) => `${r.json.alert.type}:${r.json.alert.monitor.name}`);
    assert.deepEqual(after, ['monitor_down:sw2', 'monitor_up:sw2'], 'the hosts\' recoveries stay quiet too');
  });
});
