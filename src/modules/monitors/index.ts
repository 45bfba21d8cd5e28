// The monitors module: uptime monitors with four check types, check history, rollups, incidents, an
// event log, a scheduler and a retention job. See docs/monitors.md.
import type { AppContext, Module } from '../../core/context.js';
import { RetentionJob } from './retention.js';
import { monitorRoutes } from './routes.js';
import { monitorMigrations } from './schema.js';
import { sealStoredSettings } from './secrets.js';
import { MonitorService, monitorConfig } from './service.js';

export type { MonitorBusEvent } from './service.js';

const services = new WeakMap<AppContext, { service: MonitorService; retention: RetentionJob }>();

/** The module's service for an app (tests and other modules' services use it; never the tables). */
export function monitorsServiceOf(app: AppContext): MonitorService | undefined {
  return services.get(app)?.service;
}

/** The module's retention job for an app (tests run a pass on demand). */
export function monitorsRetentionOf(app: AppContext): RetentionJob | undefined {
  return services.get(app)?.retention;
}

export const monitorsModule: Module = {
  name: 'monitors',
  migrations: monitorMigrations,
  async register(app: AppContext) {
    await sealStoredSettings(app); // secrets an earlier build stored in clear
    const service = new MonitorService(app);
    await service.init(); // rows, results and state into memory
    const retention = new RetentionJob(app, service);
    services.set(app, { service, retention });
    app.routes.add(...monitorRoutes(service));
    app.bus.on('config.changed', ({ keys }) => {
      if (keys.some((k) => k.startsWith('monitors'))) service.scheduler.setMaxConcurrent(monitorConfig(app).max_concurrent_checks);
    });
  },
  start(app: AppContext) {
    const s = services.get(app);
    if (!s) return;
    s.service.startScheduler();
    s.retention.start();
    app.onShutdown(async () => {
      s.service.closer.stop();
      await s.retention.stop();
      await s.service.scheduler.stop();
    });
  },
};
