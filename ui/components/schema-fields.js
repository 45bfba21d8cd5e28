// The fields of a form the API describes as JSON Schema (lib/schema-form.js reads it): text, numbers
// with their bounds, switches, choices, lists, name-value rows, multi-line text and a choice between
// variants with each one's own fields; secrets as write-only password fields; headings where the schema
// starts a section; maps, multi-line text and fields marked x-wide on a line of their own; fields shown
// only while their x-visible-when holds. Used by the monitor form (check settings) and the webhook form
// (provider options). Values are named `prefix` + the API's path.
import { html, useEffect } from '../lib/html.js';
import {
  fieldsOf, initialValues, optionsOf, rawObject, STORED_PLACEHOLDER, storedSecret, visible,
} from '../lib/schema-form.js';
import { CheckField, Field, SelectField, TextArea } from './field.js';
import { RowsField } from './field-extra.js';

const WIDE = new Set(['map', 'textarea']);

function Control({ form, f, stored }) {
  const common = { form, name: f.name, label: f.title, hint: f.description };
  const s = f.schema;
  switch (f.kind) {
    case 'boolean': return html`<${CheckField} ...${common} />`;
    case 'select': return html`<${SelectField} ...${common} options=${optionsOf(f)} />`;
    case 'variant':
      return html`<${SelectField} ...${common} options=${[...(f.required ? [] : [{ value: '', label: 'None' }]),
        ...f.variants.map((x) => ({ value: String(x.value), label: x.title }))]} />`;
    case 'number':
      return html`<${Field} ...${common} type="number" min=${s.minimum} max=${s.maximum} required=${f.required}
        step=${s.type === 'integer' ? undefined : 'any'} inputmode=${s.type === 'integer' ? 'numeric' : 'decimal'} placeholder=${f.placeholder} />`;
    case 'textarea': return html`<${TextArea} ...${common} rows=${3} spellcheck=${false} placeholder=${f.placeholder} />`;
    case 'map': {
      const key = s.propertyNames ?? {}, value = s.additionalProperties ?? {};
      const col = (k, x, fallback) => ({ key: k, label: x.title ?? fallback, placeholder: Array.isArray(x.examples) ? String(x.examples[0]) : '' });
      return html`<${RowsField} ...${common} addLabel=${s['x-add-label'] ?? 'Add'} blank=${{ name: '', value: '' }}
        columns=${[col('name', key, 'Name'), col('value', value, 'Value')]} />`;
    }
    default:
      if (f.secret) {
        return html`<${Field} ...${common} type="password" autocomplete="new-password"
          placeholder=${storedSecret(f, stored, form.values) ? STORED_PLACEHOLDER : f.placeholder ?? ''} />`;
      }
      return html`<${Field} ...${common} required=${f.required} placeholder=${f.placeholder} spellcheck=${false} autocapitalize="none" />`;
  }
}

/** The fields that show, in order: a variant's chosen fields follow its choice. */
function shown(fields, values) {
  const raw = rawObject(fields, values);
  return fields.filter((f) => visible(f, raw)).flatMap((f) => {
    if (f.kind !== 'variant') return [f];
    const chosen = f.variants.find((x) => String(x.value) === values[f.name]);
    return [f, ...(chosen ? shown(chosen.fields, values) : [])];
  });
}

/**
 * The fields of `schema`, bound to `form` under `prefix`. `stored`: the stored object as the API shows
 * it (secrets as {set: true}), for the "stored" placeholders. Fields without a value yet (another
 * provider chosen) start from their defaults.
 */
export function SchemaFields({ form, schema, prefix = '', stored }) {
  const fields = fieldsOf(schema, prefix);
  const missing = Object.entries(initialValues(schema, {}, prefix)).filter(([k]) => form.values[k] === undefined);
  useEffect(() => { for (const [k, v] of missing) form.set(k, v); }, [missing.map(([k]) => k).join()]);
  if (missing.length) return null;

  // Sections (a heading where a field starts one), each a grid of fields with the wide ones on their own.
  const blocks = [];
  for (const f of shown(fields, form.values)) {
    if (f.section) blocks.push({ heading: f.section });
    const last = blocks[blocks.length - 1];
    if (WIDE.has(f.kind) || f.wide) blocks.push({ wide: f });
    else if (last?.grid) last.grid.push(f);
    else blocks.push({ grid: [f] });
  }
  return html`${blocks.map((b, i) => (b.heading ? html`<h3 class="form-sub" key=${`h${i}`}>${b.heading}</h3>`
    : b.wide ? html`<${Control} key=${b.wide.name} form=${form} f=${b.wide} stored=${stored} />`
      : html`<div class="grid-3" key=${`g${i}`}>${b.grid.map((f) => html`<${Control} key=${f.name} form=${form} f=${f} stored=${stored} />`)}</div>`))}`;
}
