// More labelled form controls bound to a useForm() form by the API's field name, beside field.js:
// a list of tags as chips, a pick-several-from-a-list control, a table of rows (headers, DHCP ranges,
// custom fields) and a segmented choice. Each shows its hint and the API's message for its field
// (a message for a part, like dhcp_ranges.0.end, shows at the control it belongs to).
import { html, useRef, useState } from '../lib/html.js';
import { loadStylesheet } from '../lib/stylesheet.js';
// The chips' own styles live with the shared controls.
import './controls.js';
import { Icon } from './icons.js';

await loadStylesheet(new URL('./field-extra.css', import.meta.url).pathname);

let seq = 0;
const useId = (prefix) => useRef(`${prefix}-x${++seq}`).current;

function Help({ id, hint, error }) {
  return html`${error ? html`<div class="field-error" id=${`${id}-err`}>${error}</div>` : null}
    ${hint ? html`<div class="field-hint" id=${`${id}-hint`}>${hint}</div>` : null}`;
}
const describedBy = (id, hint, error) => [error && `${id}-err`, hint && `${id}-hint`].filter(Boolean).join(' ') || undefined;

/**
 * A list of short strings (tags) as chips with an input: Enter or a comma adds, Backspace in the
 * empty input removes the last. `suggestions` are offered while typing.
 */
export function TagInput({ form, name, label, hint, suggestions = [], placeholder = 'Add a tag' }) {
  const id = useId(`f-${name}`);
  const [text, setText] = useState('');
  const error = form.errorFor(name);
  form.label?.(name, label);
  const tags = form.values[name] ?? [];
  const add = (raw) => {
    const fresh = raw.split(',').map((t) => t.trim()).filter((t) => t && !tags.includes(t));
    if (fresh.length) form.set(name, [...tags, ...new Set(fresh)]);
    setText('');
  };
  const onKeyDown = (e) => {
    if (e.key === 'Enter' || e.key === ',') {
      e.preventDefault();
      add(text);
    } else if (e.key === 'Backspace' && !text && tags.length) {
      form.set(name, tags.slice(0, -1));
    }
  };
  const offered = suggestions.filter((s) => !tags.includes(s));
  return html`<div class="field">
    <label for=${id}>${label}</label>
    <div class=${`chip-input${error ? ' invalid' : ''}`}>
      ${tags.map((t) => html`<span key=${t} class="chip">${t}<button type="button" class="chip-x" aria-label=${`Remove ${t}`} title="Remove"
        onClick=${() => form.set(name, tags.filter((x) => x !== t))}><${Icon} name="close" size=${12} /></button></span>`)}
      <input id=${id} value=${text} list=${offered.length ? `${id}-list` : undefined} placeholder=${tags.length ? '' : placeholder}
        autocomplete="off" aria-invalid=${error ? 'true' : undefined} aria-describedby=${describedBy(id, hint, error)}
        onInput=${(e) => { const v = e.currentTarget.value; if (v.endsWith(',')) add(v); else setText(v); }}
        onKeyDown=${onKeyDown} onBlur=${() => add(text)} />
    </div>
    ${offered.length ? html`<datalist id=${`${id}-list`}>${offered.map((s) => html`<option key=${s} value=${s} />`)}</datalist>` : null}
    <${Help} id=${id} hint=${hint} error=${error} />
  </div>`;
}

/**
 * Several values picked from a list: the chosen ones as chips (each with a remove button) and a
 * select that adds one. options: [{value, label}]. Values not among the options still show (by value).
 */
export function ChipPicker({ form, name, label, hint, options, placeholder = 'Add…', empty = 'None' }) {
  const id = useId(`f-${name}`);
  const error = form.errorFor(name);
  form.label?.(name, label);
  const chosen = form.values[name] ?? [];
  const labelOf = (v) => options.find((o) => o.value === v)?.label ?? v;
  const rest = options.filter((o) => !chosen.includes(o.value));
  return html`<div class="field">
    <label for=${id}>${label}</label>
    <div class="picker">
      ${chosen.length ? html`<div class="chips picker-chips">
        ${chosen.map((v) => html`<span key=${v} class="chip">${labelOf(v)}<button type="button" class="chip-x" aria-label=${`Remove ${labelOf(v)}`} title="Remove"
          onClick=${() => form.set(name, chosen.filter((x) => x !== v))}><${Icon} name="close" size=${12} /></button></span>`)}
      </div>` : html`<div class="picker-empty muted">${empty}</div>`}
      <select id=${id} value="" disabled=${!rest.length} aria-invalid=${error ? 'true' : undefined} aria-describedby=${describedBy(id, hint, error)}
        onChange=${(e) => { const v = e.currentTarget.value; if (v) form.set(name, [...chosen, v]); e.currentTarget.value = ''; }}>
        <option value="">${rest.length ? placeholder : 'Nothing more to add'}</option>
        ${rest.map((o) => html`<option key=${o.value} value=${o.value}>${o.label}</option>`)}
      </select>
    </div>
    <${Help} id=${id} hint=${hint} error=${error} />
  </div>`;
}

