// /api/v1sion/device/snmp: identify one address by SNMP (device/service.ts).
import { z } from 'zod';
import { route } from '../../../core/http/registry.js';
import { canonicalIp } from '../../../core/ip.js';
import { DeviceTablesOut } from '../scan/neighbours/schema.js';
import { CredentialFields } from '../scan/request.js';
import { CredentialLabel, SnmpFacts } from '../scan/result.js';
import type { DeviceProbe } from './service.js';

const DeviceBody = z.object({
  ip: z.string().trim().min(1).max(64).refine((s) => canonicalIp(s) !== null, 'an IPv4 or IPv6 address')
    .transform((s) => canonicalIp(s)!).describe('The device\'s address (within the ranges a scan may sweep)'),
  port: z.number().int().min(1).max(65535).optional().describe('UDP port of the agent (default 161)'),
  ...CredentialFields,
}).strict();

export function deviceRoutes(svc: DeviceProbe) {
  return [
    route({
      method: 'POST', path: '/api/v1sion/device/snmp', scope: 'v1sion:write',
      summary: 'Identify one IP by SNMP',
      description: 'Tries the credentials as a scan does; returns the identification (vendor profile, model, OS, version, serial), ' +
        'interfaces, LLDP/CDP neighbours, forwarding and ARP entries. 504 snmp_timeout, 502 snmp_unreachable, ' +
        '422 snmp_bad_community (or a v3 problem) when no credential works.',
      body: DeviceBody,
      response: DeviceTablesOut.extend({
        ip: z.string(), port: z.number().int(), credential: CredentialLabel.describe('The credential that answered (no secret)'),
        identification: SnmpFacts, warnings: z.array(z.string()),
      }),
      handler: (ctx) => svc.identify(ctx.body),
    }),
  ];
}
