// The scan API on loopback (the lab tests scan a real network): validation, the allowed ranges, a scan
// streamed to the end, its result kept across a restart, cancel with no program left behind, the list of
// kept and running scans, and the limit of two scans at once. Reverse DNS is off: a loopback scan must not
// ask the machine's resolver.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { after, before, test } from 'node:test';
import { ScanResult } from '../../src/modules/v1sion/scan/result.js';
import { assertProblem, startTestApp, type TestApp } from '../helpers/harness.js';

let dir: string;
let t: TestApp;
let key: string;
const api = (method: string, path: string, body?: unknown) => t.request(method, path, { key, body });
const COMMUNITY = 'loopback-community-never-shown';

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'netprobe-scan-'));
  await writeFile(join(dir, 'config.yaml'), 'discovery:\n  reverse_dns: false\n  snmp_timeout_ms: 300\n  snmp_retries: 0\n');
  t = await startTestApp({ dataDir: dir });
  key = (await t.admin()).key;
});
after(async () => {
  await t?.close();
  await rm(dir, { recursive: true, force: true });
});

/** Reads an SSE stream to its end; returns the messages' data. */
async function readStream(path: string, headers: Record<string, string> = {}): Promise<{ status: number; events: { id: string; data: any }[] }> {
  const res = await fetch(t.url + path, { headers: { 'x-api-key': key, ...headers } });
  if (res.status !== 200) return { status: res.status, events: [] };
  const text = await res.text();
  const events = text.split('\n\n').filter((b) => b.includes('data:')).map((b) => ({
    id: /^id: (.*)$/m.exec(b)?.[1] ?? '',
    data: JSON.parse(b.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).join('\n')),
  }));
  return { status: res.status, events };
}

test('bad requests are 400 problems naming the field; nothing starts', async () => {
  assertProblem(await api('POST', '/api/v1sion/scan', {}), 400, 'subnet');
  assertProblem(await api('POST', '/api/v1sion/scan', { subnet: 'not-a-net' }), 400, 'subnet');
  assertProblem(await api('POST', '/api/v1sion/scan', { subnet: '10.0.0.5/24' }), 400, 'subnet');
  assertProblem(await api('POST', '/api/v1sion/scan', { subnet: '10.0.0.0/8' }), 400, 'subnet');
  assertProblem(await api('POST', '/api/v1sion/scan', { subnet: '10.0.0.0/24', snmp_version: '4' }), 400, 'snmp_version');
  assertProblem(await api('POST', '/api/v1sion/scan', { subnet: '10.0.0.0/24', snmp_version: '3' }), 400, 'v3_params');
  assertProblem(await api('POST', '/api/v1sion/scan', { subnet: '10.0.0.0/24', community: 'x', snmp_version: 'v3' }), 400, 'community');
  assertProblem(await api('POST', '/api/v1sion/scan', { subnet: '10.0.0.0/24', credentials: ['CR-999'] }), 400, 'credentials.0');
  assertProblem(await api('POST', '/api/v1sion/scan', { subnet: '10.0.0.0/24', credentials: [{ kind: 'snmp_v2c' }] }), 400, 'credentials.0.community');
  assertProblem(await api('POST', '/api/v1sion/scan', { subnet: '10.0.0.0/24', surprise: 1 }), 400, 'surprise');
  assert.equal(t.service.app.jobs.list('v1sion.scan').length, 0);
});

test('a public range is refused with a 403 that names discovery.allowed_ranges', async () => {
  // 198.51.100.0/24 is a documentation range: refused before any packet could be sent.
  const r = await api('POST', '/api/v1sion/scan', { subnet: '198.51.100.0/24' });
  assertProblem(r, 403);
  assert.equal(r.body.code, 'range_not_allowed');
  assert.match(r.body.detail, /discovery\.allowed_ranges/);
  assertProblem(await api('POST', '/api/v1sion/device/snmp', { ip: '198.51.100.7', community: 'x' }), 403);
  assertProblem(await api('POST', '/api/v1sion/scan', { subnet: '2001:db8::/64' }), 403);
});