/**
 * A list of objects edited as rows of inputs. columns: [{key, label, placeholder?, type?}]; each input
 * is named "<column label> <row number>" for assistive technology. `blank` is a new row's value.
 */
export function RowsField({ form, name, label, hint, columns, addLabel = 'Add', blank, empty }) {
  const id = useId(`f-${name}`);
  // Every row's errors, each naming its cell ("Last address 1: end is before start").
  const cell = (part) => {
    const [i, key] = part.split('.');
    const col = columns.find((c) => c.key === key);
    return /^\d+$/.test(i ?? '') && col ? `${col.label} ${Number(i) + 1}: ` : '';
  };
  const parts = form.partErrors ? form.partErrors(name).map((e) => `${cell(e.part)}${e.message}`) : [];
  const error = [form.fieldErrors?.[name], ...parts].filter(Boolean).join('; ') || form.errorFor(name);
  form.label?.(name, label);
  const rows = form.values[name] ?? [];
  const setCell = (i, key, value) => form.set(name, rows.map((r, j) => (j === i ? { ...r, [key]: value } : r)));
  return html`<fieldset class="field field-group rows-field" aria-describedby=${describedBy(id, hint, error)} aria-invalid=${error ? 'true' : undefined}>
    <legend>${label}</legend>
    ${rows.length ? html`<div class="rows-grid" style=${`--cols:${columns.length}`}>
      ${rows.map((r, i) => html`<div class="rows-row" key=${i}>
        ${columns.map((c) => html`<input type=${c.type ?? 'text'} value=${r[c.key] ?? ''} placeholder=${r.placeholder?.[c.key] ?? c.placeholder}
          aria-label=${`${c.label} ${i + 1}`} spellcheck="false" autocomplete="off" onInput=${(e) => setCell(i, c.key, e.currentTarget.value)} />`)}
        <button type="button" class="btn btn-icon btn-ghost" aria-label=${`Remove row ${i + 1}`} title="Remove"
          onClick=${() => form.set(name, rows.filter((_, j) => j !== i))}><${Icon} name="trash" size=${16} /></button>
      </div>`)}
    </div>` : empty ? html`<div class="muted small rows-empty">${empty}</div>` : null}
    <button type="button" class="btn btn-sm" onClick=${() => form.set(name, [...rows, { ...blank }])}><${Icon} name="plus" size=${15} />${addLabel}</button>
    <${Help} id=${id} hint=${hint} error=${error} />
  </fieldset>`;
}

/** One of a few choices as a row of buttons (radio buttons underneath). options: [{value, label, hint?, icon?}] */
export function Segmented({ form, name, label, options, hint }) {
  const id = useId(`f-${name}`);
  const error = form.errorFor(name);
  form.label?.(name, label);
  return html`<fieldset class="field field-group seg-group" aria-describedby=${describedBy(id, hint, error)}>
    <legend>${label}</legend>
    <div class="segmented">
      ${options.map((o) => html`<label key=${o.value} class=${`seg${form.values[name] === o.value ? ' on' : ''}`}>
        <input type="radio" name=${name} value=${o.value} checked=${form.values[name] === o.value} onChange=${() => form.set(name, o.value)} />
        ${o.icon ? html`<${Icon} name=${o.icon} size=${18} />` : null}
        <span class="seg-text"><span class="seg-label">${o.label}</span>${o.hint ? html`<small class="seg-hint">${o.hint}</small>` : null}</span>
      </label>`)}
    </div>
    <${Help} id=${id} hint=${hint} error=${error} />
  </fieldset>`;
}
