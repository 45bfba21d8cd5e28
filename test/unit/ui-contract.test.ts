// The UI and the server agree by test. The web UI (plain ES modules under ui/, no build step) keeps
// its own copies of the server's vocabularies: monitor statuses, event kinds and check types, the monitor
// form's choices and defaults, the inventory's types, fields, references, filters and enums, SNMP
// versions and v3 protocols, user roles and API-key scopes (webhook providers are not copied: the form
// renders from GET /api/webhooks/providers, and this test checks the page names none). They
// live in modules without browser imports (ui/lib/vocabulary.js, ui/pages/inventory/types.js,
// ui/pages/monitors/model.js), which this test loads beside the server's definitions:
// it fails when the server has a value the UI lacks, when the UI has one the server does not, and when
// the UI labels a key the server does not know.
//
// The server's side comes from the definitions modules share (contracts, schemas, check definitions,
// providers, scopes) and, for what is declared only in a route's schema or set up when the service
// starts (the inventory's credentials type), from a service started here without listening: its item
// service and its route registry, the one source of the API's validation and OpenAPI document.
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { z } from 'zod';
import { AREAS, ROLES, SCOPES } from '../../src/core/auth/scopes.js';
import { BRAIN_TYPES, CREDENTIAL_SECRET_FIELDS, SHORT_ID_PREFIX } from '../../src/modules/brain/contracts.js';
import { brainServicesOf } from '../../src/modules/brain/index.js';
import { FORM_KEYWORDS } from '../../src/core/form-schema.js';
import { checkTypeList, type CheckTypeDescription } from '../../src/modules/monitors/check-types/catalog.js';
import { CHECK_TYPES, CHECKS } from '../../src/modules/monitors/checks/index.js';
import { DAY_NAMES } from '../../src/modules/monitors/maintenance/schedule.js';
import { BEAT_LETTERS, EVENT_KINDS, LIMITS as MONITOR_LIMITS, MONITOR_STATUSES, ResultSchema, ResultsQuery } from '../../src/modules/monitors/schemas.js';
import { SNMP_VERSIONS, V3_AUTH_PROTOCOLS, V3_LEVELS, V3_PRIV_PROTOCOLS } from '../../src/modules/snmp/contracts.js';
import { BusiestQuery, HISTORY_RANGES, PolledDeviceDetail, POLL_INTERVALS, POLL_STATUSES } from '../../src/modules/snmp/polling/schemas.js';
import { EDGE_SOURCES, NODE_KINDS, SCAN_STATES } from '../../src/modules/v1sion/schemas.js';
import { SNMP_VERSION_NAMES } from '../../src/modules/v1sion/scan/request.js';
import { DEVICE_KINDS, LIVENESS_SOURCES } from '../../src/modules/v1sion/scan/result.js';
import { alertType } from '../../src/modules/webhooks/alert-types.js';
import { DEFAULT_ALERT_TYPES } from '../../src/modules/webhooks/schemas.js';
import { providerList } from '../../src/modules/webhooks/options.js';
import { WEBHOOK_TYPES } from '../../src/modules/webhooks/providers/index.js';
import { startService, type Service } from '../../src/main.js';
// @ts-expect-error plain browser JavaScript without type declarations
import * as ui from '../../ui/lib/vocabulary.js';
// @ts-expect-error plain browser JavaScript without type declarations
import { SHOWN_STATUSES } from '../../ui/pages/monitors/glance.js';
// @ts-expect-error plain browser JavaScript without type declarations
import { LINK_TARGETS, TYPES } from '../../ui/pages/inventory/types.js';
// @ts-expect-error plain browser JavaScript without type declarations
import * as form from '../../ui/pages/monitors/model.js';
// @ts-expect-error plain browser JavaScript without type declarations
import * as schemaForm from '../../ui/lib/schema-form.js';
// @ts-expect-error plain browser JavaScript without type declarations
import * as polling from '../../ui/pages/snmp/polling-model.js';

// ---- comparing ------------------------------------------------------------------------------------------

const VOCAB = 'ui/lib/vocabulary.js';
const list = (xs: unknown[]) => xs.map((x) => JSON.stringify(x)).join(', ');

/**
 * The UI's values are exactly the server's (order aside, no duplicates). `what` names both sides, so
 * a failure says which file to change: "monitor statuses (ui/lib/vocabulary.js MONITOR_STATUSES, server
 * src/modules/monitors/schemas.ts MONITOR_STATUSES)".
 */
function sameValues(what: string, server: Iterable<unknown>, uiValues: Iterable<unknown>): void {
  const s = [...server], u = [...uiValues];
  const missing = s.filter((x) => !u.includes(x));
  const extra = u.filter((x) => !s.includes(x));
  const twice = u.filter((x, i) => u.indexOf(x) !== i);
  const problems = [
    missing.length ? `the server has ${list(missing)}, the UI lacks ${missing.length === 1 ? 'it' : 'them'}` : '',
    extra.length ? `the UI has ${list(extra)}, the server does not` : '',
    twice.length ? `the UI lists ${list(twice)} twice` : '',
  ].filter(Boolean);
  assert.ok(!problems.length, `${what}: ${problems.join('; ')}`);
}

/** Every key of a UI label (or tone) map is a server value; `complete`: and every server value has one. */
function labelsFor(what: string, server: Iterable<unknown>, labels: Record<string, unknown>, complete = true): void {
  const s = [...server];
  const unknown = Object.keys(labels).filter((k) => !s.includes(k));
  const unlabelled = complete ? s.filter((x) => typeof x === 'string' && !(x in labels)) : [];
  const problems = [
    unknown.length ? `the UI labels ${list(unknown)}, which the server does not have` : '',
    unlabelled.length ? `the server has ${list(unlabelled)}, which the UI does not label` : '',
  ].filter(Boolean);
  assert.ok(!problems.length, `${what}: ${problems.join('; ')}`);
}

const values = (options: { value: string }[]) => options.map((o) => o.value);

