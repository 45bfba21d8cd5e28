// TOTP (core/auth/totp.ts) against RFC 6238's test vectors and against the otpauth library, the way an
// authenticator app would compute the codes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as OTPAuth from 'otpauth';
import {
  base32Decode, base32Encode, checkTotp, hotp, newTotpSecret, otpauthUri, totpAt, totpStep, verifyTotp,
} from '../../src/core/auth/totp.js';

// RFC 6238 Appendix B: time (s) and the 8-digit codes for SHA-1, SHA-256 and SHA-512.
const VECTORS: [number, string, string, string][] = [
  [59, '94287082', '46119246', '90693936'],
  [1111111109, '07081804', '68084774', '25091201'],
  [1111111111, '14050471', '67062674', '99943326'],
  [1234567890, '89005924', '91819424', '93441116'],
  [2000000000, '69279037', '90698825', '38618901'],
  [20000000000, '65353130', '77737706', '47863826'],
];
const KEY1 = Buffer.from('12345678901234567890');
const KEY256 = Buffer.from('12345678901234567890123456789012');
const KEY512 = Buffer.from('1234567890123456789012345678901234567890123456789012345678901234');

test('RFC 6238 test vectors (SHA-1, SHA-256, SHA-512, 8 digits, 30 s)', () => {
  for (const [t, sha1, sha256, sha512] of VECTORS) {
    const step = totpStep(t * 1000);
    assert.equal(hotp(KEY1, step, 8, 'sha1'), sha1, `SHA-1 at ${t}`);
    assert.equal(hotp(KEY256, step, 8, 'sha256'), sha256, `SHA-256 at ${t}`);
    assert.equal(hotp(KEY512, step, 8, 'sha512'), sha512, `SHA-512 at ${t}`);
  }
});

test('RFC 4226 HOTP vectors (6 digits)', () => {
  const expected = ['755224', '287082', '359152', '969429', '338314', '254676', '287922', '162583', '399871', '520489'];
  expected.forEach((code, counter) => assert.equal(hotp(KEY1, counter), code));
});

test('base32 round-trips and matches RFC 4648', () => {
  assert.equal(base32Encode(Buffer.from('foobar')), 'MZXW6YTBOI');
  assert.equal(base32Decode('MZXW6YTBOI======').toString(), 'foobar');
  assert.equal(base32Decode('mzxw 6ytb oi').toString(), 'foobar');
  assert.throws(() => base32Decode('MZXW1'));
  const s = newTotpSecret();
  assert.match(s, /^[A-Z2-7]{32}$/);
  assert.equal(base32Encode(base32Decode(s)), s);
});

test('codes agree with the otpauth library, and the window is one step either side', () => {
  const secret = newTotpSecret();
  const ref = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 });
  const now = Date.UTC(2026, 0, 1, 12, 0, 10);
  assert.equal(totpAt(secret, now), ref.generate({ timestamp: now }));
  const step = totpStep(now);
  assert.equal(verifyTotp(secret, ref.generate({ timestamp: now }), now, null), step);
  assert.equal(verifyTotp(secret, ref.generate({ timestamp: now - 30_000 }), now, null), step - 1);
  assert.equal(verifyTotp(secret, ref.generate({ timestamp: now + 30_000 }), now, null), step + 1);
  assert.equal(verifyTotp(secret, ref.generate({ timestamp: now - 60_000 }), now, null), null, 'two steps back');
  assert.equal(verifyTotp(secret, ref.generate({ timestamp: now + 60_000 }), now, null), null, 'two steps ahead');
  assert.equal(verifyTotp(secret, '12345', now, null), null);
  assert.equal(verifyTotp(secret, 'abcdef', now, null), null);
});

test('a step at or below the last accepted one is refused (no replay, no older code after a newer one)', () => {
  const secret = newTotpSecret();
  const now = Date.UTC(2026, 0, 1, 12, 0, 10);
  const step = totpStep(now);
  const current = totpAt(secret, now);
  assert.equal(verifyTotp(secret, current, now, step - 1), step);
  assert.equal(verifyTotp(secret, current, now, step), null, 'replayed');
  assert.equal(verifyTotp(secret, totpAt(secret, now - 30_000), now, step), null, 'older after newer');
  assert.equal(verifyTotp(secret, totpAt(secret, now + 30_000), now, step), step + 1, 'the next step is still fine');
});

test('checkTotp tells a right but already used code (\'used\') from a wrong one (null)', () => {
  const secret = newTotpSecret();
  const now = Date.UTC(2026, 0, 1, 12, 0, 10);
  const step = totpStep(now);
  const current = totpAt(secret, now);
  assert.equal(checkTotp(secret, current, now, null), step);
  assert.equal(checkTotp(secret, current, now, step), 'used', 'replayed');
  assert.equal(checkTotp(secret, totpAt(secret, now - 30_000), now, step), 'used', 'older after newer');
  assert.equal(checkTotp(secret, totpAt(secret, now - 60_000), now, null), null, 'outside the window');
  const wrong = String((Number(current) + 1) % 1_000_000).padStart(6, '0');
  assert.equal(checkTotp(secret, wrong, now, step), null, 'wrong');
});

test('the otpauth URI is what authenticator apps and the otpauth library read', () => {
  const secret = newTotpSecret();
  const uri = otpauthUri({ issuer: 'netprobe (probe 1)', account: 'admin', secret });
  assert.match(uri, /^otpauth:\/\/totp\/netprobe%20\(probe%201\):admin\?/);
  const parsed = OTPAuth.URI.parse(uri) as OTPAuth.TOTP;
  assert.equal(parsed.issuer, 'netprobe (probe 1)');
  assert.equal(parsed.label, 'admin');
  assert.equal(parsed.secret.base32, secret);
  assert.equal(parsed.digits, 6);
  assert.equal(parsed.period, 30);
  assert.equal(parsed.algorithm, 'SHA1');
});
