// A full data partition, for real: the data directory is a small tmpfs that the test fills up. Writes
// must answer 507 storage_full with a detail a person can act on (not a 500), reads keep working,
// nothing acknowledged is lost, the store reports it, and writes come back once space is freed.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, rmdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { assertProblem, startTestApp, type TestApp } from '../helpers/harness.js';

const mountPoint = await mkdtemp(join(tmpdir(), 'netprobe-full-'));
let mounted = false;
try {
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=24m,mode=0700', 'netprobe-test', mountPoint], { stdio: 'ignore' });
  mounted = true;
} catch { /* not root, or no mount namespace privilege: the tests below skip and say why */ }
const skip = mounted ? false : 'mounting a small tmpfs needs root (mount -t tmpfs); run the suite as root to test a full disk';

let t: TestApp;
let key: string;
const filler = join(mountPoint, 'filler');

before(async () => {
  if (!mounted) return;
  t = await startTestApp({ dataDir: join(mountPoint, 'data') });
  key = (await t.admin()).key;
});
after(async () => {
  if (mounted) {
    await t?.close({ keepData: true }).catch(() => undefined);
    execFileSync('umount', ['-l', mountPoint]);
  }
  await rmdir(mountPoint).catch(() => undefined);
});

/** Fills the file system to the last byte (dd stops with ENOSPC). */
function fillDisk(): void {
  try {
    execFileSync('dd', ['if=/dev/zero', `of=${filler}`, 'bs=64k'], { stdio: 'ignore' });
  } catch { /* dd exits 1 on ENOSPC, which is the point */ }
}

const monitor = (name: string) => ({ name, check_type: 'tcp', target: '127.0.0.1:9', interval: 3600 });

test('a full disk answers writes with 507 storage_full, keeps reads and acknowledged data, and recovers', { skip }, async () => {
  const before = await t.request('POST', '/api/monitors', { key, body: monitor('before-full') });
  assert.equal(before.status, 201, before.text);
  fillDisk();

  // A journal record is a few hundred bytes: the first ones may still fit in the file's last, partly
  // used page. Those are acknowledged and must survive; within a few pages' worth, writes are refused.
  const acknowledged = ['before-full'];
  let full = await t.request('POST', '/api/monitors', { key, body: monitor('while-full-0') });
  for (let i = 1; i < 100 && full.status === 201; i++) {
    acknowledged.push(`while-full-${i - 1}`);
    full = await t.request('POST', '/api/monitors', { key, body: monitor(`while-full-${i}`) });
  }
  assertProblem(full, 507);
  assert.equal(full.body.code, 'storage_full');
  assert.match(full.body.detail, /storage is full.*Free space/);
  // Later writes are refused the same way until the journal can be written again.
  const again = await t.request('POST', '/api/monitors', { key, body: monitor('still-full') });
  assertProblem(again, 507);
  assert.equal(t.service.app.store.stats().io_error?.code, 'ENOSPC');

  const list = await t.request('GET', '/api/monitors', { key });
  assert.equal(list.status, 200);
  assert.ok(list.body.monitors.some((m: { name: string }) => m.name === 'before-full'));

  await rm(filler);
  // The first write after space returns starts the recovery checkpoint and may still be refused.
  let after = await t.request('POST', '/api/monitors', { key, body: monitor('after-full') });
  for (let i = 0; i < 50 && after.status === 507; i++) {
    await new Promise((r) => setTimeout(r, 100));
    after = await t.request('POST', '/api/monitors', { key, body: monitor('after-full') });
  }
  assert.equal(after.status, 201, after.text);
  assert.equal(t.service.app.store.stats().io_error, null);

  // What was acknowledged survives a restart from the disk.
  const dataDir = t.dataDir;
  await t.close({ keepData: true });
  t = await startTestApp({ dataDir });
  const names = (await t.request('GET', '/api/monitors', { key })).body.monitors.map((m: { name: string }) => m.name);
  for (const name of [...acknowledged, 'after-full']) assert.ok(names.includes(name), `${name} is lost: ${JSON.stringify(names)}`);
});
