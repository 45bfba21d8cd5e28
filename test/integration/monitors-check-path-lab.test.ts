// The path (MTR) check against the namespace lab (docs/lab.md) with the real mtr: the service in the root
// namespace traces srv behind the lab router and sees its hops; a second route (the root namespace's route
// to srv through plain5, which is made to forward) changes the path between two checks, which the monitor's
// event log records and a real webhook receiver gets as route_changed, old and new path in it; and a lossy
// hop (nftables numgen in the router drops every other time-exceeded it sends) shows its loss at that hop,
// not at the destination. Packets go only into this lab's namespaces. Needs root, the lab's programs, mtr
// and nft (./build.sh test installs them).
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { run } from '../../src/core/exec.js';
import { runCheck } from '../../src/modules/monitors/checks/index.js';
import { forgetRoutes } from '../../src/modules/monitors/checks/route-toward.js';
import { startTestApp, type TestApp } from '../helpers/harness.js';
import { labSkipReason, startLab, type Lab } from '../helpers/lab.js';
import { Receiver } from '../helpers/webhook-receiver.js';

const onPath = (p: string) => ['/usr/bin', '/usr/sbin', '/bin', '/sbin'].some((d) => existsSync(join(d, p)));
const skip = labSkipReason() ?? (!onPath('mtr') ? 'the path check needs mtr (apt-get install mtr-tiny)'
  : !onPath('nft') ? 'the lossy hop needs nft (apt-get install nftables)' : null);

