// Scheduled discovery (v1sion/profiles) on loopback with a ManualClock: a due profile's scan runs through
// the scan service and merges into its session (saved by the first run); an unchanged result is neither
// kept nor merged again; two due profiles run one after the other, never side by side; a person's scan goes
// first; skip moves the next run; the schedule survives a restart; subnets outside the allowed ranges and
// bad fields are refused naming the field. Reverse DNS is off: a loopback scan must not ask the resolver.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ManualClock } from '../../src/core/clock.js';
import { assertProblem, startTestApp, type TestApp } from '../helpers/harness.js';

const MIN = 60_000;
let dir: string;
let t: TestApp;
let key = '';
let clock: ManualClock;
const api = (method: string, path: string, body?: unknown) => t.request(method, path, { key, body });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function start(at?: number): Promise<void> {
  clock = new ManualClock(at);
  t = await startTestApp({ dataDir: dir, clock });
  key ||= (await t.admin()).key; // the admin key is stored: it works after a restart
}

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'netprobe-profiles-'));
  await writeFile(join(dir, 'config.yaml'), 'discovery:\n  reverse_dns: false\n  snmp_timeout_ms: 300\n  snmp_retries: 0\n');
  await start();
});
after(async () => {
  await t?.close({ keepData: true });
  await rm(dir, { recursive: true, force: true });
});

