// Configuration: one YAML file, one zod schema with a default for every key (an empty or missing file
// is a valid configuration), environment overrides on top, atomic saves and change hooks.
//
// Loading never stops the service: an appliance that refuses to start over a typo is unreachable, and
// its operator can no longer fix the file through the UI. So, on load:
//   - a missing file gives the defaults;
//   - a file that is not valid YAML (or whose top level is not a mapping) is logged as an error and the
//     service starts on the defaults. The file is left untouched, rawYaml() still returns its text so it
//     can be fixed through the API, and issues() lists what went wrong;
//   - an unknown key is logged as a warning and ignored;
//   - an invalid value is logged as an error and that key alone falls back to its default, so every
//     other setting the operator made still applies.
// Saving through the API is strict instead: invalid YAML, unknown keys and invalid values are refused
// with a 400 naming each field, and nothing is written.
//
// Environment overrides (NETPROBE_PORT, ...) apply on top of the file for get() only. They are never
// written back: toJson() and rawYaml() show the file, so a read-modify-save round trip keeps them out.
//
// Sections: the core's are below (CORE_SECTIONS). A module owns its own section: it declares it as
// Module.config (modules/<name>/config.ts, with `section()`), types it by augmenting ModuleConfig, and
// main.ts hands every module's section to load(). docs/configuration.md is generated from all of them
// (npx tsx scripts/config-doc.ts; a unit test fails when it is stale).
//
// Key metadata, declared on the key's schema with zod's .meta() and read by configKeys() (the API's
// masking and CSV export, the generated document): `secret: true` makes a key write-only (the API shows
// it as {set: true|false}, a save that omits it or sends {set: true} keeps it, {set: false} clears it, and
// the file holds it sealed under the machine key once a secret box is attached); `restart: true` says a
// change takes effect at the next start only (every other key applies live, through get() or the
// config.changed bus event); `unit` overrides the unit the key's name implies (_ms, _seconds, _kb, ...).
// A section's own .meta() applies to each of its keys.

import { writeFileAtomic } from './files.js';
import { promises as fs } from 'node:fs';
import { isIP } from 'node:net';
import path from 'node:path';
import YAML from 'yaml';
import { z } from 'zod';
import { HttpError, badRequest, conflict, fieldErrors, type FieldError } from './errors.js';
import { isSealed, type SecretBox } from './secretbox.js';
import { isSecretMarker } from './secret-marker.js';
import { Logger } from './log.js';

/** A strict section whose own keys all have defaults, so a missing section parses to its defaults. */
export function section<T extends z.ZodRawShape>(shape: T) {
  return z.strictObject(shape).prefault({} as z.input<z.ZodObject<T, z.core.$strict>>);
}

