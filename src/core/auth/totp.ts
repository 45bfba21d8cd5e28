// Time-based one-time passwords (RFC 6238 over RFC 4226's HOTP), as authenticator apps implement them:
// HMAC-SHA-1, 6 digits, 30-second steps, a window of one step either side. Pure functions: the caller
// keeps the secret sealed at rest and the last accepted step (a code is accepted once: any step at or
// below the last accepted one is refused, which also refuses an older in-window code after a newer one).
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const TOTP_DIGITS = 6;
export const TOTP_PERIOD_SECONDS = 30;
export const TOTP_WINDOW = 1;
/** 160 bits, the HMAC-SHA-1 block's natural key size (RFC 4226 recommends at least 128). */
export const TOTP_SECRET_BYTES = 20;

const B32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base32 without padding (authenticator apps do not want '='). */
export function base32Encode(buf: Uint8Array): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of buf) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += B32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += B32[(value << (5 - bits)) & 31];
  return out;
}

/** Decodes base32 (case, spaces and padding ignored); throws on any other character. */
export function base32Decode(text: string): Buffer {
  const clean = text.toUpperCase().replace(/[\s=]/g, '');
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const ch of clean) {
    const i = B32.indexOf(ch);
    if (i < 0) throw new Error('not base32');
    value = ((value << 5) | i) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

export function newTotpSecret(): string {
  return base32Encode(randomBytes(TOTP_SECRET_BYTES));
}

/** RFC 4226 HOTP with a configurable HMAC (RFC 6238's test vectors also use SHA-256 and SHA-512). */
export function hotp(key: Uint8Array, counter: number, digits = TOTP_DIGITS, algorithm: 'sha1' | 'sha256' | 'sha512' = 'sha1'): string {
  const msg = Buffer.alloc(8);
  msg.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac(algorithm, key).update(msg).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  const bin = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(bin % 10 ** digits).padStart(digits, '0');
}

/** The time step of a moment (milliseconds since the epoch). */
export function totpStep(nowMs: number, period = TOTP_PERIOD_SECONDS): number {
  return Math.floor(nowMs / 1000 / period);
}

export function totpAt(secretBase32: string, nowMs: number): string {
  return hotp(base32Decode(secretBase32), totpStep(nowMs));
}

/**
 * The time step `code` belongs to, within one step of now and after `lastStep`; null when it matches
 * none (wrong, too old, too far ahead, or already used). Every candidate is computed, so the time taken
 * does not depend on which one matched.
 */
export function verifyTotp(secretBase32: string, code: string, nowMs: number, lastStep: number | null): number | null {
  const r = checkTotp(secretBase32, code, nowMs, lastStep);
  return typeof r === 'number' ? r : null;
}

/**
 * verifyTotp, telling apart a code that is right for its window but already used ('used': the caller
 * asks for the next code and does not count it as a guess) from a wrong one (null).
 */
export function checkTotp(secretBase32: string, code: string, nowMs: number, lastStep: number | null): number | 'used' | null {
  if (!/^\d{6}$/.test(code)) return null;
  const key = base32Decode(secretBase32);
  const now = totpStep(nowMs);
  const given = Buffer.from(code);
  let found: number | null = null;
  let used = false;
  for (let step = now - TOTP_WINDOW; step <= now + TOTP_WINDOW; step++) {
    if (!timingSafeEqual(Buffer.from(hotp(key, step)), given)) continue;
    if (lastStep !== null && step <= lastStep) used = true;
    else if (found === null) found = step;
  }
  return found ?? (used ? 'used' : null);
}

/** The otpauth:// URI authenticator apps read from the QR code (Key Uri Format). */
export function otpauthUri(opts: { issuer: string; account: string; secret: string }): string {
  const label = `${encodeURIComponent(opts.issuer)}:${encodeURIComponent(opts.account)}`;
  const q = new URLSearchParams({
    secret: opts.secret, issuer: opts.issuer, algorithm: 'SHA1', digits: String(TOTP_DIGITS), period: String(TOTP_PERIOD_SECONDS),
  });
  return `otpauth://totp/${label}?${q.toString().replace(/\+/g, '%20')}`;
}
