// The configuration API: YAML and JSON round trips, strict saves (400 naming the key and its line, the
// file's bytes unchanged), live keys vs restart keys, audit with key names only, CSV export and import
// with a dry run, write-only secrets, and admin-only access.
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { after, before, test } from 'node:test';
import { assertProblem, startTestApp, type TestApp } from '../helpers/harness.js';

let t: TestApp;
let key: string;
before(async () => {
  t = await startTestApp();
  key = (await t.admin()).key;
});
after(() => t.close());

const file = () => t.service.app.config.path;
const yamlPost = (text: string, k = key) => t.request('POST', '/api/config', { key: k, raw: text, headers: { 'content-type': 'application/yaml' } });
const csvImport = (text: string, dry: boolean) =>
  t.request('POST', `/api/config/import${dry ? '?dry_run=true' : ''}`, { key, raw: text, headers: { 'content-type': 'text/csv' } });
const errorsOf = (r: { body: any }) => (r.body.errors ?? []) as { path: string; message: string; line?: number }[];
const secretKey = () => t.service.app.config.keys().find((k) => k.secret);
const SECRET = 'Zq7-secret-value-' + 'x'.repeat(24);

test('YAML round trip keeps the text; live keys apply at once, restart keys are named', async () => {
  const events: string[][] = [];
  t.service.app.bus.on('config.changed', ({ keys }) => { events.push(keys); });
  const text = '# my probe\nlog:\n  level: debug # chatty\nserver:\n  port: 8099\n';
  const r = await yamlPost(text);
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.body.changed.sort(), ['log.level', 'server.port']);
  assert.deepEqual(r.body.applied_live, ['log.level']);
  assert.deepEqual(r.body.restart_required, ['server.port']);
  assert.equal(t.service.app.config.get().log.level, 'debug');
  assert.ok(events.some((k) => k.includes('log.level')), 'config.changed carried the key');
  assert.equal(await readFile(file(), 'utf8'), text);
  const g = await t.request('GET', '/api/config', { key });
  assert.equal(g.status, 200);
  assert.match(g.headers.get('content-type') ?? '', /^application\/yaml/);
  assert.equal(g.text, text);
});

test('a bad YAML save answers 400 naming the key and its line, and the file keeps its bytes', async () => {
  const before = await readFile(file());
  const bad = await yamlPost('log:\n  level: info\nwebhooks:\n  max_attempts: 99\n  nonsense: 1\n');
  assertProblem(bad, 400, 'webhooks.max_attempts');
  const e = errorsOf(bad).find((x) => x.path === 'webhooks.max_attempts')!;
  assert.equal(e.line, 4);
  assert.match(e.message, /line 4/);
  const unknown = errorsOf(bad).find((x) => x.path === 'webhooks.nonsense')!;
  assert.equal(unknown.line, 5);
  assertProblem(await yamlPost('log: [unclosed\n'), 400);
  assertProblem(await yamlPost('- a list\n'), 400);
  const wrongType = await t.request('POST', '/api/config', { key, raw: 'log: {}', headers: { 'content-type': 'image/png' } });
  assertProblem(wrongType, 415);
  assert.deepEqual(await readFile(file()), before);
  assert.equal(t.service.app.config.get().log.level, 'debug');
});