const HOSTNAME = /^(?=.{1,253}$)([a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)(\.[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*\.?$/;

function validTimeZone(tz: string): boolean {
  if (tz === 'UTC') return true; // the default: no need to load the time zone data at every start-up (about 20 ms)
  try { new Intl.DateTimeFormat('en', { timeZone: tz }); return true; } catch { return false; }
}

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

type Listener = (cfg: Config, changedKeys: string[]) => void;

interface EnvOverride { env: string; path: string[]; parse(v: string): unknown }

/** Environment variables that override a key of the file; applied to get() only, never saved. */
const ENV_OVERRIDES: EnvOverride[] = [
  { env: 'NETPROBE_PORT', path: ['server', 'port'], parse: (v) => (/^\d+$/.test(v) ? Number(v) : v) },
  // Tests that run the service as a program turn HTTPS off (0) rather than each taking 8443.
  { env: 'NETPROBE_HTTPS_PORT', path: ['tls', 'https_port'], parse: (v) => (/^\d+$/.test(v) ? Number(v) : v) },
];

export class ConfigService {
  private text: string | null;
  private fileConfig: Config;
  private effective: Config;
  private loadIssues: FieldError[];
  private listeners = new Set<Listener>();
  private saving: Promise<unknown> = Promise.resolve();
  private box: Pick<SecretBox, 'seal' | 'tryOpen' | 'isSealed'> | undefined;

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
   * the write-only rules (see the top of this file). `dryRun` validates and reports without writing.
   * Returns the effective config (unchanged on a dry run) and the dotted keys of the file that change.
   */
  apply(input: { yaml: string } | { json: unknown } | { patch: unknown }, opts: { dryRun?: boolean } = {}):
    Promise<{ config: Config; changed: string[]; before: Config; after: Config }> {
    return this.serial(async () => {
      let doc: YAML.Document;
      let lines: YAML.LineCounter | undefined;
      if ('yaml' in input) {
        lines = new YAML.LineCounter();
        doc = YAML.parseDocument(input.yaml, { lineCounter: lines });
        if (doc.errors.length) throw badRequest('The configuration is not valid YAML', yamlErrors(doc.errors));
        if (doc.contents !== null && !YAML.isMap(doc.contents))
          throw badRequest('The configuration is invalid', [{ path: '', message: 'The top level must be a mapping of sections' }]);
      } else {
        const obj = 'json' in input ? input.json ?? {} : input.patch;
        if (!isPlainObject(obj)) throw badRequest('The configuration must be an object', [{ path: '', message: 'Expected an object' }]);
        const current = YAML.parseDocument(this.text ?? '');
        const usable = !current.errors.length && (current.contents === null || YAML.isMap(current.contents));
        if ('patch' in input) {
          if (!usable) {
            throw conflict('The configuration file is not valid YAML; fix it by saving the whole file first', 'config_unparseable');
          }
          mergeInto(current, [], obj);
          doc = current;
        } else {
          doc = usable ? current : new YAML.Document();
          replaceInto(doc, [], obj);
        }
      }
      let edited = this.keepSecrets(doc);
      const plain = toPlain(doc);
      if (isPlainObject(plain)) secretOpener(this.schema, this.box, this.log)(plain);
      const config = this.validate(plain, doc, lines);
      const before = this.toJson();
      const changed = diffKeys(before, config);
      if (opts.dryRun) return { config: this.effective, changed, before, after: config };
      edited = this.sealSecrets(doc) || edited;
      const text = 'yaml' in input && !edited ? input.yaml : doc.toString();
      await this.write(text, config);
      return { config: this.effective, changed, before, after: config };
    });
  }

  /** Validates a whole configuration strictly (400 naming each key) without saving it. */
  check(obj: unknown): Config { return validateStrict(obj, this.schema); }

  /** Every key with its default, description, unit and whether it is secret or needs a restart. */
  keys(): ConfigKeyInfo[] { return configKeys(this.schema); }

  /** `obj` (a configuration or part of one) with each secret shown as {set: true|false}; a fresh copy. */
  mask<T>(obj: T): T { return maskSecrets(obj, this.secretPaths()); }

  /**
   * Seal secrets written from now on, and open those the file holds (main.ts calls this as soon as the
   * machine key is open, before any module reads the configuration). Until then a sealed value reads as stored.
   */
  attachSecretBox(box: Pick<SecretBox, 'seal' | 'tryOpen' | 'isSealed'>): void {
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

  private secretPaths(): string[][] { return this.keys().filter((k) => k.secret).map((k) => k.path); }

  /** Strict validation; for YAML each error also names its line. */
  private validate(obj: unknown, doc?: YAML.Document, lines?: YAML.LineCounter): Config {
    const r = this.schema.safeParse(obj ?? {});
    if (r.success) return r.data;
    const errors = fieldErrors(r.error.issues, { unknown: 'Unknown key' });
    if (doc && lines) {
      for (const e of errors) {
        const line = lineOf(doc, lines, e.path ? e.path.split('.') : []);
        if (line) Object.assign(e, { line, message: `${e.message} (line ${line})` });
      }
    }
    throw badRequest('The configuration is invalid', errors);
  }

  /**
   * Secrets a save leaves out (or sends as {set: true}) keep their stored value; {set: false} clears one;
   * a value replaces it. True when the document was edited.
   */
  private keepSecrets(doc: YAML.Document): boolean {
    const plain = toPlain(doc);
    let edited = false;
    for (const p of this.secretPaths()) {
      const v = getPath(plain, p);
      const stored = getPath(this.fileConfig, p);
      const dflt = getPath(this.schema.parse({}), p);
      const keep = stored !== undefined && JSON.stringify(stored) !== JSON.stringify(dflt);
      if (isSecretMarker(v)) {
        if (v.set && keep) doc.setIn(p, stored);
        else if (doc.hasIn(p)) doc.deleteIn(p);
        edited = true;
      } else if (v === undefined && keep) {
        setInDoc(doc, p, stored);
        edited = true;
      }
    }
    return edited;
  }

  /** Secrets typed in clear are written sealed. True when the document was edited. */
  private sealSecrets(doc: YAML.Document): boolean {
    if (!this.box) return false;
    const plain = toPlain(doc);
    let edited = false;
    for (const p of this.secretPaths()) {
      const v = getPath(plain, p);
      if (typeof v === 'string' && v !== '' && !this.box.isSealed(v)) { doc.setIn(p, this.box.seal(v)); edited = true; }
    }
    return edited;
  }

  // One save at a time, so two concurrent read-modify-writes cannot lose each other's change.
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.saving.then(fn, fn);
    this.saving = next.catch(() => undefined);
    return next;
  }

  private async write(text: string, config: Config): Promise<void> {
    try {
      await writeFileAtomic(this.path, text);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code ?? 'error';
      this.log.error('could not save the configuration', { path: this.path, err: e });
      throw new HttpError(500, 'config_write_failed', `Could not write ${this.path} (${code})`);
    }
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

  private withEnv(config: Config, logIt: boolean): Config {
    let out = structuredClone(config);
    for (const o of ENV_OVERRIDES) {
      const raw = this.env[o.env];
      if (raw === undefined || raw === '') continue;
      const candidate = structuredClone(out);
      setPath(candidate as unknown as Record<string, unknown>, o.path, o.parse(raw));
      const r = this.schema.safeParse(candidate);
      if (r.success) {
        out = r.data;
        if (logIt) this.log.info(`${o.env} overrides ${o.path.join('.')}`, { value: raw });
      } else if (logIt) {
        this.log.error(`ignoring ${o.env}: invalid value`, { value: raw, errors: fieldErrors(r.error.issues, { unknown: 'Unknown key' }) });
      }
    }
    return deepFreeze(out);
  }
}

// ---- loading ---------------------------------------------------------------------------------------

interface Loaded { text: string | null; config: Config; issues: FieldError[] }

/** Opens (or, without the machine key yet, drops) the sealed secrets of the file's data before validation. */
type SecretOpener = (raw: Record<string, unknown>) => void;

async function loadLenient(file: string, log: Logger, schema: z.ZodType<Config>, open?: SecretOpener): Promise<Loaded> {
  const defaults = schema.parse({});
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
      log.info('no configuration file, using defaults', { path: file });
      return { text: null, config: defaults, issues: [] };
    }
    log.error('cannot read the configuration file, using defaults', { path: file, err: e });
    return { text: null, config: defaults, issues: [{ path: '', message: `Cannot read ${file}: ${(e as Error).message}` }] };
  }
  return parseLenient(text, file, log, schema, open);
}

function parseLenient(text: string, file: string, log: Logger, schema: z.ZodType<Config>, open?: SecretOpener): Loaded {
  const defaults = schema.parse({});
  const doc = YAML.parseDocument(text);
  if (doc.errors.length) {
    const issues = yamlErrors(doc.errors);
    log.error('the configuration file is not valid YAML; starting with defaults, file left as is', { path: file, errors: issues });
    return { text, config: defaults, issues };
  }
  for (const w of doc.warnings) log.warn('configuration file', { path: file, warning: w.message });

  let raw: unknown;
  try { raw = toPlain(doc); } catch (e) {
    log.error('the configuration file cannot be read as data; starting with defaults', { path: file, err: e });
    return { text, config: defaults, issues: [{ path: '', message: (e as Error).message }] };
  }
  if (!isPlainObject(raw)) {
    const issues = [{ path: '', message: 'The top level must be a mapping of sections' }];
    log.error('the configuration file is not a mapping; starting with defaults', { path: file });
    return { text, config: defaults, issues };
  }

  // Drop what is wrong, one round of issues at a time, until the rest validates.
  const issues: FieldError[] = [];
  let data: Record<string, unknown> = raw;
  open?.(data);
  for (let round = 0; round < 20; round++) {
    const r = schema.safeParse(data);
    if (r.success) return { text, config: r.data, issues };
    data = structuredClone(data);
    const dropped: PathKey[][] = [];
    for (const issue of r.error.issues) {
      const at = issue.path.map(toKey);
      if (issue.code === 'unrecognized_keys') {
        for (const key of issue.keys) {
          const p = [...at, key];
          log.warn('unknown configuration key ignored', { path: file, key: dotted(p) });
          issues.push({ path: dotted(p), message: 'Unknown key, ignored' });
          dropped.push(p);
        }
      } else {
        log.error('invalid configuration value, using the default', { path: file, key: dotted(at), error: issue.message });
        issues.push({ path: dotted(at), message: `${issue.message}; the default is used` });
        dropped.push(at);
      }
    }
    if (dropped.some((p) => p.length === 0)) break;
    for (const p of dropped) removePath(data, p);
    pruneHoles(data);
  }
  log.error('the configuration file could not be repaired; starting with defaults', { path: file });
  return { text, config: defaults, issues };
}

function secretOpener(schema: z.ZodType, box: Pick<SecretBox, 'tryOpen'> | undefined, log: Logger): SecretOpener {
  return (raw) => {
    for (const k of configKeys(schema)) {
      if (!k.secret) continue;
      const v = getPath(raw, k.path);
      if (!isSealed(v)) continue;
      const open = box?.tryOpen(v) ?? null;
      if (open !== null) setPath(raw, k.path, open);
      else {
        // Without the machine key (yet) the value cannot be checked: it stays unset until the key is attached.
        if (box) log.error('a secret in the configuration cannot be decrypted (another machine key?); re-enter it', { key: k.key });
        removePath(raw, k.path);
      }
    }
  };
}

// ---- validation ------------------------------------------------------------------------------------

function validateStrict(obj: unknown, schema: z.ZodType<Config>): Config {
  const r = schema.safeParse(obj ?? {});
  if (!r.success) throw badRequest('The configuration is invalid', fieldErrors(r.error.issues, { unknown: 'Unknown key' }));
  return r.data;
}


function yamlErrors(errors: readonly YAML.YAMLError[]): FieldError[] {
  return errors.map((e) => {
    const first = e.message.split('\n')[0] ?? e.message;
    return { path: '', message: `YAML syntax error: ${first}` };
  });
}

/** The document as plain data; an empty document is an empty mapping. */
function toPlain(doc: YAML.Document): unknown {
  return doc.toJS({ maxAliasCount: 100 }) ?? {};
}

// ---- YAML document edits ---------------------------------------------------------------------------

function mergeInto(doc: YAML.Document, at: string[], patch: Record<string, unknown>): void {
  for (const [k, v] of Object.entries(patch)) {
    const p = [...at, k];
    if (v === undefined) continue;
    if (v === null) { doc.deleteIn(p); continue; }
    if (isPlainObject(v)) {
      if (YAML.isMap(doc.getIn(p, true))) { mergeInto(doc, p, v); continue; }
      const fresh = withoutNulls(v);
      if (Object.keys(fresh).length) doc.setIn(p, doc.createNode(fresh));
      continue;
    }
    doc.setIn(p, v); // keeps the scalar node, and so its comment, when replacing a scalar
  }
}

function replaceInto(doc: YAML.Document, at: string[], obj: Record<string, unknown>): void {
  const node = at.length ? doc.getIn(at, true) : doc.contents;
  if (!YAML.isMap(node)) {
    if (at.length) doc.setIn(at, doc.createNode(obj));
    else doc.contents = doc.createNode(obj);
    return;
  }
  for (const pair of [...node.items]) {
    const key = YAML.isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
    if (!Object.hasOwn(obj, key) || obj[key] === undefined) node.delete(pair.key);
  }
  for (const [k, v] of Object.entries(obj)) {
    if (v === undefined) continue;
    if (isPlainObject(v)) replaceInto(doc, [...at, k], v);
    else doc.setIn([...at, k], v);
  }
}

// ---- atomic write ----------------------------------------------------------------------------------


// ---- small helpers ---------------------------------------------------------------------------------

type PathKey = string | number;
const REMOVED = Symbol('removed');

function toKey(k: PropertyKey): PathKey { return typeof k === 'number' ? k : String(k); }
function dotted(p: readonly PathKey[]): string { return p.join('.'); }

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function withoutNulls(v: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    if (x === null || x === undefined) continue;
    out[k] = isPlainObject(x) ? withoutNulls(x) : x;
  }
  return out;
}

function setPath(obj: Record<string, unknown>, p: string[], value: unknown): void {
  let cur = obj;
  for (const k of p.slice(0, -1)) {
    if (!isPlainObject(cur[k])) cur[k] = {};
    cur = cur[k] as Record<string, unknown>;
  }
  cur[p[p.length - 1]!] = value;
}

/** Remove the value at a path; array elements are marked and swept by pruneHoles so indices stay valid. */
function removePath(root: unknown, p: PathKey[]): void {
  let cur: unknown = root;
  for (const k of p.slice(0, -1)) {
    if (cur === null || typeof cur !== 'object') return;
    cur = (cur as Record<PathKey, unknown>)[k];
  }
  const last = p[p.length - 1]!;
  if (Array.isArray(cur) && typeof last === 'number') cur[last] = REMOVED;
  else if (isPlainObject(cur)) delete cur[String(last)];
}

function pruneHoles(v: unknown): void {
  if (Array.isArray(v)) {
    for (let i = v.length - 1; i >= 0; i--) if (v[i] === REMOVED) v.splice(i, 1);
    v.forEach(pruneHoles);
  } else if (isPlainObject(v)) {
    Object.values(v).forEach(pruneHoles);
  }
}

function diffKeys(a: unknown, b: unknown, prefix = ''): string[] {
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].flatMap((k) => diffKeys(a[k], b[k], prefix ? `${prefix}.${k}` : k));
  }
  return JSON.stringify(a) === JSON.stringify(b) ? [] : [prefix];
}

