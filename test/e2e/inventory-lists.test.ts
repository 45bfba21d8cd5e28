// The inventory's lists with what NetBox users expect, in Debian's Chromium against the real service: the
// endpoints list's Status and Last seen columns; a column chooser kept per user (this browser's storage, by
// user: another user keeps the defaults); CSV export of the list as filtered; CSV import checked first (a dry
// run dialog: what would be created, what refused and why), then imported; ticked records tagged and deleted
// together. Screenshots `lists-*` at 1366 and 375 px, light and dark.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  apiCaller, assertClean, assertLabelledControls, assertNoHorizontalOverflow, openPage, photograph, PHONE, screenshot, signIn,
  startSignedIn, type UiEnv, type UiPage,
} from './helpers/browser.js';

let env: UiEnv;
let p: UiPage;
let call: ReturnType<typeof apiCaller>;

before(async () => {
  ({ env, p } = await startSignedIn(async (e, admin) => {
    call = apiCaller(e, admin.key);
    const site = await call('POST', '/api/brain/sites', { name: 'Head office' });
    await call('POST', '/api/brain/endpoints', { name: 'core-sw1', ip_addresses: ['127.0.50.2'], role: 'switch', vendor: 'Cisco', model: 'C9300',
      serial_number: 'FOC-1', site_id: site.id });
    await call('POST', '/api/brain/endpoints', { name: 'web01', ip_addresses: ['127.0.50.10'], role: 'server', serial_number: 'SRV-10' });
    await call('POST', '/api/brain/endpoints', { name: 'printer-3', ip_addresses: ['127.0.50.30'], role: 'printer' });
    const mon = await call('POST', '/api/monitors', { name: 'core ping', check_type: 'tcp', target: '127.0.50.2:22', interval: 3600, timeout: 2 });
    await call('POST', `/api/monitors/${mon.id}/pause`);
  }));
});

after(async () => {
  await p?.context.close().catch(() => {});
  await env?.close();
});

const headers = async (page: UiPage['page']) =>
  (await page.getByRole('table', { name: 'Endpoints' }).locator('thead th').allTextContents()).map((t) => t.trim()).filter(Boolean);

test('the endpoints list has Status and Last seen; the column chooser is kept for this user only', async () => {
  const { page } = p;
  await page.goto('/inventory/endpoints');
  await page.getByRole('heading', { name: 'Endpoints', level: 1 }).waitFor();
  assert.deepEqual(await headers(page), ['Name', 'Addresses', 'Status', 'Last seen', 'Role', 'Vendor and model', 'Site']);
  const core = page.getByRole('row').filter({ has: page.getByRole('link', { name: 'core-sw1' }) });
  await core.getByText('Paused').waitFor();
  await core.getByText('Never seen').waitFor();
  await page.getByRole('row').filter({ has: page.getByRole('link', { name: 'web01' }) }).getByText('Not monitored').waitFor();
  await assertNoHorizontalOverflow(page, 'the endpoints list at 1366 px');

  await page.getByRole('button', { name: 'Columns' }).click();
  const menu = page.getByRole('group', { name: 'Columns shown' });
  await menu.getByLabel('Role').uncheck();
  await menu.getByLabel('Serial').check();
  assert.deepEqual(await headers(page), ['Name', 'Addresses', 'Status', 'Last seen', 'Vendor and model', 'Site', 'Serial']);
  await page.keyboard.press('Escape');
  await menu.waitFor({ state: 'detached' });
  await page.reload();
  await page.getByRole('table', { name: 'Endpoints' }).waitFor();
  assert.deepEqual(await headers(page), ['Name', 'Addresses', 'Status', 'Last seen', 'Vendor and model', 'Site', 'Serial'], 'kept');
  assertClean(p, 'the endpoints list');
  await photograph(p, '/inventory/endpoints', 'lists-endpoints', 'Endpoints');
  assertClean(p, 'the endpoints list at 375 px');

  // Another user on this browser has the defaults.
  const op = await env.t.user('operator', ['brain:write']);
  const other = await openPage(env);
  await signIn(other.page, op.username, op.password);
  await other.page.goto('/inventory/endpoints');
  await other.page.getByRole('table', { name: 'Endpoints' }).waitFor();
  assert.deepEqual(await headers(other.page), ['', 'Name', 'Addresses', 'Status', 'Last seen', 'Role', 'Vendor and model', 'Site'].filter(Boolean));
  await other.context.close();
  // The defaults come back on request.
  await page.getByRole('button', { name: 'Columns' }).click();
  await page.getByRole('button', { name: 'Default columns' }).click();
  assert.deepEqual(await headers(page), ['Name', 'Addresses', 'Status', 'Last seen', 'Role', 'Vendor and model', 'Site']);
});

test('the list goes out as CSV with its filters', async () => {
  const { page } = p;
  await page.goto('/inventory/endpoints?role=server');
  await page.getByRole('table', { name: 'Endpoints' }).waitFor();
  const href = await page.getByRole('link', { name: 'Export CSV' }).getAttribute('href');
  assert.equal(href, '/api/brain/endpoints/export.csv?role=server');
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export CSV' }).click()]);
  assert.match(download.suggestedFilename(), /^inventory-endpoints-\d{8}-\d{6}\.csv$/);
  const text = await (await page.request.get(href!)).text();
  assert.deepEqual(text.trim().split('\r\n').slice(1).map((l) => l.split(',')[2]), ['web01']);
  assertClean(p, 'the CSV export');
});

