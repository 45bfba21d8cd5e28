// The system module's pairing with a controller over MQTT 5 (docs/hivemind.md; docs/appliance.md).
// The mqtt library is not imported here: broker-link.ts loads it when a connection is first made.
import type { AppContext } from '../../../core/context.js';
import { bridgeBusToController } from './bus-bridge.js';
import { hivemindRoutes } from './routes.js';
import { HivemindService } from './service.js';

/** Creates the services and adds the routes of /api/hivemind/*; when paired, connects out in the background. */
export async function registerHivemind(app: AppContext): Promise<void> {
  const svc = new HivemindService(app);
  app.routes.add(...hivemindRoutes(svc));
  const unbridge = bridgeBusToController(app, svc);
  app.onShutdown(async () => {
    unbridge();
    await svc.shutdown();
  });
  // Connecting never blocks start-up: a broker that is down is retried with backoff.
  svc.resume();
}
