// Every form of the web UI sets what the API takes, and nothing else (issue 33 §3). The forms are read from
// their source (TypeScript's parser over ui/**/*.js): a form is a component that calls useForm(), its
// fields are the controls bound to it (`<${Field} form=${form} name="…">`, also those of the components it
// renders, with their `name` as passed or defaulted), its requests are the api.post/put and
// request('PATCH', …) calls in it and in the helpers of its file that it calls. The API's side is the
// body schema of each request from the route registry of a service started here (the inventory's per
// type through `bodySchemaFor`, as GET /api/request-schema gives it). The test fails when the API takes a
// field the form cannot set, when the form has a field the API refuses, and when a form's fields or
// requests cannot be read. FORMS below is the allow-list: each field deliberately not in a form, and each
// field of a form that is not sent, with its reason; what cannot be read from the source is said there
// too. An entry that is no longer needed fails as well, so the list stays true.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { after, before, test } from 'node:test';
import ts from 'typescript';
import { z } from 'zod';
import type { Service } from '../../src/main.js';
import { startQuietService } from '../helpers/quiet-service.js';
// @ts-expect-error plain browser JavaScript without type declarations
import { TYPES } from '../../ui/pages/inventory/types.js';

const REPO = resolve(import.meta.dirname, '..', '..');

// ---- what the source cannot say, and the deliberate differences -----------------------------------------

interface FormNotes {
  /** Requests made where the reader cannot follow ("POST /api/x/:id"), replacing those it found. */
  requests?: string[];
  /** A configuration section the form saves through POST /api/config/import: its keys are the API's fields. */
  config?: string;
  /** Only this part of the body is the form's to edit (a dialog that adds one node of a session); omit names its fields without it. */
  scope?: string;
  /** Controls whose name the reader cannot resolve, by what they are: API field (prefix) -> reason. */
  dynamic?: Record<string, string>;
  /** Fields of the form the API never gets, each with its reason. */
  local?: Record<string, string>;
  /** Fields of the form the request carries under another name: field -> the API's field and why. */
  sentAs?: Record<string, { as: string; why: string }>;
  /**
   * Components whose fields the reader cannot follow, by tag: the API field whose parts they set. Not
   * required to be met (the monitor form's check settings are being redrawn from a JSON Schema).
   */
  opaque?: Record<string, string>;
  /** Fields the API takes that the form does not offer, each with its reason. */
  omit?: Record<string, string>;
  /** The form sends no body (a filter of a list, a file upload), and why. */
  noBody?: string;
}

