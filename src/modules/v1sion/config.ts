// The `discovery` section of the configuration (the v1sion module): which ranges a scan may sweep, how
// large, how hard it tries, how many results are kept, and who may read the topology's status badges.
import { isIP } from 'node:net';
import { z } from 'zod';
import { section } from '../../core/config/schema.js';
import { parseCidr } from '../../core/ip.js';

const Cidr = z.string().refine((s) => parseCidr(s, { loose: true }).ok, 'a network in CIDR notation, e.g. 203.0.113.0/24');

export const discoveryConfig = section({
  status_requires_auth: z.boolean().default(false).describe(
    'GET /api/v1sion/monitor/status and /by-ip need a signed-in caller with v1sion:read (by default they are open, as SPEC.md says)'),
  allowed_ranges: z.array(Cidr).max(256).default([]).describe(
    'Networks a scan may sweep besides the private and local ranges (RFC 1918, 100.64.0.0/10, 169.254.0.0/16, ' +
    '127.0.0.0/8, fc00::/7, fe80::/10) and the subnets the probe has an address in. Anything else is refused, so the ' +
    'probe never becomes a scanning relay for the internet by default'),
  max_prefix_v4: z.number().int().min(16).max(32).default(20).describe(
    'Largest IPv4 scan: a prefix shorter than this is refused (default /20 = 4,096 addresses; at most /16)'),
  tcp_ports: z.array(z.number().int().min(1).max(65535)).min(1).max(32)
    .default([22, 23, 53, 80, 135, 139, 443, 445, 3389, 8080, 8443]).describe(
      'TCP ports a scan tries on each live host (an open port or a refusal also proves a host is there)'),
  snmp_timeout_ms: z.number().int().min(100).max(10_000).default(1000).describe(
    'How long a scan waits for an SNMP answer (per try); high-latency links may need more'),
  snmp_retries: z.number().int().min(0).max(3).default(1).describe('SNMP retries per request during a scan'),
  max_concurrent_scans: z.number().int().min(1).max(8).default(2).describe(
    'Scans that may run at once; more are refused with 429 and Retry-After'),
  results_kept: z.number().int().min(1).max(200).default(20).describe(
    'Finished scan results kept on disk (the newest); older ones answer 404'),
  results_max_mib: z.number().int().min(1).max(1024).default(32).describe(
    'Disk budget of the kept scan results (compressed); the oldest go first when it is exceeded'),
  missing_after_minutes: z.number().int().min(0).max(525_600).default(120).describe(
    'A known device is reported missing (device_missing) once it has not answered for this long…'),
  missing_after_scans: z.number().int().min(1).max(1000).default(3).describe(
    '…and in this many completed scans of its subnet in a row (a device marked transient never is; one marked expected is even ' +
    'if it was not seen regularly)'),
    reverse_dns: z.boolean().default(true).describe('Look up a name (PTR) for each live host'),
  dns_servers: z.array(z.string().refine((s) => isIP(s) !== 0, 'an IP address')).max(4).default([]).describe(
    'Resolvers for those lookups (default: the system\'s, from /etc/resolv.conf)'),
  ssh_concurrency: z.number().int().min(1).max(16).default(4).describe(
    'Devices one SSH enrichment logs in to at once (each uses one session of the device; sshd lets 10 logins wait by default)'),
  max_concurrent_enrichments: z.number().int().min(1).max(8).default(2).describe(
    'SSH enrichments that may run at once; more are refused with 429 and Retry-After'),
  ssh_connect_timeout_ms: z.number().int().min(1000).max(60_000).default(10_000).describe(
    'SSH: TCP connection, key exchange and login together'),
  ssh_banner_timeout_ms: z.number().int().min(500).max(30_000).default(5000).describe(
    'SSH: the server must send its banner and finish the key exchange within this (a port that stalls after its banner fails here)'),
  ssh_command_timeout_ms: z.number().int().min(1000).max(120_000).default(15_000).describe(
    'SSH: one command of the fixed list (its output is cut off after this)'),
  ssh_device_timeout_ms: z.number().int().min(5000).max(600_000).default(90_000).describe(
    'SSH: one device in all (login, every command)'),
  ssh_output_max_kib: z.number().int().min(64).max(65_536).default(4096).describe(
    'SSH: all output read from one device; one command gets at most a quarter of it'),
});

declare module '../../core/config/schema.js' {
  interface ModuleConfig { discovery: z.infer<typeof discoveryConfig> }
}
