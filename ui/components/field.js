// Labelled form controls bound to a useForm() form by the API's field name. Each shows its hint and,
// after a failed submit, the API's message for that field (aria-invalid, aria-describedby), with the
// value the API suggests instead as a button that puts it in (a CIDR's network).
import { html, useRef } from '../lib/html.js';

let seq = 0;
const useId = (prefix) => useRef(`${prefix}-${++seq}`).current;

function Help({ id, hint, error, offer }) {
  return html`${error ? html`<div class="field-error" id=${`${id}-err`}>${error}
      ${offer ? html` <button type="button" class="btn btn-sm field-fix" onClick=${offer.use}>Use ${offer.value}</button>` : null}</div>` : null}
    ${hint ? html`<div class="field-hint" id=${`${id}-hint`}>${hint}</div>` : null}`;
}

/** The API's suggestion for a field as a one-click fix (only with the field's error). */
function offerOf(form, name) {
  const value = form.suggestionFor?.(name);
  return value === undefined ? null : { value, use: () => form.set(name, value) };
}

const describedBy = (id, hint, error) => [error && `${id}-err`, hint && `${id}-hint`].filter(Boolean).join(' ') || undefined;

/** A text input's value as the API would take it: a number from a number field (text that is none stays text), else trimmed. */
const apiValue = (type, v) => {
  const t = String(v ?? '').trim();
  return type === 'number' && t !== '' && Number.isFinite(Number(t)) ? Number(t) : t;
};

/**
 * A text-like input (type text, password, email, number, url, search, datetime-local…), checked as it is
 * left against the server's schema when the form names its request (lib/form.js `check`).
 * Extra props (required, autocomplete, placeholder, min, max, inputmode, autofocus) go to the input.
 */
export function Field({ form, name, label, hint, type = 'text', class: cls = '', ...rest }) {
  const id = useId(`f-${name}`);
  const error = form.errorFor(name);
  form.label?.(name, label);
  const value = form.values[name] ?? '';
  return html`<div class=${`field ${cls}`}>
    <label for=${id} class=${rest.required ? 'required' : undefined}>${label}</label>
    <input id=${id} name=${name} type=${type} value=${value} onInput=${(e) => form.set(name, e.currentTarget.value)}
      onBlur=${() => form.check?.(name, value, apiValue(type, value))}
      aria-invalid=${error ? 'true' : undefined} aria-describedby=${describedBy(id, hint, error)} ...${rest} />
    <${Help} id=${id} hint=${hint} error=${error} offer=${offerOf(form, name)} />
  </div>`;
}

/** A multi-line text input; `error` replaces the form's message for it (a list naming the entries at fault). */
export function TextArea({ form, name, label, hint, rows = 3, error: shown, class: cls = '', ...rest }) {
  const id = useId(`f-${name}`);
  const error = shown ?? form.errorFor(name);
  form.label?.(name, label);
  return html`<div class=${`field ${cls}`}>
    <label for=${id}>${label}</label>
    <textarea id=${id} name=${name} rows=${rows} value=${form.values[name] ?? ''} onInput=${(e) => form.set(name, e.currentTarget.value)}
      aria-invalid=${error ? 'true' : undefined} aria-describedby=${describedBy(id, hint, error)} ...${rest}></textarea>
    <${Help} id=${id} hint=${hint} error=${error} />
  </div>`;
}

/** options: [{value, label}] */
export function SelectField({ form, name, label, hint, options, class: cls = '', ...rest }) {
  const id = useId(`f-${name}`);
  const error = form.errorFor(name);
  form.label?.(name, label);
  return html`<div class=${`field ${cls}`}>
    <label for=${id}>${label}</label>
    <select id=${id} name=${name} value=${form.values[name] ?? ''} onChange=${(e) => form.set(name, e.currentTarget.value)}
      aria-invalid=${error ? 'true' : undefined} aria-describedby=${describedBy(id, hint, error)} ...${rest}>
      ${options.map((o) => html`<option value=${o.value}>${o.label}</option>`)}
    </select>
    <${Help} id=${id} hint=${hint} error=${error} />
  </div>`;
}

/** A boolean as a switch-styled checkbox. */
export function CheckField({ form, name, label, hint, class: cls = '' }) {
  const id = useId(`f-${name}`);
  const error = form.errorFor(name);
  form.label?.(name, label);
  return html`<div class=${`field field-check ${cls}`}>
    <label class="check" for=${id}>
      <input id=${id} name=${name} type="checkbox" role="switch" checked=${!!form.values[name]}
        onChange=${(e) => form.set(name, e.currentTarget.checked)} aria-describedby=${describedBy(id, hint, error)} />
      <span>${label}</span>
    </label>
    <${Help} id=${id} hint=${hint} error=${error} />
  </div>`;
}

/** A list of strings as a group of checkboxes. options: [{value, label, hint?}] */
export function CheckGroup({ form, name, label, hint, options, columns = 1 }) {
  const id = useId(`f-${name}`);
  const error = form.errorFor(name);
  form.label?.(name, label);
  const chosen = new Set(form.values[name] ?? []);
  const toggle = (v, on) => {
    const next = new Set(chosen);
    if (on) next.add(v); else next.delete(v);
    // Keep the order of the options, so the request reads like the list on screen.
    form.set(name, options.map((o) => o.value).filter((x) => next.has(x)));
  };
  return html`<fieldset class="field field-group" aria-invalid=${error ? 'true' : undefined} aria-describedby=${describedBy(id, hint, error)}>
    <legend>${label}</legend>
    <div class="check-grid" style=${`--cols:${columns}`}>
      ${options.map((o) => html`<label class="check" key=${o.value}>
        <input type="checkbox" name=${name} value=${o.value} checked=${chosen.has(o.value)} onChange=${(e) => toggle(o.value, e.currentTarget.checked)} />
        <span>${o.label}${o.hint ? html`<small class="check-hint">${o.hint}</small>` : null}</span>
      </label>`)}
    </div>
    <${Help} id=${id} hint=${hint} error=${error} />
  </fieldset>`;
}

/**
 * The form's problem, for what belongs to no field on screen (lib/form.js `banner`): the API's detail, or
 * the other fields' errors by their labels, with the API's own words one click away. Errors of fields on
 * screen are shown beside them only.
 */
export function FormError({ form }) {
  const text = form.banner;
  if (!form.error || !text) return null;
  const raw = form.error.detail && form.error.detail !== text ? form.error.detail : null;
  return html`<div class="alert alert-error" role="alert"><div class="alert-body">${text}
    ${raw ? html`<details class="alert-raw"><summary>As the probe said it</summary><span class="mono small">${raw}</span></details>` : null}</div></div>`;
}