describe('path monitor in the lab', { skip: skip ?? false }, () => {
  let lab: Lab;
  let t: TestApp;
  let dir: string;
  let key: string;
  let rx: Receiver;
  let id: string;
  let srv: string;
  let router: string;
  let plain5: string;
  const api = (method: string, path: string, body?: unknown) => t.request(method, path, { key, body });
  const ok = async (ns: string, cmd: string, args: string[]) => {
    const r = await lab.exec(ns, cmd, args);
    assert.equal(r.code, 0, `${cmd} ${args.join(' ')}: ${r.stderr}`);
  };
  /** A check now (POST .../check): the result, with its hops as "address loss%". */
  const checkNow = async () => {
    const r = await api('POST', `/api/monitors/${id}/check`);
    assert.equal(r.status, 200, r.text);
    return r.body.result;
  };
  /** The root namespace's (the probe's) route to srv: through plain5 for the second path. Only this lab's /32. */
  const rootRoute = async (verb: 'replace' | 'del', via: string) => {
    const r = await run('ip', ['route', verb, `${srv}/32`, 'via', via, 'dev', lab.probe.ifname]);
    assert.equal(r.code, 0, r.stderr);
  };
  /** The root namespace's /32 route to an extra address of srv's, through the lab router; only into this lab. */
  const rootRoute32 = async (verb: 'replace' | 'del', address: string) => {
    const r = await run('ip', ['route', verb, `${address}/32`, ...(verb === 'replace' ? ['via', router] : []), 'dev', lab.probe.ifname]);
    assert.equal(r.code, 0, r.stderr);
  };
  const addresses = (result: any) => result.details.hops.map((h: any) => h.address);

  before(async () => {
    lab = await startLab({ corpus: false });
    srv = lab.host('srv').addresses[0]!;
    router = lab.host('router').addresses.find((a) => a.startsWith(lab.probe.address.split('.').slice(0, 3).join('.')))!;
    plain5 = lab.host('plain5').addresses[0]!;
    // Linux rate-limits the ICMP errors a router sends (about one a second per destination after a burst): off
    // in the lab's forwarding namespaces, so only the nft rule below makes loss (notes, port-and-path.md §0).
    for (const ns of ['router', 'plain5']) await ok(ns, 'sysctl', ['-qw', 'net.ipv4.icmp_ratelimit=0']);
    dir = await mkdtemp(join(tmpdir(), 'netprobe-pathlab-'));
    t = await startTestApp({ dataDir: dir });
    key = (await t.admin()).key;
    rx = await Receiver.start();
    const hook = await api('POST', '/api/webhooks', { name: 'sink', url: `${rx.url}/alerts`, cooldown: 0, alert_types: ['route_changed'] });
    assert.equal(hook.status, 201, hook.text);
    // A long interval: the checks that count are the test's own (manual checks share the monitor's memory).
    const m = await api('POST', '/api/monitors', { name: 'to srv', check_type: 'path', target: srv, interval: 3600, timeout: 10,
      settings: { cycles: 4 } });
    assert.equal(m.status, 201, m.text);
    id = m.body.id;
    const end = Date.now() + 20_000;
    while ((await api('GET', `/api/monitors/${id}`)).body.last_check === null) {
      if (Date.now() > end) assert.fail('the first scheduled check did not finish');
      await new Promise((r) => setTimeout(r, 250));
    }
  });
  after(async () => {
    await t?.close();
    await rx?.close();
    await lab?.stop(); // takes the root namespace's route through plain5 with the lab's link, should a test fail before removing it
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test('sees its hops: the lab router, then srv; hop count and destination loss as measurements', async () => {
    const r = await checkNow();
    assert.equal(r.status, 'up', r.message);
    assert.deepEqual(addresses(r), [router, srv]);
    assert.deepEqual(r.measurements, { hops: 2, loss_pct: 0 });
    assert.ok(r.response_time > 0 && r.response_time < 50, `response time ${r.response_time} ms`);
    for (const h of r.details.hops) assert.ok(h.sent >= 4 && h.avg_ms !== null && h.best_ms <= h.avg_ms && h.avg_ms <= h.worst_ms, JSON.stringify(h));
    // The probe reaches srv through the lab's /20 route via the router: the router is its gateway, srv in its range.
    assert.deepEqual(r.details.segments, { lan: 2, isp: 0, internet: 0, why: {
      lan: `hop 1 (${router}) is the probe's gateway (${lab.range} on ${lab.probe.ifname}); hop 2 is in its range (10.0.0.0/8)`,
      isp: 'the path ends in the LAN' } });
    // An up result's details are kept (other types keep them only for failures and changes): hops over time.
    const kept = await api('GET', `/api/monitors/${id}/results?limit=5`);
    assert.ok(kept.body.items.some((x: any) => Array.isArray(x.details?.hops)), kept.text);
  });

  test('a route change between checks: a route_changed event with the old and new path, and its alert', async () => {
    await checkNow(); // the baseline: router, srv
    const from = rx.requests.length;
    await ok('plain5', 'sysctl', ['-qw', 'net.ipv4.ip_forward=1', 'net.ipv4.conf.all.send_redirects=0', 'net.ipv4.conf.eth0.send_redirects=0']);
    await ok('plain5', 'ip', ['route', 'replace', `${srv}/32`, 'via', router]);
    await rootRoute('replace', plain5);
    try {
      const r = await checkNow();
      assert.equal(r.status, 'up', r.message);
      assert.deepEqual(addresses(r), [plain5, router, srv]);
      assert.deepEqual(r.details.route_change, { from: [router, srv], to: [plain5, router, srv] });
      const ev = await api('GET', `/api/monitors/events?monitor_id=${id}&kind=route_changed`);
      assert.equal(ev.status, 200, ev.text);
      assert.equal(ev.body.items.length, 1, ev.text);
      assert.deepEqual(ev.body.items[0].details, { from: [router, srv], to: [plain5, router, srv] });
      assert.equal(ev.body.items[0].message, `Route to ${srv} changed: ${router} > ${srv} became ${plain5} > ${router} > ${srv}`);
      const got = (await rx.waitFor(from + 1, 10_000)).slice(from).map((x) => x.json.alert);
      assert.deepEqual(got.map((a) => a.type), ['route_changed']);
      assert.equal(got[0].monitor.id, id);
      assert.deepEqual(got[0].details, { from: [router, srv], to: [plain5, router, srv] });
      assert.equal(got[0].subject, `monitor/${id}/route`);
    } finally {
      await rootRoute('del', plain5);
    }
    const back = await checkNow();
    assert.deepEqual(addresses(back), [router, srv]);
    assert.deepEqual(back.details.route_change, { from: [plain5, router, srv], to: [router, srv] }, 'and back: another change');
  });

  test('segments: a carrier-grade NAT address and a public one behind the lab router are the ISP\'s; an address on the probe\'s own subnet is the LAN', async () => {
    // srv also answers on a shared-space and a documentation address (per slot), reached only through this lab: the root
    // namespace's /32 routes to them go through the router (added first, so nothing ever takes the default route).
    const b = Number(lab.probe.address.split('.')[2]);
    const shared = `100.64.${b}.10`;
    const pub = `203.0.113.${200 + b / 16}`;
    for (const a of [shared, pub]) await rootRoute32('replace', a);
    try {
      for (const a of [shared, pub]) {
        await ok('srv', 'ip', ['addr', 'add', `${a}/32`, 'dev', 'eth0']);
        await ok('router', 'ip', ['route', 'replace', `${a}/32`, 'via', srv]);
      }
      forgetRoutes(); // the routes above are newer than the check's cached table
      const viaRouter = `hop 1 (${router}) is the probe's gateway (${shared}/32 on ${lab.probe.ifname})`;
      const cgn = await runCheck('path', shared, { cycles: 2 }, { timeout: 10 });
      assert.equal(cgn.status, 'up', cgn.message);
      assert.deepEqual(cgn.details.segments, { lan: 1, isp: 1, internet: 0, why: { lan: viaRouter,
        isp: 'no public hop after the LAN: hop 2 is the operator\'s (shared or private ranges)' } });
      const p = await runCheck('path', pub, { cycles: 2 }, { timeout: 10 });
      assert.equal(p.status, 'up', p.message);
      assert.deepEqual(p.details.segments, { lan: 1, isp: 1, internet: 0, why: { lan: viaRouter.replace(shared, pub),
        isp: `hop 2 (${pub}), the first public hop; reverse names are off, so the ISP is taken to end there` } });
    } finally {
      for (const a of [shared, pub]) await rootRoute32('del', a);
    }
    const onLan = await runCheck('path', plain5, { cycles: 1 }, { timeout: 10 });
    assert.deepEqual(onLan.details.segments, { lan: 1, isp: 0, internet: 0, why: {
      lan: `the destination is on the probe's own subnet (${lab.subnets.find((x) => x.name === 'lan')!.cidr} on ${lab.probe.ifname}): no router between`,
      isp: 'the path ends in the LAN' } });
  });

  test('down: a silent address of the far subnet (the router answers, nothing behind it); a check past its timeout', async () => {
    const far = lab.subnets.find((x) => x.name === 'far')!;
    const silent = far.silent.first;
    const r = await runCheck('path', silent, { cycles: 2, max_ttl: 4 }, { timeout: 10 });
    assert.equal(r.status, 'down', r.message);
    assert.equal(r.details.hops && (r.details.hops as any[])[0].address, router, 'hop 1 still answers');
    assert.match(r.message, new RegExp(`^no answer from ${silent.replace(/\./g, '\\.')} within \\d+ hops; last answer from hop 1 \\(`));
    assert.deepEqual(r.measurements?.loss_pct, 100);
    const slow = await runCheck('path', srv, { cycles: 5 }, { timeout: 2 });
    assert.equal(slow.status, 'down');
    assert.equal(slow.message, 'mtr did not finish within 2 s');
  });

  test('a lossy hop: half the router\'s time-exceeded dropped shows as loss at hop 1, none at srv', async () => {
    const rules = ['table ip npl_path_loss {', '  chain out {', '    type filter hook output priority 0; policy accept;',
      '    icmp type time-exceeded numgen inc mod 2 == 0 counter drop', '  }', '}', ''].join('\n');
    const added = await lab.exec('router', 'nft', ['-f', '-'], { input: rules });
    assert.equal(added.code, 0, added.stderr);
    try {
      const r = await checkNow();
      assert.equal(r.status, 'up', r.message);
      const [hop1, hop2] = r.details.hops;
      assert.equal(hop1.address, router);
      assert.ok(hop1.loss_pct >= 25 && hop1.loss_pct <= 75, `hop 1 loss ${hop1.loss_pct}% (every other answer dropped)`);
      assert.equal(hop2.address, srv);
      assert.equal(hop2.loss_pct, 0, 'forwarding is not touched: no loss at the destination');
      assert.match(r.message, /loss at 1 hop on the way/);
      const counted = await lab.exec('router', 'nft', ['list', 'table', 'ip', 'npl_path_loss']);
      assert.match(counted.stdout, /counter packets [1-9]/, counted.stdout);
    } finally {
      await ok('router', 'nft', ['delete', 'table', 'ip', 'npl_path_loss']);
    }
  });
});
