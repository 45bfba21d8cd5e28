// Form state for pages: values, a busy flag, and the API's errors. Each `errors[].message` is shown once,
// beside the field whose name matches its `path` (with the API's `suggestion`, when it has one, as a
// one-click fix); the box above the form is only for what belongs to no field on screen: the problem's
// `detail` when it names no field, else the other fields' errors summed up by their labels ("Check
// Longitude: at most 180"). Messages are phrased for people (peopleMessage: "Too big: expected number
// to be <=180" reads "At most 180"). Each field component tells the form its name and label
// (form.label), which is how the form knows what is on screen. After a refused submit the first field
// in error takes the focus, so its message is read out.
import { ApiError } from './api.js';
import { useCallback, useRef, useState } from './html.js';
import { pointerReleased } from './pointer.js';

/** zod's and the API's generic field messages, reworded; anything else (the API's own words) stays. */
const REWRITES = [
  [/^Invalid input: expected \w+, received (undefined|null)$/, () => 'Required'],
  [/^Invalid input: expected (int|number), received \w+$/, (m) => (m[1] === 'int' ? 'Must be a whole number' : 'Must be a number')],
  [/^Invalid input: expected boolean, received \w+$/, () => 'Must be on or off'],
  [/^Invalid input: expected array, received \w+$/, () => 'Must be a list'],
  [/^Invalid input: expected \w+, received \w+$/, () => 'Not a valid value'],
  [/^Too small: expected string to have >=1 characters?$/, () => 'Required'],
  [/^Too small: expected string to have >=(\d+) characters?$/, (m) => `At least ${m[1]} characters`],
  [/^Too big: expected string to have <=(\d+) characters?$/, (m) => `At most ${m[1]} characters`],
  [/^Too small: expected array to have >=1 items?$/, () => 'Choose at least one'],
  [/^Too small: expected array to have >=(\d+) items?$/, (m) => `At least ${m[1]} entries`],
  [/^Too big: expected array to have <=(\d+) items?$/, (m) => `At most ${m[1]} entries`],
  [/^Too small: expected number to be >=?(-?[\d.e+]+)$/, (m) => `At least ${m[1]}`],
  [/^Too small: expected number to be >(-?[\d.e+]+)$/, (m) => `More than ${m[1]}`],
  [/^Too big: expected number to be <=?(-?[\d.e+]+)$/, (m) => `At most ${m[1]}`],
  [/^Too big: expected number to be <(-?[\d.e+]+)$/, (m) => `Less than ${m[1]}`],
  [/^Invalid option: expected one of (.+)$/, (m) => `Choose one of ${m[1].split('|').map((x) => x.replace(/^"|"$/g, '')).join(', ')}`],
  [/^Invalid email address$/, () => 'Not an e-mail address'],
  [/^Invalid URL$/, () => 'Not a web address (https://…)'],
  [/^Invalid (ISO )?date(time)?$/, () => 'Not a valid date'],
  [/^Invalid string: must match pattern .*$/, () => 'Not in the expected form'],
  [/^Unrecognized key: "?([^"]+)"?$/, () => 'Not a field of this form'],
  [/^Unknown field$/, () => 'Not a field of this form'],
  [/^Required$/, () => 'Required'],
];

/** A field message in people's words (the API's own wording when it has one). */
export function peopleMessage(message) {
  const text = String(message ?? '').trim();
  for (const [re, fn] of REWRITES) {
    const m = re.exec(text);
    if (m) return fn(m);
  }
  return text || 'Not valid';
}

/** The API's path without a request-part prefix (`body.name`, `query.since` -> `name`, `since`). */
const bare = (path) => String(path ?? '').replace(/^(body|query|params)\./, '');

/**
 * A refusal with field errors summed up for people: "Check Time zone: not a known time zone; Longitude:
 * at most 180". `labelOf(path)` gives the label on screen (or null: then the path in words). Without
 * field errors, the API's detail as it is.
 * @param {{detail?: string, errors?: {path: string, message: string}[]}} err
 * @param {(path: string) => string | null | undefined} [labelOf]
 */
