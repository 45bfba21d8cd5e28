// Each host's MAC vendor from the IEEE registries (scan/oui.ts).
import { ouiVendor } from '../oui.js';
import type { Stage } from './types.js';

export const macVendor: Stage = {
  name: 'mac-vendor', phase: 'identify', needs: ['hosts', 'macs'], adds: { host: ['mac_vendor'] }, weight: 1,
  perHost: () => ({
    each: async (h) => { if (h.mac) h.mac_vendor = ouiVendor(h.mac)?.vendor ?? null; },
  }),
};
