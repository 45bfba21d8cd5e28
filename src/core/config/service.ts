// The live configuration: the file as loaded (lenient, load.ts) with environment overrides on top
// (environment.ts), one save at a time (strict and atomic, save.ts), reloads, and change hooks that
// every listener hears with the dotted keys that changed.

import path from 'node:path';
import type { z } from 'zod';
import type { FieldError } from '../errors.js';
import { Logger } from '../log.js';
import { withEnv } from './environment.js';
import { configKeys, type ConfigKeyInfo } from './keys.js';
import { loadLenient, parseLenient, type Loaded } from './load.js';
import { diffKeys, isPlainObject } from './paths.js';
import { saveDocument, validateStrict, writeConfigFile, type SaveInput } from './save.js';
import { configSchema, type Config, type ConfigSections, type DeepPartial } from './schema.js';
import { keepSecrets, maskSecrets, sealSecrets, secretOpener, secretPaths, type ConfigSecretBox } from './secrets.js';
import { toPlain } from './yaml.js';

type Listener = (cfg: Config, changedKeys: string[]) => void;

export class ConfigService {
  private text: string | null;
  private fileConfig: Config;
  private effective: Config;
  private loadIssues: FieldError[];
  private listeners = new Set<Listener>();
  private saving: Promise<unknown> = Promise.resolve();
  private box: ConfigSecretBox | undefined;

  private constructor(
    readonly dataDir: string,
    readonly path: string,
    private env: NodeJS.ProcessEnv,
    private log: Logger,
    /** The core's sections and every registered module's. */
    readonly schema: z.ZodType<Config>,
    loaded: Loaded,
  ) {
    this.text = loaded.text;
    this.fileConfig = loaded.config;
    this.loadIssues = loaded.issues;
    this.effective = this.withEnv(loaded.config, true);
  }

  /** `sections`: the modules' own (Module.config); without them only the core's keys are known. */
  static async load(opts: { env?: NodeJS.ProcessEnv; log?: Logger; sections?: ConfigSections } = {}): Promise<ConfigService> {
    const env = opts.env ?? process.env;
    const log = opts.log ?? Logger.create().child('config');
    const dataDir = path.resolve(env.NETPROBE_DATA_DIR || './data');
    const file = path.resolve(env.NETPROBE_CONFIG || path.join(dataDir, 'config.yaml'));
    const schema = configSchema(opts.sections);
    const loaded = await loadLenient(file, log, schema, secretOpener(schema, undefined, log));
    return new ConfigService(dataDir, file, env, log, schema, loaded);
  }

  /** The effective configuration (file, defaults, environment overrides); deep-frozen. */
  get(): Config { return this.effective; }

  /** The configuration file's text as it is on disk, or '' when there is none. */
  rawYaml(): string { return this.text ?? ''; }

  /** The file's configuration with defaults filled in, without environment overrides; a fresh copy. */
  toJson(): Config { return structuredClone(this.fileConfig); }

  /** What was wrong with the file at the last load (ignored keys, keys reset to defaults). */
  issues(): FieldError[] { return this.loadIssues.map((i) => ({ ...i })); }

  /** Validate and save YAML text exactly as given (comments and all). Returns the effective config. */
  async saveYaml(text: string): Promise<Config> {
    return (await this.apply({ yaml: text })).config;
  }

  /**
   * Replace the whole file configuration with `obj` (keys left out take their defaults, secrets left out
   * are kept). Comments on keys that remain are kept. Returns the effective config.
   */
  async saveJson(obj: unknown): Promise<Config> {
    return (await this.apply({ json: obj })).config;
  }

  /**
   * Merge a patch into the file through the YAML document, so comments and layout survive. null resets a
   * key to its default (removes it from the file). Returns the effective config.
   */
  async update(patch: DeepPartial<Config>): Promise<Config> {
    return (await this.apply({ patch })).config;
  }

