// The SNMP module: on-demand walks (v1, v2c, v3), the OID store, the vendor profiles in vendors/ with
// OID cards, device identification (what discovery calls), per-device card selections and walk templates.
// See docs/snmp.md and docs/snmp-vendors.md.
import { join } from 'node:path';
import type { AppContext, Module } from '../../core/context.js';
import { serviceSlot } from '../../core/modules.js';
import { addCredentialUsageSource } from '../brain/index.js';
import { monitorsIn, provideCheckServices } from '../monitors/index.js';
import { snmpCheckService } from './monitor-checks.js';
import { snmpCheckCredentialUsage, snmpCredentialUsage } from './credential-usage.js';
import { snmpConfig } from './config.js';
import { deviceCardRoutes } from './device-cards/routes.js';
import { DeviceCardService } from './device-cards/service.js';
import { libraryRoutes } from './routes.js';
import { snmpMigrations } from './migrations.js';
import { registerInterfaceAlerts } from './polling/alert-types.js';
import { InterfaceHistory } from './polling/history/index.js';
import { pollingRoutes } from './polling/routes.js';
import { PollingService } from './polling/service.js';
import { SnmpService } from './service.js';
import { templateRoutes } from './templates/routes.js';
import { TemplateService } from './templates/service.js';
import { walkRoutes } from './walk/routes.js';

export type { Identification } from './identify.js';
export type { SnmpService } from './service.js';
// The discovery sweep (one socket, every community at once, SNMPv3 engine discovery) and engine IDs.
export { sweepSnmp, SWEEP_DEFAULTS } from './client/sweep.js';
export type { SweepAnswer, SweepCommunity, SweepEngine, SweepOptions, SweepStats, SweepSystem } from './client/sweep.js';
export { describeEngineId, normaliseEngineId } from './client/engine-id.js';
export type { EngineIdFormat, EngineIdInfo } from './client/engine-id.js';
/** How the client renders octets, and back: discovery's table parsers read values with them. */
export { bytesOf, octets } from './client/values.js';
/** What an SNMPv3 user lacks at its level (scans check inline v3 parameters with it). */
export { v3Missing } from './targets.js';
/** Discovery lends interface polling its LLDP/CDP parsers: uplinks are watched by default. */
export { provideUplinkFinder, type UplinkFinder } from './polling/uplinks.js';

const services = serviceSlot<SnmpService>('snmp', 'The SNMP engine');
const pollers = serviceSlot<PollingService>('snmp', 'Interface polling');

/** The SNMP engine of an app: walk, identify, read cards (discovery and tests use it). */
export const snmpServicesOf = (app: AppContext): SnmpService => services.of(app);

export const snmpModule: Module = {
  name: 'snmp',
  config: { snmp: snmpConfig },
  // Stored credentials (the vault) and inventory endpoints as device targets.
  needs: ['brain'],
  // Lends the monitors' snmp check type its reads (monitor-checks.ts) when the monitors module is there;
  // interface polling's alerts go out when the webhooks module is there.
  uses: ['monitors', 'webhooks'],
  migrations: snmpMigrations,
  register(app: AppContext) {
    const snmp = new SnmpService(app);
    services.set(app, snmp);
    app.routes.add(
      ...walkRoutes(app, snmp),
      ...libraryRoutes(() => snmp.oids),
      ...templateRoutes(new TemplateService(app, snmp)),
      ...deviceCardRoutes(new DeviceCardService(app, snmp)),
    );
    // Interfaces polled over time: rates in a history of their own (polling/history/index.ts says why).
    const polling = new PollingService(app, snmp, new InterfaceHistory({
      dir: join(app.config.dataDir, 'snmp-history'), clock: app.clock, log: app.log,
    }));
    pollers.set(app, polling);
    registerInterfaceAlerts();
    app.routes.add(...pollingRoutes(polling));
    // A credential's page lists the templates and device cards that use it.
    addCredentialUsageSource(app, snmpCredentialUsage(app));
    if (monitorsIn(app)) {
      addCredentialUsageSource(app, snmpCheckCredentialUsage(app, (id) => {
        try { return snmp.targets.credential(id).short_id; } catch { return null; }
      }));
    }
    provideCheckServices(app, { snmp: snmpCheckService(app, snmp) });
    app.bus.on('config.changed', ({ keys }) => {
      if (keys.some((k) => k.startsWith('snmp'))) snmp.reconfigure();
    });
  },
  async start(app: AppContext) {
    const polling = pollers.of(app);
    await polling.start();
    app.onShutdown(() => polling.stop());
  },
};
