// Devices known over time, against the test lab (docs/lab.md), through real scans of its lan and a real
// webhook sink on loopback: the first scan is the baseline (nothing new); a host plugged into sw1 between
// two scans is reported new once, on its sw1 port from the switch's real forwarding table (BRIDGE-MIB); its
// cable moved to another sw1 port is reported moved with both ports; a second MAC taking a known address
// is reported naming both; a host unplugged is missing after the configured scans and not before; none of
// it repeats on the next scan. The search finds the host by MAC in any notation and says where it is.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { run } from '../../src/core/exec.js';
import { startTestApp, type TestApp } from '../helpers/harness.js';
import { labSkipReason, startLab, type Lab } from '../helpers/lab.js';

const skip = labSkipReason();

describe('devices known over time, in the lab', { skip: skip ?? false }, () => {
  let lab: Lab;
  let t: TestApp;
  let dir: string;
  let key: string;
  let sink: Server;
  const alerts: { type: string; title: string; message: string; details: any }[] = [];
  let lan: string;
  let extra: { ns: string; ip: string; mac: string; port: string };
  let plain1: { ip: string; mac: string };
  const api = (method: string, path: string, body?: unknown) => t.request(method, path, { key, body });

  /** A lan scan to its end; then the alerts it raised (the merge runs as the scan ends). */
  async function scan(): Promise<typeof alerts> {
    const seen = alerts.length;
    const r = await api('POST', '/api/v1sion/scan', { subnet: lan, community: lab.snmp.community, snmp_version: '2c' });
    assert.equal(r.status, 202, r.text);
    await (await fetch(`${t.url}/api/v1sion/scan/${r.body.job_id}/stream`, { headers: { 'x-api-key': key } })).text();
    for (let i = 0; i < 200 && !alerts.slice(seen).some((a) => a.type === 'scan_completed'); i++) await new Promise((res) => setTimeout(res, 50));
    await new Promise((res) => setTimeout(res, 200)); // the device alerts go out before scan_completed; let deliveries land
    return alerts.slice(seen).filter((a) => a.type !== 'scan_completed');
  }

  const sw1 = () => lab.host('sw1').ns;
  /** Plugs the extra host into sw1 on port `port` (a new veth; the host keeps its MAC and address). */
  async function plug(port: string): Promise<void> {
    const peer = `${port}h`;
    await must('ip', ['link', 'add', port, 'type', 'veth', 'peer', 'name', peer]);
    await must('ip', ['link', 'set', port, 'netns', sw1()]);
    await must('ip', ['link', 'set', peer, 'netns', extra.ns]);
    await lab.exec(sw1(), 'ip', ['link', 'set', port, 'master', 'br0', 'up']);
    await must('ip', ['netns', 'exec', extra.ns, 'ip', 'link', 'set', peer, 'address', extra.mac, 'up']);
    await must('ip', ['netns', 'exec', extra.ns, 'ip', 'addr', 'replace', `${extra.ip}/24`, 'dev', peer]);
    await run('ip', ['neigh', 'flush', 'to', extra.ip]);
    // sw1's snmpd lists a new interface once its interface cache is renewed (seconds): a real switch's port
    // exists before anything is plugged in, so wait for it rather than test snmpd's cache.
    const sw1ip = lab.host('sw1').addresses[0]!;
    for (let i = 0; i < 120; i++) {
      const w = await run('snmpwalk', ['-v2c', '-c', lab.snmp.community, '-On', '-Oq', sw1ip, '1.3.6.1.2.1.31.1.1.1.1'], { env: { MIBS: '' } });
      if (w.stdout.includes(port)) return;
      await new Promise((r) => setTimeout(r, 500));
    }
    assert.fail(`sw1's snmpd never listed ${port}`);
  }
  async function must(cmd: string, args: string[]): Promise<void> {
    const r = await run(cmd, args);
    assert.equal(r.code, 0, `${cmd} ${args.join(' ')}: ${r.stderr}`);
  }

  before(async () => {
    lab = await startLab();
    lan = lab.subnets.find((s) => s.name === 'lan')!.cidr;
    const prefix = sw1().replace(/-sw1$/, '');
    const base = lan.replace(/\.0\/24$/, '');
    extra = { ns: `${prefix}-extra`, ip: `${base}.150`, mac: `02:4e:50:${lab.slot.toString(16).padStart(2, '0')}:99:01`, port: '' };
    const p1 = lab.host('plain1');
    plain1 = { ip: p1.addresses[0]!, mac: p1.mac };
    sink = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => { body += c; });
      req.on('end', () => { alerts.push(JSON.parse(body).alert); res.end('ok'); });
    });
    await new Promise<void>((r) => sink.listen(0, '127.0.0.1', r));
    dir = await mkdtemp(join(tmpdir(), 'netprobe-devices-lab-'));
    // Missing after 2 scans in a row, whatever the time (the scans here are seconds apart).
    await writeFile(join(dir, 'config.yaml'), `discovery:\n  dns_servers: [${lab.resolver}]\n  missing_after_minutes: 0\n  missing_after_scans: 2\n`);
    t = await startTestApp({ dataDir: dir });
    key = (await t.admin()).key;
    const w = await api('POST', '/api/webhooks', { name: 'sink', type: 'generic', cooldown: 0,
      url: `http://127.0.0.1:${(sink.address() as AddressInfo).port}/`,
      alert_types: ['device_discovered', 'device_missing', 'device_changed', 'scan_completed'] });
    assert.equal(w.status, 201, w.text);
    await must('ip', ['netns', 'add', extra.ns]);
  });
  after(async () => {
    await t?.close();
    await run('ip', ['netns', 'del', extra.ns]);
    await lab?.stop();
    sink?.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('the first scan is the baseline: every host known, none new, no device alert', async () => {
    assert.deepEqual(await scan(), []);
    const list = (await api('GET', '/api/v1sion/devices?limit=1000')).body;
    assert.ok(list.total >= 16, `the lan's 16 hosts at least: ${list.total}`);
    assert.ok(list.items.every((d: any) => !d.states.includes('new')));
    const done = alerts.find((a) => a.type === 'scan_completed')!;
    assert.equal(done.details.baseline, true);
  });

  test('a host plugged into sw1 between two scans: new once, on its sw1 port', async () => {
    extra.port = 'npxa';
    await plug(extra.port);
    const got = await scan();
    assert.deepEqual(got.map((a) => a.type), ['device_discovered'], JSON.stringify(got.map((a) => a.title)));
    assert.deepEqual(got[0]!.details.device.macs, [extra.mac]);
    const found = (await api('GET', `/api/v1sion/devices?q=${encodeURIComponent(extra.mac.replace(/:/g, '').toUpperCase())}`)).body.items;
    assert.equal(found.length, 1, 'found by its MAC written bare, in capitals');
    assert.deepEqual([found[0].addresses, found[0].states, found[0].attachment?.port], [[extra.ip], ['new'], extra.port]);
    assert.equal((await api('GET', `/api/v1sion/devices?q=${extra.ip}`)).body.items[0].id, found[0].id, 'and by its address');
    assert.deepEqual(await scan(), [], 'not again on the next scan');
  });

  test('its cable moved to another sw1 port: moved, naming both ports, once', async () => {
    const before = extra.port;
    await lab.exec(sw1(), 'ip', ['link', 'del', before]);
    extra.port = 'npxb';
    await plug(extra.port);
    const got = await scan();
    assert.deepEqual(got.map((a) => [a.type, a.details.change.kind]), [['device_changed', 'moved']], JSON.stringify(got.map((a) => a.message)));
    assert.match(got[0]!.message, new RegExp(`moved from sw1 port ${before}.* to sw1 port ${extra.port}`));
    assert.deepEqual(await scan(), [], 'not again');
  });

  test('a second MAC answering on a known address is reported, naming both', async () => {
    const spoofed = '02:4e:50:ee:ee:01';
    const p1 = lab.host('plain1');
    await lab.exec(p1.ns, 'ip', ['link', 'set', 'eth0', 'address', spoofed]);
    await run('ip', ['neigh', 'flush', 'to', plain1.ip]);
    try {
      const got = await scan();
      const claimed = got.find((a) => a.details.change.kind === 'address_claimed');
      assert.ok(claimed, JSON.stringify(got.map((a) => a.message)));
      assert.equal(claimed!.type, 'device_changed');
      assert.match(claimed!.message, new RegExp(`${plain1.ip.replace(/\./g, '\\.')} now answers from ${spoofed}.*it was .*\\(${plain1.mac}\\)`));
      assert.deepEqual(got.filter((a) => a !== claimed).map((a) => a.type), ['device_discovered'], 'the other MAC is a new device too');
      assert.deepEqual((await scan()).filter((a) => a.type !== 'device_missing'), [], 'said once');
    } finally {
      await lab.exec(p1.ns, 'ip', ['link', 'set', 'eth0', 'address', plain1.mac]);
      await run('ip', ['neigh', 'flush', 'to', plain1.ip]);
    }
  });

  test('a host unplugged: missing after two scans without it, not before, once', async () => {
    await lab.exec(sw1(), 'ip', ['link', 'del', extra.port]);
    await run('ip', ['neigh', 'flush', 'to', extra.ip]);
    const mine = (a: { details: any }) => a.details.device.macs.includes(extra.mac);
    assert.deepEqual((await scan()).filter(mine), [], 'one scan without it: not yet');
    const second = (await scan()).filter(mine);
    assert.deepEqual(second.map((a) => a.type), ['device_missing']);
    assert.deepEqual((await scan()).filter(mine), [], 'not again');
    const d = (await api('GET', `/api/v1sion/devices?q=${extra.mac}`)).body.items[0];
    assert.ok(d.states.includes('missing'));
    const full = (await api('GET', `/api/v1sion/devices/${d.id}`)).body;
    assert.deepEqual(full.history.map((h: any) => h.kind).reverse(), ['discovered', 'moved', 'missing']);
  });
});
