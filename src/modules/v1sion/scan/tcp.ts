// Liveness and open ports by TCP connect. An accepted connection proves an open port; a refusal (RST)
// proves the host as well as a closed port (nmap's idea, with no raw socket). A timeout proves
// nothing: the port may be filtered or nobody may be there.
import { connect } from 'node:net';
import { pool } from './pool.js';

/** How long a connect may take: a LAN host answers in milliseconds, a routed one well within a second. */
export const TCP_TIMEOUT_MS = 1000;

export type TcpOutcome = 'open' | 'closed' | 'silent';

/** One connect attempt; never rejects. */
export function tcpTry(host: string, port: number, timeoutMs: number, signal: AbortSignal): Promise<TcpOutcome> {
  return new Promise((resolve) => {
    if (signal.aborted) { resolve('silent'); return; }
    const sock = connect({ host, port });
    let settled = false;
    const finish = (o: TcpOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      sock.destroy();
      resolve(o);
    };
    const onAbort = () => finish('silent');
    const timer = setTimeout(() => finish('silent'), timeoutMs);
    signal.addEventListener('abort', onAbort, { once: true });
    sock.once('connect', () => finish('open'));
    sock.once('error', (e: NodeJS.ErrnoException) => finish(e.code === 'ECONNREFUSED' ? 'closed' : 'silent'));
  });
}

/** Tries each port of each address (`limit` connects at once); reports per address what it learnt. */
export async function tcpSweep(addresses: readonly string[], ports: readonly number[], opts: {
  timeoutMs: number; limit: number; signal: AbortSignal;
  onResult: (address: string, port: number, outcome: TcpOutcome) => void;
}): Promise<void> {
  const pairs: [string, number][] = [];
  for (const a of addresses) for (const p of ports) pairs.push([a, p]);
  await pool(pairs, opts.limit, opts.signal, async ([a, p]) => {
    opts.onResult(a, p, await tcpTry(a, p, opts.timeoutMs, opts.signal));
  });
}
