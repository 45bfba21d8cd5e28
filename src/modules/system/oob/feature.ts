// The system module's out-of-band access: ZeroTier and Tailscale through their CLIs (docs/oob.md).
import type { AppContext } from '../../../core/context.js';
import { oobRoutes } from './routes.js';
import { TailscaleService } from './tailscale-service.js';
import { ZeroTierService } from './zerotier-service.js';

/** Creates the services and adds the routes of /api/oob/*. Nothing runs until a request asks. */
export async function registerOob(app: AppContext): Promise<void> {
  const cfg = () => app.config.get().oob;
  const zt = new ZeroTierService({
    store: app.store, clock: app.clock,
    settings: () => ({
      program: cfg().zerotier_cli, home: cfg().zerotier_home, tokenHome: app.config.dataDir,
      timeoutMs: cfg().command_timeout_seconds * 1000,
    }),
  });
  const ts = new TailscaleService({
    clock: app.clock, dataDir: app.config.dataDir, logger: app.log.child('oob'),
    settings: () => ({
      program: cfg().tailscale_cli, timeoutMs: cfg().command_timeout_seconds * 1000,
      upTimeoutSeconds: cfg().tailscale_up_timeout_seconds, loginSeconds: cfg().tailscale_login_seconds,
      loginWaitSeconds: cfg().tailscale_login_wait_seconds,
    }),
  });
  await ts.init();
  app.onShutdown(() => ts.stopLogin());
  app.routes.add(...oobRoutes(zt, ts));
}
