// The brain (inventory) module: seven record types (sites, locations, endpoints, assets, applications,
// subnets, and credentials whose secrets live in the vault) with short IDs, references, change history,
// search and links. See docs/brain.md and docs/vault.md.
import type { AppContext, Module } from '../../core/context.js';
import { serviceSlot } from '../../core/modules.js';
import type { CredentialSecrets, CredentialUsageSource } from './contracts.js';
import { ItemService } from './items.js';
import { LinkService } from './links.js';
import { createCredentialSecrets } from './secrets.js';
import { noSessions, type SessionSource } from './contracts.js';
import { brainRoutes } from './routes.js';
import { credentialRoutes } from './credentials/routes.js';
import { scopeFromUses } from './credentials/scope-upgrade.js';
import { credentialsType } from './credentials/service.js';
import { brainMigrations } from './migrations.js';
import { SeenAddresses } from './seen.js';
import { Watch } from './watch.js';
import { vaultRoutes } from './vault/routes.js';
import { Vault } from './vault/service.js';

export type { CredentialUsage, CredentialUsageSource, SecretDestination, SessionSource, SessionSummary } from './contracts.js';
/** Discovery records where a stored credential worked or failed (GET /api/brain/credentials/:id/scan). */
export { recordCredentialUse, type CredentialUse } from './credentials/service.js';

export interface BrainServices {
  items: ItemService;
  links: LinkService;
  /** Where discovery last found addresses alive. */
  seen: SeenAddresses;
  /** What watches a record (monitors on its addresses, linked monitors). */
  watch: Watch;
  /** Credential secrets through the vault: for the credentials type and other modules (SNMP, discovery, SSH). */
  secrets: CredentialSecrets;
  vault: Vault;
}

const services = serviceSlot<BrainServices>('brain', 'The inventory');

/** The module's services for an app (tests and other modules' services use them; never the tables). */
export const brainServicesOf = (app: AppContext): BrainServices => services.of(app);

const sessionSources = new WeakMap<AppContext, SessionSource>();

/** Where GET /api/brain/subnets/:id/v1sion-sessions finds sessions; the discovery module sets it. */
export function setSessionSource(app: AppContext, source: SessionSource): void { sessionSources.set(app, source); }

const usageSources = new WeakMap<AppContext, CredentialUsageSource[]>();

/** Another module tells where it uses stored credentials (GET /api/brain/credentials/:id/usage). */
export function addCredentialUsageSource(app: AppContext, source: CredentialUsageSource): void {
  usageSources.set(app, [...(usageSources.get(app) ?? []), source]);
}

export const brainModule: Module = {
  name: 'brain',
  // Links point at monitors and list them.
  needs: ['monitors'],
  migrations: brainMigrations,
  register(app: AppContext) {
    const items = new ItemService(app);
    // Credentials keep their secrets in the vault (locked until unlocked, and again on shutdown); the type
    // registers before the routes are built.
    const vault = new Vault({ store: app.store, clock: app.clock, limiter: app.auth.limiter, log: app.log.child('vault') });
    app.onShutdown(() => { vault.lock(); });
    const secrets = createCredentialSecrets(app.store, vault, { exists: (id) => items.findRow(id, 'credentials') !== undefined });
    items.registerType(credentialsType(secrets, app.store));
    const links = new LinkService(app, items);
    const seen = new SeenAddresses(app);
    seen.listen();
    const watch = new Watch(app, seen);
    services.set(app, { items, links, secrets, vault, seen, watch });
    app.routes.add(...vaultRoutes(vault), ...credentialRoutes(app, items, secrets, () => usageSources.get(app) ?? []));
    const sessions: SessionSource = { overlapping: (c) => (sessionSources.get(app) ?? noSessions).overlapping(c) };
    app.routes.add(...brainRoutes({ items, links, sessions, watch, seen }));
    const log = app.log.child('brain');
    // Links to a deleted monitor go with it (the monitors module announces deletions on the bus).
    app.bus.on('monitor.deleted', async ({ id, name }) => {
      const n = await links.removeMonitor(id, name);
      if (n) log.info('removed links to a deleted monitor', { monitor_id: id, links: n });
    });
  },
  // Every module has registered its credential uses by now: credentials stored before scopes get theirs.
  async start(app: AppContext) {
    await scopeFromUses(app, services.of(app).items, usageSources.get(app) ?? []);
  },
};
