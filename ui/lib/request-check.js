// A form's fields checked in the browser, as they are left, against the JSON Schema the server gives for
// the form's request (GET /api/request-schema): a latitude of 91 reads "At most 90" before anything is
// sent. Only what JSON Schema states is checked (types, lengths, ranges, patterns, choices); the rest (an
// IP address, a time zone, fields that go together, a required field) is the server's, whose one 400
// names every field at once. Where the schema leaves a doubt (a text the server trims; a choice between
// object shapes) the value passes: a check here only ever refuses what the server refuses too (the unit
// test test/unit/ui-request-check.test.ts holds it to that). Loaded when a form's field is first left.

/** Schemas by method and path; a failed lookup is remembered as null (then nothing is checked here). */
const schemas = new Map();

/** The JSON Schema of the body of `method path`, or null when the server gives none. */
export function schemaOf(method, path) {
  const key = `${method} ${path}`;
  let p = schemas.get(key);
  if (!p) {
    const q = new URLSearchParams({ method, path });
    p = fetch(`/api/request-schema?${q}`, { credentials: 'same-origin', headers: { Accept: 'application/json' } })
      .then((r) => (r.ok ? r.json() : null)).then((r) => r?.schema ?? null, () => null);
    schemas.set(key, p);
  }
  return p;
}

const isObj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const kindOf = (v) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

/** Whether a value is of a JSON Schema type. */
function isType(v, type) {
  switch (type) {
    case 'integer': return typeof v === 'number' && Number.isInteger(v);
    case 'number': return typeof v === 'number' && Number.isFinite(v);
    case 'array': return Array.isArray(v);
    case 'object': return isObj(v);
    case 'null': return v === null;
    default: return typeof v === type;
  }
}

/** A pattern as the server's regular expression, or null when this browser cannot compile it. */
function regex(source) {
  try { return new RegExp(source, 'u'); } catch {
    try { return new RegExp(source); } catch { return null; }
  }
}

// The messages are the server's (zod's) wording, so that lib/form.js puts them in people's words alike.
/** Field errors of `v` against schema `s` at `path`, appended to `out`. */
function check(s, v, path, out) {
  if (!isObj(s) || out.length >= 50) return;
  const variants = s.anyOf ?? s.oneOf;
  if (Array.isArray(variants)) {
    const tries = variants.map((x) => { const e = []; check(x, v, path, e); return e; });
    if (tries.some((e) => !e.length)) return;
    // Only "this or null" is said: which of several shapes was meant is the server's to tell.
    const real = variants.map((x, i) => [x, tries[i]]).filter(([x]) => x?.type !== 'null');
    if (real.length === 1) out.push(...real[0][1]);
    return;
  }
  if (Array.isArray(s.allOf)) for (const x of s.allOf) check(x, v, path, out);
  const types = Array.isArray(s.type) ? s.type : s.type ? [s.type] : null;
  if (types && !types.some((t) => isType(v, t))) {
    out.push({ path, message: `Invalid input: expected ${types[0] === 'integer' && typeof v === 'number' ? 'int' : types[0]}, received ${kindOf(v)}` });
    return;
  }
  if ('const' in s && JSON.stringify(s.const) !== JSON.stringify(v)) out.push({ path, message: `Invalid input: expected ${JSON.stringify(s.const)}` });
  if (Array.isArray(s.enum) && !s.enum.some((e) => JSON.stringify(e) === JSON.stringify(v))) {
    out.push({ path, message: `Invalid option: expected one of ${s.enum.map((e) => JSON.stringify(e)).join('|')}` });
    return;
  }
  if (typeof v === 'string') {
    // A server that trims counts the trimmed text: the longer count is refused only when the shorter is too.
    const n = [...v].length, trimmed = [...v.trim()].length;
    if (typeof s.minLength === 'number' && n < s.minLength) out.push({ path, message: `Too small: expected string to have >=${s.minLength} characters` });
    else if (typeof s.maxLength === 'number' && trimmed > s.maxLength) out.push({ path, message: `Too big: expected string to have <=${s.maxLength} characters` });
    else if (typeof s.pattern === 'string') {
      const re = regex(s.pattern);
      if (re && !re.test(v) && !re.test(v.trim())) {
        out.push({ path, message: s.format === 'email' ? 'Invalid email address' : `Invalid string: must match pattern ${s.pattern}` });
      }
    }
  } else if (typeof v === 'number') {
    if (typeof s.minimum === 'number' && v < s.minimum) out.push({ path, message: `Too small: expected number to be >=${s.minimum}` });
    if (typeof s.exclusiveMinimum === 'number' && v <= s.exclusiveMinimum) out.push({ path, message: `Too small: expected number to be >${s.exclusiveMinimum}` });
    if (typeof s.maximum === 'number' && v > s.maximum) out.push({ path, message: `Too big: expected number to be <=${s.maximum}` });
    if (typeof s.exclusiveMaximum === 'number' && v >= s.exclusiveMaximum) out.push({ path, message: `Too big: expected number to be <${s.exclusiveMaximum}` });
  } else if (Array.isArray(v)) {
    if (typeof s.minItems === 'number' && v.length < s.minItems) out.push({ path, message: `Too small: expected array to have >=${s.minItems} items` });
    if (typeof s.maxItems === 'number' && v.length > s.maxItems) out.push({ path, message: `Too big: expected array to have <=${s.maxItems} items` });
    if (isObj(s.items)) v.forEach((x, i) => check(s.items, x, join(path, i), out));
  } else if (isObj(v)) {
    const props = isObj(s.properties) ? s.properties : {};
    for (const k of Array.isArray(s.required) ? s.required : []) {
      if (v[k] === undefined) out.push({ path: join(path, k), message: 'Required' });
    }
    for (const [k, x] of Object.entries(v)) {
      if (x === undefined) continue;
      if (k in props) check(props[k], x, join(path, k), out);
      else if (s.additionalProperties === false) out.push({ path: join(path, k), message: 'Unknown field' });
      else if (isObj(s.additionalProperties)) check(s.additionalProperties, x, join(path, k), out);
    }
  }
}

const join = (path, key) => (path ? `${path}.${key}` : String(key));

/** The field errors of a value against a JSON Schema ({path, message}, paths as the API's below `path`). */
export function schemaErrors(schema, value, path = '') {
  const out = [];
  check(schema, JSON.parse(JSON.stringify(value ?? null)), path, out);
  return out;
}

/** The schema of the field at a dotted path of an object schema (through "or null"), or null. */
export function fieldSchema(schema, name) {
  let s = schema;
  for (const key of String(name).split('.')) {
    const variants = (s?.anyOf ?? s?.oneOf ?? [s]).filter((x) => x?.type !== 'null');
    s = variants.length === 1 ? (/^\d+$/.test(key) ? variants[0]?.items : variants[0]?.properties?.[key]) : undefined;
    if (!isObj(s)) return null;
  }
  return s;
}
