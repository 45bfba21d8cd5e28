// Each host's reverse DNS name (discovery.dns_servers, else the system resolver), all looked up at once
// when the phase starts; discovery.reverse_dns: false leaves every name empty.
import { reverseNames } from '../names.js';
import type { Stage } from './types.js';

export const hostname: Stage = {
  name: 'hostname', phase: 'identify', needs: ['hosts'], adds: { host: ['hostname'] }, weight: 4,
  perHost: ({ settings, signal }, live) => {
    const names = settings.reverseDns ? reverseNames([...live], settings.dnsServers, signal)
      : Promise.resolve(new Map<string, string | null>());
    return { each: async (h) => { h.hostname = (await names).get(h.ip) ?? null; } };
  },
};
