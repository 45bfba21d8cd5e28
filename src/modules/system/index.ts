// The system module: identity of the service, users, keys, sessions, first-run setup, audit log, restart.
import type { AppContext, Module } from '../../core/context.js';
import { metaRoutes } from './routes.js';
import { devRoutes } from './dev/routes.js';
import { meRoutes } from './me/routes.js';
import { authRoutes } from './auth/routes.js';
import { userRoutes } from './users/routes.js';
import { apiKeyRoutes } from './api-keys/routes.js';
import { setupRoutes } from './setup/routes.js';
import { auditRoutes } from './audit-log/routes.js';
import { restartRoutes } from './restart/routes.js';

export const systemModule: Module = {
  name: 'system',
  // The service's own endpoints sit at the top of the API (SPEC.md); /api/dev/* is shared by every module.
  segments: ['users', 'api-keys', 'auth', 'me', 'setup', 'audit-log', 'restart', 'version', 'web-identity', 'openapi.json', 'developer'],
  migrations: [],
  register(app: AppContext) {
    app.routes.add(
      ...metaRoutes(app),
      ...authRoutes(app.auth),
      ...meRoutes(app.auth),
      ...devRoutes(app),
      ...userRoutes(app.auth),
      ...apiKeyRoutes(app.auth),
      ...setupRoutes(app.auth),
      ...auditRoutes(app.audit),
      ...restartRoutes(app),
    );
  },
  start(app: AppContext) {
    app.onShutdown(app.auth.startMaintenance());
  },
};