test('a CSV import is checked first: what would be created and what is refused and why; then imported', async () => {
  const { page } = p;
  await page.goto('/inventory/endpoints');
  await page.getByRole('button', { name: 'Import CSV' }).click();
  const dialog = page.getByRole('dialog', { name: 'Import endpoints from CSV' });
  await dialog.getByLabel('Or paste it').fill([
    'name,ip_addresses,role,site_id',
    'cam-1,127.0.50.41,camera,Head office',
    'cam-2,127.0.50.300,camera,',
    'cam-3,127.0.50.43,camera,Nowhere',
    'cam-4,127.0.50.44,toaster,',
    'ap-1,"127.0.50.51, 127.0.50.52",access_point,Head office',
  ].join('\n'));
  await dialog.getByRole('button', { name: 'Check the file' }).click();
  await dialog.getByRole('status').filter({ hasText: '2 would be created · 3 would be refused' }).waitFor();
  const rows = dialog.getByRole('table', { name: 'What the import would do' }).getByRole('row');
  const text = async (line: number) => (await rows.filter({ has: page.getByText(String(line), { exact: true }) }).innerText()).replace(/\s+/g, ' ');
  assert.match(await text(2), /Create EP-\d+ cam-1/);
  assert.match(await text(3), /Refused — ip_addresses\.0: Not an IPv4 or IPv6 address: 127\.0\.50\.300/);
  assert.match(await text(4), /Refused — site_id: No record in sites is named "Nowhere"/);
  assert.match(await text(5), /Refused — role: Choose one of switch/);
  assert.equal((await call('GET', '/api/brain/endpoints?q=cam-1')).total, 0, 'a check changes nothing');
  await assertLabelledControls(page, 'the import dialog');
  await page.emulateMedia({ colorScheme: 'light' });
  await screenshot(page, 'lists-import-check');
  await page.emulateMedia({ colorScheme: 'dark' });
  await screenshot(page, 'lists-import-check-dark');
  await page.setViewportSize(PHONE);
  await assertNoHorizontalOverflow(page, 'the import dialog at 375 px');
  await screenshot(page, 'lists-import-check-phone');
  await page.emulateMedia({ colorScheme: 'light' });
  await screenshot(page, 'lists-import-check-phone-light');
  await page.setViewportSize({ width: 1366, height: 900 });

  await dialog.getByRole('button', { name: 'Import 2 endpoints' }).click();
  await dialog.getByRole('status').filter({ hasText: '2 created · 3 refused' }).waitFor();
  await dialog.getByRole('table', { name: 'What the import did' }).waitFor();
  await dialog.getByRole('button', { name: 'Close' }).last().click();
  await page.getByRole('link', { name: 'ap-1' }).waitFor();
  await page.getByRole('link', { name: 'cam-1' }).waitFor();
  assert.equal((await call('GET', '/api/brain/endpoints?q=cam-')).total, 1);
  assertClean(p, 'the import');
});

test('ticked records are tagged and deleted together', async () => {
  const { page } = p;
  await page.goto('/inventory/endpoints');
  await page.getByRole('table', { name: 'Endpoints' }).waitFor();
  await page.getByLabel(/^Select EP-\d+ cam-1$/).check();
  await page.getByLabel(/^Select EP-\d+ ap-1$/).check();
  const bar = page.getByRole('region', { name: 'Selected records' });
  await bar.getByText('2 selected').waitFor();
  await bar.getByLabel('Tags to add or remove').fill('floor-2, new');
  await bar.getByRole('button', { name: 'Add tags' }).click();
  await page.getByText('Tagged 2 endpoints').waitFor();
  const ap = page.getByRole('row').filter({ has: page.getByRole('link', { name: 'ap-1' }) });
  await ap.getByText('floor-2').waitFor();
  await ap.getByText('new', { exact: true }).waitFor();
  await bar.waitFor({ state: 'detached' });

  await page.getByLabel(/^Select EP-\d+ cam-1$/).check();
  await page.getByLabel(/^Select EP-\d+ ap-1$/).check();
  await screenshot(page, 'lists-bulk');
  await bar.getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('dialog', { name: 'Delete 2 endpoints?' }).getByRole('button', { name: 'Delete 2 endpoints' }).click();
  await page.getByText('Deleted 2 endpoints').waitFor();
  await page.getByRole('link', { name: 'ap-1' }).waitFor({ state: 'detached' });
  const h = await call('GET', `/api/brain/history/endpoints/${(await call('GET', '/api/brain/resolve/EP-1')).item.id}`);
  assert.ok(h.total >= 1);
  assertClean(p, 'bulk actions');
  // Select-all ticks the page.
  await page.getByLabel('Select every record on this page').check();
  await bar.getByText(`${(await call('GET', '/api/brain/endpoints')).total} selected`).waitFor();
});
