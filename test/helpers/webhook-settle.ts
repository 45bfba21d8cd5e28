// Waiting for the webhooks module of an in-process service under a ManualClock: alert handling and
// deliveries in flight run in real time while the clock stands still, so tests wait for them to finish.
import type { AppContext } from '../../src/core/context.js';
import type { ManualClock } from '../../src/core/clock.js';
import { webhooksOf } from '../../src/modules/webhooks/index.js';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Resolves once alert handling and deliveries in flight are done (three calm looks in a row). */
export async function webhooksQuiet(app: AppContext): Promise<void> {
  const p = webhooksOf(app);
  for (let calm = 0; calm < 3;) {
    await p.alerter.idle();
    await sleep(15);
    calm = p.dispatcher.busy() === 0 ? calm + 1 : 0;
  }
}

/** Moves the clock (checks and retries fall due), then lets the service settle. */
export async function advanceAndSettle(app: AppContext, clock: ManualClock, ms: number, pauseMs = 60): Promise<void> {
  clock.advance(ms);
  await sleep(pauseMs);
  await webhooksQuiet(app);
}
