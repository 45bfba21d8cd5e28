// What hostile or clumsy clients can do to the HTTP core, through real sockets: pipelined requests that
// are never read, floods of connections from one address, bodies that trickle in, deep or poisoned JSON,
// control characters, bytes that are not UTF-8; plus the cached OpenAPI document and the self-service rule for API keys.
import assert from 'node:assert/strict';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { after, before, test } from 'node:test';
import { z } from 'zod';
import { route } from '../../src/core/http/registry.js';
import { startTestApp, type TestApp } from '../helpers/harness.js';

let t: TestApp;
let key: string;
let bigHandled = 0;
const BIG = 'x'.repeat(2 * 1024 * 1024);

before(async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'netprobe-hardening-'));
  await writeFile(join(dataDir, 'config.yaml'),
    'http:\n  max_connections_per_address: 6\n  request_timeout_seconds: 5\n');
  t = await startTestApp({ dataDir });
  t.service.app.routes.add(
    route({
      method: 'GET', path: '/api/test-big', auth: 'none', summary: 'a 2 MiB answer',
      handler: () => { bigHandled++; return { big: BIG }; },
    }),
    route({
      method: 'GET', path: '/api/test-slow', auth: 'none', summary: 'answers after 7 s',
      handler: async () => { await new Promise((r) => setTimeout(r, 7000)); return { slow: true }; },
    }),
    route({
      method: 'POST', path: '/api/test-text', scope: 'system:write', summary: 'echo',
      query: z.object({ mode: z.enum(['plain', 'fancy']).optional() }),
      body: z.object({ name: z.string().optional(), notes: z.string().optional(), nested: z.unknown().optional() }).strict(),
      handler: ({ body }) => body,
    }),
  );
  key = (await t.admin()).key;
});
after(() => t.close());

function rawSocket(): Promise<Socket> {
  const u = new URL(t.url);
  return new Promise((resolve, reject) => {
    const s = connect(Number(u.port), u.hostname, () => resolve(s));
    s.once('error', reject);
  });
}

