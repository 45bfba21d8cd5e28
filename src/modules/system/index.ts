// The system module: identity of the service, users, keys, sessions, first-run setup, audit log.
import type { AppContext, Module } from '../../core/context.js';
import type { AuthServices } from '../../core/auth/index.js';
import type { AuditService } from '../../core/audit.js';
import { metaRoutes } from './meta-routes.js';
import { authRoutes } from './auth-routes.js';
import { userRoutes } from './users-routes.js';
import { apiKeyRoutes } from './apikeys-routes.js';
import { setupRoutes } from './setup-routes.js';
import { auditRoutes } from './audit-routes.js';

export function systemModule(auth: AuthServices, audit: AuditService): Module {
  return {
    name: 'system',
    migrations: [],
    register(app: AppContext) {
      app.routes.add(
        ...metaRoutes(app),
        ...authRoutes(auth),
        ...userRoutes(auth),
        ...apiKeyRoutes(auth),
        ...setupRoutes(auth),
        ...auditRoutes(audit),
      );
    },
  };
}
