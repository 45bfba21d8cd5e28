// User administration, and self-service for every signed-in user on their own record.
import { z } from 'zod';
import { isAdmin, type AuthServices } from '../../../core/auth/index.js';
import { refinePasswordPolicy, verifyPassword } from '../../../core/auth/passwords.js';
import { ROLES } from '../../../core/auth/scopes.js';
import { DisplayName, Email, PublicUserSchema, Username, type UserPatch } from '../../../core/auth/users.js';
import { forbidden, HttpError, notFound } from '../../../core/errors.js';
import { reply, route, type AnyRoute } from '../../../core/http/registry.js';
import { listOf, paging } from '../../../core/http/schemas.js';
import type { Mailer } from '../auth/mailer.js';
import { noticeEmailChange } from './email-notice.js';

const IdParams = z.object({ id: z.uuid() });
const ListQuery = z.object({
  ...paging(500, 50),
});
const UserList = listOf(PublicUserSchema);

const CreateBody = z.strictObject({
  username: Username,
  password: z.string(),
  role: z.enum(ROLES),
  display_name: DisplayName.nullish(),
  email: Email.nullish(),
}).superRefine(refinePasswordPolicy);

const UpdateBody = z.strictObject({
  display_name: DisplayName.nullable().optional(),
  email: Email.nullable().optional(),
  role: z.enum(ROLES).optional(),
  disabled: z.boolean().optional(),
  password: z.string().optional(),
  /** The caller's own password: required when changing your own password or anyone's e-mail address. */
  current_password: z.string().max(1000).optional(),
});

export function userRoutes(svc: AuthServices, mailer: Mailer): AnyRoute[] {
  return [
    route({
      method: 'GET', path: '/api/users', admin: true,
      summary: 'List users', query: ListQuery, response: UserList,
      handler: (ctx) => svc.users.list(ctx.query),
    }),

    route({
      method: 'POST', path: '/api/users', admin: true, status: 201,
      summary: 'Create a user', body: CreateBody, response: PublicUserSchema,
      description: 'Passwords need 10 to 200 characters and must differ from the username. 409 `username_taken` ' +
        'when the username exists (compared without regard to case).',
      handler: async (ctx) => {
        const b = ctx.body;
        const user = await svc.users.create(
          { username: b.username, password: b.password, role: b.role, display_name: b.display_name ?? null, email: b.email ?? null },
          (tx, u) => ctx.app.audit.insert(tx, ctx.auditEntry('user.create', u.username, { id: u.id, role: u.role })),
        );
        return reply(201, user);
      },
    }),

    route({
      method: 'GET', path: '/api/users/:id', scope: 'system:read', self: true,
      summary: 'One user (administrators: anyone; others: themselves)',
      params: IdParams, response: PublicUserSchema,
      handler: (ctx) => {
        const p = ctx.principal!;
        if (!isAdmin(p) && ctx.params.id !== p.user.id) throw forbidden('You can only view your own account');
        const user = svc.users.get(ctx.params.id);
        if (!user) throw notFound('User');
        return user;
      },
    }),

    route({
      method: 'PUT', path: '/api/users/:id', scope: 'system:write', self: true,
      summary: 'Update a user (administrators: anyone; others: their own name, e-mail and password)',
      description: 'Changing your own password needs `current_password` and ends your other sessions; an administrator ' +
        "setting another user's password does not need it and ends all of that user's sessions. Changing an e-mail address " +
        "(yours, or an administrator changing anyone's) needs a signed-in session (403 `session_required` through an API " +
        "key: with password recovery the address controls the account) and the caller's own `current_password`; a notice " +
        'goes to the previous address. A wrong `current_password` is 400 `wrong_current_password` and counted (429 after ' +
        'auth.login_max_failures). Non-administrators ' +
        'cannot change their own role or disabled flag (403). The last enabled administrator cannot be demoted or ' +
        'disabled (409 `last_admin`).',
      params: IdParams, body: UpdateBody, response: PublicUserSchema,
      // Counts wrong current passwords of the caller, so a stolen session cannot guess the password.
      rateLimit: { bucket: 'password', by: ['user'], what: 'password checks' },
      handler: async (ctx) => {
        const p = ctx.principal!;
        const self = ctx.params.id === p.user.id;
        const admin = isAdmin(p);
        if (!admin && !self) throw forbidden('You can only change your own account');
        const cur = svc.users.row(ctx.params.id);
        if (!cur) throw notFound('User');
        const { current_password, ...patch } = ctx.body;
        if (!admin) {
          if (patch.role !== undefined && patch.role !== cur.role) throw forbidden('You cannot change your own role');
          if (patch.disabled !== undefined && patch.disabled !== !!cur.disabled)
            throw forbidden('You cannot disable or enable your own account');
        }
        const emailChange = patch.email !== undefined && patch.email !== cur.email;
        if (emailChange && p.kind !== 'session') {
          throw new HttpError(403, 'session_required', 'Changing an e-mail address needs a signed-in session with the current ' +
            'password, not an API key: password recovery sends to that address');
        }
        // What proves the caller is who the session says: their own password, not the target's.
        const guarded = [...(patch.password !== undefined && self ? ['password'] : []), ...(emailChange ? ['email'] : [])];
        if (guarded.length) {
          if (!current_password) {
            const what = guarded.includes('password') ? 'your own password' : 'an e-mail address';
            throw new HttpError(400, 'validation_failed', `Changing ${what} needs your current password`,
              { errors: [{ path: 'current_password', message: `Required when changing ${what}` }] });
          }
          const mine = self ? cur : svc.users.row(p.user.id);
          if (!mine || !(await verifyPassword(current_password, mine.password_hash))) {
            ctx.rateLimit!.failure();
            await ctx.audit('user.update', cur.username, { id: cur.id, fields: guarded, reason: 'wrong_current_password' }, 'failure');
            throw new HttpError(400, 'wrong_current_password', 'The current password is not correct',
              { errors: [{ path: 'current_password', message: 'Is not correct' }] });
          }
          ctx.rateLimit!.success();
        }
        // The previous address hears of the change (audited as what was done about it).
        const notice = emailChange && cur.email ? (mailer.configured() ? 'queued' : 'smtp_not_configured') : null;
        const { user } = await svc.users.update(cur.id, patch as UserPatch, {
          keepSessionId: self && p.kind === 'session' ? p.session_id : undefined,
          also: (tx, r) => ctx.app.audit.insert(tx, ctx.auditEntry('user.update', r.user.username,
            { id: r.user.id, fields: r.changed, ...(notice ? { old_email_notice: notice } : {}) })),
        });
        if (notice) noticeEmailChange(ctx.app, mailer, { username: cur.username, oldEmail: cur.email!, by: p.user.username, ip: ctx.ip });
        return user;
      },
    }),

    route({
      method: 'DELETE', path: '/api/users/:id', admin: true,
      summary: 'Delete a user with their sessions and API keys',
      description: 'The last enabled administrator cannot be deleted (409 `last_admin`); deleting yourself is allowed ' +
        'while another administrator remains.',
      params: IdParams,
      handler: async (ctx) => {
        await svc.users.delete(ctx.params.id,
          (tx, u) => ctx.app.audit.insert(tx, ctx.auditEntry('user.delete', u.username, { id: u.id, role: u.role })));
        return undefined;
      },
    }),
  ];
}