  /**
   * The one save path: YAML text as given, a whole configuration (JSON) or a patch. Everything is
   * validated before anything is written (400 naming each key, and its line for YAML); secrets follow
   * the write-only rules (secrets.ts). `dryRun` validates and reports without writing.
   * Returns the effective config (unchanged on a dry run), the dotted keys of the file that change, and
   * the stored secrets dropped because a key they are bound to changed and the save did not send them again.
   */
  apply(input: SaveInput, opts: { dryRun?: boolean } = {}):
    Promise<{ config: Config; changed: string[]; before: Config; after: Config; dropped: string[] }> {
    return this.serial(async () => {
      const { doc, lines } = saveDocument(input, this.text);
      const kept = keepSecrets(doc, this.schema, this.fileConfig, 'patch' in input ? input.patch ?? {} : undefined);
      let edited = kept.edited;
      const dropped = kept.dropped;
      const plain = toPlain(doc);
      if (isPlainObject(plain)) secretOpener(this.schema, this.box, this.log)(plain);
      const config = validateStrict(this.schema, plain, doc, lines);
      const before = this.toJson();
      const changed = diffKeys(before, config);
      if (opts.dryRun) return { config: this.effective, changed, before, after: config, dropped };
      edited = sealSecrets(doc, this.schema, this.box) || edited;
      const text = 'yaml' in input && !edited ? input.yaml : doc.toString();
      await this.write(text, config);
      return { config: this.effective, changed, before, after: config, dropped };
    });
  }

  /** Validates a whole configuration strictly (400 naming each key) without saving it. */
  check(obj: unknown): Config { return validateStrict(this.schema, obj); }

  /** Every key with its default, description, unit and whether it is secret or needs a restart. */
  keys(): ConfigKeyInfo[] { return configKeys(this.schema); }

  /** `obj` (a configuration or part of one) with each secret shown as {set: true|false}; a fresh copy. */
  mask<T>(obj: T): T { return maskSecrets(obj, secretPaths(this.schema)); }

  /**
   * Seal secrets written from now on, and open those the file holds (main.ts calls this as soon as the
   * machine key is open, before any module reads the configuration). Until then a sealed value reads as stored.
   */
  attachSecretBox(box: ConfigSecretBox): void {
    this.box = box;
    if (this.text === null) return;
    const loaded = parseLenient(this.text, this.path, this.log, this.schema, secretOpener(this.schema, box, this.log));
    this.loadIssues = loaded.issues;
    this.fileConfig = loaded.config;
    this.effective = this.withEnv(loaded.config, false);
  }

  /** Re-read the file (e.g. on SIGHUP) with the lenient load rules; listeners hear about changes. */
  reload(): Promise<Config> {
    return this.serial(async () => {
      const loaded = await loadLenient(this.path, this.log, this.schema, secretOpener(this.schema, this.box, this.log));
      this.loadIssues = loaded.issues;
      this.commit(loaded.text, loaded.config);
      return this.effective;
    });
  }

  /** Called after each change of the effective config with the dotted keys that changed. */
  onChange(fn: Listener): () => void {
    this.listeners.add(fn);
    return () => { this.listeners.delete(fn); };
  }

  // One save at a time, so two concurrent read-modify-writes cannot lose each other's change.
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.saving.then(fn, fn);
    this.saving = next.catch(() => undefined);
    return next;
  }

  private async write(text: string, config: Config): Promise<void> {
    await writeConfigFile(this.path, text, this.log);
    this.loadIssues = [];
    this.commit(text, config);
  }

  private commit(text: string | null, config: Config): void {
    const before = this.effective;
    this.text = text;
    this.fileConfig = config;
    this.effective = this.withEnv(config, false);
    const changed = diffKeys(before, this.effective);
    if (!changed.length) return;
    this.log.info('configuration changed', { keys: changed });
    for (const fn of [...this.listeners]) {
      try { fn(this.effective, changed); } catch (e) { this.log.error('config change listener failed', { err: e }); }
    }
  }

  private withEnv(config: Config, logIt: boolean): Config { return withEnv(config, this.env, this.schema, this.log, logIt, this.text); }
}
