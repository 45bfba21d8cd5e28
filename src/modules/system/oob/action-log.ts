// What every out-of-band action shares: one action at a time per provider (a toggle must not interleave
// with a leave), the provider's last error for GET /api/oob/status, and an audit entry for each attempt,
// failed ones included (with the error's code, never a key or a login URL).
import type { RequestCtx } from '../../../core/context.js';
import { HttpError } from '../../../core/errors.js';
import type { Clock } from '../../../core/clock.js';

export interface LastError { at: string; action: string; code: string; detail: string }

export class ActionLog {
  private chain: Promise<unknown> = Promise.resolve();
  lastError: LastError | null = null;

  constructor(private readonly clock: Clock) {}

  /** Runs fn after the provider's previous action has settled. */
  serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.chain.then(fn, fn);
    this.chain = next.catch(() => undefined);
    return next;
  }

  /** Remembers a failure (what status shows), or clears it after a success. */
  note(action: string, e: unknown | null): void {
    if (e === null) { this.lastError = null; return; }
    const code = e instanceof HttpError ? e.code : 'internal_error';
    const detail = e instanceof HttpError ? e.message : 'unexpected error';
    this.lastError = { at: this.clock.iso(), action, code, detail };
  }

  /** Runs the action, records its outcome in the audit log and in lastError; rethrows a failure. */
  async audited<T>(ctx: RequestCtx, action: string, target: string | null, details: Record<string, unknown>,
    fn: () => Promise<T>, resultDetails?: (r: T) => Record<string, unknown>): Promise<T> {
    let r: T;
    try {
      r = await fn();
    } catch (e) {
      // A refusal to cut the caller off is not a fault of the overlay.
      if (!(e instanceof HttpError && e.code === 'would_cut_off')) this.note(action, e);
      await ctx.audit(action, target, { ...details, error: e instanceof HttpError ? e.code : 'internal_error' }, 'failure')
        .catch(() => undefined);
      throw e;
    }
    this.note(action, null);
    await ctx.audit(action, target, { ...details, ...resultDetails?.(r) });
    return r;
  }
}