/** The values of a zod enum, through optional, nullable, default and pipe wrappers. */
function enumOf(schema: unknown): string[] {
  let s = schema as z.ZodType;
  for (let i = 0; i < 10; i++) {
    if (s instanceof z.ZodEnum) return s.options.map(String);
    if (s instanceof z.ZodOptional || s instanceof z.ZodNullable || s instanceof z.ZodDefault) s = s.unwrap() as z.ZodType;
    else if (s instanceof z.ZodPipe) s = s.in as z.ZodType;
    else break;
  }
  throw new Error(`not an enum: ${s.constructor.name}`);
}

const shapeOf = (schema: unknown): Record<string, z.ZodType> => {
  assert.ok(schema instanceof z.ZodObject, 'expected an object schema');
  return schema.shape as Record<string, z.ZodType>;
};

// ---- the running service: its inventory types and its routes ------------------------------------------

type TypeDef = ReturnType<ReturnType<typeof brainServicesOf>['items']['def']>;

let service: Service;
let dataDir: string;
/** The server's seven inventory types, as its item service holds them. */
let SERVER_TYPES: Record<string, TypeDef>;

before(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'netprobe-ui-contract-'));
  service = await startService({ env: { NETPROBE_DATA_DIR: dataDir }, logWrite: () => {} });
  const { items } = brainServicesOf(service.app);
  SERVER_TYPES = Object.fromEntries(items.types().map((t) => [t, items.def(t)]));
});

