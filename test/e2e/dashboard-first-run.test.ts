// The dashboard of a probe with no monitor yet (issue 33 §5): not an all-clear ("Nothing needs
// attention" with nothing watched) but what to do first — add a monitor, scan a subnet, send alerts to a
// webhook — and, for a viewer who may do none of it, who does. Once a monitor exists the usual health
// line is back. Photographed at 1366 and 375 px, light and dark.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  assertClean, openPage, photograph, signIn, startSignedIn, type UiEnv, type UiPage,
} from './helpers/browser.js';

let env: UiEnv;
let admin: { username: string; password: string; key: string };
let p: UiPage;

before(async () => {
  ({ env, admin, p } = await startSignedIn());
});

after(async () => {
  await p?.context.close();
  await env?.close();
});

test('with no monitor the dashboard offers the first steps instead of "Nothing needs attention"', async () => {
  const { page } = p;
  await page.goto('/');
  await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
  await page.getByRole('heading', { name: 'Nothing is being watched yet' }).waitFor();
  assert.equal(await page.getByText('Nothing needs attention').count(), 0, 'no all-clear while nothing is watched');
  assert.equal(await page.getByText(/All monitors are up/).count(), 0);
  const first = page.getByRole('link', { name: 'Add your first monitor' });
  assert.equal(await first.getAttribute('href'), '/monitors/new');
  assert.equal(await page.getByRole('link', { name: 'Run a discovery scan' }).getAttribute('href'), '/discovery');
  assert.equal(await page.getByRole('link', { name: 'Send alerts to a webhook' }).getAttribute('href'), '/webhooks');
  await page.getByRole('heading', { name: 'No monitors yet' }).waitFor();

  await photograph(p, '/', 'dashboard-first-run', 'Dashboard');

  await first.click();
  await page.getByRole('heading', { name: 'New monitor', level: 1 }).waitFor();
  assertClean(p, 'the first-run dashboard');
});

test('a viewer, who may add nothing, is told who does', async () => {
  const viewer = await env.t.user('viewer');
  const v = await openPage(env);
  try {
    await signIn(v.page, viewer.username, viewer.password);
    await v.page.getByRole('heading', { name: 'Nothing is being watched yet' }).waitFor();
    await v.page.getByText('An operator or administrator adds them').waitFor();
    assert.equal(await v.page.getByRole('link', { name: 'Add your first monitor' }).count(), 0);
    assert.equal(await v.page.getByRole('link', { name: 'Run a discovery scan' }).count(), 0);
    assertClean(v, 'the first-run dashboard of a viewer', ['GET /api/me 401']);
  } finally {
    await v.context.close();
  }
});

test('once a monitor exists, the first steps give way to the monitors\' health', async () => {
  const r = await env.t.request('POST', '/api/monitors', { key: admin.key,
    body: { name: 'The probe itself', check_type: 'http', target: `${env.url}/api/version`, interval: 30 } });
  assert.equal(r.status, 201, r.text);
  const { page } = p;
  await page.goto('/');
  await page.getByText(/All monitors are up|1 monitor is waiting for its first check/).first().waitFor();
  assert.equal(await page.getByRole('heading', { name: 'Nothing is being watched yet' }).count(), 0);
  assert.equal(await page.getByRole('link', { name: 'Add your first monitor' }).count(), 0);
  assertClean(p, 'the dashboard with a monitor');
});