function deepFreeze<T>(v: T): T {
  if (v && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v)) deepFreeze(x);
  }
  return v;
}

function getPath(obj: unknown, p: readonly string[]): unknown {
  let cur = obj;
  for (const k of p) {
    if (!isPlainObject(cur) || !Object.hasOwn(cur, k)) return undefined;
    cur = cur[k];
  }
  return cur;
}

function setPathOn(obj: Record<string, unknown>, p: readonly string[], value: unknown): Record<string, unknown> {
  setPath(obj, [...p], value);
  return obj;
}

/** Sets a value in the document, creating the mappings on its way (a section the text does not have). */
function setInDoc(doc: YAML.Document, p: readonly string[], value: unknown): void {
  for (let i = p.length - 1; i >= 0; i--) {
    const parent = p.slice(0, i);
    if (i === 0 ? doc.contents === null || YAML.isMap(doc.contents) : YAML.isMap(doc.getIn(parent, true))) {
      const rest = p.slice(i);
      const v = rest.length === 1 ? value : setPathOn({}, rest.slice(1), value);
      if (i === 0 && doc.contents === null) doc.contents = doc.createNode({});
      doc.setIn([...parent, rest[0]!], isPlainObject(v) ? doc.createNode(v) : v);
      return;
    }
  }
}

