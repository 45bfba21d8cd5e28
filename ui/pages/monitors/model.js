// The monitor form's model: the form values of a monitor (flat, named by the API's field paths so errors
// like settings.auth.password land beside their field) and the request body built back from them. The
// check types, their targets, settings and defaults are the probe's (GET /api/monitors/check-types,
// `types` here): the settings are a form from JSON Schema (lib/schema-form.js). Plain module, loaded by
// test/unit/ui-contract.test.ts beside the server's descriptions.
import { initialValues, valuesOf } from '../../lib/schema-form.js';

const S = 'settings.';
const str = (v) => (v === undefined || v === null ? '' : String(v));

/** The description of check type `value`, or the first one. */
export const checkType = (types, value) => types.find((t) => t.type === value) ?? types[0];

/** Whether a monitor field that applies to some check types only (max_loss_pct) applies to this one. */
export const applies = (type, field) => (type?.monitor_fields ?? []).includes(field);

/**
 * The settings' form values of check type `type`: the stored monitor's when it is of that type, else
 * the type's defaults.
 */
export function settingsForm(type, stored) {
  const mine = stored?.check_type === type.type ? stored.settings : type.defaults;
  return initialValues(type.settings, mine, S);
}

/** Form values for a monitor (null: a new one, of `checkTypeName` or the first type). */
export function toForm(m, types, checkTypeName = m?.check_type) {
  const type = checkType(types, checkTypeName);
  return {
    name: m?.name ?? '',
    check_type: type.type,
    target: m?.target ?? '',
    interval: str(m?.interval ?? 60),
    timeout: str(m?.timeout ?? ''),
    failure_threshold: str(m?.failure_threshold ?? 3),
    degraded_ms: str(m?.degraded_ms),
    max_loss_pct: str(m?.max_loss_pct),
    tags: m?.tags ?? [],
    parents: m?.parents ?? [],
    ...settingsForm(type, m),
  };
}

/** A number from a text field; text that is not a number goes as is, so the API names the field. */
const num = (v) => {
  const t = String(v).trim();
  return t !== '' && Number.isFinite(Number(t)) ? Number(t) : t;
};
const opt = (v) => (String(v).trim() === '' ? undefined : String(v).trim());

/**
 * The settings object of the chosen type, from its fields that show. A secret left empty where one is
 * stored is sent as the API's {set: true} marker, which keeps it (see lib/schema-form.js valuesOf).
 */
export function settingsOf(v, types, stored) {
  const type = checkType(types, v.check_type);
  return valuesOf(type.settings, v, stored?.check_type === type.type ? stored.settings : undefined, S);
}

/** JSON without undefined members, for comparing settings. */
const canon = (x) => JSON.stringify(x, (_k, val) => (val === undefined ? undefined : val));

/**
 * The request body: everything for a new monitor; for an existing one only what changed (settings
 * as a whole when any of them changed, or the type did).
 */
export function toBody(v, stored, types) {
  const type = checkType(types, v.check_type);
  const lossApplies = applies(type, 'max_loss_pct');
  const full = {
    name: v.name.trim(),
    check_type: v.check_type,
    target: v.target.trim(),
    interval: num(v.interval),
    timeout: opt(v.timeout) === undefined ? undefined : num(v.timeout),
    failure_threshold: num(v.failure_threshold),
    degraded_ms: opt(v.degraded_ms) === undefined ? null : num(v.degraded_ms),
    max_loss_pct: lossApplies && opt(v.max_loss_pct) !== undefined ? num(v.max_loss_pct) : null,
    tags: v.tags,
    parents: v.parents,
    settings: settingsOf(v, types, stored),
  };
  if (!stored) {
    const body = {};
    for (const [k, val] of Object.entries(full)) if (val !== undefined && val !== null) body[k] = val;
    return body;
  }
  const before = toForm(stored, types);
  const prev = toBody(before, null, types);
  const body = {};
  for (const k of ['name', 'check_type', 'target', 'interval', 'timeout', 'failure_threshold', 'degraded_ms', 'tags', 'parents']) {
    if (full[k] !== undefined && canon(full[k]) !== canon(prev[k] ?? null)) body[k] = full[k];
  }
  // Leaving a type it applies to clears max_loss_pct on the server; only such monitors send it.
  if (lossApplies && canon(full.max_loss_pct) !== canon(stored.max_loss_pct)) body.max_loss_pct = full.max_loss_pct;
  if (v.check_type !== stored.check_type || canon(full.settings) !== canon(settingsOf(before, types, stored))) body.settings = full.settings;
  return body;
}

// ---- at a glance (the API's degraded_reason and beat letters; checked by ui-contract) -------------

/** Why a degraded monitor is degraded (GET /api/monitors `degraded_reason`). */
export const DEGRADED_REASONS = [
  { value: 'slow', label: 'Slow', hint: 'Answered, slower than its limit' },
  { value: 'loss', label: 'Packet loss', hint: 'Answered, with loss above its limit' },
  { value: 'failing', label: 'Failing', hint: 'Failed checks, fewer than make it down' },
];

/** The beat letters of `beats` (lower case; upper case is the same for a manual check). */
export const BEAT_KINDS = [
  { value: 'u', label: 'Up', tone: 'up' },
  { value: 's', label: 'Answered, degraded (slow or loss)', tone: 'degraded' },
  { value: 'f', label: 'Failed, not yet down', tone: 'failing' },
  { value: 'd', label: 'Failed, down', tone: 'down' },
  { value: 'p', label: 'Checked while paused', tone: 'paused' },
  { value: 'm', label: 'Checked in a maintenance window', tone: 'maintenance' },
];
