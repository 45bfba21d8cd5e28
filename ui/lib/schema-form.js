// A form described by the API as JSON Schema (src/core/form-schema.ts; docs/api.md, "Forms from JSON
// Schema"): a monitor's check settings (GET /api/monitors/check-types) and a webhook's provider options
// (GET /api/webhooks/providers). This module turns such a schema into fields, form values and the object
// sent back, decides which fields show, and describes stored values for people; it knows no check type
// or provider. components/schema-fields.js draws the fields. Plain module: the UI contract test loads it.
import { humanize } from './format.js';

/** What a stored secret's empty field says (the API shows it as {set: true}; sending that back keeps it). */
export const STORED_PLACEHOLDER = 'Stored — type to replace';

const isObj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
export const isMarker = (v) => isObj(v) && v.set === true && Object.keys(v).length === 1;
/** The presentation keywords this module reads (the server's FORM_KEYWORDS; the UI contract test compares them). */
export const FORM_KEYWORDS = ['x-section', 'x-visible-when', 'x-enum-titles', 'x-multiline', 'x-add-label', 'x-wide'];

const variantsOf = (s) => (Array.isArray(s.oneOf) ? s.oneOf : Array.isArray(s.anyOf) ? s.anyOf : null);

/** The property every variant fixes with a `const` (a discriminated union's tag), or null. */
function discriminatorOf(variants) {
  const first = variants[0]?.properties ?? {};
  return Object.keys(first).find((k) => variants.every((v) => v.properties?.[k]?.const !== undefined)) ?? null;
}

/** How a property is edited, or null when this module cannot edit it (the contract test asserts none is). */
export function kindOf(s) {
  if (!isObj(s)) return null;
  const variants = variantsOf(s);
  if (variants) return discriminatorOf(variants) ? 'variant' : null;
  if (Array.isArray(s.enum)) return 'select';
  if (s.type === 'boolean') return 'boolean';
  if (s.type === 'integer' || s.type === 'number') return 'number';
  if (s.type === 'string') return s['x-multiline'] ? 'textarea' : 'text';
  if (s.type === 'array' && s.items?.type === 'string') return 'list';
  if (s.type === 'object' && isObj(s.additionalProperties) && s.additionalProperties.type === 'string' && !s.properties) return 'map';
  return null;
}

/**
 * The fields of an object schema, in its order. A field's `name` is its form value's key: `prefix` and
 * the dotted path, as the API's error paths name it (settings.auth.password). A variant (oneOf with a tag)
 * is a choice with each variant's own fields; those carry `variant`: which choice shows them.
 */
export function fieldsOf(schema, prefix = '', variant = null) {
  const required = new Set(schema?.required ?? []);
  return Object.entries(schema?.properties ?? {}).map(([key, s]) => {
    const name = prefix + key;
    const kind = kindOf(s);
    const field = {
      key, name, kind, schema: s, variant,
      title: s.title ?? humanize(key),
      description: s.description,
      placeholder: Array.isArray(s.examples) && s.examples.length ? String(s.examples[0]) : undefined,
      required: required.has(key),
      secret: s.writeOnly === true,
      section: s['x-section'],
      wide: s['x-wide'] === true,
      visibleWhen: s['x-visible-when'],
      default: s.default,
    };
    if (kind === 'variant') {
      const variants = variantsOf(s);
      const tag = discriminatorOf(variants);
      field.tag = tag;
      field.variants = variants.map((v) => {
        const value = v.properties[tag].const;
        const at = { name, key, tag, value };
        const own = { ...v, properties: Object.fromEntries(Object.entries(v.properties).filter(([k]) => k !== tag)) };
        return { value, title: v.title ?? humanize(String(value)), fields: fieldsOf(own, `${name}.`, at) };
      });
    }
    return field;
  });
}

/** The choices of a select field: [{value, label}], with an empty one when it may be left unset. */
export function optionsOf(field) {
  const titles = field.schema['x-enum-titles'] ?? {};
  const options = field.schema.enum.map((v) => ({ value: String(v), label: titles[v] ?? String(v) }));
  return field.required || field.default !== undefined ? options : [{ value: '', label: 'Not set' }, ...options];
}

/**
 * Form values for `data` (stored values, or the defaults): text as text, numbers as text, lists as
 * "a, b", maps as rows ({name, value}; a stored secret as an empty row marked `stored`). Secrets start
 * empty. Every variant's fields get values, the chosen variant's from `data`.
 */
export function initialValues(schema, data, prefix = '') {
  return valuesFor(fieldsOf(schema, prefix), data);
}

function valuesFor(fields, data) {
  const out = {};
  const d = isObj(data) ? data : {};
  for (const f of fields) {
    const v = d[f.key] ?? f.default;
    switch (f.kind) {
      case 'boolean': out[f.name] = v ?? false; break;
      case 'select': out[f.name] = v === undefined ? (optionsOf(f)[0]?.value ?? '') : String(v); break;
      case 'list': out[f.name] = Array.isArray(v) ? v.join(', ') : ''; break;
      case 'map':
        out[f.name] = Object.entries(isObj(v) ? v : {}).map(([k, val]) => (isMarker(val)
          ? { name: k, value: '', stored: true, placeholder: { value: STORED_PLACEHOLDER } } : { name: k, value: String(val) }));
        break;
      case 'variant': {
        const chosen = isObj(v) ? v[f.tag] : undefined;
        out[f.name] = chosen === undefined ? '' : String(chosen);
        // The chosen variant last: its values win where variants share a field.
        const order = [...f.variants].sort((a, b) => Number(a.value === chosen) - Number(b.value === chosen));
        for (const x of order) Object.assign(out, valuesFor(x.fields, x.value === chosen ? v : {}));
        break;
      }
      default: out[f.name] = f.secret || v === undefined || v === null ? '' : String(v);
    }
  }
  return out;
}