/** By "file#Component". */
const FORMS: Record<string, FormNotes> = {
  'ui/pages/setup.js#AdminStep': {
    local: { password2: 'typed twice to catch a typo; compared in the browser' },
    omit: { totp_code: 'the sign-in right after: the administrator just made has no two-factor sign-in yet',
      new_password: 'likewise: the password was chosen just now' },
  },
  'ui/pages/setup.js#ProbeStep': {},
  'ui/pages/settings/probe.js#ProbeSettings': {},
  'ui/pages/settings/probe.js#Branding': {
    omit: { probe_name: 'the probe\'s name is set with its other settings (the Probe card, POST /api/setup/save)' },
  },
  'ui/pages/login.js#LoginPage': {
    local: { new_password_confirm: 'typed twice to catch a typo; compared in the browser' },
    sentAs: { account: { as: 'username', why: 'the forgot-password form\'s one field: sent as email when it holds an @' } },
    omit: { email: 'sent from the one "account" field when it holds an @' },
  },
  'ui/pages/settings/users.js#UserForm': {},
  'ui/pages/settings/account.js#Profile': {
    omit: { role: 'a user does not change their own role (Settings → Users does)', disabled: 'likewise',
      password: 'the Password card sets it' },
  },
  'ui/pages/settings/account.js#Password': {
    local: { password2: 'typed twice to catch a typo; compared in the browser' },
    omit: { role: 'a user does not change their own role (Settings → Users does)', disabled: 'likewise',
      display_name: 'the Profile card sets it', email: 'the Profile card sets it' },
  },
  'ui/pages/settings/api-keys.js#NewKeyForm': {
    omit: { expires_at: 'the form asks for a number of days (expires_in_days); a date is for scripts' },
  },
  'ui/pages/settings/two-factor.js#EnrollDialog': {},
  'ui/pages/settings/two-factor.js#DisableDialog': {
    omit: { user_id: 'an administrator turns off another user\'s two-factor sign-in through the API (docs/auth.md)' },
  },
  'ui/pages/settings/controller.js#PairForm': {},
  'ui/pages/settings/access.js#ZeroTier': {
    // The buttons of a joined network (leave, forget, on/off) post its id and a confirmation: no field is typed.
    requests: ['POST /api/oob/zt/join'],
  },
  'ui/pages/settings/access.js#Tailscale': {
    // "Bring Tailscale down" is a button with a confirmation, no field.
    requests: ['POST /api/oob/ts/up'],
    omit: { reset: 'a re-login with other settings is done from the command line (docs/oob.md)' },
  },
  'ui/pages/settings/tls.js#PfxUpload': { noBody: 'uploads a PKCS#12 file as it is (POST /api/ssl/upload)' },
  'ui/pages/settings/tls.js#AcmeOrder': {
    local: { directory: 'a choice of well-known directories; its URL is sent as directory_url' },
  },
  'ui/pages/settings/audit.js#AuditSection': { noBody: 'filters the audit log: a query, not a body' },
  'ui/pages/settings/email.js#SmtpForm': {
    config: 'smtp',
    local: { clear_password: 'sends smtp.password as {set: false}: forget the stored one' },
  },
  'ui/pages/settings/email.js#TestMessage': {},
  'ui/pages/settings/update.js#SourceForm': {
    config: 'update',
    omit: { git_timeout_seconds: 'tuning, in the configuration (Settings → Configuration)', health_timeout_seconds: 'likewise',
      min_free_mb: 'likewise', run_timeout_minutes: 'likewise', helper_unit_file: 'likewise' },
  },
  'ui/pages/settings/update.js#Credentials': {
    omit: { clear: 'the "Forget the token" button sends it' },
  },
  'ui/pages/settings/update.js#Run': {},
  'ui/pages/webhooks.js#WebhookForm': {
    dynamic: { options: 'the provider\'s options, drawn from its JSON Schema (GET /api/webhooks/providers)' },
    local: { remove_secret: 'sends secret as null: forget the stored one' },
    sentAs: {
      monitor_alerts: { as: 'alert_types', why: 'monitor alerts, one group of the form; sent together with other_alerts' },
      other_alerts: { as: 'alert_types', why: 'discovery and system alerts, the other group (the choice of monitors does not apply to them)' },
    },
  },
  'ui/pages/monitors/form.js#MonitorForm': {
    // The link to an endpoint it was made from is a second request, from the page's context, not a field.
    requests: ['POST /api/monitors', 'PUT /api/monitors/:id'],
    opaque: { Settings: 'settings' },
    dynamic: { settings: 'the check type\'s settings, each held to the server\'s by ui-contract.test.ts' },
  },
  'ui/pages/monitors/maintenance.js#WindowForm': {},
  'ui/pages/monitors/status-pages.js#PageForm': {
    opaque: { GroupsField: 'groups' },
    dynamic: { groups: 'each group\'s name and its monitors (id, alias), edited as rows by GroupsField' },
  },
  'ui/pages/inventory/form.js#RecordForm': {
    noBody: 'its fields are the type\'s (ui/pages/inventory/types.js), compared below type by type',
  },
  'ui/pages/inventory/vault.js#PassphraseDialog': {
    local: { confirm: 'typed twice to catch a typo; compared in the browser' },
  },
  'ui/pages/inventory/links.js#AddLink': {
    omit: { from: 'the record whose page the form is on' },
  },
  'ui/pages/snmp/templates.js#TemplateForm': {},
  'ui/pages/snmp/poll-form.js#DeviceForm': {
    sentAs: { scope: { as: 'all_interfaces', why: 'a choice of all interfaces or only chosen ones' } },
    omit: { enabled: 'paused and resumed by the buttons of the list and the device\'s page; a device added is polled at once' },
  },
  'ui/pages/snmp/walk.js#WalkSection': {
    local: { auth: 'chooses between a stored credential (credential_id) and typed ones (version, community, v3)' },
  },
  'ui/pages/discovery/scan-form.js#ScanFormBody': {
    sentAs: {
      vault: { as: 'credentials', why: 'the vault\'s SNMP credentials chosen, first in the list of credentials to try' },
      use_saved: { as: 'credentials', why: 'the saved discovery credentials, after those' },
    },
  },
  'ui/pages/discovery/scan-run.js#SaveDialog': {
    omit: { scan_job_id: 'the scan on screen, whose result is saved', subnets: 'taken from the scan by the server',
      nodes: 'likewise', edges: 'likewise' },
  },
  'ui/pages/discovery/session-enrich.js#EnrichSessionDialog': {
    sentAs: {
      kinds: { as: 'addresses', why: 'the addresses of the session\'s nodes of the kinds chosen' },
      include_missing: { as: 'addresses', why: 'with those of the nodes the last scan no longer saw' },
    },
    omit: { session_id: 'the session whose page this is', targets: 'the SSH targets page enriches its targets (Discovery → SSH targets)' },
  },
  'ui/pages/discovery/session-dialogs.js#EditDialog': {
    omit: { subnets: 'set when the session is made from a scan', positions: 'the map moves nodes', add_nodes: 'the map\'s "Add a node"',
      remove_nodes: 'the map\'s node panel', add_edges: 'the map\'s "Add an edge"', remove_edges: 'the map\'s edge panel',
      merge_scan_job_id: 'the Merge dialog' },
  },
  'ui/pages/discovery/session-dialogs.js#MergeForm': {
    // A merge is a request of its own (the API refuses other changes with it).
    local: { choice: 'one of the scans the probe keeps, or "another": then merge_scan_job_id is typed' },
    omit: { name: 'the Edit dialog', notes: 'the Edit dialog', subnets: 'set when the session is made from a scan',
      positions: 'the map moves nodes', add_nodes: 'the map', remove_nodes: 'the map', add_edges: 'the map', remove_edges: 'the map' },
  },
  'ui/pages/discovery/map-dialogs.js#AddNodeDialog': {
    scope: 'add_nodes.0',
    omit: { id: 'made from the label, unique in the session', position: 'where the map is looking; then dragged',
      mac: 'a node added by hand has none of discovery\'s facts', vendor_key: 'likewise',
      inventory: 'linked to its inventory record from the node\'s panel' },
  },
  'ui/pages/discovery/map-dialogs.js#AddEdgeDialog': {
    scope: 'add_edges.0', omit: { source: 'an edge added by hand is manual, the default' },
  },
  'ui/pages/discovery/route-form.js#RouteDialog': {
    local: { 'device.kind': 'chooses what holds the route: a session\'s node or an inventory endpoint (its picker sets device)' },
  },
  'ui/pages/discovery/ssh-target-form.js#TargetDialog': {},
  'ui/pages/discovery/profile-form.js#ProfileDialog': {},
  'ui/pages/discovery/reconcile.js#LinkDialog': { noBody: 'no field of its own: it links the device and record chosen on the page' },
  'ui/pages/discovery/route-import.js#ImportRouteDialog': { noBody: 'no field of its own: it imports the routes ticked in it' },
};
// ---- reading the forms from their source ------------------------------------------------------------------