test('unknown and malformed job ids are 404', async () => {
  const id = '00000000-0000-4000-8000-000000000000';
  for (const path of [`/api/v1sion/scan/${id}/result`, `/api/v1sion/scan/${id}/stream`, '/api/v1sion/scan/nope/result']) {
    assertProblem(await api('GET', path), 404);
  }
  assertProblem(await api('DELETE', `/api/v1sion/scan/${id}`), 404);
  assertProblem(await api('POST', '/api/v1sion/sessions', { name: 'x', scan_job_id: id }), 404);
});

let finished: string;

test('a loopback scan streams phases, hosts and a final message; its result has every live address', async () => {
  const r = await api('POST', '/api/v1sion/scan', { subnet: '127.0.0.0/29', community: COMMUNITY });
  assert.equal(r.status, 202, r.text);
  assert.equal(r.body.subnet, '127.0.0.0/29');
  finished = r.body.job_id;
  const { status, events } = await readStream(`/api/v1sion/scan/${finished}/stream`);
  assert.equal(status, 200);
  for (const e of events) {
    assert.equal(typeof e.data.type, 'string');
    assert.ok(e.data.progress >= 0 && e.data.progress <= 100);
  }
  const types = events.map((e) => e.data.type);
  assert.deepEqual(events.filter((e) => e.data.type === 'phase').map((e) => e.data.phase), ['liveness', 'identify', 'neighbours']);
  assert.equal(types.at(-1), 'completed');
  const hosts = events.filter((e) => e.data.type === 'host').map((e) => e.data.host.ip).sort();
  assert.deepEqual(hosts, ['127.0.0.1', '127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5', '127.0.0.6']);

  const res = await api('GET', `/api/v1sion/scan/${finished}/result`);
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.state, 'completed');
  assert.equal(res.body.counts.addresses, 6);
  assert.equal(res.body.counts.live, 6);
  assert.ok(res.body.duration_ms >= 0);
  for (const h of res.body.hosts) {
    assert.ok(h.alive_by.includes('icmp'), `${h.ip} answered ping`);
    assert.ok(h.device_id, `${h.ip} belongs to a device`);
  }
  assert.equal(res.body.devices.length, 6);
  assert.doesNotMatch(res.text + JSON.stringify(events) + t.logs.join('\n'), new RegExp(COMMUNITY));

  // Replay from Last-Event-ID: only what came after.
  const replay = await readStream(`/api/v1sion/scan/${finished}/stream`, { 'last-event-id': events.at(-3)!.id });
  assert.deepEqual(replay.events.map((e) => e.id), events.slice(-2).map((e) => e.id));

  // A session from it: one node per device.
  const s = await api('POST', '/api/v1sion/sessions', { name: 'loopback', scan_job_id: finished });
  assert.equal(s.status, 201, s.text);
  assert.equal(s.body.nodes.length, 6);
  assert.equal(s.body.scan_job_id, finished);
  assert.deepEqual(s.body.subnets, ['127.0.0.0/29']);
});

test('the result is what its schema says, and the OpenAPI document describes it from that schema', async () => {
  const res = await api('GET', `/api/v1sion/scan/${finished}/result`);
  assert.equal(res.status, 200, res.text);
  ScanResult.parse(res.body);
  const doc = (await api('GET', '/api/openapi.json')).body;
  const schema = doc.paths['/api/v1sion/scan/{job_id}/result'].get.responses['200'].content['application/json'].schema;
  assert.deepEqual(Object.keys(schema.properties).sort(), Object.keys(ScanResult.shape).sort());
  assert.deepEqual(Object.keys(schema.properties.hosts.items.properties).sort(), Object.keys(res.body.hosts[0]).sort());
});

