// two_factor.required_for_admins, enforced: an administrator who signs in to the web interface without a
// second factor may enroll one (and sign out, read who they are), and nothing else until it is confirmed.
// Signing in itself still works, or the requirement would lock out the very person who has to meet it.
// API keys are not affected: they are made by an administrator for automation and carry their own scopes.
import type { Principal } from '../../../core/auth/scopes.js';
import type { RequestGuard } from '../../../core/auth/index.js';

/** What an administrator without a second factor may still call: enrolment, and the basics around it. */
const ALLOWED = new Set([
  'GET /api/auth/2fa/status', 'POST /api/auth/2fa/enroll', 'POST /api/auth/2fa/confirm', 'POST /api/auth/logout',
  'GET /api/me', 'GET /api/version', 'GET /api/web-identity',
]);

export function twoFactorRequiredGuard(required: () => boolean, enabled: (userId: string) => boolean): RequestGuard {
  return (p: Principal, route) => {
    if (p.kind !== 'session' || p.user.role !== 'admin' || !required()) return null;
    if (ALLOWED.has(`${route.method} ${route.path}`) || enabled(p.user.id)) return null;
    return {
      code: 'two_factor_enrollment_required',
      detail: 'Two-factor sign-in is required for administrators on this probe (two_factor.required_for_admins): enroll an ' +
        'authenticator (POST /api/auth/2fa/enroll, then /confirm) before doing anything else',
    };
  };
}
