// The monitor pages in a real browser against the real service: a monitor created in the form
// against a local HTTP server goes up, then down when the server stops and up again when it returns,
// and the detail page and the list follow without a reload; the form's fields per check type and the
// API's messages beside them; pause, check now, edit with a parent, the event log and its CSV export,
// delete with confirmation. uPlot loads on the detail page only. Every page is checked for console
// errors, labelled controls and its 375 px layout, and photographed (test/e2e/screenshots/).
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import {
  assertClean, photograph, screenshot, startSignedIn, transferredBytes, type UiEnv, type UiPage,
} from './helpers/browser.js';

let env: UiEnv;
let admin: { username: string; password: string; key: string };
let p: UiPage;
let site: Server | undefined;
let sitePort = 0;

async function startSite(port = 0): Promise<void> {
  site = createServer((_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => site!.listen(port, '127.0.0.1', resolve));
  sitePort = (site.address() as AddressInfo).port;
}

async function stopSite(): Promise<void> {
  site?.closeAllConnections();
  await new Promise((resolve) => site?.close(resolve));
  site = undefined;
}

before(async () => {
  ({ env, admin, p } = await startSignedIn(() => startSite()));
});

after(async () => {
  await p?.context.close();
  await stopSite();
  await env?.close();
});


const hero = () => p.page.getByRole('region', { name: 'Current status' });

test('the monitor list loads without uPlot, and the first load stays under 150 KB', async () => {
  const context = await env.browser.newContext({ baseURL: env.url });
  const [name, value] = (await env.t.login(admin.username, admin.password)).split('=');
  await context.addCookies([{ name: name!, value: value!, url: env.url }]);
  const page = await context.newPage();
  await page.goto('/monitors');
  await page.getByRole('heading', { name: 'Monitors', level: 1 }).waitFor();
  await page.getByText('No monitors yet').waitFor();
  await page.waitForLoadState('networkidle');
  const t = await transferredBytes(page);
  console.log(`first load of /monitors: ${t.items.length} responses, ${t.total} bytes of compressed bodies`);
  assert.ok(t.total < 150 * 1024, `transferred ${t.total} bytes`);
  assert.equal(t.items.filter((i) => i.url.includes('uplot')).length, 0, 'uPlot is not loaded by the list');
  await context.close();
});

test('a monitor created in the form goes up, down when its server stops and up again, live', async () => {
  const { page } = p;
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Monitors' }).click();
  await page.getByRole('heading', { name: 'Monitors', level: 1 }).waitFor();
  await page.getByText('No monitors yet').waitFor();
  await photograph(p, '/monitors', 'monitors-empty', 'Monitors');

  await page.getByRole('link', { name: 'New monitor' }).first().click();
  await page.getByRole('heading', { name: 'New monitor', level: 1 }).waitFor();
  // Each check type brings its own fields.
  await page.getByText('Ping', { exact: true }).click();
  await page.getByLabel('Packets per check').waitFor();
  await page.getByLabel('Degraded above loss (%)').waitFor();
  await page.getByText('TCP port', { exact: true }).click();
  await page.getByLabel('Host and port').waitFor();
  await page.getByLabel('Complete a TLS handshake').check();
  await page.getByLabel('Server name (SNI)').waitFor();
  await page.getByText('DNS', { exact: true }).click();
  await page.getByLabel('Record type').waitFor();
  assert.equal(await page.getByLabel('Packets per check').count(), 0);
  await page.getByText('HTTP(S)', { exact: true }).click();
  await page.getByLabel('Authentication').selectOption('basic');
  await page.getByLabel('Password').waitFor();
  await page.getByLabel('Authentication').selectOption('');

  await page.getByLabel('Name', { exact: true }).fill('Intranet portal');
  await page.getByLabel('URL').fill('ftp://127.0.0.1/');
  await page.getByLabel('Check every (seconds)').fill('5');
  await page.getByLabel('Timeout (seconds)').fill('9');
  await page.getByLabel('Failures before down').fill('1');
  await page.getByLabel('Tags').fill('lab');
  await page.keyboard.press('Enter');
  await page.getByRole('button', { name: 'Remove lab' }).waitFor();
  await page.getByLabel('Tags').fill('web,');
  await page.getByRole('button', { name: 'Remove web' }).waitFor();
  await page.getByRole('button', { name: 'Create monitor' }).click();
  // The API's messages appear beside the fields they name.
  await page.locator('.field', { has: page.getByLabel('URL') }).locator('.field-error', { hasText: 'http:// or https://' }).waitFor();
  await page.locator('.field', { has: page.getByLabel('Timeout (seconds)') }).locator('.field-error').waitFor();
  await screenshot(page, 'monitor-form-errors');

  await page.getByLabel('URL').fill(`http://127.0.0.1:${sitePort}/health`);
  await page.getByLabel('Timeout (seconds)').fill('2');
  await page.getByRole('button', { name: 'Create monitor' }).click();
  await page.getByRole('heading', { name: 'Intranet portal', level: 1 }).waitFor();
  const id = new URL(page.url()).pathname.split('/').pop()!;
  const stored = await env.t.request('GET', `/api/monitors/${id}`, { key: admin.key });
  assert.equal(stored.status, 200);
  assert.deepEqual([stored.body.check_type, stored.body.interval, stored.body.timeout, stored.body.failure_threshold, stored.body.tags],
    ['http', 5, 2, 1, ['lab', 'web']]);

  await hero().getByText('Answering normally').waitFor({ timeout: 30_000 });
  // The chart draws once the first results are in; uPlot was loaded for this page.
  await page.locator('.chart canvas').first().waitFor({ timeout: 30_000 });
  const loaded = await transferredBytes(page);
  assert.ok(loaded.items.some((i) => i.url.includes('/vendor/uplot@')), 'uPlot is loaded on the detail page');

  // The server stops: the page follows without a reload.
  assert.equal(await page.evaluate(() => ((window as any).__noReload = true)), true);
  await stopSite();
  await hero().getByText('Not answering').waitFor({ timeout: 30_000 });
  await hero().getByText('Down for').waitFor();
  const incidents = page.locator('.card', { has: page.getByRole('heading', { name: 'Incidents' }) });
  await incidents.getByText('Ongoing').waitFor({ timeout: 30_000 });
  // Time-weighted: a few seconds down mark the hour with a notch (a red hour needs most of it down).
  await page.locator('.sbar-down, .sbar-blip-down').first().waitFor({ timeout: 30_000 });
  assert.equal(await page.evaluate(() => (window as any).__noReload), true, 'the page was not reloaded');
  await photograph(p, `/monitors/${id}`, 'monitor-detail-down', 'Intranet portal');

  // The list shows it down, and follows it back up when the server returns.
  await page.getByRole('link', { name: 'Monitors', exact: true }).first().click();
  await page.getByRole('heading', { name: 'Monitors', level: 1 }).waitFor();
  const row = page.getByRole('row', { name: /Intranet portal/ });
  await row.locator('.status-down').waitFor();
  await row.getByRole('img', { name: /Last 24 hours: down/ }).waitFor({ timeout: 30_000 });
  await page.evaluate(() => ((window as any).__noReload = true));
  await startSite(sitePort);
  await row.locator('.status-up').waitFor({ timeout: 30_000 });
  assert.equal(await page.evaluate(() => (window as any).__noReload), true, 'the list was not reloaded');
  assertClean(p, 'the monitor going up and down', ['POST /api/monitors 400']);
});

test('filters, pause, check now, edit with a parent, event log with CSV export, delete', async () => {
  const { page } = p;
  const gw = await env.t.request('POST', '/api/monitors', { key: admin.key,
    body: { name: 'Gateway ping', check_type: 'tcp', target: `127.0.0.1:${sitePort}`, interval: 30, timeout: 2, tags: ['core'] } });
  assert.equal(gw.status, 201, gw.text);
  await page.goto('/monitors');
  const portal = page.getByRole('row', { name: /Intranet portal/ });
  const gateway = page.getByRole('row', { name: /Gateway ping/ });
  await gateway.waitFor();

  // Search, tag and status filters, kept in the address.
  await page.getByLabel('Search monitors').fill('intranet');
  await gateway.waitFor({ state: 'detached' });
  await portal.waitFor();
  await page.getByLabel('Search monitors').fill('');
  await page.getByLabel('Tag').selectOption('core');
  await portal.waitFor({ state: 'detached' });
  assert.match(page.url(), /tag=core/);
  await page.getByLabel('Tag').selectOption('');
  await page.getByLabel('Search monitors').fill('no such monitor');
  await page.getByText('No monitor matches').waitFor();
  await page.getByRole('button', { name: 'Clear filters' }).click();
  await portal.waitFor();

  // Pause and resume from the row.
  await gateway.locator('.status-up').waitFor({ timeout: 30_000 });
  await gateway.getByRole('button', { name: 'Pause Gateway ping' }).click();
  await page.getByText('Paused Gateway ping').waitFor();
  await gateway.locator('.status-paused').waitFor();
  await page.getByRole('group', { name: 'Status' }).getByRole('button', { name: /Paused/ }).click();
  await portal.waitFor({ state: 'detached' });
  assert.match(page.url(), /status=paused/);
  await photograph(p, '/monitors?status=paused', 'monitors-filtered', 'Monitors');
  await gateway.getByRole('button', { name: 'Resume Gateway ping' }).click();
  await page.getByText('No monitor matches').waitFor();
  await page.getByRole('group', { name: 'Status' }).getByRole('button', { name: /All/ }).click();
  await gateway.locator('.status-up').waitFor({ timeout: 30_000 });
  await photograph(p, '/monitors', 'monitors', 'Monitors');

  // Check now on the monitor's page.
  await portal.getByRole('link', { name: 'Intranet portal', exact: true }).click();
  await page.getByRole('heading', { name: 'Intranet portal', level: 1 }).waitFor();
  await page.getByRole('button', { name: 'Check now' }).click();
  await page.locator('.toast', { hasText: 'Intranet portal: Up' }).waitFor();
  await page.getByRole('group', { name: 'Time range' }).getByRole('button', { name: '6 h' }).click();
  assert.match(page.url(), /range=6h/);
  await page.locator('.chart canvas').first().waitFor();
  await photograph(p, page.url().replace(env.url, ''), 'monitor-detail', 'Intranet portal');

  // Edit: a new name and the gateway as parent; the stored password of basic auth is never shown.
  await page.getByRole('link', { name: 'Edit' }).click();
  await page.getByRole('heading', { name: 'Edit Intranet portal', level: 1 }).waitFor();
  await page.getByLabel('Name', { exact: true }).fill('Intranet');
  await page.getByLabel('Parent monitors').selectOption({ label: 'Gateway ping' });
  await page.getByRole('button', { name: 'Remove Gateway ping' }).waitFor();
  await page.getByLabel('Authentication').selectOption('basic');
  await page.getByLabel('User name').fill('probe');
  await page.getByLabel('Password').fill('pa55-monitor-secret');
  await photograph(p, page.url().replace(env.url, ''), 'monitor-form', 'Edit Intranet portal');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.getByRole('heading', { name: 'Intranet', exact: true, level: 1 }).waitFor();
  const config = page.locator('.card', { has: page.getByRole('heading', { name: 'Configuration' }) });
  await config.getByRole('link', { name: 'Gateway ping' }).waitFor();
  await config.getByText('basic authentication').waitFor();
  await page.getByRole('link', { name: 'Edit' }).click();
  await page.getByLabel('Password').waitFor();
  assert.equal(await page.getByLabel('Password').inputValue(), '');
  assert.equal(await page.getByLabel('Password').getAttribute('placeholder'), 'Stored — type to replace');
  assert.ok(!(await page.content()).includes('pa55-monitor-secret'), 'the stored password is not in the page');
  // Saving without touching the password keeps it.
  await page.getByLabel('Check every (seconds)').fill('6');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.getByRole('heading', { name: 'Intranet', exact: true, level: 1 }).waitFor();
  const edited = await env.t.request('GET', page.url().replace(env.url, '/api'), { key: admin.key });
  assert.equal(edited.body.interval, 6);
  assert.deepEqual(edited.body.settings.auth, { type: 'basic', username: 'probe', password: { set: true } });

  // The event log, filtered to this monitor, and its CSV export with the same filter.
  await page.getByRole('link', { name: 'All', exact: true }).click();
  await page.getByRole('heading', { name: 'Monitors', level: 1 }).waitFor();
  await page.getByRole('navigation', { name: 'Monitor views' }).getByRole('link', { name: 'Event log' }).waitFor();
  assert.match(page.url(), /monitor_id=/);
  await page.getByRole('cell', { name: 'Incident opened' }).first().waitFor();
  await page.getByLabel('Event').selectOption('status_change');
  await page.getByRole('cell', { name: 'Incident opened' }).first().waitFor({ state: 'detached' });
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export CSV' }).click()]);
  assert.match(download.suggestedFilename(), /^monitor-events-\d{8}-\d{6}\.csv$/);
  const csv = await readFile((await download.path())!, 'utf8');
  const lines = csv.trim().split('\r\n');
  assert.equal(lines[0], 'id,time,kind,monitor_id,monitor_name,from_status,to_status,message,actor,details');
  assert.ok(lines.length > 2 && lines.slice(1).every((l) => l.split(',')[2] === 'status_change'), csv);
  await page.getByLabel('Event').selectOption('');
  await photograph(p, page.url().replace(env.url, ''), 'monitor-events', 'Monitors');

  // Delete, after confirming.
  await page.goto(`/monitors/${gw.body.id}`);
  await page.getByRole('heading', { name: 'Gateway ping', level: 1 }).waitFor();
  await page.getByRole('button', { name: 'Delete Gateway ping' }).click();
  const dialog = page.getByRole('dialog', { name: 'Delete Gateway ping?' });
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await dialog.waitFor({ state: 'detached' });
  await page.getByRole('button', { name: 'Delete Gateway ping' }).click();
  await dialog.getByRole('button', { name: 'Delete monitor' }).click();
  await page.getByRole('heading', { name: 'Monitors', level: 1 }).waitFor();
  await page.getByText('Deleted Gateway ping').waitFor();
  assert.equal(await page.getByRole('row', { name: /Gateway ping/ }).count(), 0);
  assert.equal((await env.t.request('GET', `/api/monitors/${gw.body.id}`, { key: admin.key })).status, 404);
  // Requests of the deleted monitor's page still under way when it went away may be refused.
  const gone = ['', '/results', '/incidents'].map((x) => `GET /api/monitors/${gw.body.id}${x} 404`);
  assertClean(p, 'the monitor pages', gone);
});
