// Modules register after what they need (Module.needs), and a missing module is a loud start-up error,
// not an undefined service found at the first request.
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { test } from 'node:test';
import type { AppContext, Module } from '../../src/core/context.js';
import { orderModules, serviceSlot } from '../../src/core/modules.js';
import { MODULES } from '../../src/main.js';

const mod = (name: string, needs?: string[]): Module => ({ name, needs, migrations: [], register: () => undefined });
const names = (ms: Module[]) => ms.map((m) => m.name);

test('modules are ordered after what they need, keeping the given order otherwise', () => {
  assert.deepEqual(names(orderModules([mod('webhooks', ['monitors']), mod('system'), mod('monitors')])), ['monitors', 'webhooks', 'system']);
  assert.deepEqual(names(orderModules([mod('a'), mod('b'), mod('c')])), ['a', 'b', 'c']);
  assert.throws(() => orderModules([mod('snmp', ['brain'])]), /module snmp needs module brain, which is not registered/);
  assert.throws(() => orderModules([mod('a', ['b']), mod('b', ['a'])]), /loop: a -> b -> a/);
});

test("the service's modules: every need is registered before the module that needs it", () => {
  const seen = new Set<string>();
  for (const m of MODULES) {
    for (const need of m.needs ?? []) assert.ok(seen.has(need), `${m.name} needs ${need}`);
    seen.add(m.name);
  }
});

test('a service slot hands out what its module set, and throws naming the module otherwise', () => {
  const slot = serviceSlot<{ n: number }>('brain', 'The inventory');
  const app = {} as AppContext;
  assert.throws(() => slot.of(app), /The inventory is not available: the brain module is not registered/);
  slot.set(app, { n: 1 });
  assert.deepEqual(slot.of(app), { n: 1 });
  assert.throws(() => slot.of({} as AppContext), /brain module/);
});

test('a service slot finds nothing, without throwing, for a module that is only used', () => {
  const slot = serviceSlot<{ n: number }>('v1sion', 'Discovery');
  const app = {} as AppContext;
  assert.equal(slot.find(app), undefined);
  slot.set(app, { n: 2 });
  assert.deepEqual(slot.find(app), { n: 2 });
});

// Every module another one imports at run time (not `import type`) is declared in its needs or uses,
// so the module list says what depends on what.
test("the service's modules declare every module they import in needs or uses", async () => {
  const root = join(import.meta.dirname, '../../src/modules');
  const names = new Set(MODULES.map((m) => m.name));
  const undeclared: string[] = [];
  for (const m of MODULES) {
    const declared = new Set([...(m.needs ?? []), ...(m.uses ?? [])]);
    const dir = join(root, m.name);
    for (const file of (await readdir(dir, { recursive: true })).filter((f) => f.endsWith('.ts'))) {
      const text = await readFile(join(dir, file), 'utf8');
      for (const [, spec] of text.matchAll(/^import\s+(?!type\b)[^;]*?\bfrom\s+'(\.[^']*)'/gm)) {
        const [other] = relative(root, resolve(dirname(join(dir, file)), spec!)).split(sep);
        if (other && other !== m.name && names.has(other) && !declared.has(other)) undeclared.push(`${m.name}/${file} imports ${other}`);
      }
    }
  }
  assert.deepEqual(undeclared, []);
});
