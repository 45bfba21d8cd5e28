// A second read of the neighbour table once every liveness source has finished: hosts that fping or
// TCP made the kernel resolve meanwhile, and MACs for all of them.
import { readNeighboursInto } from '../neighbour-cache.js';
import type { Stage } from './types.js';

export const neighbourMacs: Stage = {
  name: 'neighbour-macs', phase: 'liveness', needs: ['links', 'hosts'], adds: { products: ['hosts', 'macs'], host: ['alive_by', 'mac'] },
  weight: 1,
  run: ({ state, signal }) => readNeighboursInto(state, signal).catch(() => undefined),
};
