// What every module gets: the shared services, built once by main.ts (the composition root), and the
// route contract. Imports only types of files that never import this one (test/unit/core-import-cycles.test.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { z } from 'zod';
import type { AuditService } from './audit/index.js';
import type { AuditEntryInput } from './audit/types.js';
import type { AuthServices } from './auth/index.js';
import type { AccessRule, Principal } from './auth/scopes.js';
import type { Clock } from './clock.js';
import type { ConfigSections, ConfigService } from './config/index.js';
import type { EventBus } from './events.js';
import type { JobManager } from './jobs.js';
import type { Logger } from './log.js';
import type { SecretBox } from './secretbox.js';
import type { Migration, Store } from './store/types.js';

export interface AppContext {
  version: string;
  startedAt: number;
  config: ConfigService;
  store: Store;
  bus: EventBus;
  log: Logger;
  clock: Clock;
  jobs: JobManager;
  routes: Routes;
  /** Users, sessions, API keys, rate limiter, first-run bootstrap; `auth.authenticator` resolves callers. */
  auth: AuthServices;
  audit: AuditService;
  /** Seals the service's own secrets at rest with the machine key (`<data dir>/machine.key`); see docs/store.md. */
  secretbox: SecretBox;
  /** Work to run on graceful shutdown, after the HTTP server stops and before the store closes. */
  onShutdown(fn: () => Promise<void> | void): void;
}

/** A feature module: owns its tables (migrations in its version range), routes and services. */
export interface Module {
  name: string;
  /** Modules whose services this one uses; main.ts registers them first and refuses to start without them. */
  needs?: string[];
  /**
   * Modules whose services this one uses when they are registered and does without otherwise (each such
   * lookup is `slot.find(app)` and says what it does without). Not ordered by: looked up after start.
   */
  uses?: string[];
  /** The first path segments after /api/ this module serves besides its name (system: users, auth, ...). */
  segments?: string[];
  /** The configuration sections the module owns, by name (modules/<name>/config.ts). */
  config?: ConfigSections;
  /**
   * Numbered in the range MIGRATION_RANGES (core/store/migrations.ts) gives this module's name: core 1-99,
   * system 100-199, monitors 200-299, brain 300-399, v1sion 400-499, snmp 500-599, webhooks 600-699.
   * Forward-only within that range (a new one goes above the module's newest, whatever other modules
   * have); never edit a shipped migration. See docs/store.md, "Migrations".
   */
  migrations: Migration[];
  /** Adds routes, subscribes to events and creates services. Called in order after the store opens. */
  register(app: AppContext): void | Promise<void>;
  /** Starts schedulers once the HTTP server listens. */
  start?(app: AppContext): void | Promise<void>;
}

// ---- the route contract: every endpoint is declared as data (core/http/registry.ts implements it) ----

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RequestCtx<P = any, Q = any, B = any> {
  params: P;
  query: Q;
  body: B;
  /** Null only on `auth: 'none'` routes when the caller sent no credentials. */
  principal: Principal | null;
  req: IncomingMessage;
  res: ServerResponse;
  ip: string;
  requestId: string;
  app: AppContext;
  log: Logger;
  /** Records a security-relevant action in the audit log with this request's actor and address. */
  audit(action: string, target?: string | null, details?: Record<string, unknown>, outcome?: 'success' | 'failure'): Promise<void>;
  /** The same entry, for app.audit.insert(tx, ...) inside the write transaction that makes the change. */
  auditEntry(action: string, target?: string | null, details?: Record<string, unknown>, outcome?: 'success' | 'failure'): AuditEntryInput;
  /** The attempt counter of a route that declares `rateLimit` (already checked: not locked out). */
  rateLimit?: RateLimitCtx;
}

/**
 * Brute-force protection as route configuration: the HTTP core builds one key per `by` entry
 * (`<bucket>:ip:<address or IPv6 /64>`, `<bucket>:user:<caller id>`, `<bucket>:<field>:<body field, lower case>`,
 * `<bucket>:ip+<field>:<address>|<body field>`) and answers 429 with Retry-After while any is locked out.
 * Each request is counted before its handler runs; the handler's `failure()` keeps it counted, anything
 * else refunds it when the request ends.
 */
