// Sign-in and sign-out for the web interface, two-factor sign-in (TOTP) and password recovery.
import { z } from 'zod';
import { isAdmin, type AuthServices } from '../../../core/auth/index.js';
import { needsRehash, passwordPolicyErrors, verifyPassword } from '../../../core/auth/passwords.js';
import { clearSessionCookie, isSecureRequest, sessionCookie } from '../../../core/auth/sessions.js';
import { PublicUserSchema } from '../../../core/auth/users.js';
import { TOTP_DIGITS, TOTP_PERIOD_SECONDS } from '../../../core/auth/totp.js';
import { HttpError, notFound } from '../../../core/errors.js';
import { reply, route, type AnyRoute } from '../../../core/http/registry.js';
import type { RequestCtx } from '../../../core/context.js';
import { RECOVERY_CODE_COUNT, type CodeMatch, type TwoFactorService } from './two-factor.js';
import type { Mailer } from './mailer.js';
import { LOCAL_RECOVERY, TEMP_PASSWORD_TTL_MS, type PasswordRecovery } from './recovery.js';
import { MeResponse, whoIs } from '../me/who.js';

/** GET /api/auth/session: the same answer as GET /api/me when signed in, else only signed_in false. */
const SessionResponse = z.union([
  z.object({ signed_in: z.literal(false) }),
  MeResponse.extend({ signed_in: z.literal(true) }),
]);

const LoginBody = z.strictObject({
  username: z.string().min(1).max(200),
  password: z.string().min(1).max(1000),
  /** The second step when two-factor sign-in is on: a code from the authenticator app or a recovery code. */
  totp_code: z.string().min(1).max(64).optional(),
  /** With a temporary password from password recovery: the new password to set (see `password_change_required`). */
  new_password: z.string().min(1).max(1000).optional(),
});

const ForgotBody = z.strictObject({
  username: z.string().min(1).max(200).optional(),
  email: z.string().min(1).max(254).optional(),
}).superRefine((b, c) => {
  if (b.username === undefined && b.email === undefined) {
    c.addIssue({ code: 'custom', path: ['username'], message: 'Give a username or an e-mail address' });
  }
  if (b.username !== undefined && b.email !== undefined) {
    c.addIssue({ code: 'custom', path: ['email'], message: 'Give a username or an e-mail address, not both' });
  }
});
const FORGOT_ACCEPTED = {
  accepted: true as const,
  detail: 'If the account exists and has an e-mail address, a temporary password is on its way. It is valid for 30 minutes; ' +
    'sign in with it to choose a new password. Your current password keeps working until then.',
};
const ForgotResponse = z.object({ accepted: z.literal(true), detail: z.string() });
const RecoveryStatus = z.object({
  email_enabled: z.boolean().describe('Whether password recovery by e-mail is on (an SMTP server is configured)'),
  temporary_password_minutes: z.number().int(),
  local_recovery: z.string().describe('How to recover a password without e-mail'),
});

// Right credentials are a 200 either way: signed in, or the next step they need (a browser logs every 4xx
// as a failed request, and asking for the code is the normal course of a two-factor sign-in, not an error).
const LoginResponse = z.union([
  z.object({
    signed_in: z.literal(true),
    user: PublicUserSchema,
    expires_at: z.string(),
    bootstrap_needed: z.boolean(),
  }),
  z.object({
    signed_in: z.literal(false),
    step: z.enum(['totp_required', 'password_change_required']).describe('totp_required: send the same request again with ' +
      'totp_code; password_change_required: a temporary password, send it again with new_password'),
    detail: z.string(),
  }).describe('The password was right and one more step is needed; no cookie is set'),
]);
/** The next step of a sign-in whose password was right. */
const step = (s: 'totp_required' | 'password_change_required', detail: string) => ({ signed_in: false as const, step: s, detail });

const TwoFactorStatusResponse = z.object({
  enabled: z.boolean(),
  pending: z.boolean(),
  enabled_at: z.string().nullable(),
  recovery_codes_left: z.number().int(),
  required_for_admins: z.boolean(),
  required: z.boolean(),
});

const EnrollBody = z.strictObject({ current_password: z.string().min(1).max(1000) });
const EnrollResponse = z.object({
  otpauth_uri: z.string(),
  secret: z.string(),
  qr_svg: z.string(),
  algorithm: z.literal('SHA1'),
  digits: z.number().int(),
  period: z.number().int(),
});
const ConfirmBody = z.strictObject({ code: z.string().min(1).max(64) });
const ConfirmResponse = z.object({ enabled: z.literal(true), recovery_codes: z.array(z.string()) });
const DisableBody = z.strictObject({
  code: z.string().min(1).max(64).optional(),
  user_id: z.uuid().optional(),
});
const DisableResponse = z.object({ enabled: z.literal(false) });