export function describeProblem(err, labelOf = () => null) {
  const errors = Array.isArray(err?.errors) ? err.errors : [];
  if (!errors.length) return err?.detail ?? '';
  const seen = new Set();
  const parts = [];
  for (const e of errors) {
    const path = bare(e.path);
    const label = labelOf(path) ?? (path ? path.split('.').filter((x) => !/^\d+$/.test(x)).pop()?.replace(/_/g, ' ') : null);
    const line = `${label ? `${label.replace(/^./, (c) => c.toUpperCase())}: ` : ''}${peopleMessage(e.message).replace(/^./, (c) => (label ? c.toLowerCase() : c))}`;
    if (seen.has(line)) continue;
    seen.add(line);
    parts.push(line);
  }
  const shown = parts.slice(0, 4).join('; ');
  const more = parts.length > 4 ? ` (and ${parts.length - 4} more)` : '';
  return `${parts.length === 1 ? 'Check this field' : 'Check these fields'} — ${shown}${more}.`;
}

/**
 * @param {Record<string, any>} initial field values by name (the API's field names)
 * @param {{request?: string}} [opts] `request`: the request the form sends ("POST /api/brain/sites"), whose
 *   schema checks each field as it is left (lib/request-check.js)
 * @returns {{
 *   values: Record<string, any>, busy: boolean, error: ApiError | null, fieldErrors: Record<string, string>,
 *   set: (name: string, value: any) => void, reset: (values?: Record<string, any>) => void,
 *   check: (name: string, raw: any, value: any) => Promise<void>, errorFor: (name: string) => string | undefined,
 *   partErrors: (name: string) => {part: string, message: string}[], suggestionFor: (name: string) => string | undefined,
 *   fail: (err: unknown) => void, label: (name: string, text: unknown) => void, labelOf: (path: string) => string | null,
 *   banner: string | null,
 *   submit: (fn: (values: Record<string, any>) => Promise<unknown>) => (e?: Event) => Promise<void>,
 * }}
 */
