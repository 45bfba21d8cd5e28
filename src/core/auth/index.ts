// The authentication services, built once by main.ts and carried on AppContext.auth: users, sessions,
// API keys, the rate limiter, first-run bootstrap and the Authenticator the HTTP core calls.
import type { Clock } from '../clock.js';
import type { ConfigService } from '../config/index.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/types.js';
import { ApiKeyService } from './apikeys.js';
import { createAuthenticator } from './authenticator.js';
import { BootstrapService } from './bootstrap.js';
import { RateLimiter } from './ratelimit.js';
import type { Principal } from './scopes.js';
import { SessionService } from './sessions.js';
import { TemporaryPasswordService } from './temporary.js';
import type { Authenticator } from './types.js';
import { UserService } from './users.js';

export interface AuthServices {
  users: UserService;
  sessions: SessionService;
  apiKeys: ApiKeyService;
  /** Shared by login, the bootstrap setup code and (later) the vault passphrase; keys are namespaced. */
  limiter: RateLimiter;
  authenticator: Authenticator;
  bootstrap: BootstrapService;
  /** Temporary passwords sent by password recovery (docs/auth.md). */
  temporary: TemporaryPasswordService;
  /**
   * Checks run after a route's own access rule, for every signed-in caller: each returns why the request
   * is refused (a 403 with that code and detail) or null. Modules add them (the system module: two-factor
   * enrolment required for administrators).
   */
  guards: RequestGuard[];
  /** Starts the hourly purge of expired sessions and stale limiter entries; returns the stop function. */
  startMaintenance(): () => void;
}

const MAINTENANCE_EVERY_MS = 60 * 60_000;

/** A check of a signed-in caller against a route, after the route's access rule (AuthServices.guards). */
export type RequestGuard = (p: Principal, route: { method: string; path: string }) => { code: string; detail: string } | null;

export function createAuth(app: { store: Store; config: ConfigService; clock: Clock; log: Logger }): AuthServices {
  const { store, config, clock, log } = app;
  const auth = () => config.get().auth;
  // The user service tells bootstrap (declared below; called only later) when the one-time admin is
  // gone, so that it removes the password file.
  const users: UserService = new UserService(store, clock, (): Promise<void> => bootstrap.removePasswordFile());
  const sessions = new SessionService(store, clock,
    () => ({ ttlHours: auth().session_ttl_hours, idleMinutes: auth().session_idle_minutes }));
  const apiKeys = new ApiKeyService(store, clock);
  const limiter = new RateLimiter(clock, () => ({
    maxFailures: auth().login_max_failures,
    windowMs: auth().login_window_minutes * 60_000,
    lockoutMs: auth().lockout_minutes * 60_000,
  }));
  const bootstrap: BootstrapService = new BootstrapService({ store, clock, log, users, dataDir: config.dataDir });
  const authenticator = createAuthenticator({ sessions, apiKeys, config });
  const temporary = new TemporaryPasswordService(store, clock);

  return {
    users, sessions, apiKeys, limiter, authenticator, bootstrap, temporary, guards: [],
    startMaintenance() {
      let timer: { cancel(): void } | undefined;
      let stopped = false;
      const tick = () => {
        limiter.prune();
        temporary.purgeExpired().catch((e) => log.error('temporary password purge failed', { err: e as Error }));
        sessions.purgeExpired()
          .then((n) => { if (n) log.debug('expired sessions purged', { count: n }); })
          .catch((e) => log.error('session purge failed', { err: e as Error }))
          .finally(() => { if (!stopped) timer = clock.setTimeout(tick, MAINTENANCE_EVERY_MS); });
      };
      timer = clock.setTimeout(tick, MAINTENANCE_EVERY_MS);
      return () => { stopped = true; timer?.cancel(); };
    },
  };
}

export type { ApiKeyService, PublicApiKey } from './apikeys.js';
export type { BootstrapService } from './bootstrap.js';
export type { RateLimiter } from './ratelimit.js';
export type { SessionService } from './sessions.js';
export type { TemporaryPasswordService } from './temporary.js';
export type { PublicUser, UserService } from './users.js';
export type { Authenticator } from './types.js';

/** Whether a caller may act as an administrator: the admin role, and through a key also the admin scope. */
export function isAdmin(p: Principal | null | undefined): boolean {
  return !!p && p.user.role === 'admin' && p.scopes.has('admin');
}
