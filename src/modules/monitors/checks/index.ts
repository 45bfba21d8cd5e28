// The check types behind one table (each type's knowledge is its definition in checks/<type>.ts), the
// uniform parts of running one (settings defaults, the type's degrade(), never throwing), and which settings are
// secrets: the service stores them, but API responses show `{set: true}` in their place and updates
// that send that marker back keep them.

import type { CheckDefinition, CheckContext, CheckResult, MonitorThresholds, TypeThreshold } from './types.js';
import type { FieldError } from '../../../core/errors.js';
import { isSecretMarker, secretShown } from '../../../core/secret-marker.js';
import { check as http } from './http.js';
import { check as ping } from './ping.js';
import { check as tcp } from './tcp.js';
import { check as dns } from './dns.js';
import { check as snmp } from './snmp.js';
import { check as path } from './path.js';
import type { CheckServices } from './services.js';
import { decideDegraded } from './degrade.js';

export type { CheckDefinition } from './types.js';

/** Every check type: adding one is its file (checks/<type>.ts) and its entry here. */
const REGISTRY = { http, ping, tcp, dns, snmp, path };

export type CheckType = keyof typeof REGISTRY;
export const CHECKS: Record<CheckType, CheckDefinition> = REGISTRY;
/** The check types' names, in the registry's order (the order the form offers them). */
export const CHECK_TYPES = Object.keys(REGISTRY) as [CheckType, ...CheckType[]];

/**
 * Settings (with defaults filled in) and target checked together, as the service needs on create and
 * update. Errors carry paths ("target", "settings.auth.password") for a problem+json `errors` list.
 */
export function validateCheck(type: CheckType, target: string, rawSettings: unknown):
  { ok: true; settings: Record<string, unknown> } | { ok: false; errors: FieldError[] } {
  const def = CHECKS[type];
  if (!def) return { ok: false, errors: [{ path: 'check_type', message: `unknown check type "${String(type)}"` }] };
  const errors: FieldError[] = [];
  const targetProblem = def.validateTarget(target);
  if (targetProblem) errors.push({ path: 'target', message: targetProblem });
  const parsed = def.settings.safeParse(rawSettings ?? {});
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      errors.push({ path: ['settings', ...issue.path.map(String)].join('.'), message: issue.message });
    }
  } else if (!targetProblem && def.validateWithSettings) {
    const p = def.validateWithSettings(target, parsed.data);
    if (typeof p === 'string') errors.push({ path: 'target', message: p });
    else if (p) errors.push({ path: `settings.${p.path}`, message: p.message });
  }
  if (errors.length || !parsed.success) return { ok: false, errors };
  return { ok: true, settings: parsed.data as Record<string, unknown> };
}

/**
 * What valid settings refer to outside the monitor (CheckDefinition.checkReferences: snmp's stored credential and
 * its scope); throws the HttpError to answer with. Nothing for the types that refer to nothing.
 */
export async function checkReferences(type: CheckType, target: string, settings: Record<string, unknown>,
  services: CheckServices): Promise<void> {
  await CHECKS[type]?.checkReferences?.(target, settings, services);
}

/** Settings checked once for many runs (runPrepared): validated and defaulted, or the result every run gives. */
export type PreparedCheck = { ok: true; settings: Record<string, unknown> } | { ok: false; result: CheckResult };

export function prepareCheck(type: CheckType, target: string, rawSettings: unknown): PreparedCheck {
  const down = (message: string, details: Record<string, unknown>): PreparedCheck =>
    ({ ok: false, result: { status: 'down', response_time_ms: null, message, details } });
  if (!CHECKS[type]) return down(`unknown check type "${String(type)}"`, {});
  const v = validateCheck(type, target, rawSettings);
  if (v.ok) return v;
  return down(`invalid monitor: ${v.errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`, { errors: v.errors });
}

/** How a monitor runs its check: the check's context and the monitor's thresholds (absent: none). */
export type CheckRunOptions = CheckContext & Partial<MonitorThresholds>;

/**
 * Validate, run, and let the type's degrade() decide whether an `up` result is `degraded` (default:
 * slower than degraded_ms). Never throws: bad input and unexpected failures come back as `down`.
 */
export async function runCheck(type: CheckType, target: string, rawSettings: unknown, opts: CheckRunOptions): Promise<CheckResult> {
  return runPrepared(type, target, prepareCheck(type, target, rawSettings), opts);
}