export function useForm(initial, opts = {}) {
  const [values, setValues] = useState(initial);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(/** @type {ApiError | null} */ (null));
  const [fieldErrors, setFieldErrors] = useState({});
  const [suggestions, setSuggestions] = useState({});
  const valuesRef = useRef(values);
  valuesRef.current = values;
  const optsRef = useRef(opts);
  optsRef.current = opts;
  // The fields on screen by the API's field name, with their labels (null for one that is not plain text).
  const labels = useRef(/** @type {Map<string, string | null>} */ (new Map()));

  /** Drops the messages of `name` and of its parts (alert_types.1 belongs to alert_types). */
  const drop = (name) => (map) => {
    const next = { ...map };
    for (const k of Object.keys(next)) if (k === name || k.startsWith(`${name}.`)) delete next[k];
    return next;
  };

  const set = useCallback((name, value) => {
    setValues((v) => ({ ...v, [name]: value }));
    // Editing a field clears its error; the rest stay until the next submit.
    setFieldErrors(drop(name));
    setSuggestions(drop(name));
  }, []);

  const reset = useCallback((v) => {
    setValues(v ?? initial);
    setError(null);
    setFieldErrors({});
    setSuggestions({});
  }, []);

  /** Shows an error from a failed call: the API's detail, and per-field messages (and suggestions) by path. */
  const fail = useCallback((err) => {
    // An ApiError, or a page's own check in the same shape ({detail, errors}).
    const e = err instanceof ApiError ? err
      : new ApiError(0, 'client', String(err?.detail ?? err?.message ?? err), Array.isArray(err?.errors) ? err.errors : []);
    const byPath = {}, offers = {};
    for (const fe of e.errors) {
      const path = bare(fe.path);
      if (!(path in byPath)) byPath[path] = peopleMessage(fe.message);
      if (typeof fe.suggestion === 'string' && !(path in offers)) offers[path] = fe.suggestion;
    }
    setError(e);
    setFieldErrors(byPath);
    setSuggestions(offers);
  }, []);

  const submit = useCallback((fn) => async (e) => {
    e?.preventDefault?.();
    const formEl = typeof HTMLElement !== 'undefined' && e?.currentTarget instanceof HTMLElement ? e.currentTarget : null;
    setBusy(true);
    setError(null);
    setFieldErrors({});
    setSuggestions({});
    try {
      await fn(valuesRef.current);
    } catch (err) {
      if (err?.name === 'AbortError') return;
      fail(err);
      focusFirstInvalid(formEl);
    } finally {
      setBusy(false);
    }
  }, []);

  /**
   * Checks a field as it is left against the server's schema for the form's request (opts.request), when
   * the form names one: `value` as the API would get it, `raw` as typed (a result that arrives after the
   * field changed is dropped). An empty field is the submit's to judge; a field with a message keeps it.
   * The message waits while a pointer is pressed (lib/pointer.js): the field was left by pressing
   * something, a button say, that the message would otherwise move from under the pointer.
   */
  const check = useCallback(async (name, raw, value) => {
    const request = optsRef.current.request;
    if (!request || value === '' || value === undefined || value === null) return;
    const [method, path] = request.split(' ');
    const rc = await import('./request-check.js').catch(() => null);
    const schema = rc ? await rc.schemaOf(method, path) : null;
    const field = schema ? rc.fieldSchema(schema, name) : null;
    if (!field || valuesRef.current[name] !== raw) return;
    const [first] = rc.schemaErrors(field, value, name);
    if (!first) return;
    await pointerReleased();
    if (valuesRef.current[name] !== raw) return;
    setFieldErrors((fe) => (fe[name] ? fe : { ...fe, [name]: peopleMessage(first.message) }));
  }, []);

  /** The message for `name` itself, or for a part of it (alert_types.1 belongs to alert_types). */
  const errorFor = (name) => {
    if (fieldErrors[name]) return fieldErrors[name];
    const sub = Object.keys(fieldErrors).find((k) => k.startsWith(`${name}.`));
    return sub ? fieldErrors[sub] : undefined;
  };

  /** The messages of the parts of `name`, by the part's path below it (`0.end` of dhcp_ranges). */
  const partErrors = (name) => Object.entries(fieldErrors).filter(([k]) => k.startsWith(`${name}.`))
    .map(([k, message]) => ({ part: k.slice(name.length + 1), message }));

  /** What the API offers in place of the value of `name` (a CIDR's network), if anything. */
  const suggestionFor = (name) => suggestions[name];

  /** A field component tells the form its name and label (the label only when it is plain text). */
  const label = (name, text) => {
    if (typeof text === 'string' && text) labels.current.set(name, text);
    else if (!labels.current.has(name)) labels.current.set(name, null);
  };

  /** The field on screen an API path belongs to: the field itself, or the nearest one it is part of. */
  const fieldOf = (path) => {
    for (let p = path; p; p = p.includes('.') ? p.slice(0, p.lastIndexOf('.')) : '') if (labels.current.has(p)) return p;
    return null;
  };

  /** The label on screen for an API path (null when its field shows none as text). */
  const labelOf = (path) => {
    const f = fieldOf(path);
    return f === null ? null : labels.current.get(f) ?? null;
  };

  // The box above the form: the API's detail when no field is named; else only the errors of fields
  // that are not on screen (each of the others is shown beside its field, and only there).
  const others = error ? error.errors.filter((fe) => fieldOf(bare(fe.path)) === null) : [];
  const banner = !error ? null : !error.errors.length ? error.detail || null
    : others.length ? describeProblem({ detail: error.detail, errors: others }, labelOf) : null;

  return { values, busy, error, fieldErrors, set, reset, check, errorFor, partErrors, suggestionFor, fail, submit, label, labelOf, banner };
}

/** After a refused submit: the first control in error takes the focus (its message is then read out) and is scrolled to. */
function focusFirstInvalid(formEl) {
  if (!formEl) return;
  // After the render that marks the fields.
  requestAnimationFrame(() => {
    const el = formEl.querySelector('input[aria-invalid="true"], select[aria-invalid="true"], textarea[aria-invalid="true"], ' +
      '[aria-invalid="true"] input, [aria-invalid="true"] select, [aria-invalid="true"] textarea');
    // Without one, the box above the form says what went wrong.
    const target = el ?? formEl.querySelector('.alert-error');
    el?.focus({ preventScroll: true });
    target?.scrollIntoView({ block: 'center', behavior: 'smooth' });
  });
}
