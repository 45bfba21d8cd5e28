// Two-factor sign-in with TOTP (core/auth/totp.ts) and single-use recovery codes.
//
// - The secret is sealed with the machine key (app.secretbox), never the vault: a locked vault must not
//   lock an administrator out. Enrolment stays pending (enabled = 0) until confirm proves a code.
// - A code is accepted once: the last accepted time step is stored and any step at or below it is
//   refused. The step is claimed inside the caller's transaction (the one creating the session).
// - Recovery codes: ten of 80 bits each, shown once, stored as SHA-256 (high entropy: no slow hash
//   needed), each usable once.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../../../core/clock.js';
import { conflict } from '../../../core/errors.js';
import type { SecretBox } from '../../../core/secretbox.js';
import { checkTotp, newTotpSecret, otpauthUri, verifyTotp } from '../../../core/auth/totp.js';
import type { Store, Tx } from '../../../core/store/types.js';

export const RECOVERY_CODE_COUNT = 10;
/** Crockford's base32: no I, L, O, U, so a printed code is read back without doubt. */
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
export const RECOVERY_CODE_PATTERN = /^[0-9A-Za-z]{4}(-?[0-9A-Za-z]{4}){3}$/;

interface TotpRow {
  user_id: string; secret: string; enabled: number; last_step: number | null; created_at: string; enabled_at: string | null;
}

export interface TwoFactorStatus {
  enabled: boolean;
  pending: boolean;
  enabled_at: string | null;
  recovery_codes_left: number;
}

export interface Enrollment {
  otpauth_uri: string;
  secret: string;
  qr_svg: string;
}

/** What a second-factor code proved: which kind it was, and the write that consumes it. */
export interface CodeMatch {
  kind: 'totp' | 'recovery';
  /** Consumes the code inside the caller's transaction; false when someone used it meanwhile. */
  claim(tx: Tx): boolean;
}

function newRecoveryCode(): string {
  let s = '';
  for (const b of randomBytes(16)) s += CROCKFORD[b & 31]; // 16 symbols of 5 bits = 80 bits
  return s.match(/.{4}/g)!.join('-');
}

/** Upper case, no dashes or spaces, and the letters Crockford reads as digits. */
function normalizeRecovery(code: string): string {
  return code.toUpperCase().replace(/[\s-]/g, '').replace(/O/g, '0').replace(/[IL]/g, '1');
}

const hashRecovery = (code: string) => createHash('sha256').update(normalizeRecovery(code)).digest('hex');

export class TwoFactorService {
  constructor(private deps: { store: Store; clock: Clock; secretbox: SecretBox; issuer: () => string }) {}

  private row(userId: string): TotpRow | undefined {
    return this.deps.store.get<TotpRow>(
      'SELECT user_id, secret, enabled, last_step, created_at, enabled_at FROM user_totp WHERE user_id = ?', [userId]);
  }

  isEnabled(userId: string): boolean {
    return !!this.row(userId)?.enabled;
  }

  status(userId: string): TwoFactorStatus {
    const r = this.row(userId);
    const left = Number(this.deps.store.get<{ n: number }>(
      'SELECT COUNT(*) AS n FROM user_recovery_codes WHERE user_id = ? AND used_at IS NULL', [userId])?.n ?? 0);
    return {
      enabled: !!r?.enabled, pending: !!r && !r.enabled, enabled_at: r?.enabled_at ?? null, recovery_codes_left: r?.enabled ? left : 0,
    };
  }

  /** A new pending secret (replacing a pending one); 409 while 2FA is on (disable it first). */
  async enroll(userId: string, account: string): Promise<Enrollment> {
    const secret = newTotpSecret();
    const sealed = this.deps.secretbox.seal(secret);
    await this.deps.store.write((tx) => {
      const cur = tx.get<{ enabled: number }>('SELECT enabled FROM user_totp WHERE user_id = ?', [userId]);
      if (cur?.enabled) throw conflict('Two-factor sign-in is already on; disable it before enrolling again', 'two_factor_enabled');
      tx.run('DELETE FROM user_totp WHERE user_id = ?', [userId]);
      tx.run('INSERT INTO user_totp (user_id, secret, enabled, last_step, created_at, enabled_at) VALUES (?, ?, 0, NULL, ?, NULL)',
        [userId, sealed, this.deps.clock.iso()]);
    }, 'sync');
    const otpauth_uri = otpauthUri({ issuer: this.deps.issuer(), account, secret });
    // Loaded on the first enrolment, not at start-up: 100 KiB of source kept resident for a rare page.
    const qrcode = (await import('qrcode-generator')).default;
    const qr = qrcode(0, 'M');
    qr.addData(otpauth_uri);
    qr.make();
    return { otpauth_uri, secret, qr_svg: qr.createSvgTag({ cellSize: 4, margin: 4, scalable: true }) };
  }

