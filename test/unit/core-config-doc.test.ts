// docs/configuration.md is generated from the schemas; a key added, removed or changed without
// regenerating it (npx tsx scripts/config-doc.ts) fails here.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { configSchema } from '../../src/core/config/index.js';
import { renderConfigDoc } from '../../src/core/config/docs.js';
import { configSections } from '../../src/main.js';

test('docs/configuration.md is what the schemas say', () => {
  const doc = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
  assert.equal(doc, renderConfigDoc(configSchema(configSections())), 'stale: run npx tsx scripts/config-doc.ts');
});

test('every section, core and module, is in the document with each of its keys', () => {
  const doc = renderConfigDoc(configSchema(configSections()));
  for (const key of ['server.port', 'http.request_timeout_seconds', 'snmp.timeout_ms', 'webhooks.max_attempts', 'monitors.raw_retention_hours']) {
    assert.match(doc, new RegExp(`\\| \`${key.replace('.', '\\.')}\` \\|`), key);
  }
});
