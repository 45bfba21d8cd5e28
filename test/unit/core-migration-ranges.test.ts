// Every module numbers its migrations inside the range MIGRATION_RANGES gives its name, so that
// forward-only per range (docs/store.md) means forward-only per module.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { coreMigrations } from '../../src/core/schema.js';
import { MIGRATION_RANGES } from '../../src/core/store/index.js';
import { MIGRATIONS, MODULES } from '../../src/main.js';

// Every module the service registers (a new one is checked as soon as main.ts lists it).
const owners = [{ name: 'core', migrations: coreMigrations }, ...MODULES];

test('each module has a range, and its migrations lie inside it', () => {
  for (const m of owners) {
    const r = MIGRATION_RANGES.find((x) => x.module === m.name);
    assert.ok(r, `module ${m.name} has no migration range in MIGRATION_RANGES`);
    for (const mig of m.migrations) {
      const inside = mig.version >= r.from && mig.version <= r.to;
      assert.ok(inside, `${m.name} migration ${mig.version} (${mig.name}) is outside ${r.from}-${r.to}`);
    }
  }
});

test('the service applies exactly these modules\' migrations', () => {
  const listed = owners.flatMap((m) => m.migrations.map((x) => x.version)).sort((a, b) => a - b);
  assert.deepEqual(MIGRATIONS.map((m) => m.version).sort((a, b) => a - b), listed, 'MIGRATIONS holds exactly the core\'s and the modules\' migrations');
});