/** A number from a text field; text that is not a number goes as it is, so the API names the field. */
const num = (v) => {
  const t = String(v ?? '').trim();
  if (t === '') return undefined;
  return Number.isFinite(Number(t)) ? Number(t) : t;
};

/** One field's value as the API takes it (undefined: left out), before visibility and stored secrets. */
function rawValue(f, values) {
  const v = values[f.name];
  switch (f.kind) {
    case 'boolean': return v === undefined ? f.default ?? false : !!v;
    case 'number': return num(v);
    case 'select': return v === undefined || v === '' ? undefined : f.schema.enum.find((e) => String(e) === v) ?? v;
    case 'list': {
      // Empty: left out, so the API's default applies.
      const items = String(v ?? '').split(/[,\n]/).map((x) => x.trim()).filter(Boolean);
      return items.length ? items : undefined;
    }
    case 'map':
      return Object.fromEntries((v ?? []).filter((r) => r.name.trim()).map((r) => [r.name.trim(), r.stored && r.value === '' ? { set: true } : r.value]));
    case 'variant': return v === undefined || v === '' ? undefined : f.variants.find((x) => String(x.value) === v)?.value ?? v;
    case 'textarea': return v === undefined || v === '' ? undefined : v;
    default: {
      // Secrets as typed; other text without the spaces around it.
      const t = f.secret ? String(v ?? '') : String(v ?? '').trim();
      return t === '' && !(f.required && !f.secret) ? undefined : t;
    }
  }
}

/** The object of `fields` as typed, every field included (what visibility is decided on). */
export function rawObject(fields, values) {
  const out = {};
  for (const f of fields) {
    const v = rawValue(f, values);
    if (v !== undefined) out[f.key] = v;
  }
  return out;
}

function valueMatches(c, v) {
  if (!isObj(c)) return true;
  if ('const' in c && JSON.stringify(c.const) !== JSON.stringify(v)) return false;
  if (Array.isArray(c.enum) && !c.enum.some((e) => JSON.stringify(e) === JSON.stringify(v))) return false;
  if (isObj(c.not) && valueMatches(c.not, v)) return false;
  return true;
}

/** Whether a field shows beside the others' values (`obj`, as rawObject or stored): its x-visible-when. */
export function visible(field, obj) {
  const c = field.visibleWhen;
  if (!isObj(c)) return true;
  if ((c.required ?? []).some((k) => obj[k] === undefined || obj[k] === '')) return false;
  return Object.entries(c.properties ?? {}).every(([k, vc]) => obj[k] === undefined || valueMatches(vc, obj[k]));
}

/**
 * The object sent to the API: the fields that show, each as the API takes it. A secret left empty where
 * `stored` (the stored object, redacted by the API) holds one is sent as {set: true}, which keeps it;
 * inside a variant only while the stored value is of the same variant.
 */
export function valuesOf(schema, values, stored, prefix = '') {
  return objectFrom(fieldsOf(schema, prefix), values, isObj(stored) ? stored : {});
}

function objectFrom(fields, values, stored) {
  const raw = rawObject(fields, values);
  const out = {};
  for (const f of fields) {
    if (!visible(f, raw)) continue;
    let v = raw[f.key];
    if (f.kind === 'variant' && v !== undefined) {
      const chosen = f.variants.find((x) => x.value === v);
      const was = isObj(stored[f.key]) && stored[f.key][f.tag] === v ? stored[f.key] : {};
      v = { [f.tag]: v, ...objectFrom(chosen?.fields ?? [], values, was) };
    }
    if (f.secret && v === undefined && isMarker(stored[f.key])) v = { set: true };
    if (v !== undefined) out[f.key] = v;
  }
  return out;
}

/** Whether a secret field has a value stored behind it (its placeholder says so). */
export function storedSecret(field, stored, values) {
  if (!field.secret || !isObj(stored)) return false;
  if (!field.variant) return isMarker(stored[field.key]);
  const parent = stored[field.variant.key];
  return isObj(parent) && parent[field.variant.tag] === field.variant.value && values[field.variant.name] === String(field.variant.value)
    && isMarker(parent[field.key]);
}

/**
 * A stored object for people: [[title, text]] for each field that shows and has a value; secrets as
 * "Stored", a variant as its title followed by its own fields.
 */
export function describeValues(schema, data) {
  return describeFields(fieldsOf(schema), isObj(data) ? data : {});
}

function describeFields(fields, data) {
  const rows = [];
  for (const f of fields) {
    const v = data[f.key];
    if (v === undefined || v === null || v === '' || !visible(f, data)) continue;
    if (isMarker(v)) { rows.push([f.title, 'Stored']); continue; }
    switch (f.kind) {
      case 'boolean': rows.push([f.title, v ? 'Yes' : 'No']); break;
      case 'select': rows.push([f.title, f.schema['x-enum-titles']?.[v] ?? String(v)]); break;
      case 'list': if (Array.isArray(v) && v.length) rows.push([f.title, v.join(', ')]); break;
      case 'map': {
        const entries = Object.entries(isObj(v) ? v : {});
        if (entries.length) rows.push([f.title, entries.map(([k, val]) => `${k}: ${isMarker(val) ? 'stored' : val}`).join(' · ')]);
        break;
      }
      case 'variant': {
        const chosen = isObj(v) ? f.variants.find((x) => x.value === v[f.tag]) : undefined;
        if (!chosen) break;
        rows.push([f.title, chosen.title], ...describeFields(chosen.fields, v));
        break;
      }
      default: if (!f.secret) rows.push([f.title, String(v)]);
    }
  }
  return rows;
}
