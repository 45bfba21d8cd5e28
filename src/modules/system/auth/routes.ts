// Sign-in and sign-out for the web interface.
import { z } from 'zod';
import type { AuthServices } from '../../../core/auth/index.js';
import { needsRehash, verifyPassword } from '../../../core/auth/passwords.js';
import { clearSessionCookie, isSecureRequest, sessionCookie } from '../../../core/auth/sessions.js';
import { PublicUserSchema } from '../../../core/auth/users.js';
import { HttpError } from '../../../core/errors.js';
import { reply, route, type AnyRoute } from '../../../core/http/registry.js';

const LoginBody = z.strictObject({
  username: z.string().min(1).max(200),
  password: z.string().min(1).max(1000),
});

const LoginResponse = z.object({
  user: PublicUserSchema,
  expires_at: z.string(),
  bootstrap_needed: z.boolean(),
});

const badCredentials = () => new HttpError(401, 'invalid_credentials', 'Wrong username or password');

export function authRoutes(svc: AuthServices): AnyRoute[] {
  return [
    route({
      method: 'POST', path: '/api/auth/login', auth: 'none', tag: 'auth',
      summary: 'Sign in with username and password; sets the np_session cookie',
      description: 'Rate limited per address and per username (auth.login_max_failures within auth.login_window_minutes ' +
        'locks out for auth.lockout_minutes: 429 with Retry-After). A disabled account gets the same 401 as a wrong password.',
      body: LoginBody, response: LoginResponse,
      rateLimit: { bucket: 'login', by: ['ip', 'body.username'], what: 'sign-in attempts' },
      handler: async (ctx) => {
        const { username, password } = ctx.body;
        const user = svc.users.getByUsername(username);
        // Always a full scrypt, known user or not, so timing does not reveal which usernames exist.
        const ok = await verifyPassword(password, user?.password_hash ?? null);
        if (!user || !ok || user.disabled) {
          const locked = ctx.rateLimit!.failure();
          const reason = !user ? 'unknown_user' : !ok ? 'wrong_password' : 'disabled';
          await ctx.app.audit.record({
            ...ctx.auditEntry('auth.login', username.slice(0, 64), { reason, ...(locked ? { locked_out: true } : {}) }, 'failure'),
            actor: null, actor_user_id: user?.id ?? null,
          });
          throw badCredentials();
        }
        ctx.rateLimit!.success('body.username'); // the address keeps its count: it may be trying many names
        if (needsRehash(user.password_hash)) {
          await svc.users.rehash(user.id, password).catch((e) => ctx.log.warn('password rehash failed', { err: e as Error }));
        }
        const s = await svc.sessions.create(user.id, { ip: ctx.ip, userAgent: ctx.req.headers['user-agent'] ?? null }, (tx) => {
          ctx.app.audit.insert(tx, {
            ...ctx.auditEntry('auth.login', user.username, { method: 'password', ...(user.one_time ? { one_time: true } : {}) }),
            actor: user.username, actor_user_id: user.id,
          });
        });
        const fresh = svc.users.get(user.id)!;
        const secure = isSecureRequest(ctx.req, ctx.app.config.get().server.trust_proxy);
        return reply(200, { user: fresh, expires_at: s.expires_at, bootstrap_needed: svc.bootstrap.needed() },
          { 'Set-Cookie': sessionCookie(s.token, s.max_age, secure) });
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
  ];
}
