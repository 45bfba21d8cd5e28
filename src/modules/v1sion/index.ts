// The discovery module (codename v1sion): subnet scans (liveness, identification, neighbours and
// topology), one-device SNMP identification, topology sessions, the credentials scans try, the
// canvas's status badges, SSH targets and enrichment, routing tables and the bridge to the inventory.
// See docs/discovery.md.
import type { AppContext, Module } from '../../core/context.js';
import { serviceSlot } from '../../core/modules.js';
import { addCredentialUsageSource, setSessionSource } from '../brain/index.js';
import { provideUplinkFinder } from '../snmp/index.js';
import { discoveryConfig } from './config.js';
import { credentialRoutes } from './credentials/routes.js';
import { DiscoveryCredentials } from './credentials/service.js';
import { discoveryCredentialUsage } from './credentials/usage.js';
import { deviceRoutes } from './device/routes.js';
import { registerDiscoveryAlerts } from './devices/alert-types.js';
import { deviceWatchRoutes } from './devices/routes.js';
import { DeviceWatch } from './devices/service.js';
import { enrichRoutes } from './enrich-ssh/routes.js';
import { EnrichService } from './enrich-ssh/service.js';
import { DeviceProbe } from './device/service.js';
import { bridgeRoutes } from './brain/routes.js';
import { BridgeService } from './brain/service.js';
import { v1sionMigrations } from './migrations.js';
import { monitorStatusRoutes } from './monitor/routes.js';
import { profileRoutes } from './profiles/routes.js';
import { ScanProfiles } from './profiles/service.js';
import { MonitorStatusService } from './monitor/service.js';
import { routeRoutes } from './routes/routes.js';
import { RouteService } from './routes/service.js';
import { scanRoutes } from './scan/routes.js';
import { neighbourRoots, parseDeviceTables } from './scan/neighbours/index.js';
import { ScanService } from './scan/service.js';
import { ParentProposals } from './sessions/parent-proposals.js';
import { parentProposalRoutes, sessionRoutes } from './sessions/routes.js';
import { SessionService } from './sessions/service.js';
import { sshTargetRoutes } from './ssh-targets/routes.js';
import { SshTargetService } from './ssh-targets/service.js';

const scans = serviceSlot<ScanService>('v1sion', 'Discovery');
// At load, as the built-in types are: a channel form lists them before any scan has run.
registerDiscoveryAlerts();
const profilesSlot = serviceSlot<ScanProfiles>('v1sion', 'Discovery');

export type { DeviceDiscovered, ScanFinished, ScanRequest } from './contracts.js';
/** Discovery's scans, for other modules (a controller's scan command): the same checks and audit as the API's. */
export const v1sionScansOf = (app: AppContext): Pick<ScanService, 'start'> | undefined => scans.find(app);

export const v1sionModule: Module = {
  name: 'v1sion',
  config: { discovery: discoveryConfig },
  // Badges read monitor statuses; sessions link inventory records and are listed by subnet there;
  // discovery credentials are inventory credentials (secrets in the vault); scans identify through
  // the SNMP engine; what scans find over time raises alerts.
  needs: ['monitors', 'brain', 'snmp', 'webhooks'],
  migrations: v1sionMigrations,
  register(app: AppContext) {
    const credentials = new DiscoveryCredentials(app);
    const scan = new ScanService(app, credentials);
    scans.set(app, scan);
    const known = new DeviceWatch(app, scan);
    const routes = new RouteService(app);
    // Sessions draw layer-3 edges from the documented routes of their nodes.
    const sessions = new SessionService(app, scan.results, (id, endpoints) => routes.forSession(id, endpoints));
    setSessionSource(app, sessions);
    // Scheduled scans run through the same scan service and merge into sessions.
    const profiles = new ScanProfiles(app, scan, sessions);
    profilesSlot.set(app, profiles);
    known.useProfileRules((id) => profiles.missingRule(id));
    // A scan that ended just before a shutdown is still merged into the known devices.
    app.onShutdown(() => known.settled());
    // A credential's page in the inventory lists the discovery list and the SSH targets that use it.
    addCredentialUsageSource(app, discoveryCredentialUsage(app));
    // Interface polling watches uplinks by default: the neighbour parsers are discovery's.
    provideUplinkFinder(app, {
      roots: neighbourRoots(['interfaces', 'lldp', 'cdp']),
      uplinks: (varbinds) => {
        const t = parseDeviceTables(varbinds);
        return t.uplink_ports.filter((u) => u.reasons.includes('neighbour') && u.if_index !== null).map((u) => ({
          if_index: u.if_index!,
          neighbour: t.neighbours.find((n) => n.local_if_index === u.if_index)?.remote.sys_name ?? null,
        }));
      },
    });
    app.routes.add(
      ...scanRoutes(scan),
      ...deviceRoutes(new DeviceProbe(app, credentials)),
      ...sessionRoutes(sessions),
      // Monitor parents proposed from a session's graph and the probe's place in it.
      ...parentProposalRoutes(new ParentProposals(app, sessions)),
      ...profileRoutes(profiles),
      ...credentialRoutes(credentials),
      ...monitorStatusRoutes(new MonitorStatusService(app)),
      ...routeRoutes(routes),
      ...bridgeRoutes(new BridgeService(app, scan.results, sessions)),
      ...deviceWatchRoutes(known),
    );
    // SSH targets and enrichment (their facts go to the targets and the sessions' nodes).
    const sshTargets = new SshTargetService(app);
    app.routes.add(...sshTargetRoutes(sshTargets), ...enrichRoutes(new EnrichService(app, sshTargets, sessions)));
  },
  async start(app: AppContext) {
    await scans.of(app).recover();
    const scheduler = profilesSlot.of(app).scheduler;
    scheduler.start();
    app.onShutdown(() => scheduler.stop());
  },
};