after(async () => {
  await service?.shutdown('test done');
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/**
 * The JSON Schema at `at` ("[]" steps into an array) of a registered route's body, query or response
 * (as in the OpenAPI document).
 */
function routeSchema(method: string, path: string, part: 'body' | 'query' | 'response', at: string[]): any {
  const r = service.app.routes.all().find((x) => x.method === method && x.path === path);
  assert.ok(r?.[part], `${method} ${path}: no such route with a ${part} schema`);
  let js = z.toJSONSchema(r[part] as z.ZodType, { io: part === 'response' ? 'output' : 'input', unrepresentable: 'any' }) as any;
  for (const step of at) {
    js = step === '[]' ? js?.items : js?.properties?.[step];
    assert.ok(js, `${method} ${path}: no ${at.join('.')} in its ${part} schema`);
  }
  return js;
}

/** The values of the enum at `at` of a route's body, query or response. */
function routeEnum(method: string, path: string, part: 'body' | 'query' | 'response', at: string[]): string[] {
  const js = routeSchema(method, path, part, at);
  assert.ok(Array.isArray(js.enum), `${method} ${path}: ${part} ${at.join('.')} is not an enum`);
  return js.enum;
}

// ---- monitors ---------------------------------------------------------------------------------------

test('monitor statuses: the values, their labels and sentences, and the status bars', () => {
  const server = MONITOR_STATUSES;
  sameValues(`monitor statuses (${VOCAB} MONITOR_STATUSES, server monitors/schemas.ts MONITOR_STATUSES)`, server, ui.MONITOR_STATUSES);
  labelsFor(`monitor status labels (${VOCAB} STATUS_LABELS)`, server, ui.STATUS_LABELS);
  labelsFor(`monitor status sentences (${VOCAB} STATUS_TEXT)`, server, ui.STATUS_TEXT);
});

test('check result statuses: the results filter', () => {
  sameValues(`result statuses (${VOCAB} RESULT_STATUSES, server monitors/schemas.ts ResultsQuery.status)`,
    enumOf(ResultsQuery.shape.status), ui.RESULT_STATUSES);
  sameValues(`result statuses (${VOCAB} RESULT_STATUSES, server monitors/schemas.ts ResultSchema.status)`,
    enumOf(ResultSchema.shape.status), ui.RESULT_STATUSES);
});

test('monitor event kinds: the kind filter, labels, colour marks and the kinds that carry a status', () => {
  sameValues(`event kinds (${VOCAB} EVENT_KINDS, server monitors/schemas.ts EVENT_KINDS)`, EVENT_KINDS, ui.EVENT_KINDS);
  labelsFor(`event kind labels (${VOCAB} EVENT_KIND_LABELS)`, EVENT_KINDS, ui.EVENT_KIND_LABELS);
  labelsFor(`event colour marks (${VOCAB} EVENT_MARK)`, EVENT_KINDS, ui.EVENT_MARK, false);
  // A mark is a status as the pages show them: the API's five, failing and maintenance (glance.js).
  const notStatuses = Object.entries(ui.EVENT_MARK).filter(([, s]) => !(SHOWN_STATUSES as readonly unknown[]).includes(s));
  assert.deepEqual(notStatuses, [], `event colour marks (${VOCAB} EVENT_MARK) that are not shown statuses`);
  for (const s of MONITOR_STATUSES) assert.ok(SHOWN_STATUSES.includes(s), `glance.js SHOWN_STATUSES lacks ${s}`);
});

// The check types are not copied: the monitor pages draw them from GET /api/monitors/check-types
// (model.js, check-types.js, lib/schema-form.js). These tests run the UI's form model on the server's
// descriptions, and fail when a UI file names a check type or one of its settings.

/** The check types as the browser gets them. */
const DESCRIBED: CheckTypeDescription[] = JSON.parse(JSON.stringify(checkTypeList()));
const describedType = (t: string) => DESCRIBED.find((d) => d.type === t)!;

/** Every .js file under ui/, with its path from the repository root. */
async function uiFiles(): Promise<{ path: string; text: string }[]> {
  const root = new URL('../../', import.meta.url);
  const names = (await readdir(new URL('ui/', root), { recursive: true })).filter((n) => n.endsWith('.js'));
  return Promise.all(names.map(async (n) => ({ path: `ui/${n}`, text: await readFile(new URL(`ui/${n}`, root), 'utf8') })));
}

/** Every settings key of a check type, nested ones (auth.username) by their own name, and the variants' tags' values. */
function settingsWords(schema: any): string[] {
  const words: string[] = [];
  for (const [k, s] of Object.entries<any>(schema?.properties ?? {})) {
    words.push(k);
    if (s.const !== undefined) words.push(String(s.const));
    for (const v of s.oneOf ?? s.anyOf ?? []) words.push(...settingsWords(v));
  }
  return words;
}

// Words that are check settings and also the UI's ordinary vocabulary (a login's username, an SSH target's
// port, a fetch's headers and body, JSON Schema's type, an input of type password, the SNMP pages' value,
// unit, oid, credential and comparison, a known device's "expected" presence): for these only
// `settings.<word>` counts, and in the monitor pages a string of the word too.
const ALSO_ELSEWHERE = new Set(['method', 'headers', 'body', 'auth', 'type', 'username', 'password', 'token', 'count', 'tls', 'port', 'match',
  'value', 'unit', 'oid', 'credential_id', 'compare', 'expected']);
// Check types whose name is also another part of the UI's (the SNMP pages, their route and icon): named
// as a check type only where the monitor pages would name one.
const TYPES_ALSO_ELSEWHERE = new Set(['snmp']);
// The one place outside the monitor pages that names a check type: an endpoint's "New monitor" offers a
// ping of its address (the form falls back to the first type should ping ever go).
const NAMES_A_TYPE = { path: 'ui/pages/inventory/endpoint-extras.js', type: 'ping' };

test('maintenance windows: states, schedule kinds, days, what a window applies to; the beat letters', () => {
  const path = '/api/monitors/maintenance';
  labelsFor(`window states (${VOCAB} MAINTENANCE_STATES, server maintenance/schemas.ts WindowSchema.state)`,
    routeEnum('GET', path, 'response', ['items', '[]', 'state']), ui.MAINTENANCE_STATES);
  sameValues(`what a window applies to (${VOCAB} MAINTENANCE_APPLIES, server POST ${path} applies_to)`,
    routeEnum('POST', path, 'body', ['applies_to']), values(ui.MAINTENANCE_APPLIES));
  const schedule = routeSchema('POST', path, 'body', ['schedule']);
  const kinds = (schedule.oneOf ?? schedule.anyOf) as any[];
  sameValues(`schedule kinds (${VOCAB} MAINTENANCE_KINDS, server maintenance/schemas.ts ScheduleSchema)`,
    kinds.map((k) => k.properties.kind.const ?? k.properties.kind.enum?.[0]), values(ui.MAINTENANCE_KINDS));
  sameValues(`week days (${VOCAB} WEEK_DAYS, server maintenance/schedule.ts DAY_NAMES)`, DAY_NAMES, values(ui.WEEK_DAYS));
  sameValues('beat letters (ui/pages/monitors/model.js BEAT_KINDS, server monitors/schemas.ts BEAT_LETTERS)', BEAT_LETTERS, values(form.BEAT_KINDS));
});

test('check types: the UI keeps no copy of them, its monitor pages render from GET /api/monitors/check-types', async () => {
  for (const name of ['CHECK_TYPES', 'HTTP_METHODS', 'DNS_RECORD_TYPES', 'HTTP_AUTH_TYPES', 'KEYWORD_MODES', 'DNS_MATCHES']) {
    assert.equal(form[name], undefined, `ui/pages/monitors/model.js exports ${name}: check types and their settings come from the API`);
  }
  const files = await uiFiles();
  assert.match(files.find((f) => f.path === 'ui/pages/monitors/check-types.js')!.text, /\/api\/monitors\/check-types/,
    'ui/pages/monitors/check-types.js reads the check types from the API');
  const problems: string[] = [];
  for (const { path, text } of files) {
    const code = text.replace(/^\s*(\/\/|\*|\/\*\*).*$/gm, ''); // comments may name them
    for (const t of CHECK_TYPES) {
      if (TYPES_ALSO_ELSEWHERE.has(t) && !path.startsWith('ui/pages/monitors/')) continue;
      if (new RegExp(`['"\`]${t}['"\`]`).test(code) && !(path === NAMES_A_TYPE.path && t === NAMES_A_TYPE.type)) {
        problems.push(`${path} names the check type "${t}"`);
      }
    }
    for (const t of CHECK_TYPES) {
      for (const w of new Set(settingsWords(describedType(t).settings))) {
        // `${S}<word>` is the schema form's field key (lib/schema-form.js): a setting only in the monitor pages (other
        // forms, a scan profile's, use the same prefix for their own fields).
        const asSetting = path.startsWith('ui/pages/monitors/') ? `settings\\??\\.${w}\\b|\\$\\{S\\}${w}\\b` : `settings\\??\\.${w}\\b`;
        const named = !ALSO_ELSEWHERE.has(w) ? new RegExp(`['"\`.]${w}\\b(?![-(])|\\b${w}\\s*:|${asSetting}`)
          : path.startsWith('ui/pages/monitors/') ? new RegExp(`['"\`]${w}['"\`]|${asSetting}`) : new RegExp(asSetting);
        if (named.test(code)) problems.push(`${path} names "${w}" of the ${t} check's settings`);
      }
    }
  }
  assert.deepEqual(problems, [], 'the UI names what GET /api/monitors/check-types describes');
});

test('check types: each icon is one of the UI\'s icons', async () => {
  const icons = await readFile(new URL('../../ui/components/icons.js', import.meta.url), 'utf8');
  const names = [...icons.matchAll(/^ {2}([a-z-]+): \(\) =>/gm)].map((m) => m[1]);
  for (const d of DESCRIBED) assert.ok(names.includes(d.icon), `${d.type}: icon "${d.icon}" is not in ui/components/icons.js`);
});

test('every field the API describes for a form is one the UI can draw, with only the keywords it reads', () => {
  sameValues('form keywords (ui/lib/schema-form.js FORM_KEYWORDS, server core/form-schema.ts FORM_KEYWORDS)', FORM_KEYWORDS, schemaForm.FORM_KEYWORDS);
  const problems: string[] = [];
  const walk = (what: string, fields: any[]) => {
    for (const f of fields) {
      if (!f.kind) problems.push(`${what}: ${f.name} (${JSON.stringify(f.schema).slice(0, 80)}) is no kind the form draws`);
      for (const k of Object.keys(f.schema)) if (k.startsWith('x-') && !FORM_KEYWORDS.includes(k as never)) problems.push(`${what}: ${f.name} has ${k}`);
      for (const v of f.variants ?? []) walk(what, v.fields);
    }
  };
  for (const d of DESCRIBED) walk(`check type ${d.type}`, schemaForm.fieldsOf(d.settings, 'settings.'));
  for (const p of providerList()) walk(`webhook provider ${p.type}`, schemaForm.fieldsOf(JSON.parse(JSON.stringify(p.options)), 'options.'));
  assert.deepEqual(problems, []);
});

/** The form of a new monitor of one type, as the page starts it. */
const blankForm = (type: string) => ({ ...form.toForm(null, DESCRIBED, type), name: 'x', target: 'x' });
const json = (v: unknown) => JSON.parse(JSON.stringify(v));

test('a blank monitor form sends the server\'s defaults, and the server takes them', () => {
  for (const type of CHECK_TYPES) {
    const schema = CHECKS[type].settings;
    const sent = json(form.settingsOf(blankForm(type), DESCRIBED, null));
    const parsed = schema.safeParse(sent);
    assert.ok(parsed.success, `${type}: the server refuses the settings of a blank form ${JSON.stringify(sent)}: ${parsed.error?.message}`);
    assert.deepEqual(parsed.data, schema.parse({}), `${type}: the form's defaults differ from the server's`);
  }
  const body = form.toBody(blankForm('http'), null, DESCRIBED);
  assert.equal(body.interval, MONITOR_LIMITS.interval.default, 'interval: the form\'s default differs from the server\'s');
  assert.equal(body.failure_threshold, MONITOR_LIMITS.failure_threshold.default, 'failure_threshold: the form\'s default differs from the server\'s');
});

/**
 * A form of check type `type` with every field filled in: text with its example (or "x"), a choice and a
 * variant with their first value, a map with one entry; then each field's x-visible-when made true by
 * setting what it asks of the others. Nothing in it is particular to a check type.
 */
function filledForm(type: string): Record<string, any> {
  const v: Record<string, any> = blankForm(type);
  const fields = schemaForm.fieldsOf(describedType(type).settings, 'settings.');
  const example = (s: any) => String(s?.examples?.[0] ?? 'x');
  const fill = (fs: any[]) => {
    for (const f of fs) {
      if (['text', 'textarea', 'list'].includes(f.kind) && v[f.name] === '') v[f.name] = example(f.schema);
      if (f.kind === 'select' && v[f.name] === '') v[f.name] = String(f.schema.enum[0]);
      if (f.kind === 'map' && !v[f.name].length) v[f.name] = [{ name: example(f.schema.propertyNames), value: example(f.schema.additionalProperties) }];
      if (f.kind === 'variant') {
        if (v[f.name] === '') v[f.name] = String(f.variants[0].value);
        fill(f.variants.find((x: any) => String(x.value) === v[f.name]).fields);
      }
    }
  };
  fill(fields);
  for (const f of fields) {
    for (const [k, c] of Object.entries<any>(f.visibleWhen?.properties ?? {})) {
      const other = fields.find((o: any) => o.key === k);
      const value = 'const' in c ? c.const : c.enum ? c.enum[0] : other.schema.enum.find((e: unknown) => !c.not.enum.includes(e));
      v[other.name] = other.kind === 'boolean' ? value : String(value);
    }
  }
  return v;
}

test('the monitor form has a field for every setting of every check type', () => {
  for (const type of CHECK_TYPES) {
    const sent = json(form.settingsOf(filledForm(type), DESCRIBED, null));
    sameValues(`${type} settings the form sends (described by server checks/${type}.ts settings)`,
      Object.keys(shapeOf(CHECKS[type].settings)), Object.keys(sent));
    const parsed = CHECKS[type].settings.safeParse(sent);
    assert.ok(parsed.success, `${type}: the server refuses the settings of a filled-in form ${JSON.stringify(sent)}: ${parsed.error?.message}`);
  }
});

test('editing a monitor with stored secrets sends nothing unchanged, and keeps the secrets when the settings change', () => {
  const stored = { id: 'm1', name: 'x', target: 'https://a.example/', check_type: 'http', interval: 60, timeout: 10, failure_threshold: 3,
    degraded_ms: null, max_loss_pct: null, tags: [], parents: [],
    settings: { ...CHECKS.http.settings.parse({}), headers: { 'X-API-Key': { set: true }, 'X-Plain': 'a' },
      auth: { type: 'basic', username: 'probe', password: { set: true } } } };
  const v = form.toForm(stored, DESCRIBED);
  assert.equal(v['settings.auth.password'], '', 'a stored secret is never a form value');
  assert.deepEqual(form.toBody(v, stored, DESCRIBED), {}, 'an untouched form sends nothing');
  const changed = form.toBody({ ...v, 'settings.keyword': 'ok' }, stored, DESCRIBED);
  assert.deepEqual(changed.settings.auth, { type: 'basic', username: 'probe', password: { set: true } });
  assert.deepEqual(changed.settings.headers, { 'X-API-Key': { set: true }, 'X-Plain': 'a' });
  // Another authentication type: the stored password does not follow.
  const bearer = form.toBody({ ...v, 'settings.auth': 'bearer', 'settings.auth.token': '' }, stored, DESCRIBED);
  assert.deepEqual(bearer.settings.auth, { type: 'bearer' });
  // A hidden field is not sent: a ping monitor of the same form sends no max_loss_pct once it is another type.
  const ping = { ...stored, check_type: 'ping', target: '192.0.2.1', settings: CHECKS.ping.settings.parse({}), max_loss_pct: 20 };
  const toTcp = form.toBody({ ...form.toForm(ping, DESCRIBED), ...form.toForm(null, DESCRIBED, 'tcp'), name: 'x', target: '192.0.2.1:22' }, ping, DESCRIBED);
  assert.equal(toTcp.max_loss_pct, undefined);
  assert.deepEqual(toTcp.settings, { tls: false });
});

// ---- inventory -----------------------------------------------------------------------------------------

interface UiField { name: string; kind: string; ref?: string; options?: { value: string }[]; when?: (v: Record<string, unknown>) => boolean }
interface UiType { type: string; label: string; prefix: string; fields: UiField[]; filters: { name: string; kind: string; options?: { value: string }[] }[];
  apiFilters: string[]; related: { type: string; field: string }[] }
const UI_TYPES: UiType[] = TYPES;
const T = 'ui/pages/inventory/types.js';

test('inventory types: the seven types, their short-ID prefixes and labels', () => {
  sameValues(`inventory types (${T} TYPES, server brain/contracts.ts BRAIN_TYPES)`, BRAIN_TYPES, UI_TYPES.map((t) => t.type));
  sameValues(`inventory types (${VOCAB} INVENTORY_TYPES, server brain/contracts.ts BRAIN_TYPES)`, BRAIN_TYPES, ui.INVENTORY_TYPES.map(([t]: string[]) => t));
  sameValues('inventory types the server\'s item service holds', BRAIN_TYPES, Object.keys(SERVER_TYPES));
  for (const t of UI_TYPES) {
    assert.equal(t.prefix, SHORT_ID_PREFIX[t.type as keyof typeof SHORT_ID_PREFIX], `${t.type}: short-ID prefix (${T}) differs from the server's`);
    assert.equal(ui.INVENTORY_TYPES.find(([k]: string[]) => k === t.type)?.[1], t.label, `${t.type}: ${VOCAB} INVENTORY_TYPES and ${T} name it differently`);
  }
});

test('inventory fields: the forms have every field of each type, and no other', () => {
  for (const t of UI_TYPES) {
    const server = SERVER_TYPES[t.type]!;
    sameValues(`${t.type} fields (${T} TYPES fields, the server's type definition)`, ['name', ...server.fields], t.fields.map((f) => f.name));
  }
});

test('inventory references: each reference field points at the server\'s type', () => {
  for (const t of UI_TYPES) {
    const server = SERVER_TYPES[t.type]!;
    const refs = t.fields.filter((f) => f.kind === 'ref' || f.kind === 'refs');
    sameValues(`${t.type} reference fields (${T})`, server.refs.map((r) => r.field), refs.map((f) => f.name));
    for (const f of refs) {
      const r = server.refs.find((x) => x.field === f.name)!;
      assert.equal(f.ref, r.type, `${t.type}.${f.name}: the UI refers to ${f.ref}, the server to ${r.type}`);
      assert.equal(f.kind === 'refs', !!r.many, `${t.type}.${f.name}: the UI's kind ${f.kind} does not fit the server's many=${!!r.many}`);
    }
  }
});

test('inventory list filters, and the records that point at a record', () => {
  for (const t of UI_TYPES) {
    const server = SERVER_TYPES[t.type]!;
    sameValues(`${t.type} list filters (${T} apiFilters, the server's type definition)`, Object.keys(server.filters), t.apiFilters);
    sameValues(`${t.type} list filter controls (${T} filters, within apiFilters)`, t.apiFilters,
      [...new Set([...t.apiFilters, ...t.filters.map((f) => f.name)])]);
    // A record's page lists the records of other types that refer to it, through their list filter.
    const pointing = Object.values(SERVER_TYPES).flatMap((d) => Object.entries(d.filters)
      .filter(([, f]) => f.kind === 'ref' && f.type === t.type).map(([name]) => `${d.type}?${name}`));
    sameValues(`records that refer to ${t.type} (${T} related)`, pointing, t.related.map((r) => `${r.type}?${r.field}`));
  }
});

test('inventory choices: every select offers exactly the server\'s enum', () => {
  for (const t of UI_TYPES) {
    const shape = shapeOf(SERVER_TYPES[t.type]!.create);
    for (const f of t.fields.filter((x) => x.kind === 'select')) {
      sameValues(`${t.type}.${f.name} choices (${T}, ${VOCAB})`, enumOf(shape[f.name]), values(f.options!));
    }
    for (const f of t.filters.filter((x) => x.kind === 'select')) {
      const def = SERVER_TYPES[t.type]!.filters[f.name];
      assert.ok(def?.kind === 'eq', `${t.type}: the list filter ${f.name} is not an equality filter on the server`);
      sameValues(`${t.type} filter ${f.name} choices (${T}, ${VOCAB})`, enumOf(shape[def.field]), values(f.options!));
    }
  }
});

test('inventory labels and tones are for the server\'s values', () => {
  const shape = (type: string) => shapeOf(SERVER_TYPES[type]!.create);
  labelsFor(`endpoint role labels (${VOCAB} ENDPOINT_ROLE_LABELS)`, enumOf(shape('endpoints').role), ui.ENDPOINT_ROLE_LABELS, false);
  labelsFor(`asset status tones (${VOCAB} ASSET_STATUS_TONE)`, enumOf(shape('assets').status), ui.ASSET_STATUS_TONE);
  labelsFor(`criticality tones (${VOCAB} CRITICALITY_TONE)`, enumOf(shape('applications').criticality), ui.CRITICALITY_TONE);
  labelsFor(`history actions (${VOCAB} HISTORY_ACTION_TONE, server GET /api/brain/history/:type/:id)`,
    routeEnum('GET', '/api/brain/history/:type/:id', 'response', ['items', '[]', 'action']), ui.HISTORY_ACTION_TONE);
  labelsFor(`search matches (${VOCAB} SEARCH_MATCH_LABELS, server GET /api/brain/search)`,
    routeEnum('GET', '/api/brain/search', 'response', ['items', '[]', 'match']), ui.SEARCH_MATCH_LABELS);
});

test('inventory links: the relations and what a link can point at', () => {
  labelsFor(`link relations (${VOCAB} LINK_RELATIONS, server POST /api/brain/links)`,
    routeEnum('POST', '/api/brain/links', 'body', ['relation']), ui.LINK_RELATIONS);
  sameValues(`link targets (${T} LINK_TARGETS, server POST /api/brain/links)`,
    routeEnum('POST', '/api/brain/links', 'body', ['to', 'type']), values(LINK_TARGETS));
});

test('credential secrets: the form asks for exactly the secrets each kind uses', () => {
  const creds = UI_TYPES.find((t) => t.type === 'credentials')!;
  const secrets = creds.fields.filter((f) => f.kind === 'secret');
  sameValues(`credential secret fields (${T}, server brain/contracts.ts CREDENTIAL_SECRET_FIELDS)`, CREDENTIAL_SECRET_FIELDS, secrets.map((f) => f.name));
  const server = SERVER_TYPES.credentials!;
  for (const kind of enumOf(shapeOf(server.create).kind)) {
    // present() shows {set: false} for each secret the kind uses (none is stored here).
    const uses = Object.keys(server.present!({ id: 'x', kind })).filter((k) => (CREDENTIAL_SECRET_FIELDS as readonly string[]).includes(k));
    const levels = kind === 'snmp_v3' ? values(ui.SNMP_V3_LEVELS) : [undefined];
    const asked = new Set(levels.flatMap((level) => secrets.filter((f) => !f.when || f.when({ kind, snmpv3_level: level })).map((f) => f.name)));
    sameValues(`secrets of a ${kind} credential (${T} when, the server's credentials type)`, uses, [...asked]);
  }
});

// ---- SNMP ---------------------------------------------------------------------------------------------

test('SNMP versions, v3 levels and protocols: the walk form offers the server\'s', () => {
  const C = 'server snmp/contracts.ts';
  const walk = (...at: string[]) => routeEnum('POST', '/api/snmp/walk', 'body', at);
  const lists: [string, readonly string[], string[], { value: string }[]][] = [
    [`SNMP versions (${VOCAB} SNMP_VERSIONS, ${C} SNMP_VERSIONS)`, SNMP_VERSIONS, walk('version'), ui.SNMP_VERSIONS],
    [`SNMPv3 levels (${VOCAB} SNMP_V3_LEVELS, ${C} V3_LEVELS)`, V3_LEVELS, walk('v3', 'level'), ui.SNMP_V3_LEVELS],
    [`SNMPv3 authentication protocols (${VOCAB} SNMP_AUTH_PROTOCOLS, ${C} V3_AUTH_PROTOCOLS)`, V3_AUTH_PROTOCOLS,
      walk('v3', 'auth_protocol'), ui.SNMP_AUTH_PROTOCOLS],
    [`SNMPv3 privacy protocols (${VOCAB} SNMP_PRIV_PROTOCOLS, ${C} V3_PRIV_PROTOCOLS)`, V3_PRIV_PROTOCOLS,
      walk('v3', 'priv_protocol'), ui.SNMP_PRIV_PROTOCOLS],
  ];
  for (const [what, server, api, uiList] of lists) {
    sameValues(what, server, values(uiList));
    sameValues(`${what}, as POST /api/snmp/walk takes them`, api, values(uiList));
  }
  // Templates walk with the SNMP credentials: the kinds named snmp_<version>.
  const kinds = values(ui.CREDENTIAL_KINDS).filter((k: string) => k.startsWith('snmp_'));
  sameValues(`SNMP credential kinds (${VOCAB} CREDENTIAL_KINDS, one per SNMP version)`, SNMP_VERSIONS.map((v) => `snmp_${v}`), kinds);
});

test('SNMP walk template options and device-card vendor sources', () => {
  sameValues(`walk options (${VOCAB} SNMP_WALK_OPTIONS, server POST /api/snmp/templates options)`,
    Object.keys(routeSchema('POST', '/api/snmp/templates', 'body', ['options']).properties), ui.SNMP_WALK_OPTIONS);
  labelsFor(`vendor sources (${VOCAB} SNMP_VENDOR_FROM, server GET /api/snmp/device-cards/:device_name)`,
    routeEnum('GET', '/api/snmp/device-cards/:device_name', 'response', ['vendor', 'from']), ui.SNMP_VENDOR_FROM);
});

test('SNMP interface polling: device statuses, history ranges, busiest orders, intervals and interface statuses', async () => {
  // From the schemas' module (routes.ts takes them from there): the pages may come before the routes.
  const M = 'ui/pages/snmp/polling-model.js';
  labelsFor(`polled device statuses (${M} POLL_STATUS, server snmp/polling/schemas.ts POLL_STATUSES)`, POLL_STATUSES, polling.POLL_STATUS);
  sameValues(`history ranges (${M} HISTORY_RANGES, server snmp/polling/schemas.ts HISTORY_RANGES)`, HISTORY_RANGES, values(polling.HISTORY_RANGES));
  sameValues(`busiest orders (${M} BUSIEST_BY, server snmp/polling/schemas.ts BusiestQuery.by)`, enumOf(BusiestQuery.shape.by), values(polling.BUSIEST_BY));
  // The form's interval choices (poll-form.js) are the API's.
  const form = await readFile(new URL('../../ui/pages/snmp/poll-form.js', import.meta.url), 'utf8');
  const offered = [...form.matchAll(/\{ value: '(\d+)', label: 'Every/g)].map((m) => Number(m[1]));
  sameValues('poll intervals (ui/pages/snmp/poll-form.js INTERVALS, server snmp/polling/schemas.ts POLL_INTERVALS)', POLL_INTERVALS, offered);
  // An interface's statuses are labelled by the same vocabulary as the device cards' table.
  const ifShape = shapeOf(PolledDeviceDetail.shape.interfaces.element);
  labelsFor(`interface statuses (${VOCAB} IF_STATUSES, server PolledInterface.oper_status)`, enumOf(ifShape.oper_status), ui.IF_STATUSES);
});

// ---- webhooks -----------------------------------------------------------------------------------------

test('webhook providers: the UI keeps no copy of them, the form renders from GET /api/webhooks/providers', async () => {
  assert.equal(ui.WEBHOOK_PROVIDERS, undefined, `${VOCAB}: webhook providers come from GET /api/webhooks/providers, not a list in the UI`);
  const page = await readFile(new URL('../../ui/pages/webhooks.js', import.meta.url), 'utf8');
  assert.match(page, /\/api\/webhooks\/providers/, 'ui/pages/webhooks.js reads the providers from the API');
  for (const t of WEBHOOK_TYPES) {
    assert.ok(!new RegExp(`['"\`]${t}['"\`]`).test(page), `ui/pages/webhooks.js names the provider "${t}": its label, secret hint and options come from the API`);
  }
});

test('what became of alerts and deliveries: every outcome, decision and delivery state the API answers has the UI\'s words', () => {
  const alerts = ['items', '[]'];
  labelsFor(`alert outcomes (${VOCAB} ALERT_OUTCOME_LABELS, server GET /api/webhooks/alerts outcome)`,
    routeEnum('GET', '/api/webhooks/alerts', 'response', [...alerts, 'outcome']), ui.ALERT_OUTCOME_LABELS);
  labelsFor(`alert outcome filter (${VOCAB} ALERT_OUTCOME_LABELS, server GET /api/webhooks/alerts ?outcome)`,
    routeEnum('GET', '/api/webhooks/alerts', 'query', ['outcome']), ui.ALERT_OUTCOME_LABELS);
  sameValues(`alert outcome tones (${VOCAB} ALERT_OUTCOME_TONE)`, Object.keys(ui.ALERT_OUTCOME_LABELS), Object.keys(ui.ALERT_OUTCOME_TONE));
  labelsFor(`webhook decisions (${VOCAB} ALERT_DECISION_TEXT, server GET /api/webhooks/alerts decisions[].decision)`,
    routeEnum('GET', '/api/webhooks/alerts', 'response', [...alerts, 'decisions', '[]', 'decision']), ui.ALERT_DECISION_TEXT);
  labelsFor(`delivery states (${VOCAB} DELIVERY_STATE_LABELS, server GET /api/webhooks/alerts decisions[].delivery.state)`,
    routeEnum('GET', '/api/webhooks/alerts', 'response', [...alerts, 'decisions', '[]', 'delivery', 'state']), ui.DELIVERY_STATE_LABELS);
  sameValues(`delivery state tones (${VOCAB} DELIVERY_STATE_TONE)`, Object.keys(ui.DELIVERY_STATE_LABELS), Object.keys(ui.DELIVERY_STATE_TONE));
  labelsFor(`attempt outcomes (${VOCAB} ATTEMPT_OUTCOME_LABELS, server GET /api/webhooks/deliveries outcome)`,
    routeEnum('GET', '/api/webhooks/deliveries', 'response', ['items', '[]', 'outcome']), ui.ATTEMPT_OUTCOME_LABELS);
  labelsFor(`attempt outcome filter (${VOCAB} ATTEMPT_OUTCOME_LABELS, server GET /api/webhooks/deliveries ?outcome)`,
    routeEnum('GET', '/api/webhooks/deliveries', 'query', ['outcome']), ui.ATTEMPT_OUTCOME_LABELS);
  sameValues(`attempt outcome tones (${VOCAB} ATTEMPT_OUTCOME_TONE)`, Object.keys(ui.ATTEMPT_OUTCOME_LABELS), Object.keys(ui.ATTEMPT_OUTCOME_TONE));
});

test('a new webhook starts with the server\'s default alert types', () => {
  sameValues(`default alert types (${VOCAB} DEFAULT_ALERT_TYPES, server webhooks/schemas.ts DEFAULT_ALERT_TYPES)`, DEFAULT_ALERT_TYPES, ui.DEFAULT_ALERT_TYPES);
  for (const t of ui.DEFAULT_ALERT_TYPES) assert.ok(alertType(t), `${t}: not a registered alert type`);
});

// ---- users and API keys -------------------------------------------------------------------------------

test('user roles and API-key scopes', () => {
  sameValues(`user roles (${VOCAB} USER_ROLES, server core/auth/scopes.ts ROLES)`, ROLES, values(ui.USER_ROLES));
  labelsFor(`user role tones (${VOCAB} USER_ROLE_TONE)`, ROLES, ui.USER_ROLE_TONE);
  sameValues(`API-key scopes (${VOCAB} SCOPE_OPTIONS, server core/auth/scopes.ts SCOPES over AREAS ${AREAS.join(', ')})`, SCOPES, values(ui.SCOPE_OPTIONS));
});

// ---- discovery ----------------------------------------------------------------------------------------

test('discovery: device and node kinds, link sources, liveness sources, scan states, SNMP versions', () => {
  labelsFor(`device kinds (${VOCAB} DEVICE_KINDS, server v1sion/scan/result.ts DEVICE_KINDS)`, DEVICE_KINDS, ui.DEVICE_KINDS);
  labelsFor(`node kinds (${VOCAB} DEVICE_KINDS, server v1sion/schemas.ts NODE_KINDS)`, NODE_KINDS, ui.DEVICE_KINDS);
  labelsFor(`link sources (${VOCAB} LINK_SOURCES, server v1sion/schemas.ts EDGE_SOURCES)`, EDGE_SOURCES, ui.LINK_SOURCES);
  labelsFor(`liveness sources (${VOCAB} SCAN_SOURCES, server v1sion/scan/result.ts LIVENESS_SOURCES)`, LIVENESS_SOURCES, ui.SCAN_SOURCES);
  labelsFor(`node scan states (${VOCAB} NODE_SCAN_STATES, server v1sion/schemas.ts SCAN_STATES)`, SCAN_STATES, ui.NODE_SCAN_STATES);
  for (const v of values(ui.SCAN_SNMP_VERSIONS)) {
    assert.ok((SNMP_VERSION_NAMES as readonly string[]).includes(String(v)), `${VOCAB} SCAN_SNMP_VERSIONS: ${String(v)} is not a snmp_version the scan takes`);
  }
});

test('discovery, part 2: SSH platforms, enrichment outcomes, route sources, diff statuses, match reasons, bridge results, owned fields', async () => {
  const { OWNED_FIELDS } = await import('../../src/modules/v1sion/brain/diff.js');
  sameValues(`SSH target platforms (${VOCAB} SSH_PLATFORMS, server POST /api/v1sion/ssh-targets body.platform)`,
    routeEnum('POST', '/api/v1sion/ssh-targets', 'body', ['platform']), values(ui.SSH_PLATFORMS));
  sameValues(`enrichment platforms (${VOCAB} SSH_PLATFORMS, server POST /api/v1sion/enrich-ssh body.platform)`,
    routeEnum('POST', '/api/v1sion/enrich-ssh', 'body', ['platform']), values(ui.SSH_PLATFORMS));
  labelsFor(`enrichment target states (${VOCAB} ENRICH_TARGET_STATES, server GET /api/v1sion/enrich-ssh/:job_id results[].state)`,
    routeEnum('GET', '/api/v1sion/enrich-ssh/:job_id', 'response', ['results', '[]', 'state']), ui.ENRICH_TARGET_STATES);
  labelsFor(`route sources (${VOCAB} ROUTE_SOURCES, server GET /api/v1sion/routes query.source)`,
    routeEnum('GET', '/api/v1sion/routes', 'query', ['source']), ui.ROUTE_SOURCES);
  labelsFor(`route sources (${VOCAB} ROUTE_SOURCES, server POST /api/v1sion/routes body.source)`,
    routeEnum('POST', '/api/v1sion/routes', 'body', ['source']), ui.ROUTE_SOURCES);
  labelsFor(`diff statuses (${VOCAB} DIFF_STATUSES, server POST /api/v1sion/brain/diff items[].status)`,
    routeEnum('POST', '/api/v1sion/brain/diff', 'response', ['items', '[]', 'status']), ui.DIFF_STATUSES);
  labelsFor(`match reasons (${VOCAB} MATCH_REASONS, server POST /api/v1sion/brain/diff items[].candidates[].reason)`,
    routeEnum('POST', '/api/v1sion/brain/diff', 'response', ['items', '[]', 'candidates', '[]', 'reason']), ui.MATCH_REASONS);
  labelsFor(`bridge item results (${VOCAB} BRIDGE_RESULTS, server POST /api/v1sion/brain/bulk-create items[].status)`,
    routeEnum('POST', '/api/v1sion/brain/bulk-create', 'response', ['items', '[]', 'status']), ui.BRIDGE_RESULTS);
  labelsFor(`parent proposal statuses (${VOCAB} PARENT_PROPOSAL_STATUSES, server GET /api/v1sion/sessions/:id/parent-proposals proposals[].status)`,
    routeEnum('GET', '/api/v1sion/sessions/:id/parent-proposals', 'response', ['proposals', '[]', 'status']), ui.PARENT_PROPOSAL_STATUSES);
  labelsFor(`parent apply outcomes (${VOCAB} PARENT_APPLY_OUTCOMES, server POST /api/v1sion/sessions/:id/parent-proposals/apply results[].outcome)`,
    routeEnum('POST', '/api/v1sion/sessions/:id/parent-proposals/apply', 'response', ['results', '[]', 'outcome']), ui.PARENT_APPLY_OUTCOMES);
  labelsFor(`owned fields (${VOCAB} OWNED_FIELD_LABELS, server v1sion/brain/diff.ts OWNED_FIELDS)`,
    new Set(Object.values(OWNED_FIELDS).flat()), ui.OWNED_FIELD_LABELS);
});

test('the probe\'s own settings: certificate modes, ACME challenges and directories, SMTP security, update outcomes, controller states', async () => {
  const { smtp } = (await import('../../src/modules/system/config.js')).systemConfig;
  labelsFor(`certificate modes (${VOCAB} TLS_MODES, server GET /api/ssl/status mode)`, routeEnum('GET', '/api/ssl/status', 'response', ['mode']), ui.TLS_MODES);
  labelsFor(`ACME challenges (${VOCAB} ACME_CHALLENGES, server POST /api/ssl/letsencrypt body.challenge)`,
    routeEnum('POST', '/api/ssl/letsencrypt', 'body', ['challenge']), ui.ACME_CHALLENGES);
  const { DIRECTORIES } = await import('../../src/modules/system/ssl/routes.js');
  labelsFor(`ACME directories (${VOCAB} ACME_DIRECTORIES, server ssl/routes.ts DIRECTORIES)`, Object.keys(DIRECTORIES), ui.ACME_DIRECTORIES);
  sameValues(`SMTP security (${VOCAB} SMTP_SECURITY, server system/config.ts smtp.security)`,
    enumOf((smtp.unwrap() as unknown as { shape: Record<string, unknown> }).shape.security), values(ui.SMTP_SECURITY));
  labelsFor(`outgoing e-mail kinds (${VOCAB} MAIL_KIND_TEXT, server GET /api/dev/emails/recent kind)`,
    routeEnum('GET', '/api/dev/emails/recent', 'response', ['items', '[]', 'kind']), ui.MAIL_KIND_TEXT);
  // last_run and its result are nullable: the object and the enum are the non-null branches.
  const nonNull = (js: any) => (js.anyOf ?? [js]).find((x: any) => x.type !== 'null');
  const lastRun = nonNull(routeSchema('GET', '/api/update/status', 'response', ['last_run']));
  labelsFor(`update outcomes (${VOCAB} UPDATE_OUTCOMES, server GET /api/update/status last_run.result)`,
    nonNull(lastRun.properties.result).enum, ui.UPDATE_OUTCOMES);
  labelsFor(`controller states (${VOCAB} HIVEMIND_STATES, server GET /api/hivemind/status state)`,
    routeEnum('GET', '/api/hivemind/status', 'response', ['state']), ui.HIVEMIND_STATES);
});
