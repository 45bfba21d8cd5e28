// TLS: the self-signed certificate of the first start, PFX uploads in every encoding (made here with
// openssl), the hot swap seen from new connections while an open one keeps its certificate, the 400s
// that leave the certificate in use in place, the restart that keeps it, and the HTTP redirect.
import assert from 'node:assert/strict';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { lstat, readdir, readFile, readlink, stat, writeFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import forge from 'node-forge';
import { which } from '../../src/core/exec.js';
import { makeSelfSigned } from '../../src/modules/system/ssl/self-signed.js';
import { assertProblem, startTestApp, type TestApp } from '../helpers/harness.js';
import { openConnection, peerCertificate, requestOver } from '../helpers/ssl-client.js';
import { makePki, openssl, PFX_ENCODINGS, type PkiSet } from '../helpers/ssl-pfx.js';

const haveOpenssl = !!(await which('openssl'));
const skip = haveOpenssl ? false : 'openssl is not installed (apt-get install openssl)';

let t: TestApp;
let admin: { key: string; cookie: string };
const pki: Partial<Record<'rsa' | 'ec', PkiSet>> = {};

const httpsPort = () => (t.service.http.httpsServer!.address() as { port: number }).port;
const fp = (pem: string) => new X509Certificate(pem).fingerprint256;
const status = async () => {
  const r = await t.request('GET', '/api/ssl/status', { key: admin.key });
  assert.equal(r.status, 200, r.text);
  return r.body;
};
/** Changes keys of the tls section through the configuration API (the whole JSON back, secrets kept). */
async function setTls(keys: Record<string, unknown>): Promise<void> {
  const cur = await t.request('GET', '/api/config/json', { key: admin.key });
  assert.equal(cur.status, 200, cur.text);
  const r = await t.request('POST', '/api/config/json', { key: admin.key, body: { ...cur.body, tls: { ...cur.body.tls, ...keys } } });
  assert.equal(r.status, 200, r.text);
}
const upload = (body: Buffer, headers: Record<string, string> = {}) =>
  t.request('POST', '/api/ssl/upload', { key: admin.key, raw: body, headers: { 'content-type': 'application/x-pkcs12', ...headers } });

before(async () => {
  t = await startTestApp();
  admin = await t.admin();
  if (haveOpenssl) { pki.rsa = await makePki('rsa'); pki.ec = await makePki('ec'); }
});
after(async () => {
  await t.close();
  await Promise.all(Object.values(pki).map((p) => p.close()));
});

describe('the first start', () => {
  test('serves HTTPS with a self-signed ECDSA P-256 certificate for the host, shown with its fingerprint', async () => {
    const s = await status();
    assert.equal(s.mode, 'self-signed');
    assert.equal(s.self_signed, true);
    assert.equal(s.key_type, 'ECDSA P-256');
    assert.ok(s.names.includes('localhost') && s.names.includes('127.0.0.1'), s.names.join(','));
    assert.ok(s.names.some((n: string) => n.endsWith('.local')), 'names <host>.local');
    assert.match(s.fingerprint_sha256, /^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    assert.equal(s.https.listening, true);
    assert.equal(s.https.port, httpsPort());
    assert.ok(s.days_left > 800, `days_left ${s.days_left}`);
    // The same certificate on the wire, and its fingerprint in the start's log.
    const seen = await peerCertificate(httpsPort());
    assert.equal(seen.fingerprint256, s.fingerprint_sha256);
    assert.ok(t.logs.some((l) => l.includes(s.fingerprint_sha256) && l.includes('self-signed')), 'fingerprint logged at start');
    // The API answers over HTTPS too, with the same handler.
    const res = await new Promise<number>((resolve, reject) => {
      import('node:https').then(({ get }) => get({ host: '127.0.0.1', port: httpsPort(), path: '/api/version', rejectUnauthorized: false },
        (r) => { r.resume(); resolve(r.statusCode!); }).on('error', reject), reject);
    });
    assert.equal(res, 200);
  });

  test('the key is kept as PEM, 0600, in a 0700 directory; current points to its set', async () => {
    const dir = join(t.dataDir, 'tls');
    assert.equal((await stat(dir)).mode & 0o777, 0o700);
    assert.ok((await lstat(join(dir, 'current'))).isSymbolicLink());
    const set = join(dir, await readlink(join(dir, 'current')));
    for (const f of ['key.pem', 'chain.pem', 'meta.json']) assert.equal((await stat(join(set, f))).mode & 0o777, 0o600, f);
    const key = await readFile(join(set, 'key.pem'), 'utf8');
    assert.match(key, /BEGIN PRIVATE KEY/);
    // The key appears nowhere in the API or the log.
    assert.ok(!JSON.stringify(await status()).includes('PRIVATE'));
    assert.ok(!t.logs.some((l) => l.includes(key.split('\n')[1]!)));
  });

  test('/.well-known/acme-challenge/ answers 404 for an unknown token, without authentication', async () => {
    const r = await t.request('GET', '/.well-known/acme-challenge/unknown-token');
    assert.equal(r.status, 404);
    assert.match(r.headers.get('content-type') ?? '', /text\/plain/);
  });
});

describe('PFX upload', { skip }, () => {
  for (const kind of ['rsa', 'ec'] as const) {
    for (const encoding of PFX_ENCODINGS) {
      test(`${kind.toUpperCase()} ${encoding}: installed, and new connections get it`, async () => {
        const p = pki[kind]!;
        const pw = encoding === 'emptypass' || encoding === 'nopass-nomac' ? undefined : 'pfx-secret';
        const file = await p.pfx(encoding);
        const r = await upload(file, pw ? { 'x-pfx-password': pw } : {});
        assert.equal(r.status, 200, r.text);
        assert.equal(r.body.mode, 'uploaded');
        assert.equal(r.body.fingerprint_sha256, fp(p.leafCert));
        assert.equal(r.body.key_type, kind === 'rsa' ? 'RSA 2048' : 'ECDSA P-256');
        assert.equal(r.body.chain_length, 1, 'the leaf; the self-signed CA root is not sent');
        assert.deepEqual(r.body.names, ['localhost', '127.0.0.1']);
        const seen = await peerCertificate(httpsPort(), { ca: p.caCert });
        assert.equal(seen.fingerprint256, fp(p.leafCert));
        assert.equal(seen.authorized, true, seen.authorizationError ?? '');
      });
    }
  }

  test('multipart/form-data with file and password', async () => {
    const p = pki.ec!;
    const file = await p.pfx('3des', 'form pass é');
    const form = new FormData();
    form.set('file', new Blob([new Uint8Array(file)]), 'probe.pfx');
    form.set('password', 'form pass é');
    const res = await fetch(`${t.url}/api/ssl/upload`, { method: 'POST', headers: { 'x-api-key': admin.key }, body: form });
    const body = await res.json() as { fingerprint_sha256: string; mode: string };
    assert.equal(res.status, 200, JSON.stringify(body));
    assert.equal(body.fingerprint_sha256, fp(p.leafCert));
  });

  test('a chain given out of order (root, leaf, intermediate) is put in order: leaf, intermediate', async () => {
    const dir = pki.rsa!.dir;
    // An intermediate CA under the RSA test CA, and a leaf under the intermediate.
    await openssl(['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-subj', '/CN=intermediate',
      '-keyout', 'int.key', '-out', 'int.csr'], dir);
    await writeFile(join(dir, 'int.ext'), 'basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign\n');
    await openssl(['x509', '-req', '-in', 'int.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '30', '-extfile', 'int.ext', '-out', 'int.pem'], dir);
    await openssl(['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-subj', '/CN=chained',
      '-keyout', 'chained.key', '-out', 'chained.csr'], dir);
    await writeFile(join(dir, 'chained.ext'), 'subjectAltName=DNS:chained.netprobe.test\n');
    await openssl(['x509', '-req', '-in', 'chained.csr', '-CA', 'int.pem', '-CAkey', 'int.key', '-CAcreateserial', '-days', '30', '-extfile', 'chained.ext', '-out', 'chained.pem'], dir);
    // openssl puts the key's certificate first and the others as given: the root before the intermediate.
    await writeFile(join(dir, 'extra.pem'), (await readFile(join(dir, 'ca.pem'), 'utf8')) + (await readFile(join(dir, 'int.pem'), 'utf8')));
    const file = await pki.rsa!.pfxOf('chained.key', ['chained.pem', 'extra.pem'], 'x');
    const r = await upload(file, { 'x-pfx-password': 'x' });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.chain_length, 2);
    assert.deepEqual(r.body.names, ['chained.netprobe.test']);
    const set = join(t.dataDir, 'tls', await readlink(join(t.dataDir, 'tls', 'current')));
    const chain = (await readFile(join(set, 'chain.pem'), 'utf8')).match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g)!;
    assert.equal(fp(chain[0]!), fp(await readFile(join(dir, 'chained.pem'), 'utf8')));
    assert.equal(fp(chain[1]!), fp(await readFile(join(dir, 'int.pem'), 'utf8')));
    const seen = await peerCertificate(httpsPort(), { servername: 'chained.netprobe.test', ca: pki.rsa!.caCert });
    assert.equal(seen.authorized, true, seen.authorizationError ?? '');
  });

  test('the hot swap: a new connection gets the new certificate, an open one keeps the old one', async () => {
    const before = (await status()).fingerprint_sha256;
    const open = await openConnection(httpsPort());
    const oldFp = open.getPeerCertificate().fingerprint256;
    assert.equal(oldFp, before);
    const fresh = await makePki('ec', { cn: 'swapped' });
    const r = await upload(await fresh.pfx('modern'), { 'x-pfx-password': 'pfx-secret' }).finally(() => fresh.close());
    assert.equal(r.status, 200, r.text);
    assert.notEqual(r.body.fingerprint_sha256, before);
    assert.equal((await peerCertificate(httpsPort())).fingerprint256, r.body.fingerprint_sha256);
    // The open connection still works, on the certificate it was made with.
    assert.match(await requestOver(open, '/api/version'), /^HTTP\/1\.1 200/);
    assert.equal(open.getPeerCertificate().fingerprint256, oldFp);
    open.destroy();
  });

  describe('refusals leave the certificate in use', () => {
    let inUse: string;
    before(async () => { inUse = (await status()).fingerprint_sha256; });
    const refused = async (r: Awaited<ReturnType<typeof upload>>, status: number, code: string, detail: RegExp) => {
      assertProblem(r, status);
      assert.equal(r.body.code, code, r.text);
      assert.match(r.body.detail, detail);
      assert.equal((await peerCertificate(httpsPort())).fingerprint256, inUse, 'the previous certificate is still served');
      assert.equal((await t.request('GET', '/api/ssl/status', { key: admin.key })).body.fingerprint_sha256, inUse);
    };

    test('a wrong password', async () => {
      for (const enc of ['modern', 'legacy-rc2'] as const) {
        await refused(await upload(await pki.rsa!.pfx(enc), { 'x-pfx-password': 'wrong' }), 400, 'tls_pfx_password', /password is wrong/);
      }
    });
    test('no password for a file that has one', async () => {
      await refused(await upload(await pki.ec!.pfx('modern')), 400, 'tls_pfx_password', /needs a password/);
    });
    test('a garbage file', async () => {
      await refused(await upload(Buffer.from('this is not a PFX file at all')), 400, 'tls_pfx_unreadable', /not a PFX/);
      await refused(await upload(Buffer.from([0x30, 0x82, 0x01, 0x00, 0x02])), 400, 'tls_pfx_unreadable', /not a PFX/);
    });
    test('an expired certificate', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'netprobe-expired-'));
      try {
        const old = makeSelfSigned({ dns: ['localhost'], ips: [] }, Date.now() - 400 * 86_400_000, 30);
        await writeFile(join(dir, 'k.pem'), old.key);
        await writeFile(join(dir, 'c.pem'), old.cert);
        await openssl(['pkcs12', '-export', '-inkey', 'k.pem', '-in', 'c.pem', '-passout', 'pass:x', '-out', 'e.pfx'], dir);
        await refused(await upload(await readFile(join(dir, 'e.pfx')), { 'x-pfx-password': 'x' }), 400, 'tls_expired', /expired on/);
      } finally { await rm(dir, { recursive: true, force: true }); }
    });
    test('a key that belongs to no certificate in the file', async () => {
      // openssl refuses to export such a pair, so node-forge (which does not check) builds it.
      const key = forge.pki.privateKeyFromPem((await readFile(join(pki.rsa!.dir, 'ca.key'), 'utf8')));
      const cert = forge.pki.certificateFromPem(pki.rsa!.leafCert);
      const asn1 = forge.pkcs12.toPkcs12Asn1(key, [cert], 'x', { algorithm: '3des' });
      const file = Buffer.from(forge.asn1.toDer(asn1).getBytes(), 'binary');
      await refused(await upload(file, { 'x-pfx-password': 'x' }), 400, 'tls_key_mismatch', /does not belong/);
    });
    test('a file with certificates but no key', async () => {
      const file = await pki.ec!.pfxOf('leaf.key', ['leaf.pem'], 'x', ['-nokeys']);
      await refused(await upload(file, { 'x-pfx-password': 'x' }), 400, 'tls_no_key', /no private key/);
    });
    test('a wrong content type is a 415, an empty body a 400, a broken form a 400', async () => {
      await refused(await upload(Buffer.from('x'), { 'content-type': 'text/plain' }), 415, 'unsupported_media_type', /PFX/);
      await refused(await upload(Buffer.alloc(0)), 400, 'tls_pfx_unreadable', /empty/);
      await refused(await upload(Buffer.from('--b\r\nno headers end'), { 'content-type': 'multipart/form-data; boundary=b' }), 400, 'multipart_invalid', /multipart/);
    });
    test('a body over 10 MiB is a 413', async () => {
      await refused(await upload(Buffer.alloc(10 * 1024 * 1024 + 1, 1)), 413, 'body_too_large', /10 MiB/);
    });
    test('every refusal is audited as a failure, and no password is in the audit log or the log', async () => {
      const r = await t.request('GET', '/api/audit-log?action=tls.upload&limit=200', { key: admin.key });
      assert.equal(r.status, 200, r.text);
      assert.ok(r.body.items.some((e: { outcome: string }) => e.outcome === 'failure'));
      assert.ok(r.body.items.some((e: { outcome: string }) => e.outcome === 'success'));
      for (const secret of ['pfx-secret', 'form pass', 'wrong']) {
        assert.ok(!r.text.includes(secret), `audit has ${secret}`);
        assert.ok(!t.logs.some((l) => l.includes(secret)), `log has ${secret}`);
      }
    });
  });

  test('a viewer and a key without admin cannot upload (403); the status needs system:read', async () => {
    const v = await t.user('viewer', ['system:read']);
    assertProblem(await t.request('POST', '/api/ssl/upload', { key: v.key, raw: Buffer.from('x'), headers: { 'content-type': 'application/x-pkcs12' } }), 403);
    assert.equal((await t.request('GET', '/api/ssl/status', { key: v.key })).status, 200);
  });
});

