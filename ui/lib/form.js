// Form state for pages: values, a busy flag, and the API's errors — the problem's `detail` for the
// form, and each `errors[].message` beside the field whose name matches its `path`.
import { ApiError } from './api.js';
import { useCallback, useRef, useState } from './html.js';

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
    for (const fe of e.errors) if (!(fe.path in byPath)) byPath[fe.path] = fe.message;
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

  return { values, busy, error, fieldErrors, set, reset, errorFor, fail, submit };
}
