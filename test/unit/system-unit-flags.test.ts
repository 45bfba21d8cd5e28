// systemd/netprobe.service is the one place the service's node flags are written; tests and benches read
// them from it (test/helpers/unit-node.ts). This checks that they parse, that they carry the heap limit
// sized for a 1 GB Pi, and that a node started with them has that limit.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { unitEnvironment, unitNodeFlags } from '../helpers/unit-node.js';

test('the unit runs node with a young generation of 2 MiB semi-spaces and an old generation of at most 256 MiB', () => {
  const flags = unitNodeFlags();
  assert.ok(flags.includes('--max-semi-space-size=2'), flags.join(' '));
  assert.ok(flags.includes('--max-old-space-size=256'), flags.join(' '));
  assert.equal(unitEnvironment().GLIBC_TUNABLES, 'glibc.malloc.mmap_threshold=131072');
});

test('node started with the unit\'s flags has that heap limit', () => {
  const limit = Number(execFileSync(process.execPath, [...unitNodeFlags(), '-p', 'require("v8").getHeapStatistics().heap_size_limit'],
    { encoding: 'utf8' }).trim());
  // The old generation's limit plus the young generation's (3 x 2 MiB semi-spaces and their pages).
  assert.ok(limit >= 256 * 1048576 && limit < 300 * 1048576, `heap_size_limit ${limit}`);
});
