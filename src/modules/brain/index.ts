// The brain (inventory) module: seven record types (sites, locations, endpoints, assets, applications,
// subnets, and credentials whose secrets live in the vault) with short IDs, references, change history,
// search and links. See docs/brain.md and docs/vault.md.
import type { AppContext, Module } from '../../core/context.js';
import { serviceSlot } from '../../core/modules.js';
import type { CredentialSecrets } from './contracts.js';
import { ItemService } from './items.js';
import { LinkService } from './links.js';
import { brainRoutes, noSessions, type SessionSource } from './routes.js';
import { credentialRoutes, credentialsType, credentialUseMigrations } from './credentials.js';
import { brainMigrations } from './schema.js';
import { createVault } from './vault-routes.js';
import { vaultMigrations } from './vault-schema.js';

export type { SessionSource, SessionSummary } from './routes.js';

export interface BrainServices { items: ItemService; links: LinkService; secrets: CredentialSecrets }

const services = serviceSlot<BrainServices>('brain', 'The inventory');

/** The module's services for an app (tests and other modules' services use them; never the tables). */
export const brainServicesOf = (app: AppContext): BrainServices => services.of(app);

const sessionSources = new WeakMap<AppContext, SessionSource>();

/** Where GET /api/brain/subnets/:id/v1sion-sessions finds sessions; the discovery module sets it. */
export function setSessionSource(app: AppContext, source: SessionSource): void { sessionSources.set(app, source); }

export const brainModule: Module = {
  name: 'brain',
  // Links point at monitors and list them.
  needs: ['monitors'],
  migrations: [...brainMigrations, ...vaultMigrations, ...credentialUseMigrations],
  register(app: AppContext) {
    const items = new ItemService(app);
    // Credentials keep their secrets in the vault; the type registers before the routes are built.
    const vault = createVault(app, { credentialExists: (id) => items.findRow(id, 'credentials') !== undefined });
    items.registerType(credentialsType(vault.secrets, app.store));
    const links = new LinkService(app, items);
    services.set(app, { items, links, secrets: vault.secrets });
    app.routes.add(...vault.routes, ...credentialRoutes(app, items));
    const sessions: SessionSource = { overlapping: (c) => (sessionSources.get(app) ?? noSessions).overlapping(c) };
    app.routes.add(...brainRoutes(items, links, sessions));
    const log = app.log.child('brain');
    // Links to a deleted monitor go with it (the monitors module announces deletions on the bus).
    app.bus.on('monitor.deleted', async ({ id }) => {
      const n = await links.removeMonitor(id);
      if (n) log.info('removed links to a deleted monitor', { monitor_id: id, links: n });
    });
  },
};