const closed = (s: Socket) => new Promise<void>((resolve) => { if (s.destroyed) resolve(); else s.once('close', () => resolve()); });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('pipelined requests from a client that does not read are handled one drained response at a time', async () => {
  bigHandled = 0;
  const s = await rawSocket();
  s.on('error', () => undefined);
  s.pause(); // never read: the kernel buffers fill and the server's writes stop draining
  s.write('GET /api/test-big HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(50));
  await sleep(1500);
  // The first responses fill the socket buffers; everything after waits for them to drain.
  assert.ok(bigHandled >= 1 && bigHandled <= 6, `handled ${bigHandled} of 50 pipelined requests while none was read`);
  // Others are still served at once meanwhile.
  const v = await t.request('GET', '/api/version');
  assert.equal(v.status, 200);
  // A response that makes no progress for the timeout (5 s here) gets its connection cut. The paused
  // client notices only once it reads again: then it gets what the buffers held, not 50 answers.
  await sleep(7000);
  let received = 0;
  s.on('data', (d: Buffer) => { received += d.length; });
  s.resume();
  const outcome = await Promise.race([closed(s).then(() => 'closed'), sleep(20_000).then(() => 'open')]);
  assert.equal(outcome, 'closed', `still open after ${received} bytes`);
  assert.ok(received < 10 * BIG.length, `received ${received} bytes`);
  assert.ok(bigHandled <= 6, `handled ${bigHandled}`);
});

test('a pipelining client that reads gets every answer, in order', async () => {
  const s = await rawSocket();
  let text = '';
  s.setEncoding('utf8');
  s.on('data', (d: string) => { text += d; });
  s.write('GET /api/version HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(20) + 'GET /api/version HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  await closed(s);
  assert.equal(text.match(/HTTP\/1\.1 200 OK/g)?.length, 21);
});

test('connections beyond the per-address bound get a 503 problem and are closed; freed slots are reused', async () => {
  const held: Socket[] = [];
  // The harness's keep-alive pool may hold a connection or two of its own; fill up to the bound.
  for (let i = 0; i < 8; i++) held.push(await rawSocket());
  const refusedOne = held[held.length - 1]!;
  let answer = '';
  refusedOne.setEncoding('utf8');
  refusedOne.on('data', (d: string) => { answer += d; });
  await closed(refusedOne);
  assert.match(answer, /^HTTP\/1\.1 503 /);
  assert.match(answer, /"code":"too_many_connections"/);
  for (const s of held) s.destroy();
  await sleep(100);
  const r = await t.request('GET', '/api/version');
  assert.equal(r.status, 200);
});

test('a body that trickles in is cut at the request timeout, before it completes', async () => {
  const s = await rawSocket();
  s.on('error', () => undefined);
  s.write(`POST /api/test-text HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nContent-Type: application/json\r\nContent-Length: 60\r\n\r\n{`);
  let sent = 1;
  const gone = closed(s).then(() => 'closed');
  while (sent < 60 && !s.destroyed) {
    const r = await Promise.race([gone, sleep(500).then(() => 'tick')]);
    if (r === 'closed') break;
    s.write(' ');
    sent++;
  }
  assert.ok(s.destroyed || (await Promise.race([gone, sleep(3000).then(() => 'open')])) === 'closed',
    'the connection was still open after the whole trickled body');
  assert.ok(sent < 60, `the server waited for all ${sent} bytes sent at 2 bytes a second`);
});

test('a handler that works longer than the timeout keeps its connection', async () => {
  const r = await t.request('GET', '/api/test-slow');
  assert.equal(r.status, 200);
  assert.deepEqual(r.body, { slow: true });
});

test('JSON nested beyond the bound is a 400 naming the limit, checked before parsing', async () => {
  const deep = '{"nested":' + '['.repeat(100_000) + ']'.repeat(100_000) + '}';
  const r = await t.request('POST', '/api/test-text', { key, raw: deep, headers: { 'content-type': 'application/json' } });
  assert.equal(r.status, 400, r.text);
  assert.equal(r.body.code, 'json_too_deep');
  assert.match(r.body.detail, /32 levels/);
  // Brackets inside strings do not count.
  const ok = await t.request('POST', '/api/test-text', { key, body: { name: '[[[[' .repeat(100), nested: [[[1]]] } });
  assert.equal(ok.status, 200, ok.text);
});

test('prototype keys are refused with a 400 naming the field, wherever they sit', async () => {
  for (const [raw, path] of [
    ['{"__proto__": {"admin": true}}', '__proto__'],
    ['{"nested": {"constructor": {"prototype": 1}}}', 'nested.constructor'],
    ['{"nested": [{"prototype": 1}]}', 'nested.0.prototype'],
  ] as const) {
    const r = await t.request('POST', '/api/test-text', { key, raw, headers: { 'content-type': 'application/json' } });
    assert.equal(r.status, 400, raw);
    assert.equal(r.body.code, 'validation_failed');
    assert.equal(r.body.errors[0].path, path, JSON.stringify(r.body.errors));
  }
});

test('control characters and broken Unicode are refused in one-line fields; multi-line fields keep line breaks', async () => {
  for (const bad of ['a\u0000b', 'two\nlines', 'cr\rhere', 'tab\there', 'esc\u001b[31m', 'del\u007f', 'lone \ud800 surrogate']) {
    const r = await t.request('POST', '/api/test-text', { key, raw: JSON.stringify({ name: bad }), headers: { 'content-type': 'application/json' } });
    assert.equal(r.status, 400, JSON.stringify(bad));
    assert.equal(r.body.errors[0].path, 'name');
  }
  const notes = await t.request('POST', '/api/test-text', { key, body: { notes: 'line one\r\nline two\n\tindented' } });
  assert.equal(notes.status, 200, notes.text);
  assert.equal(notes.body.notes, 'line one\r\nline two\n\tindented');
  const nul = await t.request('POST', '/api/test-text', { key, raw: JSON.stringify({ notes: 'a\u0000' }), headers: { 'content-type': 'application/json' } });
  assert.equal(nul.status, 400);
  const q = await t.request('GET', '/api/monitors?tag=a%00b', { key });
  assert.equal(q.status, 400);
  assert.equal(q.body.errors[0].path, 'query.tag');
});

test('one 400 names every field at fault: a line break in a one-line field, the schema\'s errors and the query\'s', async () => {
  const r = await t.request('POST', '/api/test-text?mode=loud', { key, body: { name: 'two\nlines', notes: 5, colour: 'blue' } });
  assert.equal(r.status, 400, r.text);
  assert.equal(r.body.code, 'validation_failed');
  assert.deepEqual(r.body.errors.map((e: { path: string }) => e.path).sort(), ['colour', 'name', 'notes', 'query.mode']);
  assert.match(r.body.detail, /^Invalid request: /);
  // The body alone: its guard's error and its schema's together.
  const b = await t.request('POST', '/api/test-text', { key, body: { name: 'tab\there', notes: 5 } });
  assert.deepEqual(b.body.errors.map((e: { path: string }) => e.path), ['name', 'notes']);
  assert.match(b.body.detail, /^Invalid request body: name: Must be one line/);
});

test('a body that is not UTF-8 is a 400 naming the first bad byte, and nothing is stored; UTF-8 text round-trips', async () => {
  const asJson = { 'content-type': 'application/json' };
  const bytes = (...parts: (string | number[])[]) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));
  const bodies: [Buffer, number][] = [
    [bytes('{"name":"', [0xff, 0xfe], 'x"}'), 9], // the payload
    [bytes('{"name":"a', [0xc3], '"}'), 10], // a lead byte without its continuation
    [bytes('{"name":"', [0xc0, 0xaf], '"}'), 9], // an overlong "/"
    [bytes('{"name":"', [0xed, 0xa0, 0x80], '"}'), 9], // a UTF-16 surrogate encoded as UTF-8
    [bytes('{"name":"', [0xf4, 0x90, 0x80, 0x80], '"}'), 9], // beyond U+10FFFF
    [bytes('{"name":"ok"}', [0xe2, 0x82]), 13], // cut off at the end
  ];
  const monitorsBefore = (await t.request('GET', '/api/monitors', { key })).body.monitors.length;
  const sitesBefore = (await t.request('GET', '/api/brain/sites', { key })).body.total;
  for (const [raw, offset] of bodies) {
    for (const path of ['/api/test-text', '/api/monitors', '/api/brain/sites']) {
      const r = await t.request('POST', path, { key, raw, headers: asJson });
      assert.equal(r.status, 400, `${path} ${raw.toString('hex')}: ${r.text}`);
      assert.equal(r.body.code, 'invalid_utf8');
      assert.equal(r.body.offset, offset);
      assert.match(r.body.detail, new RegExp(`not valid UTF-8: the bytes from offset ${offset} `));
    }
  }
  assert.equal((await t.request('GET', '/api/monitors', { key })).body.monitors.length, monitorsBefore);
  assert.equal((await t.request('GET', '/api/brain/sites', { key })).body.total, sitesBefore);
  // Multi-byte characters of every length are kept as sent; a leading byte order mark is ignored.
  const name = 'Zürich ☃ 🙂';
  const site = await t.request('POST', '/api/brain/sites', { key, raw: bytes([0xef, 0xbb, 0xbf], JSON.stringify({ name })), headers: asJson });
  assert.equal(site.status, 201, site.text);
  assert.equal((await t.request('GET', `/api/brain/sites/${site.body.id}`, { key })).body.name, name);
  const mon = await t.request('POST', '/api/monitors', { key, body: { name, check_type: 'tcp', target: '127.0.0.1:9', interval: 3600 } });
  assert.equal(mon.status, 201, mon.text);
  assert.equal((await t.request('GET', `/api/monitors/${mon.body.id}`, { key })).body.name, name);
});