/** Whether a secret holds a value (an empty string or list is no value). */
export function secretIsSet(v: unknown): boolean {
  return !(v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0));
}

/** `obj` with the value at each path replaced by {set: true|false}; a fresh copy. */
export function maskSecrets<T>(obj: T, paths: readonly (readonly string[])[]): T {
  const out = structuredClone(obj);
  for (const p of paths) {
    const v = getPath(out, p);
    if (v === undefined) continue;
    setPath(out as unknown as Record<string, unknown>, [...p], { set: secretIsSet(v) });
  }
  return out;
}

/** The line (1-based) of the key at a dotted path, or of its nearest ancestor the text has. */
function lineOf(doc: YAML.Document, lines: YAML.LineCounter, p: readonly string[]): number | undefined {
  for (let n = p.length; n > 0; n--) {
    const parent = n === 1 ? doc.contents : doc.getIn(p.slice(0, n - 1), true);
    if (!YAML.isMap(parent)) continue;
    const pair = parent.items.find((it) => (YAML.isScalar(it.key) ? String(it.key.value) : String(it.key)) === p[n - 1]);
    const node = pair && (YAML.isNode(pair.key) ? pair.key : YAML.isNode(pair.value) ? pair.value : undefined);
    if (node?.range) return lines.linePos(node.range[0]).line;
  }
  return undefined;
}

