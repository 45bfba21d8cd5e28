// Configuration: one YAML file, one zod schema with a default for every key (an empty or missing file
// is a valid configuration), environment overrides on top, atomic saves and change hooks.
//   schema.ts       section(), the core's sections, ModuleConfig (which each module's config.ts augments)
//   keys.ts         key metadata (.meta(): secret, restart, unit) flattened to dotted keys
//   secrets.ts      the write-only rules for secret keys, sealing under the machine key
//   load.ts         the lenient load: the service always starts
//   environment.ts  NETPROBE_* overrides, for get() only
//   save.ts         the strict, atomic save
//   service.ts      ConfigService: the live configuration, reloads and change hooks
//   docs.ts         docs/configuration.md, rendered from the schemas
// This file is the API the rest of src/ imports.

export {
  section, configSchema, ConfigSchema,
  type Config, type ConfigSections, type CoreConfig, type DeepPartial, type ModuleConfig,
} from './schema.js';
export { configKeys, type ConfigKeyInfo } from './keys.js';
export { maskSecrets, secretIsSet } from './secrets.js';
export { ConfigService } from './service.js';