test('JSON round trip and the same validation', async () => {
  const g = await t.request('GET', '/api/config/json', { key });
  assert.equal(g.status, 200);
  assert.equal(g.body.log.level, 'debug');
  assert.equal(g.body.webhooks.max_attempts, 5, 'defaults filled in');
  const cfg = structuredClone(g.body);
  cfg.webhooks.max_attempts = 7;
  const s = await t.request('POST', '/api/config/json', { key, body: cfg });
  assert.equal(s.status, 200, s.text);
  assert.deepEqual(s.body.changed, ['webhooks.max_attempts']);
  assert.equal(t.service.app.config.get().webhooks.max_attempts, 7);
  assert.match(await readFile(file(), 'utf8'), /# my probe/, 'comments survive a JSON save');
  const bytes = await readFile(file());
  cfg.webhooks.max_attempts = 'many';
  const bad = await t.request('POST', '/api/config/json', { key, body: cfg });
  assertProblem(bad, 400, 'webhooks.max_attempts');
  assertProblem(await t.request('POST', '/api/config/json', { key, body: { log: { levle: 'x' } } }), 400, 'log.levle');
  assert.deepEqual(await readFile(file()), bytes);
});

test('saves are audited with the names of the changed keys only', async () => {
  const a = await t.request('GET', '/api/audit-log?limit=50', { key });
  assert.equal(a.status, 200, a.text);
  const saves = a.body.items.filter((i: any) => i.action === 'config.save');
  assert.ok(saves.length >= 2);
  const json = saves.find((i: any) => i.details?.via === 'json');
  assert.deepEqual(json.details.keys, ['webhooks.max_attempts']);
  assert.doesNotMatch(JSON.stringify(saves), /"7"|:7\b|debug/, 'no values in the audit entries');
});

test('secrets are write-only: {set: true}, kept when omitted, sealed in the file, never in a response or log', async (c) => {
  const k = secretKey();
  if (!k) { c.skip('no secret key in the schema'); return; }
  const [section, name] = k.path as [string, string];
  const g = await t.request('GET', '/api/config/json', { key });
  const cfg = structuredClone(g.body);
  assert.deepEqual(cfg[section][name], { set: false });
  cfg[section][name] = SECRET;
  const s = await t.request('POST', '/api/config/json', { key, body: cfg });
  assert.equal(s.status, 200, s.text);
  assert.ok(s.body.changed.includes(k.key));
  assert.equal((t.service.app.config.get() as any)[section][name], SECRET, 'in effect');
  const onDisk = await readFile(file(), 'utf8');
  assert.ok(!onDisk.includes(SECRET), 'not in the file in clear');
  assert.match(onDisk, /enc1:/);

  // Omitted from a JSON save: kept.
  const again = (await t.request('GET', '/api/config/json', { key })).body;
  assert.deepEqual(again[section][name], { set: true });
  delete again[section][name];
  again.log.level = 'info';
  assert.equal((await t.request('POST', '/api/config/json', { key, body: again })).status, 200);
  assert.equal((t.service.app.config.get() as any)[section][name], SECRET);

  // The YAML shows {set: true}; posting it back keeps the secret.
  const y = await t.request('GET', '/api/config', { key });
  assert.ok(!y.text.includes(SECRET) && !y.text.includes('enc1:'), y.text);
  assert.match(y.text, new RegExp(`${name}: \\{ set: true \\}`));
  assert.equal((await yamlPost(y.text)).status, 200);
  assert.equal((t.service.app.config.get() as any)[section][name], SECRET);

  // The export never has it in clear.
  const ex = await t.request('GET', '/api/config/export', { key });
  assert.ok(!ex.text.includes(SECRET) && !ex.text.includes('enc1:'));
  assert.match(ex.text, new RegExp(`${k.key.replace('.', '\\.')},"\\{""set"":true\\}"`));

  // After a restart on the same data directory it is still there, opened with the machine key.
  const dataDir = t.dataDir;
  const t2 = await startTestApp({ dataDir });
  try {
    assert.equal((t2.service.app.config.get() as any)[section][name], SECRET);
  } finally { await t2.close({ keepData: true }); }

  // {set: false} clears it.
  const clear = (await t.request('GET', '/api/config/json', { key })).body;
  clear[section][name] = { set: false };
  assert.equal((await t.request('POST', '/api/config/json', { key, body: clear })).status, 200);
  assert.equal((t.service.app.config.get() as any)[section][name], '');
  assert.ok(!t.logs.some((l) => l.includes(SECRET)), 'never logged');
  const audit = await t.request('GET', '/api/audit-log?limit=100', { key });
  assert.ok(!audit.text.includes(SECRET));
});

test('a secret stays with its destination: smtp.password is dropped when smtp.host or smtp.port changes and it is not sent again', async () => {
  const smtp = () => t.service.app.config.get().smtp;
  const importJson = (patch: unknown) => t.request('POST', '/api/config/import', { key, raw: JSON.stringify(patch), headers: { 'content-type': 'application/json' } });
  const setUp = await importJson({ smtp: { host: 'mail-a.example.net', port: 587, user: 'probe', password: SECRET } });
  assert.equal(setUp.status, 200, setUp.text);
  assert.equal(setUp.body.secrets_dropped, undefined);
  assert.equal(smtp().password, SECRET);

  // Other keys of the section, and the same host sent again, keep it.
  const same = await importJson({ smtp: { host: 'mail-a.example.net', port: 587, user: 'alerts', from: 'probe@example.net' } });
  assert.equal(same.status, 200, same.text);
  assert.equal(same.body.secrets_dropped, undefined);
  assert.equal(smtp().password, SECRET);

  // A new host without the password: dropped, said in the answer and the audit entry.
  const moved = await importJson({ smtp: { host: 'mail-b.example.net' } });
  assert.equal(moved.status, 200, moved.text);
  assert.deepEqual(moved.body.secrets_dropped, ['smtp.password']);
  assert.ok(moved.body.changed.includes('smtp.password'));
  assert.equal(smtp().host, 'mail-b.example.net');
  assert.equal(smtp().password, '');
  const audit = await t.request('GET', '/api/audit-log?action=config.save&limit=1', { key });
  assert.deepEqual(audit.body.items[0].details.secrets_dropped, ['smtp.password']);

  // A dry run says so too, and changes nothing.
  assert.equal((await importJson({ smtp: { password: SECRET } })).status, 200);
  const dry = await t.request('POST', '/api/config/import?dry_run=true', { key, raw: JSON.stringify({ smtp: { port: 465 } }), headers: { 'content-type': 'application/json' } });
  assert.deepEqual(dry.body.secrets_dropped, ['smtp.password']);
  assert.equal(smtp().password, SECRET);

  // {set: true} does not carry it to a new port either; the password sent with the move goes along.
  const marker = await importJson({ smtp: { port: 465, password: { set: true } } });
  assert.deepEqual(marker.body.secrets_dropped, ['smtp.password']);
  assert.equal(smtp().password, '');
  const withIt = await importJson({ smtp: { host: 'mail-c.example.net', password: SECRET } });
  assert.equal(withIt.body.secrets_dropped, undefined);
  assert.equal(smtp().password, SECRET);

  // The whole file as YAML (secrets as {set: true}) with another host: dropped; as JSON with the host back to the default: dropped.
  const y = (await t.request('GET', '/api/config', { key })).text.replace('mail-c.example.net', 'mail-d.example.net');
  const ysave = await yamlPost(y);
  assert.equal(ysave.status, 200, ysave.text);
  assert.deepEqual(ysave.body.secrets_dropped, ['smtp.password']);
  assert.equal(smtp().password, '');
  assert.equal((await importJson({ smtp: { password: SECRET } })).status, 200);
  const cfg = (await t.request('GET', '/api/config/json', { key })).body;
  delete cfg.smtp.host;
  const jsave = await t.request('POST', '/api/config/json', { key, body: cfg });
  assert.deepEqual(jsave.body.secrets_dropped, ['smtp.password']);
  assert.equal(smtp().password, '');
  assert.ok(!JSON.stringify([setUp.body, moved.body, audit.body]).includes(SECRET));
  assert.equal((await importJson({ smtp: { host: null, port: null, user: null, from: null, password: { set: false } } })).status, 200);
});

test('CSV export, then import with a dry run and for real; a bad row is refused with its line', async () => {
  const ex = await t.request('GET', '/api/config/export', { key });
  assert.equal(ex.status, 200);
  assert.match(ex.headers.get('content-type') ?? '', /^text\/csv/);
  const lines = ex.text.trim().split('\r\n');
  assert.equal(lines[0], 'key,value,default,description');
  const port = lines.find((l) => l.startsWith('server.port,'))!;
  assert.match(port, /^server\.port,8099,8080,/);
  assert.ok(lines.some((l) => l.startsWith('probe.name,netprobe,netprobe,')));

  const edited = ex.text.replace(/^log\.buffer,1000,/m, 'log.buffer,2000,').replace(/^probe\.name,netprobe,/m, 'probe.name,"Plant 2, core",');
  const dry = await csvImport(edited, true);
  assert.equal(dry.status, 200, dry.text);
  assert.equal(dry.body.dry_run, true);
  assert.deepEqual(dry.body.changes.map((c: any) => c.key).sort(), ['log.buffer', 'probe.name']);
  assert.deepEqual(dry.body.changes.find((c: any) => c.key === 'log.buffer'), { key: 'log.buffer', from: 1000, to: 2000 });
  assert.equal(t.service.app.config.get().log.buffer, 1000, 'a dry run changes nothing');

  const real = await csvImport(edited, false);
  assert.equal(real.status, 200, real.text);
  assert.equal(t.service.app.config.get().log.buffer, 2000);
  assert.equal(t.service.app.config.get().probe.name, 'Plant 2, core');

  const bytes = await readFile(file());
  const bad = await csvImport('key,value\nlog.buffer,3000\nwebhooks.max_attempts,lots\nno.such,1\n', false);
  assertProblem(bad, 400, 'no.such');
  assert.equal(errorsOf(bad).find((e) => e.path === 'no.such')?.line, 4);
  const bad2 = await csvImport('key,value\nlog.buffer,3000\nwebhooks.max_attempts,lots\n', false);
  assertProblem(bad2, 400, 'webhooks.max_attempts');
  assert.equal(errorsOf(bad2)[0]!.line, 3);
  assert.equal(t.service.app.config.get().log.buffer, 2000, 'nothing applied');
  assert.deepEqual(await readFile(file()), bytes);

  // YAML and JSON imports are patches too.
  const y = await t.request('POST', '/api/config/import?dry_run=1', { key, raw: 'log:\n  buffer: 4000\n', headers: { 'content-type': 'application/yaml' } });
  assert.equal(y.status, 200, y.text);
  assert.deepEqual(y.body.changes, [{ key: 'log.buffer', from: 2000, to: 4000 }]);
  const j = await t.request('POST', '/api/config/import', { key, raw: JSON.stringify({ log: { buffer: 4000 } }), headers: { 'content-type': 'application/json' } });
  assert.equal(j.status, 200, j.text);
  assert.equal(t.service.app.config.get().log.buffer, 4000);
  assertProblem(await t.request('POST', '/api/config/import', { key, raw: '{"__proto__":{"x":1}}', headers: { 'content-type': 'application/json' } }), 400);
});

test('a file edited by hand with a bad value can be fixed through the API', async () => {
  await writeFile(file(), 'log:\n  level: loud\n');
  await t.service.app.config.reload();
  const g = await t.request('GET', '/api/config', { key });
  assert.equal(g.text, 'log:\n  level: loud\n');
  assert.equal((await yamlPost('log:\n  level: warn\n')).status, 200);
});

test('only administrators reach the configuration', async () => {
  const viewer = await t.user('viewer', ['system:read']);
  const operator = await t.user('operator', ['system:write']);
  for (const who of [viewer, operator]) {
    for (const [m, p] of [['GET', '/api/config'], ['GET', '/api/config/json'], ['GET', '/api/config/export'],
      ['POST', '/api/config/json'], ['POST', '/api/config/import']] as const) {
      assertProblem(await t.request(m, p, { key: who.key, body: m === 'POST' ? {} : undefined }), 403);
      assertProblem(await t.request(m, p, { cookie: who.cookie, body: m === 'POST' ? {} : undefined }), 403);
    }
    assertProblem(await yamlPost('log: {}\n', who.key), 403);
  }
});
