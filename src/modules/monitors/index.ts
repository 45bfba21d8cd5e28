// The monitors module: uptime monitors over the check types in checks/ (CHECKS), their results over time
// (raw history, rollups and named measurements in storage/, used through storage/index.ts), incidents,
// an event log, a scheduler and a retention job. See docs/monitors.md.
import type { AppContext, Module } from '../../core/context.js';
import { serviceSlot } from '../../core/modules.js';
import { checkTypeRoutes } from './check-types/routes.js';
import { maintenanceRoutes } from './maintenance/routes.js';
import { StatusDocuments } from './status-pages/documents.js';
import { StatusPages } from './status-pages/pages.js';
import { statusPageRoutes } from './status-pages/routes.js';
import { brandingOf } from '../system/contracts.js';
import type { MonitorGlance } from './contracts.js';
import type { MonitorMaintenance } from './maintenance/schemas.js';
import { watchedAddress } from './queries.js';
import { RetentionJob } from './retention.js';
import { degradedReason } from './schemas.js';
import { fromRtUnits } from './storage/index.js';
import { monitorRoutes } from './routes.js';
import { monitorMigrations } from './migrations.js';
import { sealStoredSettings } from './secrets.js';
import { MonitorService } from './service.js';
import { monitorConfig, monitorsConfig } from './config.js';

export type { MonitorBusEvent, MonitorGlance } from './contracts.js';
/** Other modules lend check types what they need (the SNMP module: reading an OID with a stored credential). */
export { provideCheckServices } from './check-services.js';
export type { CheckServices, SnmpCheckService, SnmpReading } from './checks/services.js';

const services = serviceSlot<{ service: MonitorService; retention: RetentionJob; statusPages: StatusDocuments }>('monitors',
  'The monitors service');

/** The module's service for an app (tests and other modules' services use it; never the tables). */
export const monitorsServiceOf = (app: AppContext): MonitorService => services.of(app).service;
/** Whether the monitors module is registered in this app (a module that only `uses` it asks). */
export const monitorsIn = (app: AppContext): boolean => services.find(app) !== undefined;

/** The module's retention job for an app (tests run a pass on demand). */
export const monitorsRetentionOf = (app: AppContext): RetentionJob => services.of(app).retention;

/** The status pages' cached documents for an app (tests and the bench count how often they are made). */
export const statusDocumentsOf = (app: AppContext): StatusDocuments => services.of(app).statusPages;

/**
 * Every monitor in list order, each with the address it watches: the inventory matches them to endpoints by
 * address (one pass over the monitors in memory; nothing is read from the database).
 */
export function monitorGlances(app: AppContext): MonitorGlance[] {
  const { service } = services.of(app);
  return service.registry.inOrder().map((m) => ({
    id: m.row.id, name: m.row.name, target: m.row.target, check_type: m.row.check_type, status: m.row.status,
    degraded_reason: degradedReason(m.row), failing_streak: m.row.fail_streak, failure_threshold: m.row.failure_threshold,
    address: watchedAddress(m), last_check: m.row.last_check === null ? null : new Date(m.row.last_check).toISOString(),
    response_time: fromRtUnits(m.row.last_rt), maintenance: m.row.status === 'paused' ? null : service.maintenance.openNow(m),
  }));
}

/**
 * The monitors whose settings name a stored credential (an snmp check's `credential_id`, by UUID or short ID):
 * the credential's page lists them, with the address each sends it to.
 */
export function monitorsUsingCredential(app: AppContext, ids: readonly string[]): { id: string; name: string; address: string | null }[] {
  const { service } = services.of(app);
  const wanted = new Set(ids.map((x) => x.toUpperCase()));
  return service.registry.inOrder().filter((m) => {
    try {
      const ref = (JSON.parse(m.row.settings) as { credential_id?: unknown }).credential_id;
      return typeof ref === 'string' && wanted.has(ref.toUpperCase());
    } catch { return false; }
  }).map((m) => ({ id: m.row.id, name: m.row.name, address: watchedAddress(m) ?? m.row.target }));
}

/** The open maintenance window that applies to every monitor, or null: it holds other modules' alerts too (webhooks). */
export function maintenanceForEverything(app: AppContext, at: number): MonitorMaintenance {
  return services.of(app).service.maintenance.openForEverything(at);
}

export const monitorsModule: Module = {
  name: 'monitors',
  // The branding (the logo a status page shows), when the system module is registered.
  uses: ['system'],
  migrations: monitorMigrations,
  config: { monitors: monitorsConfig },
  async register(app: AppContext) {
    await sealStoredSettings(app); // secrets an earlier build stored in clear
    const service = new MonitorService(app);
    await service.init(); // rows, results and state into memory
    const retention = new RetentionJob(app, service);
    // Public status pages (status-pages/): the pages in memory, readers served from cached documents.
    const pages = new StatusPages(app, service.registry);
    pages.load();
    const statusPages = new StatusDocuments({
      registry: service.registry, storage: service.storage, maintenance: service.maintenance, pages,
      logoUrl: () => brandingOf(app)?.logoUrl() ?? null, timezone: () => app.config.get().probe.timezone,
    }, () => app.clock.now());
    services.set(app, { service, retention, statusPages });
    app.routes.add(...monitorRoutes(service), ...checkTypeRoutes(), ...maintenanceRoutes(service.maintenance),
      ...statusPageRoutes(pages, statusPages));
    app.bus.on('config.changed', ({ keys }) => {
      if (!keys.some((k) => k.startsWith('monitors'))) return;
      service.scheduler.setMaxConcurrent(monitorConfig(app).max_concurrent_checks);
      if (keys.includes('monitors.startup_image_hours')) service.storage.images.reschedule();
    });
  },
  start(app: AppContext) {
    const s = services.of(app);
    s.service.startScheduler();
    s.retention.start();
    app.onShutdown(async () => {
      await s.service.storage.stopRollups();
      await s.retention.stop();
      s.service.maintenance.stop();
      await s.service.scheduler.stop();
      await s.service.storage.stop(); // after the last result: the start-up image the next start-up reads
    });
  },
};