test('the OpenAPI document is one cached, compressed buffer with an ETag', async () => {
  const res = await fetch(t.url + '/api/openapi.json', { headers: { 'accept-encoding': 'identity' } });
  const plain = Buffer.from(await res.arrayBuffer());
  const etag = res.headers.get('etag');
  assert.ok(etag);
  assert.equal(JSON.parse(plain.toString()).openapi, '3.1.0');
  // fetch would decompress on its own; a raw request shows the encoding.
  const s = await rawSocket();
  const chunks: Buffer[] = [];
  s.on('data', (d: Buffer) => chunks.push(d));
  s.write('GET /api/openapi.json HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\nConnection: close\r\n\r\n');
  await closed(s);
  const all = Buffer.concat(chunks);
  const split = all.indexOf('\r\n\r\n');
  const head = all.subarray(0, split).toString();
  assert.match(head, /content-encoding: gzip/i);
  assert.ok(split + 4 + plain.length / 3 > all.length, 'compressed to under a third');
  assert.deepEqual(gunzipSync(all.subarray(split + 4)), plain);
  const again = await fetch(t.url + '/api/openapi.json', { headers: { 'if-none-match': etag! } });
  assert.equal(again.status, 304);
});

test("a viewer's API key reads its own record but is told to sign in to change it; the viewer's session may", async () => {
  const v = await t.user('viewer', ['system:read']);
  const own = await t.request('GET', `/api/users/${v.id}`, { key: v.key });
  assert.equal(own.status, 200, own.text);
  const keys = await t.request('GET', '/api/api-keys', { key: v.key });
  assert.equal(keys.status, 200, keys.text);
  const made = await t.request('POST', '/api/api-keys', { key: v.key, body: { name: 'from-key', scopes: ['system:read'] } });
  assert.equal(made.status, 403);
  assert.match(made.body.detail, /read-only; sign in/);
  const bySession = await t.request('POST', '/api/api-keys', { cookie: v.cookie, body: { name: 'from-session', scopes: ['system:read'] } });
  assert.equal(bySession.status, 201, bySession.text);
});

test('the one-time admin password is no longer replayed by the log stream once it is retired', async () => {
  // before() bootstrapped a real administrator, which retired the one-time password.
  const lines = t.service.app.log.recent().map((e) => e.msg);
  assert.ok(t.initialPassword.length > 0);
  assert.ok(!lines.some((m) => m.includes(t.initialPassword)), 'the password line is still in the ring buffer');
  assert.ok(t.logs.some((l) => l.includes('One-time admin password')), 'it was printed at first start');
});
