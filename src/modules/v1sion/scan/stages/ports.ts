// Each live host's open ports among discovery.tcp_ports (those the liveness sweep has not already found
// open); any answer also proves the host by TCP.
import { pool } from '../pool.js';
import { tcpTry, TCP_TIMEOUT_MS } from '../tcp.js';
import type { Stage } from './types.js';

export const ports: Stage = {
  name: 'ports', phase: 'identify', needs: ['hosts'], adds: { host: ['alive_by', 'open_ports'] }, weight: 15,
  perHost: ({ settings, signal }) => ({
    async each(h) {
      const extra = settings.tcpPorts.filter((p) => !h.open_ports.includes(p));
      await pool(extra, extra.length, signal, async (port) => {
        const o = await tcpTry(h.ip, port, TCP_TIMEOUT_MS, signal);
        if (o !== 'silent' && !h.alive_by.includes('tcp')) h.alive_by.push('tcp');
        if (o === 'open') h.open_ports.push(port);
      });
      h.open_ports.sort((a, b) => a - b);
    },
  }),
};
