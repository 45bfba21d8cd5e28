// Environment overrides (NETPROBE_PORT, ...) apply on top of the file for get() only. They are never
// written back: toJson() and rawYaml() show the file, so a read-modify-save round trip keeps them out.
//
// HTTPS follows NETPROBE_PORT unless it is set itself: a second instance started with NETPROBE_PORT=9000
// would otherwise contend for 8443 with the first. When NETPROBE_PORT is given and neither
// NETPROBE_HTTPS_PORT nor the file's tls.https_port is, HTTPS listens on NETPROBE_PORT + 363, the
// distance of the usual pairs (8080 and 8443, 80 and 443). The file's own server.port does not move
// HTTPS: a probe whose file set another port keeps its HTTPS listener where it was.

import YAML from 'yaml';
import type { z } from 'zod';
import { fieldErrors } from '../errors.js';
import type { Logger } from '../log.js';
import { deepFreeze, getPath, setPath } from './paths.js';
import type { Config } from './schema.js';

interface EnvOverride { env: string; path: string[]; parse(v: string): unknown }

const portOf = (v: string): unknown => (/^\d+$/.test(v) ? Number(v) : v);

/** Environment variables that override a key of the file; applied to get() only, never saved. */
const ENV_OVERRIDES: EnvOverride[] = [
  { env: 'NETPROBE_PORT', path: ['server', 'port'], parse: portOf },
  // Tests that run the service as a program turn HTTPS off (0) rather than each taking 8443.
  { env: 'NETPROBE_HTTPS_PORT', path: ['tls', 'https_port'], parse: portOf },
];

/** HTTPS port = HTTP port + this, when only NETPROBE_PORT is given (8080 -> 8443, 80 -> 443). */
export const HTTPS_PORT_OFFSET = 363;
const HTTPS_PORT = ['tls', 'https_port'];

/** Whether the configuration file's text names the key at `path` (whatever its value). */
export function fileNames(text: string | null, path: string[]): boolean {
  if (!text) return false;
  try { return YAML.parseDocument(text).hasIn(path); } catch { return false; }
}

/**
 * `config` with the environment's valid overrides applied, and HTTPS moved with NETPROBE_PORT (above);
 * deep-frozen. `fileText`: the configuration file as read (does it set tls.https_port?). `logIt`: log
 * each override (at load).
 */
export function withEnv(config: Config, env: NodeJS.ProcessEnv, schema: z.ZodType<Config>, log: Logger, logIt: boolean,
  fileText: string | null = null): Config {
  let out = structuredClone(config);
  const applied = new Set<string>();
  const apply = (path: string[], value: unknown): z.ZodSafeParseResult<Config> => {
    const candidate = structuredClone(out);
    setPath(candidate as unknown as Record<string, unknown>, path, value);
    const r = schema.safeParse(candidate);
    if (r.success) out = r.data;
    return r;
  };
  for (const o of ENV_OVERRIDES) {
    const raw = env[o.env];
    if (raw === undefined || raw === '') continue;
    const r = apply(o.path, o.parse(raw));
    if (r.success) {
      applied.add(o.env);
      if (logIt) log.info(`${o.env} overrides ${o.path.join('.')}`, { value: raw });
    } else if (logIt) {
      log.error(`ignoring ${o.env}: invalid value`, { value: raw, errors: fieldErrors(r.error.issues, { unknown: 'Unknown key' }) });
    }
  }
  // Only where the schema has the tls section (the system module's) and nothing set the HTTPS port itself.
  const httpsSet = (env.NETPROBE_HTTPS_PORT ?? '') !== '' || fileNames(fileText, HTTPS_PORT);
  const httpsNow = getPath(out, HTTPS_PORT);
  if (applied.has('NETPROBE_PORT') && !httpsSet && typeof httpsNow === 'number' && httpsNow !== 0) {
    const derived = out.server.port + HTTPS_PORT_OFFSET;
    if (derived > 65535) {
      if (logIt) log.warn(`NETPROBE_PORT=${out.server.port} leaves HTTPS on ${httpsNow}: set NETPROBE_HTTPS_PORT to move it`);
    } else if (derived !== httpsNow && apply(HTTPS_PORT, derived).success && logIt) {
      log.info(`HTTPS follows NETPROBE_PORT: tls.https_port is ${derived} (NETPROBE_PORT + ${HTTPS_PORT_OFFSET}); ` +
        'NETPROBE_HTTPS_PORT or tls.https_port in the file sets it instead', { value: derived });
    }
  }
  return deepFreeze(out);
}