/** Polls (in real time) until `ok` holds for the profile, which it returns. */
async function until(id: string, ok: (p: any) => boolean, what: string, ms = 60_000): Promise<any> {
  const end = Date.now() + ms;
  for (;;) {
    const p = (await api('GET', `/api/v1sion/profiles/${id}`)).body;
    if (ok(p)) return p;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(p)}`);
    await sleep(100);
  }
}

/** Profile scans queued or running now (the job manager's, through the scan list). */
async function profileJobs(): Promise<{ job_id: string }[]> {
  const running = (await api('GET', '/api/v1sion/scan?limit=1')).body.running as { job_id: string }[];
  return running;
}

const base = { subnets: ['127.0.0.0/29'], snmp_enabled: false, schedule: { kind: 'interval', every: 15, unit: 'minutes' }, jitter_seconds: 0 };
let first: any;

test('bad profiles are refused naming the field; a subnet outside the allowed ranges is a 403', async () => {
  const bad = async (body: unknown, status: number, field: string) => assertProblem(await api('POST', '/api/v1sion/profiles', body), status, field);
  await bad({ ...base, name: 'x', schedule: { kind: 'cron', cron: '61 * * * *' } }, 400, 'schedule.cron');
  await bad({ ...base, name: 'x', schedule: { kind: 'interval', every: 2 } }, 400, 'schedule.every');
  await bad({ ...base, name: 'x', subnets: ['not-a-net'] }, 400, 'subnets.0');
  await bad({ ...base, name: 'x', subnets: ['127.0.0.0/29', '127.0.0.0/29'] }, 400, 'subnets.1');
  await bad({ ...base, name: 'x', stages: ['icmp', 'no-such-stage'] }, 400, 'stages.1');
  await bad({ ...base, name: 'x', stages: ['icmp', 'topology'] }, 400, 'stages.1');
  await bad({ ...base, name: 'x', stages: ['hostname'] }, 400, 'stages');
  await bad({ ...base, name: 'x', credentials: ['CR-999'] }, 400, 'credentials.0');
  await bad({ ...base, name: 'x', session_id: '7d0f7f44-0000-4000-8000-000000000000' }, 400, 'session_id');
  await bad({ ...base, name: 'x', jitter_seconds: 4000 }, 400, 'jitter_seconds');
  await bad({ ...base, name: 'x', missing_after_scans: 0 }, 400, 'missing_after_scans');
  await bad({ ...base, name: 'x', missing_after_minutes: -1 }, 400, 'missing_after_minutes');
  await bad({ ...base }, 400, 'name');
  const r = await api('POST', '/api/v1sion/profiles', { ...base, name: 'outside', subnets: ['127.0.0.0/29', '198.51.100.0/24'] });
  assertProblem(r, 403, 'subnets.1');
  assert.equal(r.body.code, 'range_not_allowed');
  assert.match(r.body.detail, /discovery\.allowed_ranges/);
  assert.equal((await api('GET', '/api/v1sion/profiles')).body.items.length, 0);
});

test('a due profile scans through the scan service and its first run saves a session', async () => {
  const r = await api('POST', '/api/v1sion/profiles', { ...base, name: 'loopback watch' });
  assert.equal(r.status, 201, r.text);
  first = r.body;
  assert.equal(first.state, 'idle');
  assert.equal(first.next_run, clock.iso(clock.now() + 15 * MIN), 'every 15 minutes from when it was set');
  assert.equal(first.last_run, null);
  assert.equal(first.session_id, null);
  assert.equal(first.timezone, 'UTC');

  clock.advance(15 * MIN - 1);
  await sleep(300);
  assert.equal((await profileJobs()).length, 0, 'nothing runs before its time');
  clock.advance(1);
  const p = await until(first.id, (x) => x.last_run !== null, 'the first run');
  assert.equal(p.last_run.state, 'completed', JSON.stringify(p.last_run));
  assert.equal(p.last_run.trigger, 'schedule');
  assert.equal(p.last_run.job_ids.length, 1);
  assert.equal(p.last_run.counts.live, 6);
  assert.ok(p.session_id, 'the run saved a session');
  assert.equal(p.next_run, clock.iso(Date.parse(first.next_run) + 15 * MIN));
  const s = (await api('GET', `/api/v1sion/sessions/${p.session_id}`)).body;
  assert.equal(s.name, 'loopback watch');
  assert.equal(s.nodes.length, 6);
  assert.equal(s.scan_job_id, p.last_run.job_ids[0]);
  // Kept, marked as the profile's, not audited per run (the profile's creation is).
  assert.equal((await api('GET', `/api/v1sion/scan/${p.last_run.job_ids[0]}/result`)).status, 200);
  const audit = (await api('GET', '/api/audit-log?limit=200')).body.items.map((e: { action: string }) => e.action);
  assert.ok(audit.includes('v1sion.profile_create'));
  assert.ok(!audit.includes('v1sion.scan_start'), 'a scheduled scan is not audited one by one');
  first = p;
});

test('the next run finds the same: the result is not kept again and the session is not rewritten', async () => {
  const before = (await api('GET', `/api/v1sion/sessions/${first.session_id}`)).body;
  clock.advance(15 * MIN);
  const p = await until(first.id, (x) => x.last_run.started_at !== first.last_run.started_at, 'the second run');
  assert.equal(p.last_run.state, 'completed');
  assert.deepEqual(p.last_run.unchanged, ['127.0.0.0/29']);
  assert.equal((await api('GET', `/api/v1sion/scan/${p.last_run.job_ids[0]}/result`)).status, 404, 'an unchanged result is not kept');
  const s = (await api('GET', `/api/v1sion/sessions/${first.session_id}`)).body;
  assert.equal(s.updated_at, before.updated_at, 'the session was not written');
  assert.equal(s.scan_job_id, first.last_run.job_ids[0], 'it still points at the last result that changed');
  first = p;
});

test('a session node the scan no longer finds is marked missing, one it finds anew is new', async () => {
  const node = { id: 'gone', label: 'gone host', addresses: ['127.0.0.7'] };
  // A node of an earlier scan (not manual) that the next scan will not find: added through the store as a merge would.
  await t.service.app.store.write((tx) => {
    tx.run(`INSERT INTO v1sion_session_nodes (session_id, id, label, addresses, kind, manual) VALUES (?, ?, ?, ?, 'host', 0)`,
      [first.session_id, node.id, node.label, JSON.stringify(node.addresses)]);
    tx.run(`DELETE FROM v1sion_session_nodes WHERE session_id = ? AND addresses = '["127.0.0.6"]'`, [first.session_id]);
  }, 'sync');
  // The session changed: the next result is merged even though the scan found the same.
  await t.service.app.store.write((tx) => { tx.run('UPDATE v1sion_scan_profiles SET last_run = NULL WHERE id = ?', [first.id]); }, 'sync');
  clock.advance(15 * MIN);
  const p = await until(first.id, (x) => x.last_run !== null, 'the third run');
  assert.equal(p.last_run.missing_nodes, 1);
  assert.equal(p.last_run.new_nodes, 1);
  const s = (await api('GET', `/api/v1sion/sessions/${first.session_id}`)).body;
  assert.equal(s.nodes.find((n: { id: string }) => n.id === 'gone').scan_state, 'missing');
  assert.equal(s.nodes.find((n: { addresses: string[] }) => n.addresses.includes('127.0.0.6')).scan_state, 'new');
  first = p;
});

test('two due profiles run one after the other, never side by side', async () => {
  const second = (await api('POST', '/api/v1sion/profiles', { ...base, name: 'second watch', subnets: ['127.0.1.0/29'] })).body;
  // Both due at the same minute: the first's next run and the second's first.
  clock.advance(Date.parse(first.next_run) - clock.now());
  clock.advance(Math.max(0, Date.parse(second.next_run) - clock.now()));
  let both = 0, waited = false;
  const end = Date.now() + 60_000;
  for (;;) {
    const items = (await api('GET', '/api/v1sion/profiles')).body.items as any[];
    const states = items.map((x) => x.state);
    if (states.filter((s) => s === 'running').length > 1) both++;
    if (states.includes('waiting')) waited = true;
    assert.ok((await profileJobs()).length <= 1, 'at most one profile scan at once');
    const done = items.every((x) => x.last_run && Date.parse(x.last_run.started_at) >= Date.parse(second.next_run) - 15 * MIN
      && x.state === 'idle');
    if (done && items.every((x) => x.last_run)) break;
    if (Date.now() > end) throw new Error(`timed out: ${JSON.stringify(items)}`);
    await sleep(50);
  }
  assert.equal(both, 0);
  assert.ok(waited, 'the second due profile waited');
  await api('DELETE', `/api/v1sion/profiles/${second.id}`);
  first = (await api('GET', `/api/v1sion/profiles/${first.id}`)).body;
});

test("a person's scan goes first: a due profile waits for it; and run now starts one at once", async () => {
  const person = await api('POST', '/api/v1sion/scan', { subnet: '127.0.0.0/22', snmp_enabled: false });
  assert.equal(person.status, 202, person.text);
  clock.advance(Date.parse(first.next_run) - clock.now());
  const waiting = await until(first.id, (x) => x.state === 'waiting', 'the profile to wait', 10_000);
  assert.equal(waiting.running_job_id, null);
  assert.ok((await profileJobs()).every((j) => j.job_id === person.body.job_id), 'no profile scan beside the person\'s');
  const after = await until(first.id, (x) => x.last_run.started_at !== first.last_run.started_at && x.state === 'idle', 'the waiting run');
  const personDone = (await api('GET', `/api/v1sion/scan/${person.body.job_id}/result`)).body;
  assert.ok(Date.parse(after.last_run.started_at) >= Date.parse(personDone.finished_at), 'it started once the person\'s scan had ended');

  const now = await api('POST', `/api/v1sion/profiles/${first.id}/run`);
  assert.equal(now.status, 202, now.text);
  assert.ok(['running', 'waiting'].includes(now.body.state));
  assertProblem(await api('POST', `/api/v1sion/profiles/${first.id}/run`), 409);
  const ran = await until(first.id, (x) => x.last_run.trigger === 'now' && x.state === 'idle', 'the run started now');
  assert.equal(ran.next_run, after.next_run, 'run now leaves the schedule as it was');
  first = ran;
});

test('skip moves the next run to the one after; the schedule survives a restart', async () => {
  const next = first.next_run;
  const s = await api('POST', `/api/v1sion/profiles/${first.id}/skip`);
  assert.equal(s.status, 200, s.text);
  assert.equal(s.body.skipped, next);
  assert.equal(s.body.next_run, clock.iso(Date.parse(next) + 15 * MIN));
  clock.advance(Date.parse(next) - clock.now() + MIN);
  await sleep(500);
  assert.equal((await api('GET', `/api/v1sion/profiles/${first.id}`)).body.last_run.started_at, first.last_run.started_at, 'the skipped time did not run');

  const expected = s.body.next_run;
  await t.close({ keepData: true });
  await start(clock.now());
  const back = (await api('GET', `/api/v1sion/profiles/${first.id}`)).body;
  assert.equal(back.next_run, expected, 'the next run comes from the stored anchor');
  // Off for an hour past it: one run when back, then the grid goes on from the latest time missed.
  await t.close({ keepData: true });
  await start(Date.parse(expected) + 61 * MIN);
  clock.advance(0); // the timer the start set for the overdue run (a ManualClock fires only when moved)
  const ran = await until(first.id, (x) => x.last_run.started_at !== first.last_run.started_at && x.state === 'idle', 'the missed run');
  assert.equal(ran.next_run, clock.iso(Date.parse(expected) + 75 * MIN));
  assert.equal((await api('GET', '/api/v1sion/profiles')).body.items.length, 1);
});

test('a disabled profile has no next run; delete keeps its session', async () => {
  const off = await api('PUT', `/api/v1sion/profiles/${first.id}`, { enabled: false });
  assert.equal(off.status, 200, off.text);
  assert.equal(off.body.state, 'disabled');
  assert.equal(off.body.next_run, null);
  assertProblem(await api('POST', `/api/v1sion/profiles/${first.id}/skip`), 409);
  assertProblem(await api('PUT', `/api/v1sion/profiles/${first.id}`, { subnets: ['203.0.113.0/24'] }), 403, 'subnets.0');
  assert.equal((await api('DELETE', `/api/v1sion/profiles/${first.id}`)).status, 204);
  assertProblem(await api('GET', `/api/v1sion/profiles/${first.id}`), 404);
  assert.equal((await api('GET', `/api/v1sion/sessions/${first.session_id}`)).status, 200);
});
