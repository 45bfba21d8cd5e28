// TLS pieces without a server: the self-signed certificate (checked by openssl too), the checks of a key
// and its chain, the multipart reader, the renewal time and the dns-01 record name.
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { test } from 'node:test';
import { HttpError } from '../../src/core/errors.js';
import { run, which } from '../../src/core/exec.js';
import { checkCertificate, renewalDue, splitPem } from '../../src/modules/system/ssl/certificate.js';
import { challengeName } from '../../src/modules/system/ssl/dns-rfc2136.js';
import { parseMultipart } from '../../src/modules/system/ssl/multipart.js';
import { makeSelfSigned } from '../../src/modules/system/ssl/self-signed.js';

const names = { dns: ['probe', 'probe.local', 'localhost'], ips: ['127.0.0.1', '::1', '192.0.2.7', 'fd00::2'] };

test('the self-signed certificate: P-256, the names, 825 days, not a CA, verified by its own key and by openssl', async () => {
  const now = Date.parse('2026-03-01T00:00:00Z');
  const c = makeSelfSigned(names, now);
  const x = new X509Certificate(c.cert);
  assert.equal(x.subjectAltName, 'DNS:probe, DNS:probe.local, DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1, ' +
    'IP Address:192.0.2.7, IP Address:FD00:0:0:0:0:0:0:2');
  assert.equal(x.ca, false);
  assert.ok(x.verify(x.publicKey));
  assert.equal(Date.parse(x.validTo) - now, 825 * 86_400_000);
  const checked = checkCertificate(c.key, splitPem(c.cert), now);
  assert.deepEqual(checked.info.names, ['probe', 'probe.local', 'localhost', '127.0.0.1', '::1', '192.0.2.7', 'fd00::2']);
  assert.equal(checked.info.key_type, 'ECDSA P-256');
  assert.equal(checked.info.self_signed, true);
  // A certificate valid after 2049 uses GeneralizedTime (RFC 5280); openssl reads both.
  const late = makeSelfSigned(names, Date.parse('2049-06-01T00:00:00Z'));
  assert.equal(new X509Certificate(late.cert).validTo, 'Sep  4 00:00:00 2051 GMT');
  if (await which('openssl')) {
    const r = await run('openssl', ['x509', '-noout', '-text'], { input: c.cert });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /CA:FALSE/);
    assert.match(r.stdout, /TLS Web Server Authentication/);
  }
});

test('checks: expired, not yet valid, another key; each a 400 with its code', () => {
  const now = Date.parse('2026-03-01T00:00:00Z');
  const a = makeSelfSigned(names, now), b = makeSelfSigned(names, now);
  const code = (f: () => unknown) => { try { f(); return 'none'; } catch (e) { assert.ok(e instanceof HttpError); assert.equal(e.status, 400); return e.code; } };
  assert.equal(code(() => checkCertificate(a.key, splitPem(a.cert), now + 900 * 86_400_000)), 'tls_expired');
  assert.equal(code(() => checkCertificate(a.key, splitPem(a.cert), now - 2 * 3600_000)), 'tls_not_yet_valid');
  assert.equal(code(() => checkCertificate(a.key, splitPem(b.cert), now)), 'tls_key_mismatch');
  assert.equal(code(() => checkCertificate('not a key', splitPem(b.cert), now)), 'tls_key_invalid');
  assert.equal(code(() => checkCertificate(a.key, [], now)), 'tls_no_certificate');
  // The matching certificate is picked among several.
  assert.equal(checkCertificate(a.key, splitPem(b.cert + a.cert), now).info.fingerprint_sha256, new X509Certificate(a.cert).fingerprint256);
});

test('multipart: fields and files, binary bytes intact; broken forms are 400s', () => {
  const bin = Buffer.from([0x30, 0x82, 0x0d, 0x0a, 0x2d, 0x2d, 0x00, 0xff]);
  const body = Buffer.concat([
    Buffer.from('--XyZ\r\nContent-Disposition: form-data; name="password"\r\n\r\ns3cret\r\n'),
    Buffer.from('--XyZ\r\nContent-Disposition: form-data; name="file"; filename="a.pfx"\r\nContent-Type: application/x-pkcs12\r\n\r\n'),
    bin, Buffer.from('\r\n--XyZ--\r\n'),
  ]);
  const parts = parseMultipart(body, 'multipart/form-data; boundary=XyZ');
  assert.deepEqual(parts.map((p) => [p.name, p.filename]), [['password', null], ['file', 'a.pfx']]);
  assert.equal(parts[0]!.data.toString(), 's3cret');
  assert.deepEqual(parts[1]!.data, bin);
  for (const [b, ct] of [[body, 'multipart/form-data'], [Buffer.from('--XyZ\r\nx'), 'multipart/form-data; boundary=XyZ'],
    [Buffer.from('nothing'), 'multipart/form-data; boundary=XyZ']] as const) {
    assert.throws(() => parseMultipart(b, ct), (e: unknown) => e instanceof HttpError && e.status === 400);
  }
});

test('renewal is due when a third of the lifetime is left; dns-01 names', () => {
  assert.equal(renewalDue({ valid_from: '2026-01-01T00:00:00.000Z', valid_to: '2026-04-01T00:00:00.000Z' }), '2026-03-02T00:00:00.000Z');
  assert.equal(renewalDue({ valid_from: '2026-01-01T00:00:00.000Z', valid_to: '2026-02-15T00:00:00.000Z' }), '2026-01-31T00:00:00.000Z');
  assert.equal(challengeName('*.example.com'), '_acme-challenge.example.com.');
  assert.equal(challengeName('probe.example.com.'), '_acme-challenge.probe.example.com.');
});