interface Control { name: string; /** The name is only known up to this prefix (`options.` + a provider's field). */ prefix?: boolean }
interface Found { key: string; controls: Control[]; requests: string[]; unread: string[] }

const parsed = new Map<string, ts.SourceFile>();
function source(file: string): ts.SourceFile {
  let sf = parsed.get(file);
  if (!sf) {
    sf = ts.createSourceFile(file, readFileSync(join(REPO, file), 'utf8'), ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
    parsed.set(file, sf);
  }
  return sf;
}

/** The top-level functions of a file (declarations and `const X = () => …`), by name. */
function topFunctions(sf: ts.SourceFile): Map<string, ts.FunctionLikeDeclaration> {
  const out = new Map<string, ts.FunctionLikeDeclaration>();
  for (const st of sf.statements) {
    if (ts.isFunctionDeclaration(st) && st.name && st.body) out.set(st.name.text, st);
    else if (ts.isVariableStatement(st)) {
      for (const d of st.declarationList.declarations) {
        if (ts.isIdentifier(d.name) && d.initializer && (ts.isArrowFunction(d.initializer) || ts.isFunctionExpression(d.initializer))) {
          out.set(d.name.text, d.initializer);
        }
      }
    }
  }
  return out;
}

/** The file's top-level string constants (`const OPT = 'options.'`). */
function constants(sf: ts.SourceFile): Map<string, string> {
  const out = new Map<string, string>();
  for (const st of sf.statements) {
    if (!ts.isVariableStatement(st)) continue;
    for (const d of st.declarationList.declarations) {
      if (ts.isIdentifier(d.name) && d.initializer && ts.isStringLiteralLike(d.initializer)) out.set(d.name.text, d.initializer.text);
    }
  }
  return out;
}

/** The relative UI module an identifier of this file is imported from, with its name there. */
function importOf(sf: ts.SourceFile, name: string): { file: string; name: string } | null {
  for (const st of sf.statements) {
    if (!ts.isImportDeclaration(st) || !ts.isStringLiteral(st.moduleSpecifier) || !st.moduleSpecifier.text.startsWith('.')) continue;
    const named = st.importClause?.namedBindings;
    if (!named || !ts.isNamedImports(named)) continue;
    for (const el of named.elements) {
      if (el.name.text === name) {
        const file = relative(REPO, resolve(REPO, sf.fileName, '..', st.moduleSpecifier.text));
        return { file, name: (el.propertyName ?? el.name).text };
      }
    }
  }
  return null;
}

/**
 * A string expression's value: literals, file constants, `name` from the props (`vars`), templates and `+`
 * of those. Unknown parts make it a prefix ({text, prefix: true}) when a known part starts it, else null.
 */
function evaluate(e: ts.Expression, consts: Map<string, string>, vars: Map<string, string>): { text: string; prefix?: boolean } | null {
  if (ts.isStringLiteralLike(e)) return { text: e.text };
  if (ts.isParenthesizedExpression(e)) return evaluate(e.expression, consts, vars);
  if (ts.isIdentifier(e)) {
    const v = vars.get(e.text) ?? consts.get(e.text);
    return v === undefined ? null : { text: v };
  }
  const concat = (parts: (ts.Expression | string)[]) => {
    let text = '';
    for (const p of parts) {
      const v = typeof p === 'string' ? { text: p } : evaluate(p, consts, vars);
      if (!v) return text ? { text, prefix: true } : null;
      text += v.text;
      if (v.prefix) return { text, prefix: true };
    }
    return { text };
  };
  if (ts.isTemplateExpression(e)) return concat([e.head.text, ...e.templateSpans.flatMap((s) => [s.expression, s.literal.text])]);
  if (ts.isBinaryExpression(e) && e.operatorToken.kind === ts.SyntaxKind.PlusToken) return concat([e.left, e.right]);
  return null;
}

/** The elements of html`…` templates under a node: tag expression and attributes (`name` and `form` only). */
function* elements(node: ts.Node, sf: ts.SourceFile): Generator<{ tag: ts.Expression; attrs: Map<string, ts.Expression | string> }> {
  const all: ts.TaggedTemplateExpression[] = [];
  const visit = (n: ts.Node) => {
    if (ts.isTaggedTemplateExpression(n) && n.tag.getText(sf) === 'html') all.push(n);
    ts.forEachChild(n, visit);
  };
  visit(node);
  for (const t of all) {
    if (!ts.isTemplateExpression(t.template)) continue;
    const parts: (string | ts.Expression)[] = [t.template.head.text];
    for (const s of t.template.templateSpans) parts.push(s.expression, s.literal.text);
    for (let i = 0; i + 1 < parts.length; i++) {
      const text = parts[i], tag = parts[i + 1];
      if (typeof text !== 'string' || !/<$/.test(text) || typeof tag === 'string') continue;
      // The attributes up to the end of the tag: name="x" as text, name=${x} as the expression after "name=".
      const attrs = new Map<string, ts.Expression | string>();
      for (let j = i + 2; j < parts.length; j++) {
        const p = parts[j]!;
        if (typeof p !== 'string') continue;
        const end = p.search(/\/?>/);
        const chunk = end >= 0 ? p.slice(0, end) : p;
        for (const m of chunk.matchAll(/(?:^|\s)([\w-]+)="([^"]*)"/g)) attrs.set(m[1]!, m[2]!);
        const open = /(?:^|\s)([\w-]+)=$/.exec(chunk);
        if (open && typeof parts[j + 1] !== 'string') attrs.set(open[1]!, parts[j + 1] as ts.Expression);
        if (end >= 0) break;
      }
      yield { tag, attrs };
    }
  }
}

/** The first parameter's destructured defaults of a function ({ name = 'credential_id' }). */
function propDefaults(fn: ts.FunctionLikeDeclaration): Map<string, string> {
  const out = new Map<string, string>();
  const p = fn.parameters[0];
  if (p && ts.isObjectBindingPattern(p.name)) {
    for (const el of p.name.elements) {
      if (ts.isIdentifier(el.name) && el.initializer && ts.isStringLiteralLike(el.initializer)) out.set(el.name.text, el.initializer.text);
    }
  }
  return out;
}

const CONTROL_LIBRARIES = new Set(['ui/components/field.js', 'ui/components/field-extra.js', 'ui/components/time-zone.js']);

/**
 * The controls bound to a form under `fn`, following the components it renders with the form (their string
 * props passed on, defaults applied). A component given a `schema` draws the fields of a JSON Schema the
 * API serves: its fields are known by their prefix only. `opaque` tags stand for the API field they set.
 */
function controlsOf(file: string, fn: ts.FunctionLikeDeclaration, vars: Map<string, string>, opaque: Record<string, string>,
  unread: string[], depth = 0): Control[] {
  const sf = source(file), consts = constants(sf), fns = topFunctions(sf);
  const out: Control[] = [];
  const value = (a: ts.Expression | string | undefined) => (a === undefined ? undefined
    : typeof a === 'string' ? { text: a } : evaluate(a, consts, vars));
  for (const { tag, attrs } of elements(fn, sf)) {
    if (!attrs.has('form') || !ts.isIdentifier(tag) || tag.text === 'FormError') continue;
    if (opaque[tag.text]) { out.push({ name: `${opaque[tag.text]}.`, prefix: true }); continue; }
    if (attrs.has('schema')) {
      const prefix = value(attrs.get('prefix'));
      if (prefix && !prefix.prefix) out.push({ name: prefix.text, prefix: true });
      else unread.push(`${file}: the prefix of the fields <${tag.text} schema=…> draws`);
      continue;
    }
    const nameAttr = attrs.get('name');
    const name = value(nameAttr);
    // A control of the shared libraries: its name is the field.
    const imported = importOf(sf, tag.text);
    if (imported && CONTROL_LIBRARIES.has(imported.file)) {
      if (name) out.push({ name: name.text, prefix: name.prefix });
      else unread.push(`${file}: the name of a <${tag.text}> (${nameAttr === undefined ? 'none' : (nameAttr as ts.Node).getText(sf)})`);
      continue;
    }
    // A component of this file or another page module, rendered with the form: its controls, its props passed on.
    const where = fns.has(tag.text) ? { file, name: tag.text } : imported;
    const child = where && topFunctions(source(where.file)).get(where.name);
    if (!child || depth > 3) { unread.push(`${file}: what <${tag.text} form=…> renders`); continue; }
    const passed = new Map(propDefaults(child));
    for (const [k, a] of attrs) {
      const v = value(a);
      if (v && !v.prefix) passed.set(k, v.text);
    }
    out.push(...controlsOf(where!.file, child, passed, opaque, unread, depth + 1));
  }
  return out;
}

/** A request's path as a route pattern ("/api/users/:x"), each of a conditional's literal branches; null when unknown. */
function paths(e: ts.Expression | undefined, consts: Map<string, string>): string[] | null {
  if (!e) return null;
  if (ts.isStringLiteralLike(e)) return [e.text];
  if (ts.isTemplateExpression(e)) {
    let outs = [e.head.text];
    for (const s of e.templateSpans) {
      const x = s.expression;
      const options = ts.isConditionalExpression(x) && ts.isStringLiteralLike(x.whenTrue) && ts.isStringLiteralLike(x.whenFalse)
        ? [x.whenTrue.text, x.whenFalse.text] : ts.isIdentifier(x) && consts.has(x.text) ? [consts.get(x.text)!] : [':x'];
      outs = outs.flatMap((o) => options.map((v) => o + v + s.literal.text));
    }
    return outs;
  }
  if (ts.isIdentifier(e) && consts.has(e.text)) return [consts.get(e.text)!];
  return null;
}

/** The requests with a JSON body under `fn` and the helpers of its file it calls ("POST /api/users"). */
function requestsOf(file: string, fn: ts.Node, unread: string[], seen = new Set<ts.Node>()): string[] {
  const sf = source(file), consts = constants(sf), fns = topFunctions(sf);
  const out: string[] = [];
  seen.add(fn);
  const visit = (n: ts.Node) => {
    if (ts.isCallExpression(n)) {
      const callee = n.expression.getText(sf);
      const api = /^api\.(post|put)$/.exec(callee);
      const method = api ? api[1]!.toUpperCase() : callee === 'request' && n.arguments[0] && ts.isStringLiteralLike(n.arguments[0])
        ? n.arguments[0].text : null;
      const [pathArg, body] = api ? [n.arguments[0], n.arguments[1]] : [n.arguments[1], n.arguments[2]];
      if (method && body) {
        const ps = paths(pathArg, consts);
        if (ps) out.push(...ps.map((p) => `${method} ${p.split('?')[0]}`));
        else unread.push(`${file}: the path of ${n.getText(sf).slice(0, 60)}`);
      }
      const helper = ts.isIdentifier(n.expression) ? fns.get(n.expression.text) : undefined;
      if (helper && !seen.has(helper)) out.push(...requestsOf(file, helper, unread, seen));
    }
    ts.forEachChild(n, visit);
  };
  visit(fn);
  return out;
}

/** Every form of the UI: components that call useForm(). */
function readForms(): Found[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(join(REPO, dir))) {
      const rel = `${dir}/${e}`;
      if (statSync(join(REPO, rel)).isDirectory()) walk(rel);
      else if (rel.endsWith('.js') && !rel.startsWith('ui/vendor')) files.push(rel);
    }
  };
  walk('ui');
  const out: Found[] = [];
  for (const file of files.sort()) {
    const sf = source(file);
    if (!sf.text.includes('useForm(')) continue;
    for (const [name, fn] of topFunctions(sf)) {
      let calls = false;
      const visit = (n: ts.Node) => {
        if (ts.isCallExpression(n) && n.expression.getText(sf) === 'useForm') calls = true;
        if (!calls) ts.forEachChild(n, visit);
      };
      visit(fn);
      if (!calls) continue;
      const unread: string[] = [];
      const controls = controlsOf(file, fn, propDefaults(fn), FORMS[`${file}#${name}`]?.opaque ?? {}, unread);
      out.push({ key: `${file}#${name}`, controls, requests: [...new Set(requestsOf(file, fn, unread))], unread });
    }
  }
  return out;
}

