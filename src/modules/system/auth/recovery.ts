// Password recovery by e-mail (POST /api/auth/forgot-password; docs/auth.md, "Password recovery").
//
// The answer must not tell whether an account exists: every request does the same work before the
// answer (one lookup, one scrypt hash of a fresh temporary password) and gets the same body. What
// differs (storing the temporary password, sending the message, the audit entry) happens after the
// answer, in the background.
//
// The temporary password is stored hashed beside the real one (core/auth/temporary.ts) for 30 minutes;
// the real password and the user's sessions stay valid until the temporary one is used at sign-in to set
// a new password, so nobody can lock a user out by requesting resets. Per account at most
// auth.login_max_failures messages within auth.login_window_minutes are sent; more are dropped silently
// (audited), since a 429 there would tell that the account exists.
import type { AuthServices } from '../../../core/auth/index.js';
import { generateOneTimePassword } from '../../../core/auth/bootstrap.js';
import { hashPassword } from '../../../core/auth/passwords.js';
import type { UserRow } from '../../../core/auth/types.js';
import type { AuditEntryInput } from '../../../core/audit/types.js';
import type { AppContext } from '../../../core/context.js';
import type { Mailer } from './mailer.js';

export const TEMP_PASSWORD_TTL_MS = 30 * 60_000;
const TEMP_PASSWORD_LENGTH = 20;

export interface RecoveryRequest { username?: string; email?: string }

/** Builds the request's audit entry for a target and details (ctx.auditEntry, without an actor). */
export type AuditFor = (target: string, details: Record<string, unknown>, outcome?: 'success' | 'failure') => AuditEntryInput;

/**
 * Where a password can be recovered without e-mail; part of the answers that say e-mail is off. It names
 * only what exists, down to the only administrator's last resort (docs/appliance.md, "Factory reset").
 * Three paragraphs, one a line (the sign-in page keeps the line breaks).
 */
export const LOCAL_RECOVERY = [
  'Another administrator can set a new password for you under Users.',
  'While setup is not finished, the one-time password of the user "admin" is in the file initial-admin-password in ' +
  'the data directory (on the appliance also netprobe-admin-password.txt on the SD card\'s boot partition), as at first boot.',
  'If you are the only administrator: on the probe itself, as root, set an SMTP server (smtp.host) in the ' +
  'configuration file (/etc/netprobe/config.yaml on the appliance) and restart the service (systemctl restart ' +
  'netprobe); recovery by e-mail then works if your account has an e-mail address. Without one, the last resort is ' +
  'a factory reset (docs/appliance.md): it erases every monitor, record and setting and starts over with a new ' +
  'one-time password.',
].join('\n');

export class PasswordRecovery {
  private inFlight = new Set<Promise<void>>();

  constructor(
    private app: Pick<AppContext, 'store' | 'clock' | 'log' | 'audit' | 'config'> & { auth: AuthServices },
    private mailer: Mailer,
  ) {}

  /**
   * Does the part that costs the same for every request and returns; the rest (store, send, audit) runs in
   * the background. Never throws for an unknown account.
   */
  async request(req: RecoveryRequest, auditFor: AuditFor): Promise<void> {
    const { users } = this.app.auth;
    let user: UserRow | null = null;
    let reason = '';
    if (req.username !== undefined) {
      user = users.getByUsername(req.username);
      if (!user) reason = 'unknown_user';
    } else {
      const rows = users.byEmail(req.email!);
      if (rows.length === 1) user = rows[0]!;
      else reason = rows.length ? 'ambiguous_email' : 'unknown_email';
    }
    if (user && !reason) {
      if (user.disabled) reason = 'disabled';
      else if (!user.email) reason = 'no_email';
    }
    const temp = generateOneTimePassword(TEMP_PASSWORD_LENGTH);
    const hash = await hashPassword(temp); // for every request, so the time does not depend on the account
    const target = user?.username ?? (req.username ?? req.email ?? '').slice(0, 64);
    const work = (reason || !user ? this.refuse(target, reason, auditFor) : this.deliver(user, temp, hash, auditFor))
      .catch((e) => this.app.log.error('password recovery failed', { err: e as Error }));
    this.inFlight.add(work);
    void work.finally(() => this.inFlight.delete(work));
  }

  /** Resolves when the background work of earlier requests is done (shutdown, tests). */
  async idle(): Promise<void> {
    while (this.inFlight.size) await Promise.allSettled([...this.inFlight]);
  }

  private async refuse(target: string, reason: string, auditFor: AuditFor): Promise<void> {
    await this.app.audit.record(auditFor(target, { sent: false, reason }, 'failure'));
  }

  private async deliver(user: UserRow, temp: string, hash: string, auditFor: AuditFor): Promise<void> {
    const { limiter, temporary } = this.app.auth;
    const accountKey = `forgot-password:account:${user.id}`;
    if (limiter.retryAfter([accountKey]) > 0) {
      await this.app.audit.record({
        ...auditFor(user.username, { sent: false, reason: 'rate_limited' }, 'failure'), actor_user_id: user.id,
      });
      return;
    }
    limiter.failure([accountKey]);
    const expires = await this.app.store.write((tx) => temporary.set(tx, user.id, hash, TEMP_PASSWORD_TTL_MS), 'sync');
    const cfg = this.app.config.get();
    const name = cfg.probe.name;
    const url = cfg.server.public_url;
    const rec = await this.mailer.send({
      kind: 'password_reset', to: user.email!, subject: `Temporary password for ${name}`, secrets: [temp],
      text: [
        `Someone asked to reset the password of the account "${user.username}" on the network probe ${name}` +
          `${url ? ` (${url})` : ''}.`,
        '',
        `Temporary password: ${temp}`,
        '',
        `It is valid until ${expires} (30 minutes) and works once: sign in with it, and you will be asked to choose a new`,
        'password. Your current password keeps working until then; if you did not ask for this, ignore this message.',
        '',
      ].join('\n'),
    });
    if (rec.outcome !== 'sent') await temporary.removeIf(user.id, hash);
    await this.app.audit.record({
      ...auditFor(user.username, {
        sent: rec.outcome === 'sent', email_id: rec.id, ...(rec.error ? { reason: 'send_failed', error_code: rec.error.code } : {}),
      }, rec.outcome === 'sent' ? 'success' : 'failure'),
      actor_user_id: user.id,
    });
  }
}