  /**
   * Turns a pending enrolment on when `code` is right; returns the recovery codes (the only time they
   * are shown). null for a wrong code; 409 when nothing is pending.
   */
  async confirm(userId: string, code: string, also?: (tx: Tx) => void): Promise<string[] | null> {
    const r = this.row(userId);
    if (!r || r.enabled) {
      throw conflict(r ? 'Two-factor sign-in is already on' : 'Nothing to confirm: start with POST /api/auth/2fa/enroll',
        'two_factor_not_pending');
    }
    const step = verifyTotp(this.open(r), code.trim(), this.deps.clock.now(), r.last_step);
    if (step === null) return null;
    const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
    await this.deps.store.write((tx) => {
      const now = this.deps.clock.iso();
      const changed = tx.run(
        'UPDATE user_totp SET enabled = 1, last_step = ?, enabled_at = ? WHERE user_id = ? AND enabled = 0 AND secret = ?',
        [step, now, userId, r.secret]).changes;
      if (!changed) throw conflict('The enrolment changed meanwhile; enroll again', 'two_factor_not_pending');
      tx.run('DELETE FROM user_recovery_codes WHERE user_id = ?', [userId]);
      for (const c of codes) {
        tx.run('INSERT INTO user_recovery_codes (user_id, code_hash, used_at) VALUES (?, ?, NULL)', [userId, hashRecovery(c)]);
      }
      also?.(tx);
    }, 'sync');
    return codes;
  }

  /**
   * Checks a second-factor code (a current TOTP code or an unused recovery code) of a user with 2FA on,
   * without consuming it; the caller claims it in the transaction that acts on it. 'used' for an
   * authenticator code that is right for its window but was already accepted (wait for the next one).
   */
  check(userId: string, code: string): CodeMatch | 'used' | null {
    const r = this.row(userId);
    if (!r?.enabled) return null;
    const trimmed = code.trim();
    if (/^\d{6}$/.test(trimmed)) {
      const secret = this.deps.secretbox.tryOpen(r.secret);
      if (secret === null) return null; // sealed under another machine key: only recovery codes still work
      const step = checkTotp(secret, trimmed, this.deps.clock.now(), r.last_step);
      if (step === null || step === 'used') return step;
      return {
        kind: 'totp',
        claim: (tx) => tx.run(
          'UPDATE user_totp SET last_step = ? WHERE user_id = ? AND enabled = 1 AND (last_step IS NULL OR last_step < ?)',
          [step, userId, step]).changes === 1,
      };
    }
    if (!RECOVERY_CODE_PATTERN.test(trimmed)) return null;
    const given = Buffer.from(hashRecovery(trimmed), 'hex');
    const rows = this.deps.store.all<{ code_hash: string }>(
      'SELECT code_hash FROM user_recovery_codes WHERE user_id = ? AND used_at IS NULL', [userId]);
    let hit: string | null = null;
    for (const row of rows) {
      if (timingSafeEqual(Buffer.from(row.code_hash, 'hex'), given) && hit === null) hit = row.code_hash;
    }
    if (hit === null) return null;
    const codeHash = hit;
    return {
      kind: 'recovery',
      claim: (tx) => tx.run('UPDATE user_recovery_codes SET used_at = ? WHERE user_id = ? AND code_hash = ? AND used_at IS NULL',
        [this.deps.clock.iso(), userId, codeHash]).changes === 1,
    };
  }

  /** Turns 2FA off (or drops a pending enrolment) and deletes the recovery codes; true when there was any. */
  remove(tx: Tx, userId: string): boolean {
    const n = tx.run('DELETE FROM user_totp WHERE user_id = ?', [userId]).changes;
    tx.run('DELETE FROM user_recovery_codes WHERE user_id = ?', [userId]);
    return n > 0;
  }

  private open(r: TotpRow): string {
    const s = this.deps.secretbox.tryOpen(r.secret);
    if (s === null) {
      throw conflict("The pending secret cannot be read with this probe's machine key; enroll again", 
        'two_factor_unreadable');
    }
    return s;
  }
}