test('cancel stops a scan within a second and leaves no program running', async () => {
  const r = await api('POST', '/api/v1sion/scan', { subnet: '127.0.0.0/20' });
  assert.equal(r.status, 202, r.text);
  const id = r.body.job_id;
  // Wait until fping runs, so cancel has a process to stop.
  for (let i = 0; i < 100 && !children().includes('fping'); i++) await new Promise((res) => setTimeout(res, 20));
  const c = await api('DELETE', `/api/v1sion/scan/${id}`);
  assert.equal(c.status, 200, c.text);
  assert.equal(c.body.state, 'cancelled');
  await new Promise((res) => setTimeout(res, 1000));
  assert.doesNotMatch(children(), /fping|\bip\b/, 'no child program left');
  assert.equal(t.service.app.jobs.get(id)?.state, 'cancelled');
  assertProblem(await api('DELETE', `/api/v1sion/scan/${id}`), 409);
  // What it found so far is kept once the pipeline has settled.
  let res;
  for (let i = 0; i < 50; i++) {
    res = await api('GET', `/api/v1sion/scan/${id}/result`);
    if (res.status === 200) break;
    await new Promise((r2) => setTimeout(r2, 100));
  }
  assert.equal(res!.status, 200, res!.text);
  assert.equal(res!.body.state, 'cancelled');
});

test('at most two scans at once: the third is 429 with Retry-After', async () => {
  const started: string[] = [];
  let refused;
  for (let i = 0; i < 3; i++) {
    const r = await api('POST', '/api/v1sion/scan', { subnet: '127.0.0.0/22', snmp_enabled: false });
    if (r.status === 202) started.push(r.body.job_id);
    else refused = r;
  }
  assert.equal(started.length, 2);
  assertProblem(refused!, 429);
  assert.ok(Number(refused!.headers.get('retry-after')) > 0);
  for (const id of started) await api('DELETE', `/api/v1sion/scan/${id}`);
});

test('the list: kept scans newest first, paged and by subnet, and the scans running now beside them', async () => {
  const r = await api('POST', '/api/v1sion/scan', { subnet: '127.0.0.0/22', snmp_enabled: false });
  assert.equal(r.status, 202, r.text);
  const id = r.body.job_id;
  const listed = await api('GET', '/api/v1sion/scan');
  assert.equal(listed.status, 200, listed.text);
  const running = listed.body.running.find((x: { job_id: string }) => x.job_id === id);
  assert.deepEqual(Object.keys(running ?? {}).sort(), ['job_id', 'progress', 'started_at', 'subnet'], 'a running scan is listed');
  assert.equal(running.subnet, '127.0.0.0/22');
  assert.ok(!listed.body.items.some((x: { job_id: string }) => x.job_id === id), 'not among the kept ones yet');
  assert.equal((await api('GET', '/api/v1sion/scan?subnet=127.0.0.0/22')).body.running.length, 1);
  assert.equal((await api('GET', '/api/v1sion/scan?subnet=10.1.0.0/16')).body.running.length, 0);
  assert.equal((await api('DELETE', `/api/v1sion/scan/${id}`)).status, 200);
  let kept;
  for (let i = 0; i < 50; i++) {
    kept = await api('GET', '/api/v1sion/scan?subnet=127.0.0.0%2F22');
    if (kept.body.items.some((x: { job_id: string }) => x.job_id === id)) break;
    await new Promise((res) => setTimeout(res, 100));
  }
  const mine = kept!.body.items.find((x: { job_id: string }) => x.job_id === id);
  assert.equal(mine?.state, 'cancelled', kept!.text);
  assert.deepEqual(kept!.body.running, []);
  const all = (await api('GET', '/api/v1sion/scan?limit=100')).body;
  assert.ok(all.total >= 2);
  assert.deepEqual(all.items.map((x: { started_at: string }) => x.started_at), all.items.map((x: { started_at: string }) => x.started_at).sort().reverse());
  const second = (await api('GET', '/api/v1sion/scan?limit=1&offset=1')).body;
  assert.deepEqual([second.items.length, second.items[0].job_id, second.total], [1, all.items[1].job_id, all.total]);
  assertProblem(await api('GET', '/api/v1sion/scan?subnet=nonsense'), 400, 'query.subnet');
  assertProblem(await api('GET', '/api/v1sion/scan?limit=0'), 400, 'query.limit');
});

