// The configuration's schema: the core's sections, and the ModuleConfig interface each module augments.
//
// A module owns its own section: it declares it as Module.config (modules/<name>/config.ts, with
// `section()`), types it by augmenting ModuleConfig (`declare module '<path>/core/config/schema.js'`, this
// file, where the interface is declared), and main.ts hands every module's section to ConfigService.load().
// docs/configuration.md is generated from all of them (npx tsx scripts/config-doc.ts; a unit test fails
// when it is stale).

import { isIP } from 'node:net';
import { z } from 'zod';
import { knownZone } from '../time-zone.js';

/** A strict section whose own keys all have defaults, so a missing section parses to its defaults. */
export function section<T extends z.ZodRawShape>(shape: T) {
  return z.strictObject(shape).prefault({} as z.input<z.ZodObject<T, z.core.$strict>>);
}

const HOSTNAME = /^(?=.{1,253}$)([a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)(\.[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*\.?$/;

// As lenient as earlier builds were: a config.yaml written by hand with an offset still loads.
const validTimeZone = (tz: string): boolean => knownZone(tz) !== null;

const port = z.number().int().min(1).max(65535);

const CORE_SECTIONS = {
  server: section({
    port: port.default(8080).describe('Port of the web interface and API').meta({ restart: true }),
    host: z.string().refine((v) => isIP(v) !== 0 || HOSTNAME.test(v), 'Must be an IP address or a host name')
      .default('0.0.0.0')
      .describe('Address to listen on: 0.0.0.0 for every IPv4 address, :: for IPv4 and IPv6, 127.0.0.1 for this host only')
      .meta({ restart: true }),
    trust_proxy: z.boolean().default(false)
      .describe("Take the client's address from X-Forwarded-For (only behind a reverse proxy you run)"),
    public_url: z.union([z.literal(''), z.url({ protocol: /^https?$/ })]).default('')
      .describe('The address people use to reach the probe, when it differs from what the browser sends (a proxy); ' +
        'accepted as a request origin'),
  }),
  probe: section({
    name: z.string().min(1).max(100).default('netprobe')
      .describe("The probe's name, shown in the web interface, on the sign-in page and in alerts"),
    hostname: z.union([z.literal(''), z.string().regex(HOSTNAME, 'Must be a valid host name')]).default('')
      .describe("Host name the setup wizard set; empty keeps the system's"),
    timezone: z.string().refine(validTimeZone, 'Must be an IANA time zone such as UTC or Europe/Berlin')
      .default('UTC').describe('IANA time zone the web interface shows times in'),
    admin_email: z.union([z.literal(''), z.email()]).default('').describe("Administrator's e-mail address (setup wizard)"),
  }),
  log: section({
    level: z.enum(['debug', 'info', 'warn', 'error']).default('info').describe('Lowest level written to the log'),
    buffer: z.number().int().min(100).max(100_000).default(1000).describe('Log entries kept in memory for GET /api/dev/logs/stream'),
  }),
  auth: section({
    session_ttl_hours: z.number().min(1).max(24 * 90).default(12).describe('A sign-in lasts at most this long'),
    session_idle_minutes: z.number().min(1).max(24 * 60 * 30).default(120).describe('A session unused for this long ends'),
    login_max_failures: z.number().int().min(1).max(1000).default(5)
      .describe('Failed attempts (sign-in, setup code, passwords, vault passphrase) per address or user before a lockout'),
    login_window_minutes: z.number().min(1).max(24 * 60).default(15).describe('The window those failures are counted in'),
    lockout_minutes: z.number().min(1).max(24 * 60).default(15).describe('How long a lockout lasts (429 with Retry-After)'),
  }),
  // The store is opened once with these figures.
  store: section({
    checkpoint_mb: z.number().min(1).max(1024).default(8)
      .describe("A snapshot is written when the journal passes this size (or the snapshot's own size, if larger)"),
    checkpoint_age_minutes: z.number().min(1).max(24 * 60).default(10)
      .describe('A snapshot is written when the oldest change not in one is this old (longer for a large snapshot)'),
    // Checkpoints by age write a large snapshot less often: at most this much per minute on average.
    snapshot_kib_per_minute: z.number().min(1).max(1024 * 1024).default(32)
      .describe('Snapshots by age write at most this much per minute on average (SD-card wear)'),
    group_commit_ms: z.number().int().min(0).max(60_000).default(2000)
      .describe('Scheduled check results are made durable in batches this far apart (lost on power loss at most)'),
  }).meta({ restart: true }),
  http: section({
    json_limit_kb: z.number().int().min(16).max(64 * 1024).default(1024).describe('Largest JSON request body (413 beyond)'),
    upload_limit_mb: z.number().int().min(1).max(1024).default(10).describe('Largest upload (certificates, brand assets)'),
    // A LAN full of browsers stays far below these bounds; a flood of sockets from one address does not.
    max_connections: z.number().int().min(16).max(65_535).default(512).describe('Open connections at most; more get 503'),
    max_connections_per_address: z.number().int().min(4).max(65_535).default(64)
      .describe('Open connections from one address at most; more get 503'),
    request_timeout_seconds: z.number().int().min(5).max(3600).default(30)
      .describe("A request's headers and body must arrive within this; a response that stops draining this long is cut"),
  }),
};

const CoreSchema = z.strictObject(CORE_SECTIONS);
export type CoreConfig = z.infer<typeof CoreSchema>;

/** The sections modules add; each module augments this with its own: `declare module ... { interface ModuleConfig ... }`. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by declaration merging
export interface ModuleConfig {}

export type Config = CoreConfig & ModuleConfig;

/** Module sections by name, as Module.config declares them. */
export type ConfigSections = Record<string, z.ZodType>;

/** The whole configuration's schema: the core's sections and the modules'. */
export function configSchema(sections: ConfigSections = {}): z.ZodType<Config> {
  for (const name of Object.keys(sections)) {
    if (Object.hasOwn(CORE_SECTIONS, name)) throw new Error(`configuration section ${name} is the core's; a module cannot declare it`);
  }
  return CoreSchema.extend(sections) as unknown as z.ZodType<Config>;
}

/** The core's sections alone (tests of the configuration mechanism). */
export const ConfigSchema = configSchema();

/** A patch for update(): any subset of keys; null resets a key (or section) to its default. */
export type DeepPartial<T> = T extends readonly unknown[] ? T
  : T extends object ? { [K in keyof T]?: DeepPartial<T[K]> | null }
  : T;
