// Branding: the probe's name, accent colour and sign-in notice (POST/GET /api/web-identity), and the
// logo and favicon (POST /api/upload/brand-asset): typed from the bytes, SVGs that could run or fetch
// anything refused, 1 MiB at most, replaced atomically, served with their type and a locked-down CSP.
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { after, before, test } from 'node:test';
import { checkSvg, sniffBrandAsset } from '../../src/modules/system/web-identity/service.js';
import { assertProblem, startTestApp, type TestApp } from '../helpers/harness.js';

let t: TestApp;
let key: string;
before(async () => {
  t = await startTestApp();
  key = (await t.admin()).key;
});
after(() => t.close());

function crc32(buf: Buffer): number {
  let c = ~0;
  for (const b of buf) { c ^= b; for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1)); }
  return ~c >>> 0;
}
/** A real 1x1 PNG. */
function png(): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4); len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const crc = Buffer.alloc(4); crc.writeUInt32BE(crc32(td));
    return Buffer.concat([len, td, crc]);
  };
  const ihdr = Buffer.from([0, 0, 0, 1, 0, 0, 0, 1, 8, 2, 0, 0, 0]);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.from([0, 15, 118, 110]))), chunk('IEND', Buffer.alloc(0))]);
}
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0, 0xff, 0xd9]);
function ico(): Buffer {
  const p = png();
  const head = Buffer.alloc(22);
  head.writeUInt16LE(0, 0); head.writeUInt16LE(1, 2); head.writeUInt16LE(1, 4);
  head[6] = 1; head[7] = 1; head.writeUInt16LE(1, 10); head.writeUInt16LE(32, 12);
  head.writeUInt32LE(p.length, 14); head.writeUInt32LE(22, 18);
  return Buffer.concat([head, p]);
}
const SVG = '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><defs><linearGradient id="g"/></defs>' +
  '<rect width="10" height="10" fill="url(#g)"/><use href="#g"/></svg>';

const upload = (kind: string, body: Buffer | string, contentType = 'application/octet-stream', k = key) =>
  t.request('POST', `/api/upload/brand-asset?kind=${kind}`, { key: k, raw: body, headers: { 'content-type': contentType } });

test('name, accent colour and notice: set, shown by GET /api/web-identity without signing in, validated by field', async () => {
  const r = await t.request('POST', '/api/web-identity', { key, body: { probe_name: 'Plant 2', accent_color: '#aa3300', login_notice: 'Authorised staff only. Call 555.' } });
  assert.equal(r.status, 200, r.text);
  const g = await t.request('GET', '/api/web-identity');
  assert.equal(g.status, 200);
  assert.deepEqual(g.body, { probe_name: 'Plant 2', accent_color: '#aa3300', login_notice: 'Authorised staff only. Call 555.', logo_url: null, favicon_url: null });
  assert.equal(t.service.app.config.get().system.accent_color, '#aa3300');
  assert.match(await readFile(t.service.app.config.path, 'utf8'), /accent_color: "?#aa3300/);
  // Only the fields sent change.
  assert.equal((await t.request('POST', '/api/web-identity', { key, body: { login_notice: '' } })).status, 200);
  assert.equal((await t.request('GET', '/api/web-identity')).body.probe_name, 'Plant 2');
  assertProblem(await t.request('POST', '/api/web-identity', { key, body: { accent_color: 'red' } }), 400, 'accent_color');
  assertProblem(await t.request('POST', '/api/web-identity', { key, body: { probe_name: '' } }), 400, 'probe_name');
  assertProblem(await t.request('POST', '/api/web-identity', { key, body: { login_notice: 'x'.repeat(501) } }), 400, 'login_notice');
  assertProblem(await t.request('POST', '/api/web-identity', { key, body: { login_notice: 'bell\u0007' } }), 400, 'login_notice');
  assertProblem(await t.request('POST', '/api/web-identity', { key, body: { colour: '#000000' } }), 400, 'colour');
  const audit = await t.request('GET', '/api/audit-log?limit=20', { key });
  assert.ok(audit.body.items.some((i: any) => i.action === 'web_identity.update'));
});

test('each asset type is accepted from its bytes and served with its type and a CSP', async () => {
  for (const [kind, body, type] of [['logo', png(), 'image/png'], ['logo', JPEG, 'image/jpeg'], ['favicon', ico(), 'image/x-icon'],
    ['logo', Buffer.from(SVG), 'image/svg+xml']] as const) {
    const r = await upload(kind, body);
    assert.equal(r.status, 201, r.text);
    assert.equal(r.body.type, type);
    const id = await t.request('GET', '/api/web-identity');
    assert.equal(id.body[`${kind}_url`], r.body.url);
    const res = await fetch(t.url + r.body.url);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), type);
    assert.match(res.headers.get('content-security-policy') ?? '', /default-src 'none'.*sandbox/);
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    assert.deepEqual(Buffer.from(await res.arrayBuffer()), Buffer.from(body));
    const etag = res.headers.get('etag')!;
    assert.equal((await fetch(t.url + r.body.url, { headers: { 'if-none-match': etag } })).status, 304);
  }
});

