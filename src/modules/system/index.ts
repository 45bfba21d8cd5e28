// The system module: the service itself (identity, configuration, status, metrics, restart), its users,
// keys, sessions and first-run setup, the audit log, TLS, updates, out-of-band access and the controller
// link. Its segments list every path it serves.
import type { AppContext, Module } from '../../core/context.js';
import { metaRoutes } from './routes.js';
import { requestSchemaRoutes } from './request-schema/routes.js';
import { devEmailRoutes, devInfoRoute, devRoutes } from './dev/routes.js';
import { meRoutes } from './me/routes.js';
import { authRoutes } from './auth/routes.js';
import { userRoutes } from './users/routes.js';
import { apiKeyRoutes } from './api-keys/routes.js';
import { setupRoutes } from './setup/routes.js';
import { auditRoutes } from './audit-log/routes.js';
import { restartRoutes } from './restart/routes.js';
import { systemMigrations } from './migrations.js';
import { systemConfig } from './config.js';
import { configRoutes } from './config/routes.js';
import { BrandService } from './web-identity/service.js';
import { webIdentityRoutes } from './web-identity/routes.js';
import { uploadRoutes } from './upload/routes.js';
import { TwoFactorService } from './auth/two-factor.js';
import { twoFactorRequiredGuard } from './auth/two-factor-required.js';
import { Mailer } from './auth/mailer.js';
import { setBranding, setOutgoingEmail } from './contracts.js';
import { PasswordRecovery } from './auth/recovery.js';
import { RuntimeStats } from './runtime.js';
import { StatusService } from './status/service.js';
import { statusRoutes } from './status/routes.js';
import { HostService } from './host/service.js';
import { hostRoutes } from './host/routes.js';
import { DatabaseService } from './database/service.js';
import { dbStatsRoutes } from './db-stats/routes.js';
import { dbCleanupRoutes } from './db-cleanup/routes.js';
import { MetricsService } from './metrics/service.js';
import { metricsRoutes } from './metrics/routes.js';
import { registerSsl } from './ssl/feature.js';
import { registerUpdate } from './update/feature.js';
import { registerOob } from './oob/feature.js';
import { registerHivemind } from './hivemind/feature.js';

export const systemModule: Module = {
  name: 'system',
  // The service's own endpoints sit at the top of the API (SPEC.md); /api/dev/* is shared by every module.
  segments: ['users', 'api-keys', 'auth', 'me', 'setup', 'audit-log', 'restart', 'version', 'web-identity', 'openapi.json',
    'request-schema', 'developer', 'config', 'upload', 'host', 'metrics', 'ssl', 'update', 'oob', 'hivemind'],
  // Each is looked up only when registered, and done without otherwise: monitors (metrics, the retention
  // run of a database cleanup, controller commands), webhooks (metrics, TLS renewal alerts), v1sion
  // (controller scan commands).
  uses: ['monitors', 'webhooks', 'v1sion'],
  migrations: systemMigrations,
  config: { ...systemConfig },
  async register(app: AppContext) {
    // The configuration API and branding (docs/configuration.md, docs/ui.md).
    const brand = new BrandService(app);
    await brand.init();
    app.routes.add(...configRoutes(app), ...webIdentityRoutes(brand), ...uploadRoutes(brand));
    setBranding(app, { logoUrl: () => brand.identity().logo_url }); // the monitors' public status pages
    const twoFactor = new TwoFactorService({
      store: app.store, clock: app.clock, secretbox: app.secretbox,
      issuer: () => app.config.get().two_factor.issuer || `netprobe (${app.config.get().probe.name})`,
    });
    app.auth.guards.push(twoFactorRequiredGuard(() => app.config.get().two_factor.required_for_admins, (id) => twoFactor.isEnabled(id)));
    // Outgoing e-mail and password recovery by e-mail (docs/auth.md, "Password recovery").
    const mailer = new Mailer({
      settings: () => app.config.get().smtp, clock: app.clock, log: app.log.child('email'), probeName: () => app.config.get().probe.name,
    });
    setOutgoingEmail(app, mailer); // the e-mail alert channel (webhooks)
    const recovery = new PasswordRecovery(app, mailer);
    app.onShutdown(() => recovery.idle());
    app.routes.add(
      ...metaRoutes(app),
      ...requestSchemaRoutes(app),
      ...authRoutes(app.auth, { twoFactor, mailer, recovery }),
      ...meRoutes(app.auth),
      ...devRoutes(app),
      ...devEmailRoutes(app, mailer),
      ...userRoutes(app.auth, mailer),
      ...apiKeyRoutes(app.auth),
      ...setupRoutes(app.auth),
      ...auditRoutes(app.audit),
      ...restartRoutes(app),
    );
    // Health, host facts, database statistics and cleanup, debug info, metrics (docs/system.md).
    const runtime = new RuntimeStats();
    app.onShutdown(() => runtime.stop());
    const status = new StatusService(app.config.dataDir, () => (app.clock.now() - app.startedAt) / 1000, app.log.child('system'));
    const database = new DatabaseService(app);
    app.routes.add(
      ...statusRoutes(status),
      ...hostRoutes(new HostService()),
      ...dbStatsRoutes(database),
      ...dbCleanupRoutes(database),
      devInfoRoute(app, runtime),
      ...metricsRoutes(new MetricsService(app, status, runtime)),
    );
    // The appliance looking after itself: TLS, self-update, out-of-band access, controller pairing (docs/appliance.md).
    await registerSsl(app);
    await registerUpdate(app);
    await registerOob(app);
    await registerHivemind(app);
  },
  start(app: AppContext) {
    app.onShutdown(app.auth.startMaintenance());
  },
};
