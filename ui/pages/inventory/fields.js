// One form control per inventory field definition (types.js), bound to a useForm() form by the API's
// field name. Reference fields offer the records of the referenced type (or take a short ID when
// there are too many to list); secrets are write-only password fields that say whether one is stored.
// A list's messages name the entry they are about; a field only administrators may change is shown
// disabled to others, with the reason.
import { html } from '../../lib/html.js';
import { Badge } from '../../components/badge.js';
import { CheckField, Field, SelectField, TextArea } from '../../components/field.js';
import { ChipPicker, RowsField, TagInput } from '../../components/field-extra.js';
import { TimeZoneField } from '../../components/time-zone.js';
import { removeKey, splitList } from './record-form.js';
import { LOOKUP_LIMIT } from './section.js';

const INPUT_TYPES = { email: 'email', url: 'url', date: 'date', number: 'number' };

const refOption = (r) => ({ value: r.id, label: `${r.short_id} · ${r.name}` });

function SecretField({ form, f, rec }) {
  const stored = rec?.[f.name]?.set === true;
  const common = { form, name: f.name, label: html`${f.label} ${stored ? html`<${Badge} tone="ok">Stored<//>` : null}`,
    autocomplete: 'new-password', spellcheck: 'false', placeholder: stored ? 'Stored — type to replace' : '',
    hint: stored ? 'Leave empty to keep the stored value. It is never shown.' : 'Stored encrypted in the vault; never shown again.' };
  return html`<div class="secret-field">
    ${f.multiline ? html`<${TextArea} ...${common} rows=${4} class="mono-input" />` : html`<${Field} ...${common} type="password" />`}
    ${stored ? html`<${CheckField} form=${form} name=${removeKey(f.name)} label=${`Remove the stored ${f.label.toLowerCase()}`} />` : null}
  </div>`;
}

/** The API's messages for a list field and its entries (`scope.2`), each entry's with the entry it is about. */
function listErrors(form, name) {
  const entries = splitList(form.values[name] ?? '');
  const out = form.fieldErrors[name] ? [form.fieldErrors[name]] : [];
  for (const [path, message] of Object.entries(form.fieldErrors)) {
    const index = path.startsWith(`${name}.`) ? /^\d+$/.exec(path.slice(name.length + 1)) : null;
    if (!index) continue;
    const entry = entries[Number(index[0])];
    out.push(entry && !message.includes(entry) ? `${entry}: ${message}` : message);
  }
  return out.length ? out.join('; ') : undefined;
}

/**
 * @param {{form: any, f: import('./types.js').FieldDef, lookups: Record<string, ReturnType<import('./section.js').useLookup>>, rec: any,
 *   admin?: boolean}} props
 */
export function RecordField({ form, f, lookups, rec, admin = false }) {
  const cls = f.full ? 'span-all' : '';
  const mono = f.mono ? { class: `${cls} mono-input`.trim() } : { class: cls };
  const locked = !!f.adminOnly && !admin;
  const hint = locked ? f.adminOnly : f.hint;
  switch (f.kind) {
    case 'textarea':
      return html`<${TextArea} form=${form} name=${f.name} label=${f.label} hint=${f.hint} rows=${f.rows ?? 3} class=${cls} />`;
    case 'list':
      return html`<${TextArea} form=${form} name=${f.name} label=${f.label} hint=${f.hint} rows=${f.rows ?? 3} placeholder=${f.placeholder}
        error=${listErrors(form, f.name)} spellcheck="false" autocapitalize="none" ...${mono} />`;
    case 'select':
      return html`<${SelectField} form=${form} name=${f.name} label=${f.label} hint=${f.hint} class=${cls}
        options=${f.required ? f.options : [{ value: '', label: '—' }, ...f.options]} />`;
    case 'timezone':
      return html`<${TimeZoneField} form=${form} name=${f.name} label=${f.label} hint=${f.hint} optional=${!f.required} class=${cls} />`;
    case 'tags':
      return html`<${TagInput} form=${form} name=${f.name} label=${f.label} hint="Enter or comma adds a tag." />`;
    case 'ref': {
      const l = lookups[f.ref];
      if (l && !l.complete && l.items) {
        return html`<${Field} form=${form} name=${f.name} label=${f.label} hint=${locked ? hint : `Short ID or UUID (more than ${LOOKUP_LIMIT} to list).`}
          spellcheck="false" class=${cls} disabled=${locked} />`;
      }
      const options = [{ value: '', label: l?.items ? '—' : 'Loading…' }, ...(l?.items ?? []).map(refOption)];
      return html`<${SelectField} form=${form} name=${f.name} label=${f.label} hint=${hint} options=${options} class=${cls} required=${f.required}
        disabled=${locked} />`;
    }
    case 'refs': {
      const l = lookups[f.ref];
      return html`<div class=${cls}><${ChipPicker} form=${form} name=${f.name} label=${f.label} hint=${f.hint}
        options=${(l?.items ?? []).map(refOption)} placeholder="Add…" /></div>`;
    }
    case 'dhcp':
      return html`<div class="span-all"><${RowsField} form=${form} name=${f.name} label=${f.label} addLabel="Add range" blank=${{ start: '', end: '' }}
        columns=${[{ key: 'start', label: 'First address', placeholder: '10.20.0.100' }, { key: 'end', label: 'Last address', placeholder: '10.20.0.199' }]}
        empty="No DHCP ranges." /></div>`;
    case 'custom':
      return html`<div class="span-all"><${RowsField} form=${form} name=${f.name} label=${f.label} addLabel="Add field" blank=${{ key: '', value: '' }}
        columns=${[{ key: 'key', label: 'Field name', placeholder: 'cost_center' }, { key: 'value', label: 'Value', placeholder: '4711' }]}
        empty="No custom fields." /></div>`;
    case 'secret':
      return html`<${SecretField} form=${form} f=${f} rec=${rec} />`;
    default:
      return html`<${Field} form=${form} name=${f.name} label=${f.label} hint=${f.hint} placeholder=${f.placeholder} required=${f.required}
        type=${INPUT_TYPES[f.kind] ?? 'text'} step=${f.kind === 'number' ? 'any' : undefined} spellcheck=${f.mono ? 'false' : undefined} ...${mono} />`;
  }
}