/** runCheck with settings prepared before (a scheduled check reuses its monitor's). */
export async function runPrepared(type: CheckType, target: string, prepared: PreparedCheck, opts: CheckRunOptions): Promise<CheckResult> {
  if (!prepared.ok) return prepared.result;
  const { degraded_ms = null, max_loss_pct = null, ...ctx } = opts;
  const def = CHECKS[type];
  try {
    return decideDegraded(def, await def.run(target, prepared.settings, ctx), { degraded_ms, max_loss_pct });
  } catch (e) {
    // A bug, not a target failure; still a result, so one bad check cannot stop the scheduler.
    return { status: 'down', response_time_ms: null, message: `check failed: ${e instanceof Error ? e.message : String(e)}`, details: {} };
  }
}

/** Whether the type's degrade() reads this monitor threshold (CheckDefinition.degradeReads). */
export function readsThreshold(type: CheckType, threshold: TypeThreshold): boolean {
  return CHECKS[type]?.degradeReads?.includes(threshold) === true;
}

/** The smallest monitor timeout (seconds) with which a check of this type can finish (CheckDefinition). */
export function minimumTimeout(type: CheckType, settings: Record<string, unknown>): number {
  return CHECKS[type].minimumTimeout?.(settings) ?? 1;
}

// ---- secrets ----------------------------------------------------------------------------------------

/**
 * Dotted paths of secret settings (CheckDefinition.secretPaths). Besides these, header values of a type
 * with secretHeaders are secret when the header's name looks like a credential (see isSecretHeader):
 * Authorization, Proxy-Authorization, Cookie, X-API-Key, anything with "token", "secret", "password",
 * "api-key"/"apikey" or "auth" in its name.
 */
const secretPaths = (type: CheckType): readonly string[] => CHECKS[type]?.secretPaths ?? [];
const secretHeaders = (type: CheckType): boolean => CHECKS[type]?.secretHeaders === true;

export const SECRET_HEADER = /^(authorization|proxy-authorization|cookie|set-cookie)$|token|secret|passw(or)?d|api[-_]?key|auth|session/i;

export function isSecretHeader(name: string): boolean {
  return SECRET_HEADER.test(name);
}

export type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A secret location: its parent object, its key there, and its dotted path ("headers.X-API-Key"). */
export type SecretSlot = [parent: Obj, key: string, path: string];

/** Every secret location in `settings`. */
export function secretSlots(type: CheckType, settings: Obj): SecretSlot[] {
  const slots: SecretSlot[] = [];
  for (const path of secretPaths(type)) {
    const parts = path.split('.');
    let parent: unknown = settings;
    for (const p of parts.slice(0, -1)) parent = isObj(parent) ? parent[p] : undefined;
    if (isObj(parent)) slots.push([parent, parts[parts.length - 1]!, path]);
  }
  if (secretHeaders(type) && isObj(settings.headers)) {
    for (const k of Object.keys(settings.headers)) if (isSecretHeader(k)) slots.push([settings.headers, k, `headers.${k}`]);
  }
  return slots;
}

/** A slot's path for matching old and new settings: header names compare without regard to case. */
export const slotKey = (path: string): string => (path.startsWith('headers.') ? path.toLowerCase() : path);

/** A copy with each secret that is set replaced by `{set: true}`. */
export function redactSettings(type: CheckType, settings: unknown): unknown {
  if (!isObj(settings)) return settings;
  const copy = structuredClone(settings);
  for (const [parent, key] of secretSlots(type, copy)) {
    if (parent[key] !== undefined && parent[key] !== null && parent[key] !== '') parent[key] = secretShown(true);
  }
  return copy;
}

/**
 * Errors in the shape of settings sent on update, found before anything walks them (merging secrets,
 * cloning): the type's schema with `{set: true}` markers standing in for their secrets, and no error
 * for a secret left out (the merge may keep the stored one; validation after it reports what is still
 * missing). Never recurses into the input: the schema stops at the first value of the wrong kind, so
 * a body nested 100,000 deep is a 400 naming its field, not a stack overflow.
 */
export function settingsShapeErrors(type: CheckType, raw: unknown): FieldError[] {
  const def = CHECKS[type];
  if (!def) return [{ path: 'check_type', message: `unknown check type "${String(type)}"` }];
  const view = isObj(raw) ? copyAlongSecrets(type, raw) : raw;
  if (isObj(view)) {
    // Any header may be sent back as a marker (mergeSecrets looks each one up), not only secret-looking ones.
    const slots: Array<[Obj, string]> = secretSlots(type, view).map(([p, k]) => [p, k]);
    if (secretHeaders(type) && isObj(view.headers)) for (const k of Object.keys(view.headers)) slots.push([view.headers, k]);
    for (const [parent, key] of slots) {
      const v = parent[key];
      if (isSecretMarker(v)) { if (v.set) parent[key] = 'x'; else delete parent[key]; }
    }
  }
  const parsed = def.settings.safeParse(view ?? {});
  if (parsed.success) return [];
  const omitted = (path: PropertyKey[]) => {
    const dotted = path.map(String).join('.');
    if (!(secretPaths(type)).includes(dotted)) return false;
    let v: unknown = raw;
    for (const p of path) v = isObj(v) ? v[String(p)] : undefined;
    return v === undefined;
  };
  return parsed.error.issues.filter((i) => !omitted(i.path))
    .map((i) => ({ path: ['settings', ...i.path.map(String)].join('.'), message: i.message }));
}

