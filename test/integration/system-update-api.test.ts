// /api/update/* on the real service, against real git sources on loopback: a bare repository over file://
// and the same repository through `git http-backend` behind token authentication (test/helpers/update-git-http.ts).
// Status, credentials (write-only, 0600, bound to their source, never in argv, a response, the audit log or
// the log), branches, check (version comparison, the tag message as the changes), and run: 503 without the
// helper, 409/507 refusals, and whole runs with the root helper started the way netprobe-update.path starts
// it (this test stands in for systemd), including a source that drops the connection in the middle of the fetch.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CREDENTIALS_FILE } from '../../src/modules/system/update/credentials.js';
import { REQUEST_FILE } from '../../src/modules/system/update/helper-link.js';
import { assertProblem, startTestApp, type TestApp } from '../helpers/harness.js';
import { makeAppliance, type Appliance } from '../helpers/update-appliance.js';
import { startGitHttp, type GitHttp } from '../helpers/update-git-http.js';
import { makeUpdateRepo, type UpdateRepo } from '../helpers/update-repo.js';

const TOKEN = 'Release-Token-Wren-7731';
let t: TestApp;
let admin: { cookie: string; key: string };
let repo: UpdateRepo;
let http: GitHttp;
const setUpdate = (patch: Record<string, unknown>) => t.service.app.config.update({ update: patch } as never);

before(async () => {
  repo = await makeUpdateRepo({ allowFilter: true });
  await repo.publish('stable', { version: '0.2.0', message: 'netprobe 0.2.0\n\n- faster scans\n- a fix for the vault' });
  await repo.publish('beta', { version: '0.3.0-beta.1' });
  http = await startGitHttp(join(repo.dir, 'srv'), TOKEN);
  t = await startTestApp();
  admin = await t.admin();
});
after(async () => { await t?.close(); await http?.close(); await repo?.remove(); });

const get = (path: string) => t.request('GET', path, { key: admin.key });
const post = (path: string, body: unknown) => t.request('POST', path, { key: admin.key, body });

test('a fresh probe: no source, no credentials, no helper, nothing run yet', async () => {
  const s = await get('/api/update/status');
  assert.equal(s.status, 200, s.text);
  assert.equal(s.body.running.version, t.service.app.version);
  assert.equal(s.body.source.configured, false);
  assert.equal(s.body.credentials.set, false);
  assert.equal(s.body.helper.installed, false);
  assert.equal(s.body.last_run, null);
  for (const path of ['/api/update/branches', '/api/update/check']) {
    const r = await get(path);
    assertProblem(r, 409);
    assert.equal(r.body.code, 'update_source_not_configured');
  }
  assertProblem(await post('/api/update/run', {}), 409);
  assertProblem(await post('/api/update/credentials', { token: TOKEN }), 409);
});

test('the source URL is checked: no credentials in it, only the five transports', async () => {
  for (const url of [`http://probe:${TOKEN}@127.0.0.1/x.git`, 'ext::sh -c touch% /tmp/pwned', 'ftp://127.0.0.1/x.git', 'file://host/x.git']) {
    await assert.rejects(setUpdate({ source_url: url }),
      (e: { status?: number; errors?: { path: string }[] }) => e.status === 400 && !!e.errors?.some((x) => x.path === 'update.source_url'), url);
  }
});

test('branches and check over file://: the tip\'s signed tag, newer than what runs, with its tag message', async () => {
  await setUpdate({ source_url: repo.url, channel: 'stable' });
  const b = await get('/api/update/branches');
  assert.equal(b.status, 200, b.text);
  assert.deepEqual(b.body.items.map((i: { name: string }) => i.name), ['beta', 'stable']);
  assert.equal(b.body.items.find((i: { name: string }) => i.name === 'stable').current_channel, true);
  const c = await get('/api/update/check');
  assert.equal(c.status, 200, c.text);
  assert.equal(c.body.tag, 'v0.2.0');
  assert.equal(c.body.version, '0.2.0');
  assert.equal(c.body.update_available, true);
  assert.equal(c.body.changes.source, 'tag_message');
  assert.equal(c.body.changes.text, 'netprobe 0.2.0\n\n- faster scans\n- a fix for the vault');
  assert.match(c.body.signature, /root helper verifies/);
  const s = await get('/api/update/status');
  assert.equal(s.body.last_check.ok, true);
  assert.equal(s.body.last_check.result.version, '0.2.0');
  // A prerelease channel: 0.3.0-beta.1 > 0.1.0-alpha.1.
  await setUpdate({ channel: 'beta' });
  assert.equal((await get('/api/update/check')).body.update_available, true);
});

