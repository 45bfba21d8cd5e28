// Long handlers (SNMP walks, scans) stop when their caller goes away instead of finishing for nobody.
import type { RequestCtx } from '../context.js';

/** An AbortSignal that fires when the client goes away, so an abandoned walk stops. */
export function clientGone(ctx: RequestCtx): AbortSignal {
  const ac = new AbortController();
  ctx.res.once('close', () => { if (!ctx.res.writableFinished) ac.abort(); });
  return ac.signal;
}
