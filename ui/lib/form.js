// Form state for pages: values, a busy flag, and the API's errors — the problem's `detail` for the
// form, and each `errors[].message` beside the field whose name matches its `path`. Messages are phrased
// for people (peopleMessage: "Too big: expected number to be <=180" reads "At most 180"), and a refusal
// with field errors is summed up by the fields' labels ("Check Longitude: at most 180"): each field
// component tells the form its label (form.label), so the summary names what is on screen, not the API's
// paths.
import { ApiError } from './api.js';
import { useCallback, useRef, useState } from './html.js';

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
 * @returns {{
 *   values: Record<string, any>, busy: boolean, error: ApiError | null, fieldErrors: Record<string, string>,
 *   set: (name: string, value: any) => void, reset: (values?: Record<string, any>) => void,
 *   errorFor: (name: string) => string | undefined, fail: (err: unknown) => void,
 *   submit: (fn: (values: Record<string, any>) => Promise<unknown>) => (e?: Event) => Promise<void>,
 * }}
 */
export function useForm(initial) {
  const [values, setValues] = useState(initial);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(/** @type {ApiError | null} */ (null));
  const [fieldErrors, setFieldErrors] = useState({});
  const valuesRef = useRef(values);
  valuesRef.current = values;
  // Field labels as the field components render them, by the API's field name.
  const labels = useRef(/** @type {Record<string, string>} */ ({}));

  const set = useCallback((name, value) => {
    setValues((v) => ({ ...v, [name]: value }));
    // Editing a field clears its error; the rest stay until the next submit.
    setFieldErrors((fe) => {
      const next = { ...fe };
      for (const k of Object.keys(next)) if (k === name || k.startsWith(`${name}.`)) delete next[k];
      return next;
    });
  }, []);

  const reset = useCallback((v) => {
    setValues(v ?? initial);
    setError(null);
    setFieldErrors({});
  }, []);

  /** Shows an error from a failed call: the API's detail, and per-field messages by path. */
  const fail = useCallback((err) => {
    // An ApiError, or a page's own check in the same shape ({detail, errors}).
    const e = err instanceof ApiError ? err
      : new ApiError(0, 'client', String(err?.detail ?? err?.message ?? err), Array.isArray(err?.errors) ? err.errors : []);
    const byPath = {};
    for (const fe of e.errors) if (!(bare(fe.path) in byPath)) byPath[bare(fe.path)] = peopleMessage(fe.message);
    setError(e);
    setFieldErrors(byPath);
  }, []);

  const submit = useCallback((fn) => async (e) => {
    e?.preventDefault?.();
    setBusy(true);
    setError(null);
    setFieldErrors({});
    try {
      await fn(valuesRef.current);
    } catch (err) {
      if (err?.name === 'AbortError') return;
      fail(err);
    } finally {
      setBusy(false);
    }
  }, []);

  /** The message for `name` itself, or for a part of it (alert_types.1 belongs to alert_types). */
  const errorFor = (name) => {
    if (fieldErrors[name]) return fieldErrors[name];
    const sub = Object.keys(fieldErrors).find((k) => k.startsWith(`${name}.`));
    return sub ? fieldErrors[sub] : undefined;
  };

  /** A field component tells the form its label (for the summary of a refusal). */
  const label = (name, text) => { if (typeof text === 'string' && text) labels.current[name] = text; };

  /** The label on screen for an API path: the field's own, or the nearest field it belongs to. */
  const labelOf = (path) => {
    for (let p = path; p; p = p.includes('.') ? p.slice(0, p.lastIndexOf('.')) : '') if (labels.current[p]) return labels.current[p];
    return null;
  };

  /** What the form's problem box says: the field errors by label, else the API's detail. */
  // A page's own check (form.fail with its own detail) keeps its words; the API's refusals are summed up.
  const summary = error && error.status >= 400 ? describeProblem(error, labelOf) : '';

  return { values, busy, error, fieldErrors, set, reset, errorFor, fail, submit, label, labelOf, summary };
}
