// Who may read GET /metrics. Prometheus (2.42 in Debian 12) can send a bearer token but no custom header,
// so besides the usual callers (a session or X-API-Key holding system:read, resolved by the HTTP core)
// this accepts `Authorization: Bearer <token>` where the token is either the configured
// `system.metrics_token` or an API key holding system:read. Nothing else is read by it.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestCtx } from '../../../core/context.js';
import { HttpError, forbidden } from '../../../core/errors.js';
import { denyReason, keyScopes } from '../../../core/auth/scopes.js';
import { clientIp } from '../../../core/net.js';

export const METRICS_SCOPE = 'system:read' as const;

const digest = (s: string) => createHash('sha256').update(s).digest();

const needAuth = (detail: string) => new HttpError(401, 'unauthenticated', detail,
  { headers: { 'WWW-Authenticate': 'Bearer realm="netprobe metrics"' } });

/** Resolves when the caller may read the metrics; throws 401 or 403 otherwise. */
export async function authorizeMetrics(ctx: RequestCtx): Promise<void> {
  const { app, principal, req } = ctx;
  if (principal) {
    const why = denyReason(principal, { scope: METRICS_SCOPE });
    if (why) throw forbidden(why);
    return;
  }
  const header = req.headers.authorization;
  const bearer = header ? /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] : undefined;
  if (!bearer) {
    throw needAuth('Metrics need a bearer token (system.metrics_token, or an API key with system:read), an X-API-Key or a session');
  }
  const token = app.config.get().system.metrics_token;
  if (token && timingSafeEqual(digest(bearer), digest(token))) return;
  if (bearer.startsWith('np_')) {
    const r = await app.auth.apiKeys.resolve(bearer, clientIp(req, app.config.get().server.trust_proxy));
    if (r.status === 'ok') {
      if (!keyScopes(r.key.scopeList, r.owner.role).has(METRICS_SCOPE)) throw forbidden(`This API key lacks the ${METRICS_SCOPE} scope`);
      return;
    }
  }
  throw needAuth('The bearer token is neither the metrics token nor a valid API key');
}