test('the name or content type given does not decide the type: a PNG sent as SVG is a PNG', async () => {
  const r = await upload('logo', png(), 'image/svg+xml');
  assert.equal(r.status, 201, r.text);
  assert.equal(r.body.type, 'image/png');
  assert.equal((await fetch(t.url + '/api/web-identity/logo')).headers.get('content-type'), 'image/png');
  assertProblem(await upload('logo', Buffer.from('GIF89a....'), 'image/png'), 400, 'file');
  assertProblem(await upload('logo', Buffer.from('<html><body>hi</body></html>'), 'image/svg+xml'), 400, 'file');
});

test('SVGs that could run or fetch anything are refused, and the stored logo stays', async () => {
  const before = await readFile(join(t.dataDir, 'brand', 'logo'));
  const bad = [
    '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
    '<svg xmlns="http://www.w3.org/2000/svg" xmlns:x.y="http://www.w3.org/2000/svg"><x.y:script>alert(1)</x.y:script></svg>',
    '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>',
    '<svg xmlns="http://www.w3.org/2000/svg"><rect onclick = "x()"/></svg>',
    '<svg xmlns="http://www.w3.org/2000/svg"><foreignObject><div/></foreignObject></svg>',
    '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"><image xlink:href="https://example.com/x.png"/></svg>',
    '<svg xmlns="http://www.w3.org/2000/svg"><use href="/api/config#x"/></svg>',
    '<svg xmlns="http://www.w3.org/2000/svg"><rect fill="url(https://example.com/a)"/></svg>',
    '<svg xmlns="http://www.w3.org/2000/svg"><style>@import "https://example.com/a.css";</style></svg>',
    '<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]><svg>&x;</svg>',
    '<svg xmlns="http://www.w3.org/2000/svg"><a href="javascript:alert(1)"><rect/></a></svg>',
    '<svg xmlns="http://www.w3.org/2000/svg"><image href="data:image/svg+xml;base64,PHN2Zz4="/></svg>',
  ];
  for (const svg of bad) {
    assert.notEqual(checkSvg(Buffer.from(svg)), true, svg);
    assertProblem(await upload('logo', Buffer.from(svg), 'image/svg+xml'), 400, 'file');
  }
  assert.deepEqual(await readFile(join(t.dataDir, 'brand', 'logo')), before);
});

test('1 MiB at most; a replacement is atomic and leaves no temporary file', async () => {
  const big = Buffer.concat([png(), Buffer.alloc(1024 * 1024)]);
  const r = await upload('logo', big);
  assertProblem(r, 413);
  const justFits = Buffer.concat([JPEG, Buffer.alloc(1024 * 1024 - JPEG.length)]);
  assert.ok('type' in sniffBrandAsset(justFits));
  const ok = await upload('logo', justFits);
  assert.equal(ok.status, 201, ok.text);
  const again = await upload('logo', Buffer.from(SVG));
  assert.equal(again.status, 201);
  assert.deepEqual((await readdir(join(t.dataDir, 'brand'))).sort(), ['favicon', 'logo']);
  assert.equal(await readFile(join(t.dataDir, 'brand', 'logo'), 'utf8'), SVG);
  // Survives a restart.
  const t2 = await startTestApp({ dataDir: t.dataDir });
  try {
    const id = await t2.request('GET', '/api/web-identity');
    assert.match(id.body.logo_url, /^\/api\/web-identity\/logo\?v=/);
    assert.equal((await fetch(t2.url + '/api/web-identity/logo')).headers.get('content-type'), 'image/svg+xml');
  } finally { await t2.close({ keepData: true }); }
  // Removal shows the built-in one again.
  assert.equal((await t.request('DELETE', '/api/upload/brand-asset?kind=favicon', { key })).status, 204);
  assert.equal((await t.request('GET', '/api/web-identity')).body.favicon_url, null);
  assert.equal((await fetch(t.url + '/api/web-identity/favicon')).status, 404);
});

test('only administrators change the branding; a bad kind names the field', async () => {
  assertProblem(await upload('banner', png()), 400, 'query.kind');
  const operator = await t.user('operator', ['system:write']);
  assertProblem(await upload('logo', png(), 'image/png', operator.key), 403);
  assertProblem(await t.request('POST', '/api/web-identity', { key: operator.key, body: { probe_name: 'x' } }), 403);
  assertProblem(await t.request('POST', '/api/web-identity', { body: { probe_name: 'x' } }), 401);
});

test('the UI reads the identity and shows name, accent, notice and logo', async () => {
  const shell = await readFile(new URL('../../ui/components/shell.js', import.meta.url), 'utf8');
  const login = await readFile(new URL('../../ui/pages/login.js', import.meta.url), 'utf8');
  const identity = await readFile(new URL('../../ui/lib/identity.js', import.meta.url), 'utf8');
  assert.match(identity, /\/api\/web-identity/);
  assert.match(identity, /accent_color/);
  assert.match(shell, /BrandLogo/);
  assert.match(login, /login_notice/);
});
