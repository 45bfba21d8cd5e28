// The daily update check on the real service with a ManualClock, against a real git source over file://
// (test/helpers/update-repo.ts): nothing is asked before a source is set; a day after the last check the
// probe checks by itself, and a newer release raises update_available once (the next days stay quiet);
// a newer release again raises it again; update.daily_check off stops the checks. The update page's
// status shows the daily check's result as it shows a check by hand.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ManualClock } from '../../src/core/clock.js';
import { startTestApp, type TestApp } from '../helpers/harness.js';
import { makeUpdateRepo, type UpdateRepo } from '../helpers/update-repo.js';

const HOUR = 3_600_000;
let t: TestApp;
let clock: ManualClock;
let key: string;
let repo: UpdateRepo;

before(async () => {
  repo = await makeUpdateRepo();
  clock = new ManualClock(Date.parse('2026-06-01T08:00:00Z'));
  t = await startTestApp({ clock });
  key = (await t.admin()).key;
});
after(async () => { await t?.close(); await repo?.remove(); });

const get = async (path: string) => (await t.request('GET', path, { key })).body;
const setUpdate = (patch: Record<string, unknown>) => t.service.app.config.update({ update: patch } as never);
const alerts = async () => ((await get('/api/webhooks/alerts?type=update_available')).items as { alert: { title: string; details: any } }[])
  .map((r) => r.alert);

async function until(what: string, ok: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 300; i++) { if (await ok()) return; await new Promise((r) => setTimeout(r, 20)); }
  throw new Error(`timed out waiting for ${what}`);
}

test('no source: the day passes without a check', async () => {
  clock.advance(26 * HOUR);
  await new Promise((r) => setTimeout(r, 100));
  assert.equal((await get('/api/update/status')).last_check, null);
});

test('a newer release is found by the daily check and alerted once per version', async () => {
  await repo.publish('stable', { version: '0.2.0', message: 'netprobe 0.2.0' });
  await setUpdate({ source_url: repo.url, channel: 'stable' });
  clock.advance(26 * HOUR); // the timer armed at start-up: 5 to 65 minutes after it, then daily
  await until('the daily check', async () => (await get('/api/update/status')).last_check?.ok === true);
  const status = await get('/api/update/status');
  assert.equal(status.last_check.result.update_available, true);
  assert.equal(status.last_check.result.version, '0.2.0');
  assert.equal(status.source.daily_check, true);
  await until('the alert', async () => (await alerts()).length === 1);
  const [a] = await alerts();
  assert.equal(a!.title, 'netprobe 0.2.0 is available');
  assert.equal(a!.details.version, '0.2.0');

  // The next days: checked again, not alerted again.
  const first = status.last_check.at;
  clock.advance(26 * HOUR);
  await until('the next daily check', async () => (await get('/api/update/status')).last_check?.at !== first);
  await new Promise((r) => setTimeout(r, 100));
  assert.equal((await alerts()).length, 1, 'the same version is not alerted twice');

  await repo.publish('stable', { version: '0.3.0', message: 'netprobe 0.3.0' });
  clock.advance(26 * HOUR);
  await until('the alert of 0.3.0', async () => (await alerts()).length === 2);
  assert.equal((await alerts())[0]!.title, 'netprobe 0.3.0 is available');
});

test('update.daily_check off: no more checks', async () => {
  await setUpdate({ daily_check: false });
  const before = (await get('/api/update/status')).last_check.at;
  clock.advance(50 * HOUR);
  await new Promise((r) => setTimeout(r, 200));
  assert.equal((await get('/api/update/status')).last_check.at, before);
  assert.equal((await get('/api/update/status')).source.daily_check, false);
});