// ---- the API's side ---------------------------------------------------------------------------------------

let service: Service;
let stop: (() => Promise<void>) | undefined;

before(async () => {
  ({ service, close: stop } = await startQuietService('ui-form-contract'));
});

after(async () => { await stop?.(); });

type Json = Record<string, any>;

/** The JSON Schema of the body of "METHOD /api/path" as the server applies it. */
function bodySchema(request: string): Json {
  const [method, path] = request.split(' ') as [string, string];
  const { route, params } = service.app.routes.match(method, path);
  assert.ok(route, `${request}: no such route`);
  const body = route.bodySchemaFor?.(params) ?? route.body;
  assert.ok(body, `${request}: the route takes no JSON body`);
  return z.toJSONSchema(body as z.ZodType, { io: 'input', unrepresentable: 'any' }) as Json;
}

/** The fields of an object schema as dotted paths (objects' properties, arrays of objects as `.0.`), through "or null" and variants. */
function fieldPaths(js: Json, prefix = '', out = new Set<string>()): Set<string> {
  const variants: Json[] = [...(js.anyOf ?? []), ...(js.oneOf ?? [])].filter((v: Json) => v.type !== 'null');
  for (const v of variants) fieldPaths(v, prefix, out);
  if (js.type === 'array' && js.items) fieldPaths(js.items, prefix ? `${prefix}.0` : '0', out);
  for (const [k, s] of Object.entries((js.properties ?? {}) as Record<string, Json>)) {
    const p = prefix ? `${prefix}.${k}` : k;
    out.add(p);
    fieldPaths(s, p, out);
  }
  return out;
}