const badCredentials = () => new HttpError(401, 'invalid_credentials', 'Wrong username or password');
// A code that was right for its window but already accepted: the person typed the code they just used
// (e.g. at enrolment); not a guess, so it is not counted.
const CODE_USED = 'This code was just used: wait for the next code from your authenticator app';
const codeUsed = (field: string) => (field === 'totp_code'
  ? new HttpError(401, 'totp_code_used', CODE_USED)
  : new HttpError(400, 'totp_code_used', CODE_USED, { errors: [{ path: field, message: 'Was just used; wait for the next code' }] }));
const wrongCode = (field: string) => new HttpError(400, 'invalid_code', 'The code is not correct, already used or expired',
  { errors: [{ path: field, message: 'Is not a current authenticator code or an unused recovery code' }] });

export interface AuthRouteServices {
  twoFactor: TwoFactorService;
  mailer: Mailer;
  recovery: PasswordRecovery;
}

// A 409 (the probe's state, not the request, is in the way), as the other refusals of a feature that is
// off; not a 5xx, since nothing failed.
const emailOff = () => new HttpError(409, 'smtp_not_configured',
  `Password recovery by e-mail is off: no SMTP server is configured (smtp.host). ${LOCAL_RECOVERY}`,
  { extra: { email_enabled: false, local_recovery: LOCAL_RECOVERY } });