export interface RateLimitRule {
  bucket: string;
  by: ('ip' | 'user' | `body.${string}` | `ip+body.${string}`)[];
  /** Kinds counted against WIDE_FACTOR times the limit (an address shared by an office, an account from anywhere). */
  wide?: RateLimitRule['by'];
  /** What is counted, for the 429's detail ("sign-in attempts"). */
  what: string;
  /**
   * The service counts its own failures in the order it verifies them (the vault's serial queue): the
   * core only checks for a lockout and counts nothing.
   */
  countedByService?: boolean;
  /** Requests that prove themselves otherwise (setup from the probe itself) are neither checked nor counted. */
  exempt?: (ctx: RequestCtx) => boolean;
}

export interface RateLimitCtx {
  keys: string[];
  /** The keys of these kinds only. */
  keysOf(...kinds: RateLimitRule['by']): string[];
  /** Keeps this request counted as a failed attempt; true when counting it started a lockout. */
  failure(): boolean;
  /** Refunds this request and forgets the failures of the keys of these kinds (all when none given): a success. */
  success(...kinds: RateLimitRule['by']): void;
  /** Refunds this request: it was not a guess (what happens anyway when the handler neither fails nor succeeds). */
  refund(): void;
}

export interface RouteDef<P extends z.ZodType = z.ZodType, Q extends z.ZodType = z.ZodType, B extends z.ZodType = z.ZodType>
  extends AccessRule {
  method: Method;
  path: string;
  summary: string;
  /** OpenAPI tag; defaults to the path segment after /api. */
  tag?: string;
  description?: string;
  params?: P;
  query?: Q;
  body?: B;
  /**
   * The schema the handler applies to the body for these path parameters, when `body` takes more (the
   * inventory's one route for every type): what GET /api/request-schema gives a form to check before sending.
   */
  bodySchemaFor?: (params: Record<string, string>) => z.ZodType | undefined;
  /** Documents the 2xx JSON body in OpenAPI. */
  response?: z.ZodType;
  /** Status of a successful response, for OpenAPI (default 200, or 204 when there is no response). */
  status?: number;
  /** Non-JSON success content type for OpenAPI (text/event-stream, text/csv, application/yaml). */
  produces?: string;
  /** Request content types accepted besides application/json (e.g. multipart or raw uploads). */
  consumes?: string[];
  /** Body limit in bytes (default from config http.json_limit_kb). */
  bodyLimit?: number;
  /** The handler reads the body itself (uploads); no JSON parsing is done. */
  rawBody?: boolean;
  /** Counts failed attempts (passwords, codes) and refuses with 429 while locked out; see RateLimitRule. */
  rateLimit?: RateLimitRule;
  /**
   * For an `auth: 'none'` route: while this returns true (a config key, read per request), the route
   * needs a signed-in caller with `scope` like any other route.
   */
  authRequiredIf?: (app: AppContext) => boolean;
  /**
   * Returns the JSON body (200), a Reply, or undefined (204). A handler that writes to ctx.res itself
   * (SSE, CSV, files) returns nothing after ending or streaming the response.
   */
  handler: (ctx: RequestCtx<z.infer<P>, z.infer<Q>, z.infer<B>>) => unknown | Promise<unknown>;
  /** Stamped by route(): the file that declared the route (src/...ts), so a path leads to its code. */
  file?: string;
  /** Stamped by route(): the module of that file (modules/<name>/), or core. */
  module?: string;
}

export type AnyRoute = RouteDef<any, any, any>;

/** The route table every module adds to; the HTTP core matches requests against it. */
export interface Routes {
  add(...defs: AnyRoute[]): void;
  all(): readonly AnyRoute[];
  match(method: string, path: string): { route?: AnyRoute; params: Record<string, string>; allowed: Method[] };
}
