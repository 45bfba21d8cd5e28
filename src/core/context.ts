// What every module gets: the shared services, built once by main.ts (the composition root).
import type { IncomingMessage } from 'node:http';
import type { AuthServices } from './auth/index.js';
import type { Principal } from './auth/scopes.js';
import type { AuditService } from './audit.js';
import type { Clock } from './clock.js';
import type { ConfigService } from './config.js';
import type { EventBus } from './events.js';
import type { RouteRegistry } from './http/registry.js';
import type { JobManager } from './jobs.js';
import type { Logger } from './log.js';
import type { SecretBox } from './secretbox.js';
import type { Migration, Store, Tx } from './store/types.js';

/** Resolves the caller of a request from its session cookie or X-API-Key header. */
export interface Authenticator {
  /** null when the request carries no credentials; throws HttpError 401 when they are invalid or expired. */
  authenticate(req: IncomingMessage): Promise<Principal | null>;
}

export interface AuditEntryInput {
  action: string;
  actor: string | null;
  actor_user_id?: string | null;
  source_ip?: string | null;
  target?: string | null;
  outcome?: 'success' | 'failure';
  details?: Record<string, unknown>;
}

export interface AuditLog {
  /** Records an entry in its own fsynced write. */
  record(entry: AuditEntryInput): Promise<void>;
  /** Records an entry inside a caller's write transaction, so the change and its audit land together. */
  insert(tx: Tx, entry: AuditEntryInput): void;
}

export interface AppContext {
  version: string;
  startedAt: number;
  config: ConfigService;
  store: Store;
  bus: EventBus;
  log: Logger;
  clock: Clock;
  jobs: JobManager;
  routes: RouteRegistry;
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