export function authRoutes(svc: AuthServices, extra: AuthRouteServices): AnyRoute[] {
  const { twoFactor, mailer, recovery } = extra;
  const twoFactorRequired = (ctx: RequestCtx) => ctx.app.config.get().two_factor.required_for_admins;

  /** Consumes a second-factor code in `tx`; a code used meanwhile by a concurrent request aborts it. */
  const claim = (m: CodeMatch, tx: Parameters<CodeMatch['claim']>[0], field: string) => {
    if (m.claim(tx)) return;
    if (m.kind === 'totp') throw codeUsed(field);
    throw field === 'totp_code' ? new HttpError(401, 'invalid_totp', 'The code is not correct, already used or expired') : wrongCode(field);
  };

  return [
    route({
      method: 'GET', path: '/api/auth/session', auth: 'none', tag: 'auth',
      summary: 'Whether the request is signed in: {signed_in: false}, or GET /api/me\'s answer with signed_in true',
      description: 'For the web app\'s first load: a signed-out browser gets a 200 instead of a 401 it would log as a ' +
        'failed request. It takes no input and tells only the caller about its own cookie or key, so it reveals no ' +
        'other account or session; an invalid, expired or absent session is simply signed_in false.',
      response: SessionResponse,
      handler: (ctx) => {
        const me = whoIs(svc, ctx.principal);
        return me ? { signed_in: true as const, ...me } : { signed_in: false as const };
      },
    }),
    route({
      method: 'POST', path: '/api/auth/login', auth: 'none', tag: 'auth',
      summary: 'Sign in with username and password (and a TOTP or recovery code when 2FA is on); sets the np_session cookie',
      description: 'Rate limited per username at one address (auth.login_max_failures within auth.login_window_minutes ' +
        'locks that username out from that address for auth.lockout_minutes: 429 with Retry-After, even with the right ' +
        'password), and per address and per username alone at ten times that. Every attempt is counted as it arrives; a ' +
        'right password is not counted. A disabled account gets the same 401 as a wrong password. ' +
        'Signed in is 200 `{signed_in: true, user, …}` with the cookie. A step after a right password is 200 ' +
        '`{signed_in: false, step, detail}` without a cookie: with two-factor sign-in on, the right password without ' +
        '`totp_code` answers step `totp_required`; the second request repeats username and password with `totp_code` ' +
        '(six digits, or a recovery code). A wrong or expired code is 401 `invalid_totp` and counts like a wrong password; ' +
        'a code that was right but already used is 401 `totp_code_used` (wait for the next code) and is not counted. A ' +
        'temporary password from POST /api/auth/forgot-password answers step `password_change_required` (after the TOTP ' +
        'step when 2FA is on); the same request with `new_password` sets it (400 naming `new_password` when it breaks the ' +
        'policy), retires the temporary password, ends the other sessions and signs in. `new_password` with the real ' +
        'password is a 400.',
      body: LoginBody, response: LoginResponse,
      // One person's mistakes lock only their account at their address; an address (a whole office behind
      // NAT) or an account tried from many addresses is locked only at ten times that.
      rateLimit: {
        bucket: 'login', by: ['ip+body.username', 'ip', 'body.username'], wide: ['ip', 'body.username'], what: 'sign-in attempts',
      },
      handler: async (ctx) => {
        const { username, password, totp_code, new_password } = ctx.body;
        const user = svc.users.getByUsername(username);
        // Always a full scrypt, known user or not, so timing does not reveal which usernames exist.
        const real = await verifyPassword(password, user?.password_hash ?? null);
        // A pending temporary password (password recovery) is a second candidate; the real one stays valid.
        const temp = user && !real && !user.disabled ? svc.temporary.pending(user.id) : null;
        const viaTemp = !!temp && (await verifyPassword(password, temp.hash));
        const ok = real || viaTemp;
        const fail = async (reason: string, target: string, userId: string | null) => {
          const locked = ctx.rateLimit!.failure();
          await ctx.app.audit.record({
            ...ctx.auditEntry('auth.login', target, { reason, ...(locked ? { locked_out: true } : {}) }, 'failure'),
            actor: null, actor_user_id: userId,
          });
        };
        const usedCode = (target: string, userId: string) => ctx.app.audit.record({
          ...ctx.auditEntry('auth.login', target, { reason: 'totp_code_used' }, 'failure'), actor: null, actor_user_id: userId,
        });
        if (!user || !ok || user.disabled) {
          await fail(!user ? 'unknown_user' : !ok ? 'wrong_password' : 'disabled', username.slice(0, 64), user?.id ?? null);
          throw badCredentials();
        }
        if (new_password !== undefined && !viaTemp) {
          throw new HttpError(400, 'validation_failed', 'A new password is set at sign-in only with a temporary password', {
            errors: [{ path: 'new_password', message: 'Only with a temporary password; change your password in your account settings' }],
          });
        }
        let second: CodeMatch | null = null;
        if (twoFactor.isEnabled(user.id)) {
          if (totp_code === undefined) return step('totp_required', 'Enter the code from your authenticator app, or a recovery code');
          const m = twoFactor.check(user.id, totp_code);
          if (m === 'used') {
            await usedCode(user.username, user.id);
            throw codeUsed('totp_code');
          }
          if (!m) {
            await fail('wrong_totp', user.username, user.id);
            throw new HttpError(401, 'invalid_totp', 'The code is not correct, already used or expired');
          }
          second = m;
        }
        if (viaTemp) {
          if (new_password === undefined) {
            return step('password_change_required',
              'This is a temporary password: choose a new password (send it as new_password with the same sign-in)');
          }
          const policy = passwordPolicyErrors(new_password, user.username, 'new_password');
          if (new_password === password) policy.push({ path: 'new_password', message: 'Must not be the temporary password' });
          if (policy.length) {
            throw new HttpError(400, 'validation_failed', 'The new password does not meet the password policy', { errors: policy });
          }
          // Claimed once: a concurrent request with the same temporary password finds it gone.
          if (!(await svc.temporary.removeIf(user.id, temp!.hash))) {
            await fail('wrong_password', user.username, user.id);
            throw badCredentials();
          }
          await svc.users.update(user.id, { password: new_password }, {
            also: (tx, r) => ctx.app.audit.insert(tx, {
              ...ctx.auditEntry('user.update', user.username, { id: user.id, fields: r.changed, via: 'temporary_password' }),
              actor: user.username, actor_user_id: user.id,
            }),
          });
        }
        // The account at this address starts afresh; the wide counts only lose this attempt (they may be
        // an attacker's many names, or many addresses).
        ctx.rateLimit!.success('ip+body.username');
        if (!viaTemp && needsRehash(user.password_hash)) {
          await svc.users.rehash(user.id, password).catch((e) => ctx.log.warn('password rehash failed', { err: e as Error }));
        }
        const first = viaTemp ? 'temporary_password' : 'password';
        const method = !second ? first : second.kind === 'totp' ? `${first}+totp` : `${first}+recovery_code`;
        let s;
        try {
          s = await svc.sessions.create(user.id, { ip: ctx.ip, userAgent: ctx.req.headers['user-agent'] ?? null }, (tx) => {
            if (second) claim(second, tx, 'totp_code');
            ctx.app.audit.insert(tx, {
              ...ctx.auditEntry('auth.login', user.username, { method, ...(user.one_time ? { one_time: true } : {}) }),
              actor: user.username, actor_user_id: user.id,
            });
          });
        } catch (e) {
          if (e instanceof HttpError && e.code === 'totp_code_used') await usedCode(user.username, user.id);
          throw e;
        }
        const fresh = svc.users.get(user.id)!;
        const secure = isSecureRequest(ctx.req, ctx.app.config.get().server.trust_proxy);
        return reply(200, { signed_in: true as const, user: fresh, expires_at: s.expires_at, bootstrap_needed: svc.bootstrap.needed() },
          { 'Set-Cookie': sessionCookie(s.token, s.max_age, secure) });
      },
    }),

    // ---- password recovery ------------------------------------------------------------------------

    route({
      method: 'GET', path: '/api/auth/forgot-password', auth: 'none', tag: 'auth',
      summary: 'Whether password recovery by e-mail is on, and how to recover a password locally',
      response: RecoveryStatus,
      handler: () => ({
        email_enabled: mailer.configured(), temporary_password_minutes: TEMP_PASSWORD_TTL_MS / 60_000, local_recovery: LOCAL_RECOVERY,
      }),
    }),

    route({
      method: 'POST', path: '/api/auth/forgot-password', auth: 'none', tag: 'auth', status: 202,
      summary: 'Send a temporary password (valid 30 minutes, to be changed at sign-in) to the e-mail address of an account',
      description: 'Give `username` or `email`. The answer is the same, in the same time, whether or not the account exists ' +
        'or has an address: 202 with a fixed body; the message is sent afterwards (GET /api/dev/emails/recent shows the ' +
        'outcome). The current password and sessions stay valid until the temporary password is used. Every request counts: ' +
        'auth.login_max_failures per address and per username or address given within auth.login_window_minutes, then 429; ' +
        'per account as many messages at most, more are dropped silently. 409 `smtp_not_configured` (with `local_recovery`) ' +
        'when no SMTP server is configured: nothing is sent.',
      body: ForgotBody, response: ForgotResponse,
      rateLimit: { bucket: 'forgot-password', by: ['ip', 'body.username', 'body.email'], what: 'password recovery requests' },
      handler: async (ctx) => {
        if (!mailer.configured()) throw emailOff();
        ctx.rateLimit!.failure(); // every request counts, whatever it asked for
        await recovery.request(ctx.body, (target, details, outcome) =>
          ({ ...ctx.auditEntry('auth.password_reset', target, details, outcome), actor: null }));
        return reply(202, FORGOT_ACCEPTED);
      },
    }),

    route({
      method: 'POST', path: '/api/auth/logout', auth: 'user', tag: 'auth',
      summary: 'Sign out: ends the current session and clears the cookie (a no-op for API keys)',
      handler: async (ctx) => {
        const p = ctx.principal!;
        if (p.kind !== 'session' || !p.session_id) return undefined;
        await svc.sessions.destroy(p.session_id, (tx) => ctx.app.audit.insert(tx, ctx.auditEntry('auth.logout', p.user.username)));
        const secure = isSecureRequest(ctx.req, ctx.app.config.get().server.trust_proxy);
        return reply(204, undefined, { 'Set-Cookie': clearSessionCookie(secure) });
      },
    }),

    // ---- two-factor sign-in ---------------------------------------------------------------------

    route({
      method: 'GET', path: '/api/auth/2fa/status', auth: 'user', tag: 'auth',
      summary: "Whether two-factor sign-in is on for the caller, and whether it is required for administrators",
      description: '`required` is true when the caller is an administrator and two_factor.required_for_admins is set.',
      response: TwoFactorStatusResponse,
      handler: (ctx) => {
        const p = ctx.principal!;
        const requiredForAdmins = twoFactorRequired(ctx);
        const required = requiredForAdmins && p.user.role === 'admin';
        return { ...twoFactor.status(p.user.id), required_for_admins: requiredForAdmins, required };
      },
    }),

    route({
      method: 'POST', path: '/api/auth/2fa/enroll', admin: true, tag: 'auth',
      summary: "Start TOTP enrolment of the caller's own account (admin): secret, otpauth:// URI and a QR code (SVG)",
      description: 'Needs `current_password`. The enrolment stays pending until POST /api/auth/2fa/confirm proves a code; ' +
        'enrolling again while pending replaces the secret; 409 `two_factor_enabled` while it is on. The secret is shown ' +
        'only in this response and stored sealed with the machine key. SHA-1, 6 digits, 30-second steps.',
      body: EnrollBody, response: EnrollResponse,
      rateLimit: { bucket: 'password', by: ['user'], what: 'password checks' },
      handler: async (ctx) => {
        const p = ctx.principal!;
        const me = svc.users.row(p.user.id);
        if (!me) throw notFound('User');
        if (!(await verifyPassword(ctx.body.current_password, me.password_hash))) {
          ctx.rateLimit!.failure();
          await ctx.audit('auth.2fa.enroll', me.username, { reason: 'wrong_current_password' }, 'failure');
          throw new HttpError(400, 'wrong_current_password', 'The current password is not correct',
            { errors: [{ path: 'current_password', message: 'Is not correct' }] });
        }
        const e = await twoFactor.enroll(me.id, me.username);
        await ctx.audit('auth.2fa.enroll', me.username);
        return { ...e, algorithm: 'SHA1' as const, digits: TOTP_DIGITS, period: TOTP_PERIOD_SECONDS };
      },
    }),

    route({
      method: 'POST', path: '/api/auth/2fa/confirm', admin: true, tag: 'auth',
      summary: `Confirm the pending enrolment with a code (admin): turns 2FA on, shows ${RECOVERY_CODE_COUNT} recovery codes once`,
      description: 'A wrong code is 400 `invalid_code` naming `code`, counted against the caller (429 after too many). ' +
        '409 `two_factor_not_pending` when there is no pending enrolment. Each recovery code works once, at sign-in or to disable.',
      body: ConfirmBody, response: ConfirmResponse,
      rateLimit: { bucket: 'totp', by: ['user'], what: 'code checks' },
      handler: async (ctx) => {
        const p = ctx.principal!;
        const codes = await twoFactor.confirm(p.user.id, ctx.body.code,
          (tx) => ctx.app.audit.insert(tx, ctx.auditEntry('auth.2fa.enable', p.user.username)));
        if (!codes) {
          ctx.rateLimit!.failure();
          await ctx.audit('auth.2fa.enable', p.user.username, { reason: 'wrong_code' }, 'failure');
          throw wrongCode('code');
        }
        ctx.rateLimit!.success();
        return { enabled: true as const, recovery_codes: codes };
      },
    }),

    route({
      method: 'POST', path: '/api/auth/2fa/disable', admin: true, tag: 'auth',
      summary: "Turn two-factor sign-in off: your own with a current or recovery code, or reset another user's (admin)",
      description: 'For your own account `code` (a current authenticator code or an unused recovery code) is required; a wrong ' +
        "one is 400 naming `code` and counted against you. With `user_id` of another user, an administrator resets that user's " +
        'second factor without a code (audited as auth.2fa.reset). Also drops a pending enrolment.',
      body: DisableBody, response: DisableResponse,
      rateLimit: { bucket: 'totp', by: ['user'], what: 'code checks' },
      handler: async (ctx) => {
        const p = ctx.principal!;
        const targetId = ctx.body.user_id ?? p.user.id;
        const target = svc.users.row(targetId);
        if (!target) throw notFound('User');
        if (targetId !== p.user.id) {
          if (!isAdmin(p)) throw new HttpError(403, 'forbidden', "Only an administrator can reset another user's second factor");
          await ctx.app.store.write((tx) => {
            const had = twoFactor.remove(tx, targetId);
            ctx.app.audit.insert(tx, ctx.auditEntry('auth.2fa.reset', target.username, { id: target.id, was_set: had }));
          }, 'sync');
          return { enabled: false as const };
        }
        const status = twoFactor.status(targetId);
        if (status.enabled) {
          if (!ctx.body.code) {
            throw new HttpError(400, 'validation_failed', 'Turning two-factor sign-in off needs a current code or a recovery code',
              { errors: [{ path: 'code', message: 'Required' }] });
          }
          const m = twoFactor.check(targetId, ctx.body.code);
          if (m === 'used') {
            await ctx.audit('auth.2fa.disable', target.username, { reason: 'totp_code_used' }, 'failure');
            throw codeUsed('code');
          }
          if (!m) {
            ctx.rateLimit!.failure();
            await ctx.audit('auth.2fa.disable', target.username, { reason: 'wrong_code' }, 'failure');
            throw wrongCode('code');
          }
          await ctx.app.store.write((tx) => {
            claim(m, tx, 'code');
            twoFactor.remove(tx, targetId);
            ctx.app.audit.insert(tx, ctx.auditEntry('auth.2fa.disable', target.username, { with: m.kind }));
          }, 'sync');
          ctx.rateLimit!.success();
        } else if (status.pending) {
          await ctx.app.store.write((tx) => {
            twoFactor.remove(tx, targetId);
            ctx.app.audit.insert(tx, ctx.auditEntry('auth.2fa.disable', target.username, { pending: true }));
          }, 'sync');
        }
        return { enabled: false as const };
      },
    }),
  ];
}
