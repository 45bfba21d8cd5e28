// Every module numbers its migrations inside the range MIGRATION_RANGES gives its name, so that
// forward-only per range (docs/store.md) means forward-only per module.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { coreMigrations } from '../../src/core/schema.js';
import { MIGRATION_RANGES } from '../../src/core/store/index.js';
import { MIGRATIONS } from '../../src/main.js';
import { brainModule } from '../../src/modules/brain/index.js';
import { monitorsModule } from '../../src/modules/monitors/index.js';
import { snmpModule } from '../../src/modules/snmp/index.js';
import { systemModule } from '../../src/modules/system/index.js';
import { webhooksModule } from '../../src/modules/webhooks/index.js';

const owners = [
  { name: 'core', migrations: coreMigrations },
  ...[systemModule, monitorsModule, brainModule, snmpModule, webhooksModule],
];

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
  assert.deepEqual(MIGRATIONS.map((m) => m.version).sort((a, b) => a - b), listed, 'a module in main.ts is missing here');
});