/** The API's fields for a form: its requests' bodies, or its configuration section's keys. */
function apiFields(form: Found, notes: FormNotes): Set<string> {
  if (notes.config) {
    return new Set(service.app.config.keys().map((k) => k.key).filter((k) => k.startsWith(`${notes.config}.`)));
  }
  const out = new Set<string>();
  for (const r of notes.requests ?? form.requests) for (const f of fieldPaths(bodySchema(r.replace(/:\w+/g, 'x')))) out.add(f);
  return out;
}

const norm = (name: string) => name.split('.').map((s) => (/^\d+$/.test(s) ? '0' : s)).join('.');

/** What differs between a form's fields and the API's, besides what its notes allow. */
function differences(form: Found, notes: FormNotes): string[] {
  const problems: string[] = [];
  const api = apiFields(form, notes);
  const dynamic = Object.keys(notes.dynamic ?? {});
  const noted = (what: string, list: Record<string, unknown> | undefined, used: Set<string>) => {
    for (const k of Object.keys(list ?? {})) if (!used.has(k)) problems.push(`FORMS lists ${k} in ${what}, but the form has no such field`);
  };
  // The form's fields as the API gets them: renamed (sentAs), or not at all (local).
  const usedLocal = new Set<string>(), usedAs = new Set<string>();
  const controls: Control[] = [];
  for (const c of form.controls) {
    const name = norm(c.name);
    if (!c.prefix && notes.local?.[name]) { usedLocal.add(name); continue; }
    if (!c.prefix && notes.sentAs?.[name]) { usedAs.add(name); controls.push({ name: notes.sentAs[name]!.as }); continue; }
    controls.push({ name, prefix: c.prefix });
  }
  noted('local', notes.local, usedLocal);
  noted('sentAs', notes.sentAs, usedAs);
  // Fields of the form the API refuses.
  for (const c of controls) {
    if (c.prefix) {
      const base = c.name.replace(/\.$/, '');
      if (!dynamic.includes(base)) problems.push(`its fields named ${c.name}… are not said in FORMS (dynamic)`);
      if (!api.has(base)) problems.push(`it has fields under ${base}, which the API does not take`);
    } else if (!api.has(c.name)) problems.push(`it has a field ${c.name}, which the API does not take`);
  }
  // Fields the API takes that the form cannot set: the top level of its part of the body.
  // A configuration form's fields are its section's keys (smtp.host), named in FORMS without the section.
  const part = notes.scope ?? notes.config;
  const scope = part ? `${part}.` : '';
  const top = [...api].filter((f) => f.startsWith(scope) && !f.slice(scope.length).includes('.'));
  const omitted = new Set(Object.keys(notes.omit ?? {}));
  for (const f of top) {
    const key = f.slice(scope.length);
    const set = controls.some((c) => c.name === f || c.name.startsWith(`${f}.`));
    if (set && omitted.has(key)) problems.push(`FORMS says the form does not offer ${key}, but it does`);
    if (!set && !omitted.has(key)) problems.push(`the API takes ${f}, the form cannot set it`);
    omitted.delete(key);
  }
  for (const o of omitted) problems.push(`FORMS lists ${o} as not offered, but the API does not take it`);
  return problems;
}

