// Where an endpoint lives, checked for every route the service registers (docs/development.md):
// /api/<segment>/<resource>/... is declared in modules/<module>/<resource>/routes.ts or, while the module
// is small, modules/<module>/routes.ts, where <module> is the module named <segment>. A module serving
// other top-level segments (system: users, auth, setup, ...) declares each in modules/<module>/<segment>/
// routes.ts or its routes.ts. /api/dev/* is every module's debug prefix: modules/<module>/dev/routes.ts.
// Route files declare routes; services never do.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { AnyRoute, Module } from '../../src/core/context.js';
import { MODULES } from '../../src/main.js';
import { startTestApp, type TestApp } from '../helpers/harness.js';

const SHARED_PREFIXES = new Set(['dev']);

/** Why a route is declared in the wrong place, or null when it is where its path says. */
export function placementProblem(r: Pick<AnyRoute, 'method' | 'path' | 'file'>, modules: readonly Pick<Module, 'name' | 'segments'>[]): string | null {
  const [segment = '', resource] = r.path.split('/').filter(Boolean).slice(1);
  const file = r.file ?? 'unknown';
  const where = `${r.method} ${r.path} is declared in ${file}`;
  if (!/\/routes\.ts$/.test(file)) return `${where}: routes are declared in a routes.ts file, never in a service`;
  if (SHARED_PREFIXES.has(segment)) {
    return /^src\/modules\/[^/]+\/dev\/routes\.ts$/.test(file) ? null : `${where}, not in modules/<module>/dev/routes.ts`;
  }
  const owner = modules.find((m) => m.name === segment || m.segments?.includes(segment));
  if (!owner) return `${where}, but no module claims the segment "${segment}" (Module.segments)`;
  const sub = owner.name === segment ? resource : segment;
  const allowed = [`src/modules/${owner.name}/routes.ts`];
  if (sub && !sub.startsWith(':')) allowed.push(`src/modules/${owner.name}/${sub}/routes.ts`);
  return allowed.includes(file) ? null : `${where}, not in ${allowed.join(' or ')}`;
}

let t: TestApp;
before(async () => { t = await startTestApp(); });
after(() => t.close());

test('the rule: a route in a service file or in another resource\'s folder is refused', () => {
  const modules = [{ name: 'snmp' }, { name: 'system', segments: ['users'] }];
  assert.equal(placementProblem({ method: 'POST', path: '/api/snmp/walk', file: 'src/modules/snmp/walk/routes.ts' }, modules), null);
  assert.equal(placementProblem({ method: 'GET', path: '/api/snmp/vendors', file: 'src/modules/snmp/routes.ts' }, modules), null);
  assert.equal(placementProblem({ method: 'GET', path: '/api/users/:id', file: 'src/modules/system/users/routes.ts' }, modules), null);
  assert.equal(placementProblem({ method: 'GET', path: '/api/dev/x/recent', file: 'src/modules/snmp/dev/routes.ts' }, modules), null);
  assert.match(placementProblem({ method: 'POST', path: '/api/snmp/walk', file: 'src/modules/snmp/service.ts' }, modules)!, /never in a service/);
  assert.match(placementProblem({ method: 'POST', path: '/api/snmp/walk', file: 'src/modules/snmp/templates/routes.ts' }, modules)!,
    /not in src\/modules\/snmp\/routes\.ts or src\/modules\/snmp\/walk\/routes\.ts/);
  assert.match(placementProblem({ method: 'GET', path: '/api/nobody/x', file: 'src/modules/snmp/routes.ts' }, modules)!, /no module claims/);
});

test('every registered route is declared where its path says, and names its module and file', async () => {
  const routes = t.service.app.routes.all();
  assert.ok(routes.length > 50);
  const problems = routes.map((r) => placementProblem(r, MODULES)).filter((p): p is string => p !== null);
  assert.deepEqual(problems, []);
  for (const r of routes) assert.equal(r.module, /^src\/modules\/([^/]+)\//.exec(r.file!)?.[1], `${r.method} ${r.path}`);
  const { key } = await t.admin();
  const listed = await t.request('GET', '/api/developer/routes', { key });
  assert.equal(listed.status, 200);
  const walk = listed.body.items.find((i: { path: string }) => i.path === '/api/snmp/walk');
  assert.deepEqual([walk.module, walk.file], ['snmp', 'src/modules/snmp/walk/routes.ts']);
});