// ---- key metadata ----------------------------------------------------------------------------------

/** One configuration key as the API, the CSV export and docs/configuration.md describe it. */
export interface ConfigKeyInfo {
  /** Dotted: `server.port`. */
  key: string;
  path: string[];
  default: unknown;
  description: string;
  /** Write-only: never shown, exported or logged in clear. */
  secret: boolean;
  /** False when a change takes effect at the next start only. */
  live: boolean;
  /** ms, s, min, h, days, KiB, MiB, KiB/min; '' when none. */
  unit: string;
  /** The key's JSON Schema (input side), for bounds and types. */
  schema: Record<string, unknown>;
}

const UNITS: [RegExp, string][] = [
  [/_kib_per_minute$/, 'KiB/min'], [/_ms$/, 'ms'], [/_seconds$/, 's'], [/_minutes$/, 'min'], [/_hours$/, 'h'],
  [/_days$/, 'days'], [/_(kb|kib)$/, 'KiB'], [/_(mb|mib)$/, 'MiB'],
];

const keyCache = new WeakMap<object, ConfigKeyInfo[]>();

/** Every key of a configuration schema (sections and nested mappings flattened to dotted keys). */
export function configKeys(schema: z.ZodType): ConfigKeyInfo[] {
  const hit = keyCache.get(schema);
  if (hit) return hit;
  type Json = Record<string, any>;
  const root = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Json;
  const out: ConfigKeyInfo[] = [];
  const walk = (node: Json, at: string[], inherited: { secret: boolean; restart: boolean }, defaults: unknown) => {
    for (const [k, p] of Object.entries((node.properties ?? {}) as Record<string, Json>)) {
      const path = [...at, k];
      const meta = { secret: inherited.secret || p.secret === true, restart: inherited.restart || p.restart === true };
      const dflt = p.default !== undefined ? p.default : getPath(defaults, [k]);
      if (p.type === 'object' && p.properties) { walk(p, path, meta, dflt); continue; }
      out.push({
        key: path.join('.'), path, default: dflt, description: typeof p.description === 'string' ? p.description : '',
        secret: meta.secret, live: !meta.restart,
        unit: typeof p.unit === 'string' ? p.unit : UNITS.find(([re]) => re.test(k))?.[1] ?? '',
        schema: p,
      });
    }
  };
  walk(root, [], { secret: false, restart: false }, schema.safeParse({}).data);
  keyCache.set(schema, out);
  return out;
}
