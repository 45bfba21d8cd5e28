// Form values of an inventory record and the request body built back from them, driven by the
// field definitions in types.js. A new record sends what is filled in; an update sends only what
// changed, with null for a cleared optional field (the API's way to clear). Secrets are never in the
// form's initial values: empty means "keep", and a "remove" switch sends null.

const REMOVE = 'remove:';
export const removeKey = (name) => REMOVE + name;

const str = (v) => (v === undefined || v === null ? '' : String(v));
/** A list field's entries: one per line (commas split too), blanks left out. */
export const splitList = (s) => s.split(/[\n,]+/).map((x) => x.trim()).filter(Boolean);
/** A number from a text field; text that is not a number goes as is, so the API names the field. */
const num = (s) => (s.trim() === '' ? null : Number.isFinite(Number(s)) ? Number(s) : s.trim());

/** Form values for a record of this type (null: a new one, with `defaults`). */
export function toForm(def, rec, defaults = {}) {
  const v = {};
  for (const f of def.fields) {
    const x = rec?.[f.name] ?? defaults[f.name];
    switch (f.kind) {
      case 'list': v[f.name] = (x ?? []).join('\n'); break;
      case 'tags': case 'refs': v[f.name] = x ?? []; break;
      case 'dhcp': v[f.name] = (x ?? []).map((r) => ({ start: r.start, end: r.end })); break;
      case 'custom': v[f.name] = Object.entries(x ?? {}).map(([key, value]) => ({ key, value: str(value), orig: value })); break;
      case 'secret': v[f.name] = ''; v[removeKey(f.name)] = false; break;
      case 'select': v[f.name] = x ?? (f.required ? f.options[0].value : ''); break;
      default: v[f.name] = str(x);
    }
  }
  return v;
}

/** The API value of one field (null for empty). */
function apiValue(f, v) {
  const x = v[f.name];
  switch (f.kind) {
    case 'number': return num(x);
    case 'list': return splitList(x);
    case 'tags': case 'refs': return x;
    case 'dhcp': return x.filter((r) => r.start.trim() || r.end.trim()).map((r) => ({ start: r.start.trim(), end: r.end.trim() }));
    case 'custom': {
      const out = {};
      // An untouched value keeps its type (a number stays a number); edited ones are text.
      for (const r of x) if (r.key.trim()) out[r.key.trim()] = r.orig !== undefined && r.value === str(r.orig) ? r.orig : r.value;
      return out;
    }
    case 'textarea': return x.trim() === '' ? null : f.name === 'notes' ? x : x.trim();
    default: return x.trim() === '' ? null : x.trim();
  }
}

const empty = (x) => x === null || (Array.isArray(x) && !x.length) || (typeof x === 'object' && x !== null && !Array.isArray(x) && !Object.keys(x).length);
const canon = (x) => JSON.stringify(x ?? null);

/** Fields that apply with these values (a credential's kind decides which of its fields do). */
export const visibleFields = (def, v) => def.fields.filter((f) => !f.when || f.when(v));

/** The request body for a new record (rec null) or an update of `rec`. */
export function toBody(def, v, rec) {
  const body = {};
  const before = rec ? toForm(def, rec) : null;
  for (const f of visibleFields(def, v)) {
    if (f.kind === 'secret') {
      if (v[f.name] !== '') body[f.name] = v[f.name];
      else if (rec && v[removeKey(f.name)]) body[f.name] = null;
      continue;
    }
    const val = apiValue(f, v);
    if (!rec) {
      if (!empty(val)) body[f.name] = val;
    } else if (canon(val) !== canon(apiValue(f, before))) {
      // A cleared list or custom-field set is sent empty; a cleared single value as null.
      body[f.name] = val;
    }
  }
  return body;
}
