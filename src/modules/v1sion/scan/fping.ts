// Liveness by ICMP echo: fping over the addresses in chunks of at most 256 (one process each, at most
// two at once), with `-r1 -t500 -i1` rather than fping's defaults (-r3 -t500 -i10), which take about
// 9 s per /24 for the same answer. Chunks keep the kernel's neighbour table (512 entries soft, 1,024
// hard in a namespace) from overflowing on a directly connected /20. fping exits 1 when any target is
// unreachable: its output is read, not its exit code.
import { run } from '../../../core/exec.js';
import { pool } from './pool.js';

export const FPING_CHUNK = 256;
const PARALLEL_CHUNKS = 2;
const ALIVE = /^(\S+) is alive \((\d+(?:\.\d+)?) ms\)/;

export interface FpingOptions {
  signal: AbortSignal;
  onAlive: (address: string, rttMs: number) => void;
  /** Called after each chunk with the number of addresses done so far. */
  onChunk?: (done: number) => void;
  program?: string;
}

/** Pings every address once (one retry); reports each that answers as soon as its chunk is done. */
export async function fpingSweep(addresses: readonly string[], opts: FpingOptions): Promise<void> {
  const chunks: string[][] = [];
  for (let i = 0; i < addresses.length; i += FPING_CHUNK) chunks.push(addresses.slice(i, i + FPING_CHUNK));
  let done = 0;
  await pool(chunks, PARALLEL_CHUNKS, opts.signal, async (chunk) => {
    const family6 = chunk[0]!.includes(':');
    const r = await run(opts.program ?? 'fping', [...(family6 ? ['-6'] : ['-4']), '-r1', '-t500', '-i1', '-e'], {
      input: chunk.join('\n') + '\n', signal: opts.signal, timeoutMs: 30_000, maxBytes: 1024 * 1024,
    });
    for (const line of r.stdout.split('\n')) {
      const m = ALIVE.exec(line);
      if (m) opts.onAlive(m[1]!, Number(m[2]));
    }
    done += chunk.length;
    opts.onChunk?.(done);
  });
}