// ---- the tests ----------------------------------------------------------------------------------------------

test('every form is read: its fields and requests, or FORMS says what they are', () => {
  const forms = readForms();
  const keys = forms.map((f) => f.key);
  assert.ok(forms.length >= 40, `found only ${forms.length} forms`);
  assert.deepEqual(keys.filter((k) => !(k in FORMS)), [], 'forms missing from FORMS (add each, with {} when it needs no note)');
  assert.deepEqual(Object.keys(FORMS).filter((k) => !keys.includes(k)), [], 'FORMS names forms that no longer exist');
  for (const f of forms) {
    const notes = FORMS[f.key]!;
    if (notes.noBody) continue;
    const unread = f.unread.filter((u) => !(notes.requests && u.includes('the path of')));
    assert.deepEqual(unread, [], `${f.key}: the reader cannot tell`);
    assert.ok((notes.requests ?? f.requests).length || notes.config, `${f.key}: no request with a body found; say in FORMS what it sends`);
  }
});

test('every form sets the fields its request takes, and no other', () => {
  const problems: string[] = [];
  for (const f of readForms()) {
    const notes = FORMS[f.key];
    if (!notes || notes.noBody) continue;
    for (const p of differences(f, notes)) problems.push(`${f.key} (${(notes.requests ?? f.requests).join(', ') || `config ${notes.config}`}): ${p}`);
  }
  assert.deepEqual(problems, []);
});

test('the inventory forms: each type\'s fields are the fields its create and update requests take', () => {
  const problems: string[] = [];
  for (const t of TYPES as { type: string; fields: { name: string }[] }[]) {
    const path = t.type === 'credentials' ? '/api/brain/credentials' : `/api/brain/${t.type}`;
    for (const request of [`POST ${path}`, `PUT ${path}/x`]) {
      const api = [...fieldPaths(bodySchema(request))].filter((f) => !f.includes('.'));
      const form = t.fields.map((f) => f.name);
      for (const f of api.filter((x) => !form.includes(x))) problems.push(`${t.type}: ${request} takes ${f}, the form cannot set it`);
      for (const f of form.filter((x) => !api.includes(x))) problems.push(`${t.type}: the form has ${f}, ${request} does not take it`);
    }
  }
  assert.deepEqual(problems, []);
});
