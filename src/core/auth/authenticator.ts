// Who is calling: an X-API-Key header wins over the session cookie (a script may run in a browser that
// also holds a session; the explicit credential is the one it meant). No credentials -> null; bad ones
// -> 401, never a silent fallback to anonymous.
import type { IncomingMessage } from 'node:http';
import type { ConfigService } from '../config/index.js';

import { clientIp } from '../net.js';
import { HttpError } from '../errors.js';
import type { ApiKeyService } from './apikeys.js';
import { keyScopes, roleScopes, type Principal } from './scopes.js';
import { readCookie, SESSION_COOKIE, type SessionService } from './sessions.js';
import type { Authenticator } from './types.js';

export function createAuthenticator(deps: {
  sessions: SessionService;
  apiKeys: ApiKeyService;
  config: Pick<ConfigService, 'get'>;
}): Authenticator {
  return {
    async authenticate(req: IncomingMessage): Promise<Principal | null> {
      const header = req.headers['x-api-key'];
      const presented = Array.isArray(header) ? header[0] : header;
      if (presented !== undefined) {
        const r = await deps.apiKeys.resolve(presented.trim(), clientIp(req, deps.config.get().server.trust_proxy));
        if (r.status !== 'ok') {
          const why = r.status === 'expired' ? 'The API key has expired'
            : r.status === 'owner_disabled' ? "The API key's owner is disabled"
            : 'The API key is invalid or has been revoked';
          throw new HttpError(401, 'invalid_api_key', why);
        }
        const { key, owner } = r;
        return {
          kind: 'api_key',
          user: { id: owner.id, username: owner.username, role: owner.role },
          scopes: keyScopes(key.scopeList, owner.role),
          key_id: key.id,
          actor: `${owner.username} (key ${key.name})`,
        };
      }

      const token = readCookie(req, SESSION_COOKIE);
      if (token) {
        const s = await deps.sessions.resolve(token);
        if (!s) throw new HttpError(401, 'session_expired', 'Your session has expired or was ended; sign in again');
        return {
          kind: 'session',
          user: { id: s.user.id, username: s.user.username, role: s.user.role },
          scopes: roleScopes(s.user.role),
          session_id: s.session.id,
          actor: s.user.username,
        };
      }
      return null;
    },
  };
}
