// Pairing codes (decode, the fingerprint pin, what is refused and that the secret is never echoed), the
// scan range check of controller commands, and how broker errors are worded.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HttpError } from '../../src/core/errors.js';
import { parseCidr } from '../../src/core/ip.js';
import { describeBrokerError } from '../../src/modules/system/hivemind/broker-link.js';
import { withinAllowed } from '../../src/modules/system/hivemind/commands.js';
import { certificateSha256, decodePairingCode, encodePairingCode, normaliseFingerprint } from '../../src/modules/system/hivemind/pairing-code.js';
import { selfSigned } from '../helpers/certs.js';

const ca = (await selfSigned()).cert;
const secure = { allowInsecure: false };

function refused(f: () => unknown, path: string, code = 'invalid_pairing_code'): HttpError {
  try { f(); } catch (e) {
    assert.ok(e instanceof HttpError, String(e));
    assert.equal(e.status, 400);
    assert.equal(e.code, code);
    assert.ok(e.errors?.some((x) => x.path === path), `expected ${path}: ${JSON.stringify(e.errors)}`);
    assert.ok(!e.message.includes('TOPSECRET') && !JSON.stringify(e.errors).includes('TOPSECRET'), 'the secret is echoed');
    return e;
  }
  assert.fail('not refused');
}

test('a code round-trips, normalised; the CA is pinned by its SHA-256 fingerprint', () => {
  const code = encodePairingCode({ url: 'mqtts://broker.example.net', id: 'probe-7', secret: 'TOPSECRET', ca });
  const p = decodePairingCode(code, secure);
  assert.equal(p.url, 'mqtts://broker.example.net:8883');
  assert.deepEqual([p.tls, p.host, p.port, p.id, p.secret], [true, 'broker.example.net', 8883, 'probe-7', 'TOPSECRET']);
  assert.equal(p.ca_sha256, certificateSha256(ca));
  // Colon-separated upper case (openssl's own spelling) is the same fingerprint.
  const colons = certificateSha256(ca).toUpperCase().match(/../g)!.join(':');
  assert.equal(decodePairingCode(encodePairingCode({ url: 'mqtts://[::1]:1', id: 'p', secret: 's', ca, ca_sha256: colons }), secure).url,
    'mqtts://[::1]:1');
  assert.equal(normaliseFingerprint('zz'), null);
});

test('bad codes are 400s naming the field, never echoing the secret', () => {
  const base = { url: 'mqtts://127.0.0.1:8883', id: 'p1', secret: 'TOPSECRET', ca };
  refused(() => decodePairingCode('', secure), 'code');
  refused(() => decodePairingCode('a b', secure), 'code');
  refused(() => decodePairingCode(Buffer.from('[1,2]').toString('base64url'), secure), 'code');
  refused(() => decodePairingCode(encodePairingCode({ ...base, ca_sha256: '00'.repeat(32) }), secure), 'code.ca_sha256');
  refused(() => decodePairingCode(encodePairingCode({ ...base, ca_sha256: 'nothex' }), secure), 'code.ca_sha256');
  refused(() => decodePairingCode(encodePairingCode({ ...base, ca: 'not a pem', ca_sha256: '00'.repeat(32) }), secure), 'code.ca');
  refused(() => decodePairingCode(encodePairingCode({ ...base, ca: ca + ca, ca_sha256: certificateSha256(ca) }), secure), 'code.ca');
  for (const id of ['a/b', '+', '#', '', 'x'.repeat(65)]) refused(() => decodePairingCode(encodePairingCode({ ...base, id }), secure), 'code.id');
  for (const url of ['http://h', 'mqtts://u:p@h', 'mqtts://h/path', 'mqtts://h?x=1', 'nonsense']) {
    refused(() => decodePairingCode(encodePairingCode({ ...base, url }), secure), 'code.url');
  }
  refused(() => decodePairingCode(encodePairingCode({ ...base, secret: '' }), secure), 'code.secret');
  refused(() => decodePairingCode(encodePairingCode({ ...base, url: 'mqtt://127.0.0.1', ca: null }), secure), 'code.url', 'insecure_broker');
  const plain = decodePairingCode(encodePairingCode({ ...base, url: 'mqtt://127.0.0.1', ca: null }), { allowInsecure: true });
  assert.deepEqual([plain.url, plain.tls, plain.ca], ['mqtt://127.0.0.1:1883', false, null]);
});

test('a scan command is allowed only inside a configured range of its family', () => {
  const c = (s: string) => { const r = parseCidr(s); assert.ok(r.ok); return r.cidr; };
  assert.equal(withinAllowed(c('192.168.1.0/24'), []), false);
  assert.equal(withinAllowed(c('192.168.1.0/24'), ['192.168.0.0/16']), true);
  assert.equal(withinAllowed(c('192.168.0.0/15'), ['192.168.0.0/16']), false);
  assert.equal(withinAllowed(c('10.0.0.0/24'), ['192.168.0.0/16', '10.0.0.0/25']), false);
  assert.equal(withinAllowed(c('fd00::/64'), ['0.0.0.0/0']), false);
});

test('broker errors are worded for a person, with the kind that picks 502 or 504', () => {
  const s = { url: 'mqtts://127.0.0.1:1', connectTimeoutMs: 10_000 };
  assert.equal(describeBrokerError(Object.assign(new Error('Connection refused: Not authorized'), { code: 135 }), s).kind, 'refused');
  assert.match(describeBrokerError(Object.assign(new Error('x'), { code: 135 }), s).message, /revoked/);
  assert.equal(describeBrokerError(Object.assign(new Error('x'), { code: 'ECONNREFUSED' }), s).kind, 'unreachable');
  assert.equal(describeBrokerError(Object.assign(new Error('x'), { code: 'ETIMEDOUT' }), s).kind, 'timeout');
  assert.equal(describeBrokerError(Object.assign(new Error('self-signed certificate'), { code: 'SELF_SIGNED_CERT_IN_CHAIN' }), s).kind, 'tls');
});
