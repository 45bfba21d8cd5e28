// The system module's self-update from a git source, signed releases, rollback (docs/update.md).
import type { AppContext } from '../../../core/context.js';
import { DailyUpdateCheck } from './daily-check.js';
import { updateRoutes } from './routes.js';
import { UpdateService } from './service.js';

/** Creates the services and adds the routes of /api/update/*. */
export async function registerUpdate(app: AppContext): Promise<void> {
  const svc = new UpdateService(app);
  app.routes.add(...updateRoutes(svc));
  // The outcome of a run the helper finished while this process was stopped (or was the old release).
  await svc.auditOutcome().catch((e: unknown) => app.log.warn('could not audit the last update outcome', { err: e as Error }));
  const daily = new DailyUpdateCheck(app, svc);
  daily.start();
  app.onShutdown(() => daily.stop());
}
