// Configuration of pairing with a controller over MQTT 5 (docs/hivemind.md): spread into the system
// module's sections (../config.ts). The pairing itself (broker, id, secret, CA) is not configuration: it
// comes from a pairing code and lives in the hivemind_pairing table, its secret sealed.
import { z } from 'zod';
import { section } from '../../../core/config/schema.js';
import { parseCidr } from '../../../core/ip.js';

const Cidr = z.string().max(64).refine((s) => parseCidr(s, { loose: true }).ok, 'a network in CIDR notation, e.g. 192.168.1.0/24');

const hivemind = section({
  allowed_scan_ranges: z.array(Cidr).max(256).default([]).describe(
    'Networks the controller may have this probe scan (command `scan`); a requested subnet must lie inside one of them. ' +
    'Empty (the default): every scan command is refused. The discovery limits (discovery.allowed_ranges, max_prefix_v4) apply too'),
  allow_insecure: z.boolean().default(false).describe(
    'Accept pairing codes with an mqtt:// (plain TCP, no TLS) broker URL: a lab broker only. Off: only mqtts:// with the CA the code pins'),
  queue_limit: z.number().int().min(10).max(100_000).default(1000).describe(
    'Events kept (on disk, across restarts) while the broker cannot be reached; beyond it the oldest are dropped ' +
    '(and counted in GET /api/hivemind/status)'),
  connect_timeout_seconds: z.number().int().min(1).max(120).default(10).meta({ restart: true }).describe(
    'Connecting to the broker (TCP, TLS and its CONNACK) must finish within this, at pairing and at each reconnect ' +
    '(read when the connection is set up: at pairing or start)'),
  reconnect_max_seconds: z.number().int().min(1).max(3600).default(60).describe(
    'Longest wait between reconnect attempts when the broker is unreachable (the wait doubles from 1 s up to this)'),
  session_expiry_seconds: z.number().int().min(0).max(7 * 24 * 3600).default(3600).meta({ restart: true }).describe(
    'How long the broker keeps the probe\'s session (its subscription and commands at QoS 1) while it is disconnected ' +
    '(MQTT 5 session expiry)'),
});

export type HivemindConfig = z.infer<typeof hivemind>;

export const hivemindConfig = { hivemind };

declare module '../../../core/config/schema.js' {
  interface ModuleConfig { hivemind: HivemindConfig }
}
