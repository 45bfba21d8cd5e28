// Environment overrides (NETPROBE_PORT, ...) apply on top of the file for get() only. They are never
// written back: toJson() and rawYaml() show the file, so a read-modify-save round trip keeps them out.

import type { z } from 'zod';
import { fieldErrors } from '../errors.js';
import type { Logger } from '../log.js';
import { deepFreeze, setPath } from './paths.js';
import type { Config } from './schema.js';

interface EnvOverride { env: string; path: string[]; parse(v: string): unknown }

/** Environment variables that override a key of the file; applied to get() only, never saved. */
const ENV_OVERRIDES: EnvOverride[] = [
  { env: 'NETPROBE_PORT', path: ['server', 'port'], parse: (v) => (/^\d+$/.test(v) ? Number(v) : v) },
  // Tests that run the service as a program turn HTTPS off (0) rather than each taking 8443.
  { env: 'NETPROBE_HTTPS_PORT', path: ['tls', 'https_port'], parse: (v) => (/^\d+$/.test(v) ? Number(v) : v) },
];

/** `config` with the environment's valid overrides applied; deep-frozen. `logIt`: log each override (at load). */
export function withEnv(config: Config, env: NodeJS.ProcessEnv, schema: z.ZodType<Config>, log: Logger, logIt: boolean): Config {
  let out = structuredClone(config);
  for (const o of ENV_OVERRIDES) {
    const raw = env[o.env];
    if (raw === undefined || raw === '') continue;
    const candidate = structuredClone(out);
    setPath(candidate as unknown as Record<string, unknown>, o.path, o.parse(raw));
    const r = schema.safeParse(candidate);
    if (r.success) {
      out = r.data;
      if (logIt) log.info(`${o.env} overrides ${o.path.join('.')}`, { value: raw });
    } else if (logIt) {
      log.error(`ignoring ${o.env}: invalid value`, { value: raw, errors: fieldErrors(r.error.issues, { unknown: 'Unknown key' }) });
    }
  }
  return deepFreeze(out);
}