async function scanned(subnet: string): Promise<string> {
  const r = await api('POST', '/api/v1sion/scan', { subnet, snmp_enabled: false });
  assert.equal(r.status, 202, r.text);
  const { events } = await readStream(`/api/v1sion/scan/${r.body.job_id}/stream`);
  assert.equal(events.at(-1)?.data.type, 'completed');
  return r.body.job_id;
}

test('merging a newer scan marks new and missing nodes and never drops what a person added', async () => {
  const small = await scanned('127.0.0.0/30');
  const s = await api('POST', '/api/v1sion/sessions', { name: 'merge', scan_job_id: small });
  assert.equal(s.status, 201, s.text);
  assert.deepEqual(s.body.nodes.map((n: { id: string }) => n.id).sort(), ['ip-127.0.0.1', 'ip-127.0.0.2']);
  const id = s.body.id;
  const manual = await api('PATCH', `/api/v1sion/sessions/${id}`, {
    add_nodes: [{ id: 'printer', label: 'Printer by the door', addresses: ['127.0.0.9'] }],
    add_edges: [{ from: 'printer', to: 'ip-127.0.0.1' }],
  });
  assert.equal(manual.status, 200, manual.text);

  const big = await scanned('127.0.0.0/29');
  const m = await api('PATCH', `/api/v1sion/sessions/${id}`, { merge_scan_job_id: big });
  assert.equal(m.status, 200, m.text);
  const state = (body: { nodes: { id: string; scan_state: string | null }[] }) =>
    Object.fromEntries(body.nodes.map((n) => [n.id, n.scan_state]));
  assert.deepEqual(state(m.body), {
    'ip-127.0.0.1': null, 'ip-127.0.0.2': null, 'ip-127.0.0.3': 'new', 'ip-127.0.0.4': 'new', 'ip-127.0.0.5': 'new',
    'ip-127.0.0.6': 'new', printer: null,
  });
  assert.equal(m.body.scan_job_id, big);
  assert.deepEqual(m.body.subnets.sort(), ['127.0.0.0/29', '127.0.0.0/30']);

  const again = await api('PATCH', `/api/v1sion/sessions/${id}`, { merge_scan_job_id: await scanned('127.0.0.0/30') });
  assert.equal(again.status, 200, again.text);
  assert.deepEqual(state(again.body), {
    'ip-127.0.0.1': null, 'ip-127.0.0.2': null, 'ip-127.0.0.3': 'missing', 'ip-127.0.0.4': 'missing', 'ip-127.0.0.5': 'missing',
    'ip-127.0.0.6': 'missing', printer: null,
  });
  assert.ok(again.body.edges.some((e: { from: string; source: string }) => e.from === 'printer' && e.source === 'manual'), 'manual edge kept');
  assertProblem(await api('PATCH', `/api/v1sion/sessions/${id}`, { merge_scan_job_id: big, name: 'x' }), 400, 'merge_scan_job_id');
  assertProblem(await api('PATCH', `/api/v1sion/sessions/${id}`, { merge_scan_job_id: '00000000-0000-4000-8000-000000000000' }), 404);
});

test('a restarted service still serves the kept result; the stream gives its final message', async () => {
  await t.close({ keepData: true });
  t = await startTestApp({ dataDir: dir }); // the admin key from before still works
  const res = await api('GET', `/api/v1sion/scan/${finished}/result`);
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.counts.live, 6);
  const { events } = await readStream(`/api/v1sion/scan/${finished}/stream`);
  assert.equal(events.length, 1);
  assert.equal(events[0]!.data.type, 'completed');
  assert.equal(events[0]!.data.progress, 100);
  // Nothing secret on disk either.
  const files = await readdir(join(dir, 'v1sion', 'scans'));
  assert.ok(files.length >= 1);
  for (const f of files) assert.doesNotMatch(gunzipSync(await readFile(join(dir, 'v1sion', 'scans', f))).toString('utf8'), new RegExp(COMMUNITY));
});

function children(): string {
  try {
    return execFileSync('ps', ['-o', 'comm=', '--ppid', String(process.pid)], { encoding: 'utf8' });
  } catch {
    return '';
  }
}