test('check: a channel the source lacks is a 409 naming the branches; an unreachable source a 502', async () => {
  await setUpdate({ channel: 'nightly' });
  const c = await get('/api/update/check');
  assertProblem(c, 409);
  assert.equal(c.body.code, 'update_channel_missing');
  assert.match(c.body.detail, /beta, stable/);
  await setUpdate({ source_url: 'file:///nonexistent/netprobe.git', channel: 'stable' });
  const u = await get('/api/update/check');
  assertProblem(u, 502);
  assert.equal(u.body.code, 'update_source_failed');
  assert.equal((await get('/api/update/status')).body.last_check.ok, false);
});

test('credentials: validated, write-only, 0600, bound to their source, audited without the token', async () => {
  await setUpdate({ source_url: http.url('netprobe.git'), channel: 'stable' });
  assertProblem(await post('/api/update/credentials', {}), 400, 'token');
  assertProblem(await post('/api/update/credentials', { token: 'a\nb' }), 400, 'token');
  assertProblem(await post('/api/update/credentials', { clear: true, token: 'x' }), 400, 'clear');
  assertProblem(await post('/api/update/credentials', { token: TOKEN, username: 'a:b' }), 400, 'username');
  const r = await post('/api/update/credentials', { token: TOKEN, username: 'probe' });
  assert.equal(r.status, 200, r.text);
  assert.deepEqual({ ...r.body, set_at: undefined }, { set: true, username: 'probe', applies_to_source: true, set_at: undefined });
  assert.equal((await stat(join(t.dataDir, CREDENTIALS_FILE))).mode & 0o777, 0o600);
  const s = await get('/api/update/status');
  assert.equal(s.body.credentials.set, true);
  assert.ok(!s.text.includes(TOKEN));
  const audit = await get('/api/audit-log?action=update.*');
  assert.ok(audit.body.items.some((e: { action: string }) => e.action === 'update.credentials.set'));
  assert.ok(!audit.text.includes(TOKEN));
});

test('over http with the token: Basic with a user name, Bearer without; the token only ever in the environment', async () => {
  const before = http.requests.length;
  const b = await get('/api/update/branches');
  assert.equal(b.status, 200, b.text);
  assert.ok(http.requests.slice(before).some((q) => q.auth === 'basic' && q.status === 200));
  const c = await get('/api/update/check');
  assert.equal(c.status, 200, c.text);
  assert.equal(c.body.version, '0.2.0');
  assert.equal((await post('/api/update/credentials', { token: TOKEN })).status, 200);
  const mark = http.requests.length;
  assert.equal((await get('/api/update/branches')).status, 200);
  assert.ok(http.requests.slice(mark).some((q) => q.auth === 'bearer' && q.status === 200));
  assert.deepEqual(http.tokenInArgv, [], 'no process had the token in its command line');
  if (process.getuid?.() === 0) assert.ok(http.tokenInEnv.length > 0, 'git had it in its environment');
  for (const line of t.logs) assert.ok(!line.includes(TOKEN), `log line holds the token: ${line}`);
});

test('a wrong token or none: 502 with git\'s words, and credentials are not sent to another source', async () => {
  assert.equal((await post('/api/update/credentials', { token: 'not-the-token', username: 'probe' })).status, 200);
  const w = await get('/api/update/branches');
  assertProblem(w, 502);
  assert.match(w.body.detail, /Authentication failed|401|could not read/);
  assert.equal((await post('/api/update/credentials', { token: TOKEN, username: 'probe' })).status, 200);
  // The same server under another URL: the stored credentials were set for the first one.
  await setUpdate({ source_url: http.url('srv-alias/../netprobe.git') });
  const s = await get('/api/update/status');
  assert.equal(s.body.credentials.applies_to_source, false);
  assertProblem(await get('/api/update/branches'), 502);
  await setUpdate({ source_url: http.url('netprobe.git') });
  assert.equal((await get('/api/update/branches')).status, 200);
});

test('run without the root helper installed: 503 with what to do, nothing written', async () => {
  const r = await post('/api/update/run', {});
  assertProblem(r, 503);
  assert.equal(r.body.code, 'update_helper_missing');
  assert.match(r.body.detail, /install/);
  assert.ok(!existsSync(join(t.dataDir, REQUEST_FILE)));
  assertProblem(await post('/api/update/run', { allow_downgrade: 'yes' }), 400, 'allow_downgrade');
});