/**
 * A copy of `settings` that shares everything except the objects holding secrets (the top level, the
 * parents of secretPaths, headers): enough to change secrets without touching the caller's
 * object, and no deep clone of input that has not been validated yet.
 */
function copyAlongSecrets(type: CheckType, settings: Obj): Obj {
  const out: Obj = { ...settings };
  for (const path of secretPaths(type)) {
    let parent: Obj = out;
    for (const p of path.split('.').slice(0, -1)) {
      const child = parent[p];
      if (!isObj(child)) break;
      parent = parent[p] = { ...child };
    }
  }
  if (secretHeaders(type) && isObj(out.headers)) out.headers = { ...out.headers };
  return out;
}

/**
 * The settings to store for an update: `newSettings` with each secret that is `{set: true}`, or
 * omitted while its parent object is still there (and, for auth, of the same type), taken from
 * `oldSettings`. A header sent back as `{set: true}` keeps its stored value (matched without regard
 * to case); a header left out is removed. A marker with nothing stored behind it is dropped, so
 * validation reports the missing value. Copies only the objects it changes (see copyAlongSecrets).
 */
export function mergeSecrets(type: CheckType, newSettings: unknown, oldSettings: unknown): unknown {
  if (!isObj(newSettings)) return newSettings;
  const out = copyAlongSecrets(type, newSettings);
  const old = isObj(oldSettings) ? oldSettings : {};
  for (const path of secretPaths(type)) {
    const parts = path.split('.');
    const key = parts[parts.length - 1]!;
    let np: unknown = out;
    let op: unknown = old;
    for (const p of parts.slice(0, -1)) {
      np = isObj(np) ? np[p] : undefined;
      op = isObj(op) ? op[p] : undefined;
    }
    if (!isObj(np)) continue;
    const sameKind = !isObj(op) || np.type === undefined || np.type === op.type;
    const stored = isObj(op) && sameKind ? op[key] : undefined;
    const sent = np[key];
    if (isSecretMarker(sent) && !sent.set) delete np[key];
    else if (isSecretMarker(sent) || (sent === undefined && stored !== undefined)) {
      if (typeof stored === 'string') np[key] = stored;
      else delete np[key];
    }
  }
  if (secretHeaders(type) && isObj(out.headers)) {
    const oldHeaders = isObj(old.headers) ? old.headers : {};
    for (const [k, v] of Object.entries(out.headers)) {
      if (!isSecretMarker(v)) continue;
      if (!v.set) { delete out.headers[k]; continue; }
      const match = Object.keys(oldHeaders).find((ok) => ok.toLowerCase() === k.toLowerCase());
      const stored = match === undefined ? undefined : oldHeaders[match];
      if (typeof stored === 'string') out.headers[k] = stored;
      else delete out.headers[k];
    }
  }
  return out;
}

/**
 * Whether an update takes a monitor's stored secrets to another destination: another check type, or
 * another CheckDefinition.destination of the target (http: scheme, host, port). Secrets do not follow.
 */
export function movesSecrets(oldType: CheckType, oldTarget: string, type: CheckType, target: string): boolean {
  if (type !== oldType) return true;
  const destination = (t: string) => (CHECKS[type]?.destination ? CHECKS[type].destination(t) : t);
  return destination(target) !== destination(oldTarget);
}

const filled = (v: unknown): boolean => typeof v === 'string' && v !== '';

/** Paths ("settings.auth.token") of the secrets stored in `stored` that `next` does not hold (not sent again). */
export function secretsNotResent(oldType: CheckType, stored: Obj, type: CheckType, next: unknown): string[] {
  const sent = new Set(isObj(next) ? secretSlots(type, next).filter(([p, k]) => filled(p[k])).map(([, , path]) => slotKey(path)) : []);
  return secretSlots(oldType, stored).filter(([p, k, path]) => filled(p[k]) && !sent.has(slotKey(path)))
    .map(([, , path]) => `settings.${path}`);
}

export type { CheckContext, CheckResult } from './types.js';
