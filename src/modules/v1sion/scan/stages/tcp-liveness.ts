// Liveness by TCP connect on the addresses that are not on one of the probe's links (there the
// neighbour table finds every host): a refusal proves a host as well as an open port.
import { inCidr } from '../ranges.js';
import { tcpSweep, TCP_TIMEOUT_MS } from '../tcp.js';
import type { Stage } from './types.js';

/** Ports tried on every routed address. */
const LIVENESS_PORTS = [80, 443, 22];
const TCP_PARALLEL = 512;

export const tcpLiveness: Stage = {
  name: 'tcp-liveness', phase: 'liveness', needs: ['addresses'], adds: { products: ['hosts'], host: ['alive_by', 'open_ports'] },
  weight: 1,
  async run({ plan, state, signal }) {
    const routed = plan.addresses.filter((a) => !plan.links.some((l) => inCidr(l.cidr, a)));
    await tcpSweep(routed, LIVENESS_PORTS, {
      timeoutMs: TCP_TIMEOUT_MS, limit: TCP_PARALLEL, signal,
      onResult: (ip, port, outcome) => {
        if (outcome === 'silent') return;
        const h = state.alive(ip, 'tcp');
        if (outcome === 'open' && !h.open_ports.includes(port)) h.open_ports.push(port);
      },
    });
  },
};
