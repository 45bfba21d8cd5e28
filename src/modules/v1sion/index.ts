// The discovery module (codename v1sion): subnet scans, identification, topology sessions, SSH
// enrichment and routes. Built so far: saved topology sessions and the canvas's status badges; the scan
// lands next. See docs/discovery.md.
import type { AppContext, Module } from '../../core/context.js';
import { setSessionSource } from '../brain/index.js';
import { discoveryConfig } from './config.js';
import { credentialRoutes } from './credentials/routes.js';
import { DiscoveryCredentials } from './credentials/service.js';
import { v1sionMigrations } from './migrations.js';
import { sessionRoutes } from './sessions/routes.js';
import { SessionService } from './sessions/service.js';
import { monitorStatusRoutes } from './monitor/routes.js';
import { MonitorStatusService } from './monitor/service.js';

export const v1sionModule: Module = {
  name: 'v1sion',
  config: { discovery: discoveryConfig },
  // Badges read monitor statuses; sessions link inventory records and are listed by subnet there;
  // discovery credentials are inventory credentials (secrets in the vault).
  needs: ['monitors', 'brain'],
  migrations: v1sionMigrations,
  register(app: AppContext) {
    const sessions = new SessionService(app);
    setSessionSource(app, sessions);
    app.routes.add(
      ...sessionRoutes(sessions),
      ...credentialRoutes(new DiscoveryCredentials(app)),
      ...monitorStatusRoutes(new MonitorStatusService(app)),
    );
  },
};
