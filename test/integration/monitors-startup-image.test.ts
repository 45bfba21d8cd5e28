// The monitors' start-up image (docs/monitors.md, "Start-up image"), through the real service on real
// files: a start from the image shows exactly what a start reading the whole channel shows (after a stop,
// and after a crash that left entries after the image), and an image that no longer fits the database is
// refused for a whole read: damaged, a database restored from before it, results deleted after it, a
// longer retention, an image older than retention, a crash between recording its id and renaming the file
// into place.
import assert from 'node:assert/strict';
import { cp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { monitorsRetentionOf } from '../../src/modules/monitors/index.js';
import { MONITOR_SERIES } from '../../src/modules/monitors/service.js';
import {
  checked, hoursWritten, life, monitorsView as view, okServer, svcOf, tempDir, wholeRead, type Admin, type Life,
} from '../helpers/monitors-life.js';

const IMAGE_FILE = MONITOR_SERIES.imageFile;

const MIN = 60_000;
const HOUR = 60 * MIN;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

let web: { url: string; close(): void };
let url: string;
before(async () => { web = await okServer(); url = web.url; });
after(() => web.close());

/**
 * Five monitors over two hours (two hours closed into rollups, a checkpoint between): up, down with an
 * incident, paused, deleted, and one with a manual check whose failure left it failing below its threshold.
 */
async function history(dir: string, t0: number): Promise<Life & { admin: Admin; ids: string[] }> {
  const a = await life(dir, t0);
  const mk = async (body: Record<string, unknown>) =>
    (await a.api('POST', '/api/monitors', { interval: 60, timeout: 2, ...body })).id as string;
  const up = await mk({ name: 'up', check_type: 'http', target: url });
  const down = await mk({ name: 'down', check_type: 'tcp', target: '127.0.0.1:9', failure_threshold: 2 });
  const paused = await mk({ name: 'paused', check_type: 'http', target: url });
  const gone = await mk({ name: 'gone', check_type: 'http', target: url });
  const flaky = await mk({ name: 'flaky', check_type: 'http', target: url, failure_threshold: 3 });
  const ids = [up, down, paused, gone, flaky];
  // Moves the clock and waits until no check runs (how many each got does not matter: both starts read the same files).
  const all = async (ms: number) => {
    a.clock.advance(ms);
    for (let i = 0; i < 500; i++) {
      await sleep(5);
      if (svcOf(a).scheduler.stats().running === 0) return;
    }
    throw new Error('checks still running');
  };
  await all(0);
  for (let i = 0; i < 70; i++) {
    await all(MIN);
    if (i === 20) await a.t.service.app.store.checkpoint(); // the results so far into a segment
    if (i === 30) await a.api('POST', `/api/monitors/${paused}/pause`);
    if (i === 40) await a.api('DELETE', `/api/monitors/${gone}`);
    if (i === 50) {
      await a.api('PUT', `/api/monitors/${flaky}`, { target: '127.0.0.1:9', check_type: 'tcp' }); // checked at once
      await all(0);
      await a.api('POST', `/api/monitors/${flaky}/check`); // manual
    }
  }
  // Let the hour closer write what is due (it runs a little after each hour).
  for (let i = 0; i < 300 && svcOf(a).storage.closer.watermark * HOUR < Math.floor(a.clock.now() / HOUR) * HOUR; i++) await sleep(10);
  return { ...a, ids };
}

test('a start from the image after a stop shows what reading the whole channel shows, and reads no entry', async (t) => {
  const dir = await tempDir('startup-image');
  t.after(() => rm(dir, { recursive: true, force: true }));
  const t0 = Date.parse('2026-04-01T09:20:00Z');
  const a = await history(dir, t0);
  assert.ok(svcOf(a).storage.closer.watermark * HOUR > t0, 'an hour was closed into rollups');
  const end = a.clock.now();
  await a.t.close({ keepData: true }); // writes the image
  assert.ok((await readdir(dir)).includes(IMAGE_FILE));

  const at = end + 30_000;
  const b = await life(dir, at, a.admin);
  let got: unknown;
  try {
    assert.match(svcOf(b).storage.startup.image, /^used/);
    assert.equal(svcOf(b).storage.startup.entries, 0, 'the image held everything');
    got = await view(b);
  } finally {
    await b.t.close({ keepData: true });
  }
  assert.deepEqual(got, await wholeRead(dir, at, a.admin));
});

test('after a crash, the image and the entries committed after it show what reading the whole channel shows', async (t) => {
  const dir = await tempDir('startup-image');
  const crashed = await tempDir('startup-image');
  t.after(async () => { for (const d of [dir, crashed]) await rm(d, { recursive: true, force: true }); });
  const a = await history(dir, Date.parse('2026-04-02T09:40:00Z'));
  await svcOf(a).storage.images.write('interval');
  const [up, down] = a.ids;
  const n = (await a.api('GET', `/api/monitors/${up}/results?limit=1`)).total as number;
  await checked(a, up!, MIN, n + 1); // after the image: in the journal
  await a.api('POST', `/api/monitors/${down}/pause`);
  await a.t.service.app.store.flush();
  await cp(dir, crashed, { recursive: true }); // what a kill leaves
  const at = a.clock.now() + 10_000;
  await a.t.close({ keepData: true });

  const b = await life(crashed, at, a.admin);
  let got: any;
  try {
    assert.match(svcOf(b).storage.startup.image, /^used/);
    assert.ok(svcOf(b).storage.startup.entries >= 2, 'the entries after the image were read');
    got = await view(b);
  } finally {
    await b.t.close({ keepData: true });
  }
  assert.equal(got[up!].results.total, n + 1, 'the result after the image');
  assert.equal(got[down!].monitor.status, 'paused', 'the pause after the image');
  assert.deepEqual(got, await wholeRead(crashed, at, a.admin));
});

test('an image that no longer fits the database is not used, and the whole channel is read instead', async (t) => {
  const dir = await tempDir('startup-image');
  const copies: string[] = [];
  t.after(async () => { for (const d of [dir, ...copies]) await rm(d, { recursive: true, force: true }); });
  const a = await history(dir, Date.parse('2026-04-03T09:50:00Z'));
  const admin = a.admin;
  // The database as a backup would hold it before the image: the image's id is not in it.
  const backup = await tempDir('startup-image');
  copies.push(backup);
  await a.t.service.app.store.flush();
  await cp(dir, backup, { recursive: true });
  await svcOf(a).storage.images.write('interval');
  const firstImage = await readFile(join(dir, IMAGE_FILE));
  await svcOf(a).storage.images.write('interval');
  const end = a.clock.now();
  await a.t.close({ keepData: true });

  /** A copy of the directory, changed by `change`, started: what start-up said of the image. */
  const startOn = async (change: (copy: string) => Promise<void>, config?: string, at = end + 60_000) => {
    const copy = await tempDir('startup-image');
    copies.push(copy);
    await cp(dir, copy, { recursive: true });
    await change(copy);
    if (config) await writeFile(join(copy, 'config.yaml'), config);
    const l = await life(copy, at, admin);
    try {
      const said = svcOf(l).storage.startup.image;
      const got = await view(l);
      await rm(join(copy, IMAGE_FILE), { force: true });
      return { said, got };
    } finally {
      await l.t.close({ keepData: true });
    }
  };
  const whole = await wholeRead(dir, end + 60_000, admin);

  const damaged = await startOn(async (copy) => {
    const f = join(copy, IMAGE_FILE);
    const b = await readFile(f);
    b[b.length - 10]! ^= 0xff;
    await writeFile(f, b);
  });
  assert.equal(damaged.said, 'not used: damaged (length or checksum)');
  assert.deepEqual(damaged.got, whole);

  // A crash after the second image's id was recorded, before its file replaced the first one (the temp
  // file it was writing is left over, and removed).
  let leftover = '';
  const older = await startOn(async (copy) => {
    await writeFile(join(copy, IMAGE_FILE), firstImage);
    leftover = join(copy, `.${IMAGE_FILE}.1234.abcdef.tmp`);
    await writeFile(leftover, firstImage.subarray(0, 1000));
  });
  await assert.rejects(readFile(leftover), { code: 'ENOENT' });
  assert.match(older.said, /^not used: the database does not hold its id/);
  assert.deepEqual(older.got, whole);

  // The database put back from the backup (as a failed update's rollback does): older than the image.
  const restored = await startOn(async (copy) => {
    for (const f of ['netprobe.db', 'netprobe.journal']) await cp(join(backup, f), join(copy, f));
  });
  assert.match(restored.said, /^not used: the database does not hold its id/);

  const longer = await startOn(async () => undefined, 'monitors:\n  raw_retention_hours: 48\n');
  assert.equal(longer.said, 'not used: it kept 24 h of results, the configuration now asks 48 h');

  const late = await startOn(async () => undefined, undefined, end + 25 * HOUR);
  assert.equal(late.said, 'not used: it is older than 24 h');
});

test('retention that deletes segments after the image makes it unusable; a stop writes a new one that is used', async (t) => {
  const dir = await tempDir('startup-image');
  const copy = await tempDir('startup-image');
  t.after(async () => { for (const d of [dir, copy]) await rm(d, { recursive: true, force: true }); });
  // Only the image written here (the clock moves a day: images every few hours would come after retention).
  await writeFile(join(dir, 'config.yaml'), 'monitors:\n  startup_image_hours: 0\n');
  const a = await history(dir, Date.parse('2026-04-04T09:50:00Z'));
  let aOpen = true;
  t.after(async () => { if (aOpen) await a.t.close(); }); // a failed assertion must not leave the service running
  await svcOf(a).storage.images.write('interval');
  const [up] = a.ids;
  const n = (await a.api('GET', `/api/monitors/${up}/results?limit=1`)).total as number;
  await checked(a, up!, MIN, n + 1);
  await a.t.service.app.store.checkpoint(); // a segment with entries after the image
  for (const id of [a.ids[0], a.ids[1], a.ids[4]]) await a.api('POST', `/api/monitors/${id}/pause`); // no more checks
  a.clock.advance(26 * HOUR);
  await hoursWritten(a.t.service.app);
  const retention = monitorsRetentionOf(a.t.service.app)!;
  await retention.runOnce();
  await retention.runOnce();
  assert.ok(!(await readdir(dir)).some((f) => f.endsWith('.seg')), 'every segment went');
  await a.t.service.app.store.flush();
  await cp(dir, copy, { recursive: true }); // a crash: the image is the one from before retention
  const at = a.clock.now() + 10_000;
  aOpen = false;
  await a.t.close({ keepData: true });

  const b = await life(copy, at, a.admin);
  try {
    assert.equal(svcOf(b).storage.startup.image, 'not used: check results after it were deleted');
  } finally {
    await b.t.close({ keepData: true });
  }
  const c = await life(copy, at + 10_000, a.admin);
  try {
    assert.match(svcOf(c).storage.startup.image, /^used/, 'the stop wrote a new image');
  } finally {
    await c.t.close({ keepData: true });
  }
});

test('an image comes every startup_image_hours, none at 0, and a change of the setting applies at once', async (t) => {
  const dir = await tempDir('startup-image');
  t.after(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'config.yaml'), 'monitors:\n  startup_image_hours: 0\n');
  const a = await life(dir, Date.parse('2026-04-05T10:00:00Z'));
  const written = () => readFile(join(dir, IMAGE_FILE)).then(() => true, () => false);
  try {
    a.clock.advance(7 * HOUR);
    await sleep(100);
    assert.equal(await written(), false, 'none while the setting is 0');
    await a.t.service.app.config.update({ monitors: { startup_image_hours: 2 } });
    a.clock.advance(2 * HOUR - 1000);
    await sleep(100);
    assert.equal(await written(), false, 'not before 2 hours');
    a.clock.advance(1000);
    for (let i = 0; i < 100 && !(await written()); i++) await sleep(20);
    assert.equal(await written(), true, '2 hours after the change');
  } finally {
    await a.t.close();
  }
});
