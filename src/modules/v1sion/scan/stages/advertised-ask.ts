// mDNS/DNS-SD and SSDP on the probe's own links inside the subnet (scan/advertised/ask.ts): multicast to
// the link-local groups from an ephemeral port, beside the liveness sweep (it needs no live host), so it
// costs the scan no time of its own. Answers from outside the subnet are dropped.
import { askLinks } from '../advertised/ask.js';
import { inCidr } from '../ranges.js';
import type { Stage } from './types.js';

export const advertisedAsk: Stage = {
  name: 'advertised-ask', phase: 'liveness', needs: ['links'], adds: { products: ['advertised'] }, weight: 1,
  async run({ plan, state, signal, progress, fail }) {
    const answers = await askLinks(plan.links, { accept: (a) => inCidr(plan.subnet, a), signal, progress });
    state.work.advertised = answers;
    if (answers.errors.length) fail('mDNS/SSDP', new Error([...new Set(answers.errors)].slice(0, 3).join('; ')));
  },
};
