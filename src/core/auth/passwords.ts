// Password hashing with scrypt from node:crypto, in a self-describing format
// `scrypt$N$r$p$salt$hash` (salt and hash base64url), and the password policy.
//
// N=2^15, r=8 costs 32 MiB per hash (128 * N * r bytes). On a Raspberry Pi that is affordable once or
// twice at a time, not for a burst of parallel logins, so hashes run through a small queue: memory stays
// bounded at MAX_PARALLEL * 32 MiB whatever arrives.
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import type { z } from 'zod';
import type { FieldError } from '../errors.js';

const N = 1 << 15;
const R = 8;
const P = 1;
const KEYLEN = 32;
const SALT_BYTES = 16;
/** Stored hashes with a larger cost are refused rather than allowed to exhaust memory. */
const MAX_N = 1 << 17;
const MAX_PARALLEL = 2;

export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 200;

let running = 0;
const waiting: (() => void)[] = [];

async function limited<T>(fn: () => Promise<T>): Promise<T> {
  if (running >= MAX_PARALLEL) await new Promise<void>((resolve) => waiting.push(resolve));
  running++;
  try {
    return await fn();
  } finally {
    running--;
    waiting.shift()?.();
  }
}

function derive(password: string, salt: Buffer, n: number, r: number, p: number, keylen: number): Promise<Buffer> {
  const opts: ScryptOptions = { N: n, r, p, maxmem: 128 * n * r * p + 16 * 1024 * 1024 };
  return limited(() => new Promise<Buffer>((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, keylen, opts, (err, key) => (err ? reject(err) : resolve(key)));
  }));
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, N, R, P, KEYLEN);
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

interface Parsed { n: number; r: number; p: number; salt: Buffer; key: Buffer }

function parse(stored: string): Parsed | null {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return null;
  const [n, r, p] = parts.slice(1, 4).map((x) => (/^\d{1,7}$/.test(x!) ? Number(x) : NaN)) as [number, number, number];
  if (!Number.isInteger(n) || n < 2 || n > MAX_N || (n & (n - 1)) !== 0) return null;
  if (!(r >= 1 && r <= 32 && p >= 1 && p <= 4)) return null;
  const salt = Buffer.from(parts[4]!, 'base64url');
  const key = Buffer.from(parts[5]!, 'base64url');
  if (salt.length < 8 || key.length < 16 || key.length > 128) return null;
  return { n, r, p, salt, key };
}

// Hash of a random string nobody knows, for timing-equal checks of unknown users; it never matches,
// since verifyPassword returns false whenever there was no stored hash.
const DUMMY_HASH = 'scrypt$32768$8$1$rImdhrOCe0FFAV0uEWgiKg$oQn5ARpLftglMAT3rAF7FeK0akRlmNlQllhbYBID1iQ';

/**
 * True when `password` matches `stored`. With no stored hash (unknown user) it still runs a full scrypt
 * against a dummy hash and returns false, so the response time does not reveal which usernames exist.
 */
export async function verifyPassword(password: string, stored: string | null | undefined): Promise<boolean> {
  const target = stored ?? DUMMY_HASH;
  const parsed = parse(target);
  if (!parsed) {
    // A corrupt stored hash never matches, but costs the same as a real check.
    await derive(password, randomBytes(SALT_BYTES), N, R, P, KEYLEN);
    return false;
  }
  const key = await derive(password, parsed.salt, parsed.n, parsed.r, parsed.p, parsed.key.length);
  return timingSafeEqual(key, parsed.key) && stored != null;
}

/** True when a stored hash was made with weaker parameters than today's, so it should be re-hashed. */
export function needsRehash(stored: string): boolean {
  const p = parse(stored);
  return !p || p.n < N || p.r < R || p.key.length < KEYLEN;
}

/** The password policy; an empty list means the password is acceptable. */
export function passwordPolicyErrors(password: string, username?: string | null, path = 'password'): FieldError[] {
  const errors: FieldError[] = [];
  const length = [...password].length;
  if (length < PASSWORD_MIN) errors.push({ path, message: `Must be at least ${PASSWORD_MIN} characters long` });
  if (length > PASSWORD_MAX) errors.push({ path, message: `Must be at most ${PASSWORD_MAX} characters long` });
  if (username && password.trim().toLowerCase() === username.trim().toLowerCase())
    errors.push({ path, message: 'Must not be the same as the username' });
  return errors;
}

/**
 * The password policy inside a body's schema (`.superRefine(refinePasswordPolicy)`), so that a weak password
 * is named in the same 400 as the body's other faults; the service checks it again.
 */
export function refinePasswordPolicy(body: { password?: unknown; username?: unknown }, ctx: z.RefinementCtx): void {
  if (typeof body.password !== 'string') return;
  for (const e of passwordPolicyErrors(body.password, typeof body.username === 'string' ? body.username : null)) {
    ctx.addIssue({ code: 'custom', path: ['password'], message: e.message });
  }
}
