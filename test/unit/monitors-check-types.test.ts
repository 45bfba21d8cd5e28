// Every check type describes itself completely, since the web UI knows nothing of it but what
// GET /api/monitors/check-types says (check-types/catalog.ts): a label, an icon, a hint, its target field,
// and settings whose every field has a title and uses only the form keywords of core/form-schema.ts,
// with conditions that name fields that exist, and secrets marked writeOnly.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FORM_KEYWORDS, schemasAt } from '../../src/core/form-schema.js';
import { checkTypeList } from '../../src/modules/monitors/check-types/catalog.js';
import { CHECK_TYPES, CHECKS } from '../../src/modules/monitors/checks/index.js';

type Json = Record<string, any>;

/** Problems with an object schema's fields, named by their dotted path. */
function fieldProblems(schema: Json, at = ''): string[] {
  const problems: string[] = [];
  const props: Record<string, Json> = schema.properties ?? {};
  for (const [key, s] of Object.entries(props)) {
    const path = at + key;
    if (s.const !== undefined) continue; // a variant's tag: its variant's title names it
    if (!s.title) problems.push(`${path}: no title (.meta({ title }))`);
    for (const k of Object.keys(s)) if (k.startsWith('x-') && !(FORM_KEYWORDS as readonly string[]).includes(k)) problems.push(`${path}: unknown keyword ${k}`);
    const when = s['x-visible-when'];
    if (when) {
      for (const name of [...(when.required ?? []), ...Object.keys(when.properties ?? {})]) {
        if (!(name in props) || name === key) problems.push(`${path}: x-visible-when names "${name}", not another field beside it`);
      }
      for (const [name, c] of Object.entries<Json>(when.properties ?? {})) {
        const allowed: unknown[] | undefined = props[name]?.enum ?? (props[name]?.type === 'boolean' ? [true, false] : undefined);
        const named = [c.const, ...(c.enum ?? []), c.not?.const, ...(c.not?.enum ?? [])].filter((x) => x !== undefined);
        for (const x of named) if (allowed && !allowed.includes(x)) problems.push(`${path}: x-visible-when compares ${name} with ${JSON.stringify(x)}, not one of its values`);
      }
    }
    for (const v of Object.keys(s['x-enum-titles'] ?? {})) if (!s.enum?.includes(v)) problems.push(`${path}: x-enum-titles names "${v}", not one of its values`);
    for (const [i, variant] of (s.oneOf ?? s.anyOf ?? []).entries()) {
      if (!variant.title) problems.push(`${path}: variant ${i} has no title`);
      problems.push(...fieldProblems(variant, `${path}.`));
    }
    if (s.type === 'object' && s.additionalProperties && typeof s.additionalProperties === 'object') {
      if (!s.propertyNames?.title || !s.additionalProperties.title) problems.push(`${path}: a map needs titles for its names and values`);
    }
  }
  return problems;
}

test('the check types are the registry\'s, and the API lists each of them', () => {
  assert.deepEqual(CHECK_TYPES, Object.keys(CHECKS));
  assert.deepEqual(checkTypeList().map((t) => t.type), CHECK_TYPES);
});

test('every check type has a label, an icon, a hint and a described target field', () => {
  for (const t of CHECK_TYPES) {
    const d = CHECKS[t];
    for (const [what, v] of Object.entries({ label: d.label, icon: d.icon, hint: d.hint, ...Object.fromEntries(
      Object.entries(d.target ?? {}).map(([k, x]) => [`target.${k}`, x])) })) {
      assert.ok(typeof v === 'string' && v.trim() !== '', `${t}: ${what} is missing (checks/${t}.ts, check)`);
    }
    assert.deepEqual(Object.keys(d.target).sort(), ['description', 'placeholder', 'title'], `${t}: target`);
  }
});

test('every setting of every check type has a title, known keywords and conditions on fields that exist', () => {
  for (const d of checkTypeList()) {
    assert.equal(d.settings.type, 'object', `${d.type}: settings are an object schema`);
    assert.equal(d.settings.additionalProperties, false, `${d.type}: settings refuse unknown fields`);
    assert.deepEqual(fieldProblems(d.settings), [], `${d.type} (checks/${d.type}.ts settings)`);
  }
});

test('secrets are writeOnly in the description, and the defaults are the settings\' own', () => {
  for (const d of checkTypeList()) {
    const def = CHECKS[d.type];
    for (const path of def.secretPaths ?? []) {
      const at = schemasAt(d.settings, path);
      assert.ok(at.length > 0, `${d.type}: secret path ${path} is no field of its settings`);
      for (const s of at) assert.equal(s.writeOnly, true, `${d.type}: ${path} is not writeOnly`);
    }
    assert.deepEqual(d.defaults, def.settings.parse({}));
    for (const [k, v] of Object.entries(d.defaults)) assert.deepEqual((d.settings.properties as Json)[k].default, v, `${d.type}: ${k} default`);
    assert.deepEqual(d.monitor_fields, def.degradeReads ?? []);
    assert.deepEqual(d.measurements, (def.measurements ?? []).map(({ unitSetting, ...m }) => ({ ...m, ...(unitSetting ? { unit_setting: unitSetting } : {}) })));
    // A unit the monitor chooses comes from a text setting of the type's own.
    for (const m of def.measurements ?? []) {
      if (m.unitSetting) assert.equal((d.settings.properties as Json)[m.unitSetting]?.type, 'string', `${d.type}: ${m.name}.unitSetting`);
    }
  }
});

test('the contract itself: a field without a title, an unknown keyword or a condition on nothing is named', () => {
  const bad = { type: 'object', properties: {
    a: { type: 'string', 'x-sektion': 'A', title: 'A' },
    b: { type: 'string', 'x-visible-when': { required: ['nope'] } },
    c: { type: 'boolean', title: 'C' },
    d: { type: 'string', title: 'D', 'x-visible-when': { properties: { c: { const: 'yes' } } } },
  } };
  assert.deepEqual(fieldProblems(bad), [
    'a: unknown keyword x-sektion', 'b: no title (.meta({ title }))', 'b: x-visible-when names "nope", not another field beside it',
    'd: x-visible-when compares c with "yes", not one of its values',
  ]);
});