describe('runs through the root helper (this test plays netprobe-update.path)', () => {
  let a: Appliance;
  before(async () => {
    const unit = join(t.dataDir, 'netprobe-update.path');
    await writeFile(unit, '[Path]\n');
    await setUpdate({ helper_unit_file: unit, min_free_mb: 0 });
    a = await makeAppliance('0.1.0-alpha.1', { helperData: t.dataDir });
  });
  after(() => a?.remove());

  /** Waits for the request file like the path unit, then runs the helper on it. */
  async function helperOnRequest() {
    const end = Date.now() + 20_000;
    while (!existsSync(join(t.dataDir, REQUEST_FILE))) {
      if (Date.now() > end) throw new Error('no request file');
      await new Promise((r) => setTimeout(r, 25));
    }
    const req = JSON.parse(await readFile(join(t.dataDir, REQUEST_FILE), 'utf8'));
    assert.equal((await stat(join(t.dataDir, REQUEST_FILE))).mode & 0o777, 0o600);
    assert.ok(!JSON.stringify(req).includes(TOKEN), 'the request holds no secret');
    return { req, result: await a.runHelper([], { signers: repo.signers }) };
  }

  /** The job's events through its SSE stream, to the final one. */
  async function events(jobId: string): Promise<any[]> {
    const res = await fetch(`${t.url}/api/update/run/${jobId}/stream`, { headers: { 'x-api-key': admin.key } });
    if (res.status === 204) return [];
    const text = await res.text();
    return text.split('\n\n').filter((b) => b.includes('data: ')).map((b) => JSON.parse(b.slice(b.indexOf('data: ') + 6)));
  }

  test('a run installs the release over http with the token: job events, outcome in status, audited', async () => {
    const r = await post('/api/update/run', {});
    assert.equal(r.status, 202, r.text);
    assertProblem(await post('/api/update/run', {}), 409); // one at a time
    const { req, result } = await helperOnRequest();
    assert.equal(result.code, 0, result.stdout + result.stderr);
    assert.equal(req.id, r.body.request_id);
    const ev = await events(r.body.job_id);
    assert.equal(ev.at(-1).type, 'completed', JSON.stringify(ev.at(-1)));
    assert.equal(ev.at(-1).result.outcome, 'updated');
    const steps = ev.filter((e) => e.type === 'progress').map((e) => e.step);
    for (const s of ['fetch', 'verify', 'unpack', 'switch', 'health']) assert.ok(steps.includes(s), `${s} in ${steps.join(',')}`);
    assert.equal(await a.version(), '0.2.0');
    const s = await get('/api/update/status');
    assert.equal(s.body.last_run.request_id, r.body.request_id);
    assert.equal(s.body.last_run.result, 'updated');
    assert.equal(s.body.last_run.to, '0.2.0');
    assert.equal(s.body.in_progress, false);
    const audit = (await get('/api/audit-log?action=update.*')).body.items.map((e: { action: string }) => e.action);
    assert.ok(audit.includes('update.run') && audit.includes('update.outcome'), audit.join(','));
    assert.ok(http.requests.some((q) => q.path.endsWith('git-upload-pack') && q.auth === 'basic' && q.status === 200), 'the helper fetched with the token');
    assert.deepEqual(http.tokenInArgv, []);
  });

  test('the source going away in the middle of the fetch: failed, the running release untouched', async () => {
    await repo.publish('stable', { version: '0.2.1', padFiles: 300 });
    http.dropFetchAfter = 2000;
    try {
      const r = await post('/api/update/run', {});
      assert.equal(r.status, 202, r.text);
      await helperOnRequest();
      const ev = await events(r.body.job_id);
      assert.equal(ev.at(-1).type, 'failed');
      assert.match(ev.at(-1).error, /^failed: fetching stable from the source failed/);
      const s = await get('/api/update/status');
      assert.equal(s.body.last_run.result, 'failed');
      assert.equal(await a.version(), '0.2.0');
      assert.equal(await a.current(), 'releases/0.2.0');
    } finally {
      http.dropFetchAfter = null;
    }
  });

  test('not enough free space: 507 before anything is asked of the helper', async () => {
    await setUpdate({ min_free_mb: 100_000 });
    const r = await post('/api/update/run', {});
    assertProblem(r, 507);
    assert.equal(r.body.code, 'insufficient_storage');
    assert.ok(!existsSync(join(t.dataDir, REQUEST_FILE)));
    await setUpdate({ min_free_mb: 0 });
  });
});
