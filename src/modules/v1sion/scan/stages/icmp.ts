// Liveness by ICMP echo (fping, scan/fping.ts) over every address: the longest liveness source on a
// routed subnet, so it carries the liveness share of the progress, chunk by chunk.
import { fpingSweep } from '../fping.js';
import type { Stage } from './types.js';

export const icmp: Stage = {
  name: 'icmp', phase: 'liveness', needs: ['addresses'], adds: { products: ['hosts'], host: ['alive_by', 'rtt_ms'] }, weight: 35,
  async run(ctx) {
    const { addresses } = ctx.plan;
    await fpingSweep(addresses, {
      signal: ctx.signal,
      onAlive: (ip, rtt) => {
        const h = ctx.state.alive(ip, 'icmp');
        h.rtt_ms = h.rtt_ms === null ? rtt : Math.min(h.rtt_ms, rtt);
      },
      onChunk: (done) => ctx.progress(done / Math.max(1, addresses.length)),
    }).catch((e: unknown) => ctx.fail('ICMP sweep', e));
  },
};
