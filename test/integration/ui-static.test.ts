// The UI file server over real HTTP: compression by Accept-Encoding (compressed once, cached, bounded),
// cache headers per kind of file, exact 304s, the content security policy of the page, and what it
// refuses. Raw node:http requests, so the test sees the bytes as sent (fetch would decompress).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { chooseEncoding, createStaticHandler } from '../../src/core/http/static.js';

let dir: string;
let server: Server;
let base: string;

const APP = `// app\n${'export const rows = [];\n'.repeat(400)}`;
const IMPORT_MAP = '{"imports":{"preact":"/vendor/preact@1.2.3/preact.mjs"}}';
const INDEX = `<!doctype html><html><head><script type="importmap">${IMPORT_MAP}</script>` +
  `<script type="module" src="/app.js"></script></head><body>${'<p>netprobe</p>'.repeat(50)}</body></html>`;
const BIG = 'x'.repeat(300_000);

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'netprobe-static-'));
  await mkdir(join(dir, 'vendor', 'preact@1.2.3'), { recursive: true });
  await writeFile(join(dir, 'index.html'), INDEX);
  await writeFile(join(dir, 'app.js'), APP);
  await writeFile(join(dir, 'tiny.js'), 'export {};\n');
  await writeFile(join(dir, 'big.txt'), BIG);
  await writeFile(join(dir, 'logo.png'), Buffer.alloc(2000, 7));
  await writeFile(join(dir, 'vendor', 'preact@1.2.3', 'preact.mjs'), `export const h = 1;\n${'// pad\n'.repeat(100)}`);
  for (let i = 0; i < 20; i++) await writeFile(join(dir, `page${i}.js`), `export const page = ${i};\n${'/* filler */\n'.repeat(200)}`);
  // A cache of 40 KB holds a few files at a time; big.txt (300 KB) is beyond the 100 KB file bound.
  const serve = createStaticHandler(dir, { cacheBytes: 40 * 1024, maxFileBytes: 100 * 1024 });
  server = createServer((req, res) => { serve(req, res, (req.url ?? '/').split('?')[0]!).catch(() => res.destroy()); });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(async () => {
  await new Promise((resolve) => server.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

interface Raw { status: number; headers: IncomingHttpHeaders; body: Buffer }

function get(path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = request(base + path, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('brotli, gzip or identity by Accept-Encoding; the bytes decode to the file', async () => {
  const br = await get('/app.js', { 'accept-encoding': 'gzip, deflate, br' });
  assert.equal(br.status, 200);
  assert.equal(br.headers['content-encoding'], 'br');
  assert.equal(br.headers.vary, 'Accept-Encoding');
  assert.equal(Number(br.headers['content-length']), br.body.length);
  assert.ok(br.body.length < APP.length / 10, `compressed to ${br.body.length} of ${APP.length}`);
  assert.equal(brotliDecompressSync(br.body).toString(), APP);

  const gz = await get('/app.js', { 'accept-encoding': 'gzip' });
  assert.equal(gz.headers['content-encoding'], 'gzip');
  assert.equal(gunzipSync(gz.body).toString(), APP);

  for (const ae of [undefined, 'identity', 'br;q=0, gzip;q=0', 'deflate']) {
    const plain = await get('/app.js', ae ? { 'accept-encoding': ae } : {});
    assert.equal(plain.headers['content-encoding'], undefined, `Accept-Encoding: ${ae}`);
    assert.equal(plain.body.toString(), APP);
  }
  assert.equal((await get('/app.js', { 'accept-encoding': '*' })).headers['content-encoding'], 'br');
  assert.equal((await get('/app.js', { 'accept-encoding': 'br;q=0, *;q=0.5' })).headers['content-encoding'], 'gzip');

  // One ETag for every encoding of the same content.
  assert.equal(br.headers.etag, gz.headers.etag);
});

test('tiny files and images are sent as they are', async () => {
  const tiny = await get('/tiny.js', { 'accept-encoding': 'br, gzip' });
  assert.equal(tiny.headers['content-encoding'], undefined);
  assert.equal(tiny.body.toString(), 'export {};\n');
  const png = await get('/logo.png', { 'accept-encoding': 'br, gzip' });
  assert.equal(png.headers['content-encoding'], undefined);
  assert.equal(png.headers['content-type'], 'image/png');
  assert.equal(png.headers.vary, undefined);
  assert.equal(png.body.length, 2000);
});

test('cache headers: the page and app modules revalidate, versioned vendor files are immutable', async () => {
  const index = await get('/');
  assert.equal(index.headers['cache-control'], 'no-cache');
  assert.equal((await get('/monitors/42')).headers['cache-control'], 'no-cache', 'client-side routes get the page');
  assert.equal((await get('/app.js')).headers['cache-control'], 'no-cache');
  assert.equal((await get('/vendor/preact@1.2.3/preact.mjs')).headers['cache-control'], 'public, max-age=31536000, immutable');
});

test('If-None-Match gives an empty 304 with the validators; a changed file gets a new ETag', async () => {
  const first = await get('/app.js', { 'accept-encoding': 'br' });
  const etag = first.headers.etag!;
  assert.match(etag, /^W\/"[A-Za-z0-9_-]+"$/);
  for (const inm of [etag, etag.slice(2), `"other", ${etag}`, '*']) {
    const r = await get('/app.js', { 'if-none-match': inm, 'accept-encoding': 'br' });
    assert.equal(r.status, 304, `If-None-Match: ${inm}`);
    assert.equal(r.body.length, 0);
    assert.equal(r.headers.etag, etag);
    assert.equal(r.headers['cache-control'], 'no-cache');
  }
  assert.equal((await get('/app.js', { 'if-none-match': '"something-else"' })).status, 200);

  const changed = `${APP}export const more = 1;\n`;
  await writeFile(join(dir, 'app.js'), changed);
  const later = new Date(Date.now() + 5000);
  await utimes(join(dir, 'app.js'), later, later);
  const after = await get('/app.js', { 'if-none-match': etag, 'accept-encoding': 'br' });
  assert.equal(after.status, 200, 'the old tag no longer matches');
  assert.notEqual(after.headers.etag, etag);
  assert.equal(brotliDecompressSync(after.body).toString(), changed);
  await writeFile(join(dir, 'app.js'), APP);
});

test('more files than the cache holds are all served correctly (entries are evicted, not broken)', async () => {
  for (let round = 0; round < 2; round++) {
    for (let i = 0; i < 20; i++) {
      const r = await get(`/page${i}.js`, { 'accept-encoding': 'gzip' });
      assert.equal(r.status, 200);
      assert.match(gunzipSync(r.body).toString(), new RegExp(`^export const page = ${i};`));
    }
  }
});

test('files over the size bound stream uncompressed, with a validator; HEAD has no body', async () => {
  const big = await get('/big.txt', { 'accept-encoding': 'br' });
  assert.equal(big.status, 200);
  assert.equal(big.headers['content-encoding'], undefined);
  assert.equal(big.body.length, BIG.length);
  assert.equal((await get('/big.txt', { 'if-none-match': big.headers.etag! })).status, 304);
  const head = await get('/app.js', { 'accept-encoding': 'br' }, 'HEAD');
  assert.equal(head.status, 200);
  assert.equal(head.body.length, 0);
  assert.equal(head.headers['content-encoding'], 'br');
  assert.ok(Number(head.headers['content-length']) > 0);
});

test('the page carries a content security policy that admits its own inline import map only', async () => {
  const csp = String((await get('/')).headers['content-security-policy']);
  const hash = createHash('sha256').update(IMPORT_MAP).digest('base64');
  assert.match(csp, new RegExp(`script-src 'self' 'sha256-${hash.replace(/[+/]/g, '\\$&')}'`));
  assert.match(csp, /frame-ancestors 'none'/);
  assert.match(csp, /object-src 'none'/);
  assert.equal((await get('/app.js')).headers['content-security-policy'], undefined);
});

test('other methods, missing assets and paths outside the directory are refused', async () => {
  const post = await get('/app.js', {}, 'POST');
  assert.equal(post.status, 405);
  assert.equal(post.headers.allow, 'GET, HEAD');
  assert.equal((await get('/missing.js')).status, 404);
  for (const p of ['/../package.json', '/%2e%2e/%2e%2e/etc/passwd', '/..%2f..%2fetc%2fpasswd']) {
    const r = await get(p);
    assert.ok(r.status === 404 || /<!doctype html>/.test(r.body.toString()), `${p} answered ${r.status}`);
    assert.ok(!/root:/.test(r.body.toString()));
  }
});

test('chooseEncoding follows q-values and prefers brotli', () => {
  const both = { br: Buffer.alloc(1), gzip: Buffer.alloc(1) };
  assert.equal(chooseEncoding('gzip, br', both), 'br');
  assert.equal(chooseEncoding('gzip;q=1, br;q=0', both), 'gzip');
  assert.equal(chooseEncoding('GZIP', both), 'gzip');
  assert.equal(chooseEncoding('br', { gzip: Buffer.alloc(1) }), null, 'only what is held');
  assert.equal(chooseEncoding('', both), null);
  assert.equal(chooseEncoding('br;q=abc', both), null, 'a malformed q is not acceptance');
});