describe('redirect_http', { skip }, () => {
  test('off by default; on, plain-HTTP UI requests go to HTTPS, the API and ACME challenges never do', async () => {
    assert.equal((await t.request('GET', '/login')).status === 307, false);
    await setTls({ redirect_http: true });
    const r = await t.request('GET', '/login?next=%2F');
    assert.equal(r.status, 307);
    assert.equal(r.headers.get('location'), `https://127.0.0.1:${httpsPort()}/login?next=%2F`);
    assert.equal((await t.request('GET', '/api/version')).status, 200);
    assert.equal((await t.request('GET', '/.well-known/acme-challenge/x')).status, 404);
    await setTls({ redirect_http: false });
    assert.notEqual((await t.request('GET', '/login')).status, 307);
  });
});

describe('restart', { skip }, () => {
  test('the uploaded certificate is loaded from disk at the next start; old sets are pruned', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'netprobe-ssl-restart-'));
    try {
      let a = await startTestApp({ dataDir: dir });
      let uploaded: { fingerprint_sha256: string };
      try {
        const { key } = await a.admin();
        const first = (await a.request('GET', '/api/ssl/status', { key })).body.fingerprint_sha256;
        for (const enc of ['modern', 'legacy-rc2', '3des'] as const) {
          const r = await a.request('POST', '/api/ssl/upload', { key, raw: await pki.rsa!.pfx(enc), headers: { 'content-type': 'application/octet-stream', 'x-pfx-password': 'pfx-secret' } });
          assert.equal(r.status, 200, r.text);
        }
        uploaded = (await a.request('GET', '/api/ssl/status', { key })).body;
        assert.notEqual(uploaded.fingerprint_sha256, first);
        assert.ok((await readdir(join(dir, 'tls', 'sets'))).length <= 2, 'the current set and the one before');
      } finally { await a.close({ keepData: true }); }
      a = await startTestApp({ dataDir: dir });
      try {
        const cookie = await a.login('root-admin', 'correct horse battery staple');
        const s = (await a.request('GET', '/api/ssl/status', { cookie })).body;
        assert.equal(s.mode, 'uploaded');
        assert.equal(s.fingerprint_sha256, uploaded.fingerprint_sha256);
        const port = (a.service.http.httpsServer!.address() as { port: number }).port;
        assert.equal((await peerCertificate(port)).fingerprint256, uploaded.fingerprint_sha256);
      } finally { await a.close(); }
    } finally { await rm(dir, { recursive: true, force: true }); }
  });

  test('a damaged certificate set at start: a new self-signed one, and the probe serves', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'netprobe-ssl-damaged-'));
    try {
      let a = await startTestApp({ dataDir: dir });
      const set = join(dir, 'tls', await readlink(join(dir, 'tls', 'current')));
      await a.close({ keepData: true });
      await writeFile(join(set, 'key.pem'), 'garbage');
      a = await startTestApp({ dataDir: dir });
      try {
        const key = (await a.admin()).key;
        const s = (await a.request('GET', '/api/ssl/status', { key })).body;
        assert.equal(s.mode, 'self-signed');
        const port = (a.service.http.httpsServer!.address() as { port: number }).port;
        assert.equal((await peerCertificate(port)).fingerprint256, s.fingerprint_sha256);
        assert.ok(createPrivateKey(await readFile(join(dir, 'tls', await readlink(join(dir, 'tls', 'current')), 'key.pem'), 'utf8')));
        assert.ok(a.logs.some((l) => /cannot be used; making a new self-signed one/.test(l)));
      } finally { await a.close(); }
    } finally { await rm(dir, { recursive: true, force: true }); }
  });

  test('https_port 0 turns HTTPS off; HTTP serves and the status says so', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'netprobe-ssl-off-'));
    try {
      await writeFile(join(dir, 'config.yaml'), 'tls:\n  https_port: 0\n');
      const a = await startTestApp({ dataDir: dir });
      try {
        const key = (await a.admin()).key;
        assert.equal(a.service.http.httpsServer, null);
        const s = (await a.request('GET', '/api/ssl/status', { key })).body;
        assert.deepEqual(s.https, { enabled: false, port: null, listening: false });
      } finally { await a.close(); }
    } finally { await rm(dir, { recursive: true, force: true }); }
  });
});
