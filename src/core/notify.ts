// Tells systemd how the service is doing (sd_notify protocol) without a native module: each message is
// one run of Debian's `systemd-notify`, which the unit allows with NotifyAccess=all. systemd-notify
// waits until systemd has read the message (its barrier), so a message is never lost because the short
// helper process exited before systemd could tell which unit it belongs to.
//
// Under systemd (NOTIFY_SOCKET set): READY=1 once the service listens, WATCHDOG=1 every half of
// WATCHDOG_USEC while the event loop runs, STOPPING=1 on a graceful stop. Anywhere else: nothing.
import type { Clock } from './clock.js';
import { run as runProgram } from './exec.js';
import type { Logger } from './log.js';

export interface Notifier {
  /** True when a service manager listens (NOTIFY_SOCKET is set). */
  readonly active: boolean;
  /** The watchdog period in ms (half of WATCHDOG_USEC), or null when systemd asked for none. */
  readonly watchdogMs: number | null;
  /** READY=1 with a status line; call once the service accepts requests. */
  ready(status: string): Promise<void>;
  /** STOPPING=1 with a status line; stops the watchdog pings. */
  stopping(status: string): Promise<void>;
  /** Stops the watchdog pings. */
  close(): void;
}

export interface NotifierOptions {
  env: NodeJS.ProcessEnv;
  clock: Clock;
  log: Logger;
  /** This process's id, compared with WATCHDOG_PID (default process.pid). */
  pid?: number;
  run?: typeof runProgram;
}

const NOTIFY_TIMEOUT_MS = 10_000;

export function createNotifier(opts: NotifierOptions): Notifier {
  const socket = opts.env.NOTIFY_SOCKET ?? '';
  const run = opts.run ?? runProgram;
  const { clock, log } = opts;
  const watchdogMs = socket ? watchdogPeriod(opts.env, opts.pid ?? process.pid) : null;
  let timer: { cancel(): void } | undefined;
  let closed = false;
  let failed = false;

  async function send(args: string[]): Promise<void> {
    try {
      const r = await run('systemd-notify', args, { env: { NOTIFY_SOCKET: socket }, timeoutMs: NOTIFY_TIMEOUT_MS });
      if (r.code !== 0) throw new Error(`systemd-notify exited ${r.code ?? r.signal}: ${r.stderr.trim()}`);
      failed = false;
    } catch (e) {
      // Once per run of failures: a watchdog that cannot reach systemd would otherwise log twice a period.
      if (!failed) log.error('could not notify systemd', { args, err: e as Error });
      failed = true;
    }
  }

  function schedule(): void {
    if (closed || watchdogMs === null) return;
    timer = clock.setTimeout(() => { void send(['WATCHDOG=1']).finally(schedule); }, watchdogMs);
  }

  const close = () => { closed = true; timer?.cancel(); };

  if (!socket) {
    return { active: false, watchdogMs: null, ready: async () => {}, stopping: async () => {}, close };
  }
  // Pinging starts now, not at READY: whether systemd arms the watchdog at start or once ready, a
  // ping it does not need yet is harmless, and a slow start (a long journal replay) is covered.
  schedule();
  if (watchdogMs !== null) log.info(`systemd watchdog: pinging every ${watchdogMs} ms`);
  return {
    active: true,
    watchdogMs,
    ready: (status) => send(['--ready', `--status=${status}`]),
    async stopping(status) {
      close();
      await send(['STOPPING=1', `STATUS=${status}`]);
    },
    close,
  };
}

/** Half of WATCHDOG_USEC in ms, when it is set and meant for this process (WATCHDOG_PID, if set). */
function watchdogPeriod(env: NodeJS.ProcessEnv, pid: number): number | null {
  const usec = Number(env.WATCHDOG_USEC);
  if (!Number.isSafeInteger(usec) || usec <= 0) return null;
  if (env.WATCHDOG_PID && Number(env.WATCHDOG_PID) !== pid) return null;
  return Math.max(1, Math.floor(usec / 2000));
}
