// GET /api/host/info: host name, OS, kernel, board, CPU, interfaces, gateway, DNS, time synchronisation.
import { z } from 'zod';
import { route, type AnyRoute } from '../../../core/http/registry.js';
import type { HostService } from './service.js';

const Gateway = z.object({ address: z.string(), interface: z.string() }).nullable();

export const HostInfoSchema = z.object({
  hostname: z.string(),
  os: z.object({ name: z.string(), id: z.string().nullable(), version: z.string().nullable(), pretty_name: z.string().nullable() }),
  kernel: z.object({ release: z.string(), version: z.string(), architecture: z.string() }),
  board: z.object({
    model: z.string().nullable().describe('/proc/device-tree/model (a Raspberry Pi names itself there), else a Raspberry Pi\'s ' +
      'cpuinfo Model line or revision code; null when the board is not known (an x86 PC)'),
    serial: z.string().nullable(), revision: z.string().nullable(),
  }),
  cpu: z.object({ model: z.string().nullable(), cores: z.number().int(), architecture: z.string() }),
  memory_total_bytes: z.number(),
  interfaces: z.array(z.object({
    name: z.string(), mac: z.string().nullable(), internal: z.boolean(),
    addresses: z.array(z.object({ address: z.string(), family: z.enum(['IPv4', 'IPv6']), prefix: z.number().int().nullable() })),
  })),
  default_gateway: z.object({ ipv4: Gateway, ipv6: Gateway }),
  dns_servers: z.array(z.string()).describe("resolv.conf's name servers (behind systemd-resolved: the servers it asks)"),
  time: z.object({
    timezone: z.string(),
    synchronized: z.boolean().nullable().describe('Whether the clock is synchronised (NTP); null when it cannot be told'),
    source: z.enum(['systemd-timesyncd', 'timedatectl']).nullable(),
  }),
  collected_at: z.string().describe('When these facts were read; they are kept until refresh=true'),
});

export function hostRoutes(host: HostService): AnyRoute[] {
  return [
    route({
      method: 'GET', path: '/api/host/info', scope: 'system:read', tag: 'system', summary: 'Host info; query refresh=true forces a refresh',
      description: 'Read once and kept: refresh=true reads /proc, /sys and /etc again. docs/system.md.',
      query: z.object({ refresh: z.enum(['true', 'false', '1', '0']).optional().describe('Read the facts again (default false)') }),
      response: HostInfoSchema,
      handler: ({ query }) => host.info(query.refresh === 'true' || query.refresh === '1'),
    }),
  ];
}
