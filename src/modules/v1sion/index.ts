// The discovery module (codename v1sion): subnet scans, identification, topology sessions, SSH
// enrichment and routes. This step serves the topology canvas's status badges; the scan lands next.
// See docs/discovery.md.
import type { AppContext, Module } from '../../core/context.js';
import { discoveryConfig } from './config.js';
import { monitorStatusRoutes } from './monitor/routes.js';
import { MonitorStatusService } from './monitor/service.js';

export const v1sionModule: Module = {
  name: 'v1sion',
  config: { discovery: discoveryConfig },
  // Badges read monitor statuses.
  needs: ['monitors'],
  migrations: [],
  register(app: AppContext) {
    app.routes.add(...monitorStatusRoutes(new MonitorStatusService(app)));
  },
};
