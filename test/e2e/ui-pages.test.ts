// The signed-in pages in a real browser: the dashboard following monitor states without a reload,
// a webhook created against a local receiver and tested, an API key shown once, users and the audit
// log. Every page is checked for console errors and for its 375 px layout, and photographed in the
// light and dark themes (test/e2e/screenshots/).
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { startSimulator } from '../helpers/snmp-sim.js';
import { Receiver } from '../helpers/webhook-receiver.js';
import {
  assertClean, photograph, screenshot, startSignedIn, transferredBytes, type UiEnv, type UiPage,
} from './helpers/browser.js';

let env: UiEnv;
let admin: { username: string; password: string; key: string };
let p: UiPage;
let receiver: Receiver;
let site: Server;
let siteUrl: string;

before(async () => {
  ({ env, admin, p } = await startSignedIn(async () => {
    receiver = await Receiver.start();
    site = createServer((_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;
  }));
});

after(async () => {
  await p?.context.close();
  await receiver?.close();
  site?.closeAllConnections();
  await new Promise((resolve) => site?.close(resolve));
  await env.close();
});

async function createMonitor(body: Record<string, unknown>): Promise<string> {
  const r = await env.t.request('POST', '/api/monitors', { key: admin.key, body: { interval: 5, timeout: 2, failure_threshold: 1, ...body } });
  assert.equal(r.status, 201, r.text);
  return r.body.id;
}


test('first load of the dashboard when signed in: under 150 KB compressed; Tab reaches the skip link first', async () => {
  const context = await env.browser.newContext({ baseURL: env.url });
  const [name, value] = (await env.t.login(admin.username, admin.password)).split('=');
  await context.addCookies([{ name: name!, value: value!, url: env.url }]);
  const page = await context.newPage();
  await page.goto('/');
  await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
  await page.waitForLoadState('networkidle');
  const t = await transferredBytes(page);
  console.log(`first load of the dashboard: ${t.items.length} responses, ${t.total} bytes of compressed bodies`);
  assert.ok(t.total < 150 * 1024, `transferred ${t.total} bytes`);
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Skip to content');
  await page.keyboard.press('Enter');
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'main');
  await context.close();
});

test('the dashboard shows monitor states and follows a monitor going down without a reload', async () => {
  const { page } = p;
  await createMonitor({ name: 'Intranet portal', check_type: 'http', target: siteUrl, tags: ['web'] });
  await createMonitor({ name: 'Core switch SSH', check_type: 'tcp', target: siteUrl.replace(/^http:\/\//, '').replace(/\/$/, '') });
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const closedPort = (closed.address() as AddressInfo).port;
  await new Promise((resolve) => closed.close(resolve));
  await createMonitor({ name: 'Backup NAS', check_type: 'tcp', target: `127.0.0.1:${closedPort}` });
  const flaky = createServer((_req, res) => res.end('fine'));
  await new Promise<void>((resolve) => flaky.listen(0, '127.0.0.1', resolve));
  const flakyUrl = `http://127.0.0.1:${(flaky.address() as AddressInfo).port}/health`;
  await createMonitor({ name: 'Ticket system', check_type: 'http', target: flakyUrl });

  await page.goto('/');
  await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
  await page.getByText('1 monitor is down').waitFor({ timeout: 30_000 });
  const attention = page.locator('.card', { has: page.getByRole('heading', { name: 'Needs attention' }) });
  await attention.getByRole('link', { name: 'Backup NAS' }).waitFor();
  const incidents = page.locator('.card', { has: page.getByRole('heading', { name: 'Open incidents' }) });
  await incidents.getByRole('link', { name: 'Backup NAS' }).waitFor();
  await page.locator('.tile-up .tile-value', { hasText: '3' }).waitFor({ timeout: 30_000 });

  // The ticket system goes down: the page follows without being reloaded.
  const marker = await page.evaluate(() => ((window as any).__noReload = true));
  assert.equal(marker, true);
  flaky.closeAllConnections();
  await new Promise((resolve) => flaky.close(resolve));
  await page.getByText('2 monitors are down').waitFor({ timeout: 30_000 });
  await attention.getByRole('link', { name: 'Ticket system' }).waitFor();
  await page.locator('.events').getByRole('link', { name: 'Ticket system' }).first().waitFor();
  assert.equal(await page.evaluate(() => (window as any).__noReload), true, 'the page was not reloaded');
  await page.waitForLoadState('networkidle');
  await photograph(p, '/', 'dashboard', 'Dashboard');
  assertClean(p, 'the dashboard');
});

test('a webhook is created against a local receiver, tested, edited and deleted', async () => {
  const { page } = p;
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Webhooks' }).click();
  await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
  await page.getByText('No webhooks yet').waitFor();
  await photograph(p, '/webhooks', 'webhooks-empty', 'Webhooks');

  await page.getByRole('button', { name: 'New webhook' }).first().click();
  const dialog = page.getByRole('dialog', { name: 'New webhook' });
  await dialog.getByLabel('Name').fill('Ops receiver');
  await dialog.getByLabel('URL').fill('ftp://127.0.0.1/x');
  await dialog.getByRole('button', { name: 'Create webhook' }).click();
  // The API's message for the URL appears beside the URL field.
  await dialog.locator('.field', { has: page.getByLabel('URL') }).locator('.field-error', { hasText: 'http:// or https://' }).waitFor();

  await dialog.getByLabel('URL').fill(`${receiver.url}/hook`);
  await dialog.getByLabel('Provider').selectOption('generic');
  await dialog.getByLabel('Secret', { exact: true }).fill('s3cret-signing-key');
  await dialog.getByLabel('Monitor degraded').check();
  await dialog.getByLabel('Cooldown (seconds)').fill('600');
  await screenshot(page, 'webhook-form');
  await dialog.getByRole('button', { name: 'Create webhook' }).click();
  await dialog.waitFor({ state: 'detached' });
  const row = page.getByRole('row', { name: /Ops receiver/ });
  await row.waitFor();
  assert.match(await row.innerText(), /Generic JSON/);
  assert.match(await row.innerText(), /10 min/);

  const stored = await env.t.request('GET', '/api/webhooks', { key: admin.key });
  assert.deepEqual(stored.body.items[0].alert_types, ['monitor_down', 'monitor_up', 'monitor_degraded']);
  assert.equal(stored.body.items[0].secret.set, true);

  await row.getByRole('button', { name: 'Send a test to Ops receiver' }).click();
  const result = page.getByRole('dialog', { name: 'Test of Ops receiver' });
  await result.getByText('Delivered').waitFor();
  assert.match(await result.innerText(), /HTTP status\s*200/);
  const got = await receiver.waitFor(1);
  assert.equal(got[0]!.json.alert.type, 'test');
  assert.match(String(got[0]!.headers['x-netprobe-signature']), /^sha256=/);
  await screenshot(page, 'webhook-test-result');
  await result.getByRole('button', { name: 'Close', exact: true }).first().click();
  await row.getByText('Test 200').waitFor();

  // A failing destination: the result says so with the status the receiver gave.
  receiver.plan.push({ status: 503, body: 'maintenance' });
  await row.getByRole('button', { name: 'Send a test to Ops receiver' }).click();
  await result.getByText('Delivery failed').waitFor();
  assert.match(await result.innerText(), /503/);
  assert.match(await result.innerText(), /maintenance/);
  await page.keyboard.press('Escape');
  await result.waitFor({ state: 'detached' });

  await row.getByRole('button', { name: 'Edit Ops receiver' }).click();
  const edit = page.getByRole('dialog', { name: 'Edit Ops receiver' });
  await edit.getByLabel('Enabled').uncheck();
  await edit.getByRole('button', { name: 'Save' }).click();
  await edit.waitFor({ state: 'detached' });
  await row.getByText('Disabled').waitFor();
  const after = await env.t.request('GET', '/api/webhooks', { key: admin.key });
  assert.equal(after.body.items[0].enabled, false);
  assert.equal(after.body.items[0].secret.set, true, 'the secret is kept when not touched');
  await photograph(p, '/webhooks', 'webhooks', 'Webhooks');

  await row.getByRole('button', { name: 'Delete Ops receiver' }).click();
  await page.getByRole('dialog', { name: 'Delete Ops receiver?' }).getByRole('button', { name: 'Delete' }).click();
  await page.getByText('No webhooks yet').waitFor();
  assertClean(p, 'the webhooks page', ['POST /api/webhooks 400']);
});

test('an API key is shown once, with a copy button, and works', async () => {
  const { page } = p;
  await page.goto('/settings/api-keys');
  await page.getByRole('heading', { name: 'API keys of all users' }).waitFor();
  await page.getByRole('button', { name: 'New API key' }).click();
  const dialog = page.getByRole('dialog', { name: 'New API key' });
  await dialog.getByLabel('Name').fill('grafana');
  await dialog.getByLabel('Monitors: read', { exact: true }).check();
  await dialog.getByLabel('Expires after (days)').fill('30');
  await dialog.getByRole('button', { name: 'Create key' }).click();

  const shown = page.getByRole('dialog', { name: 'Your new API key' });
  const key = (await shown.getByTestId('new-api-key').innerText()).trim();
  assert.match(key, /^np_/);
  await p.context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await shown.getByRole('button', { name: 'Copy' }).click();
  await shown.getByRole('button', { name: 'Copied' }).waitFor();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), key);
  await screenshot(page, 'api-key-created');

  const me = await env.t.request('GET', '/api/monitors/stats', { key });
  assert.equal(me.status, 200, 'the key works');
  assert.equal((await env.t.request('GET', '/api/webhooks', { key })).status, 403, 'and only for its scope');

  await shown.getByRole('button', { name: 'Done' }).click();
  await shown.waitFor({ state: 'detached' });
  const row = page.getByRole('row', { name: /grafana/ });
  await row.waitFor();
  assert.match(await row.innerText(), /Monitors: read/, 'scopes in people\'s words');
  assert.ok(!(await page.content()).includes(key), 'the key is not on the page any more');
  await page.reload();
  await row.waitFor();
  assert.ok(!(await page.content()).includes(key), 'nor after a reload');
  await photograph(p, '/settings/api-keys', 'settings-api-keys', 'Settings');

  await row.getByRole('button', { name: 'Revoke grafana' }).click();
  await page.getByRole('dialog', { name: 'Revoke grafana?' }).getByRole('button', { name: 'Revoke key' }).click();
  await row.waitFor({ state: 'detached' });
  assert.equal((await env.t.request('GET', '/api/monitors/stats', { key })).status, 401, 'a revoked key stops working');
  assertClean(p, 'the API keys page');
});

test('users: create one, see the API refuse a short password beside the field', async () => {
  const { page } = p;
  await page.goto('/settings/users');
  await page.getByRole('heading', { name: 'Users', level: 2 }).waitFor();
  await page.getByRole('button', { name: 'New user' }).click();
  const dialog = page.getByRole('dialog', { name: 'New user' });
  await dialog.getByLabel('Username').fill('grace');
  await dialog.getByLabel('Full name').fill('Grace Hopper');
  await dialog.getByLabel('Role').selectOption('viewer');
  await dialog.getByLabel('Password').fill('short');
  await dialog.getByRole('button', { name: 'Create user' }).click();
  await dialog.locator('.field', { has: page.getByLabel('Password') }).locator('.field-error').waitFor();
  await dialog.getByLabel('Password').fill('compiler pioneer 1952');
  await dialog.getByRole('button', { name: 'Create user' }).click();
  await dialog.waitFor({ state: 'detached' });
  const row = page.getByRole('row', { name: /Grace Hopper/ });
  await row.waitFor();
  assert.match(await row.innerText(), /viewer/);
  await photograph(p, '/settings/users', 'settings-users', 'Settings');
  assertClean(p, 'the users page', ['POST /api/users 400']);
});

test('the audit log lists what happened and filters by action', async () => {
  const { page } = p;
  await page.goto('/settings/audit');
  await page.getByRole('heading', { name: 'Audit log', level: 2 }).waitFor();
  // Actions in people's words; the filter still takes the action itself.
  await page.getByRole('cell', { name: 'Users: create' }).waitFor();
  await page.getByLabel('Action').fill('api_key.*');
  await page.getByRole('button', { name: 'Filter' }).click();
  await page.waitForURL(/action=api_key/);
  await page.getByRole('cell', { name: 'API keys: revoke' }).waitFor();
  const actions = await page.locator('td[data-label="Action"]').allInnerTexts();
  assert.ok(actions.length >= 2 && actions.every((a) => a.startsWith('API keys: ')), actions.join(', '));
  await photograph(p, '/settings/audit?action=api_key.*', 'settings-audit', 'Settings');
  assertClean(p, 'the audit log');
});

test('SNMP: a walk of a simulated agent on loopback, and the vendor profiles', async () => {
  const { page } = p;
  const sim = await startSimulator([{ name: 'lab-switch', community: 'lab-community', text: [
    '1.3.6.1.2.1.1.1.0|4|Lab switch running test firmware 1.0',
    '1.3.6.1.2.1.1.3.0|67|123456',
    '1.3.6.1.2.1.1.5.0|4|lab-switch-1',
    '1.3.6.1.2.1.2.1.0|2|4',
  ].join('\n') }]);
  try {
    const dev = sim.devices[0]!;
    await page.goto('/snmp/vendors');
    await page.getByText('Cisco switches and routers', { exact: false }).waitFor();
    await page.goto('/snmp');
    await page.getByLabel('Agent').fill(dev.host);
    await page.getByLabel('UDP port').fill(String(dev.port));
    await page.getByLabel('Community').fill('lab-community');
    await page.getByLabel('Timeout per answer (seconds)').fill('5');
    await page.getByRole('button', { name: 'Walk' }).click();
    await page.getByText('3 values from').waitFor();
    await page.getByRole('cell', { name: /sysName/ }).waitFor();
    await page.getByRole('cell', { name: 'lab-switch-1' }).waitFor();
    assert.equal(await page.getByRole('cell', { name: /ifNumber/ }).count(), 0, 'only the system subtree');
    await page.getByLabel('Filter the values').fill('descr');
    await page.getByRole('cell', { name: 'Lab switch running test firmware 1.0' }).waitFor();
    assert.equal(await page.getByRole('cell', { name: 'lab-switch-1' }).count(), 0);
    await page.getByLabel('Filter the values').fill('');
    await photograph(p, '/snmp', 'snmp', 'SNMP');
    await page.getByLabel('Agent').fill('bad host!');
    await page.getByRole('button', { name: 'Walk' }).click();
    await page.locator('.field', { has: page.getByLabel('Agent') }).locator('.field-error').waitFor();
  } finally {
    await sim.stop();
  }
  assertClean(p, 'the SNMP page', ['POST /api/snmp/walk 400']);
});

test('the other sections: an unknown path, my account', async () => {
  const { page } = p;
  await page.goto('/no/such/page');
  await page.getByRole('heading', { name: 'There is no page here' }).waitFor();
  await page.goto('/settings/account');
  await page.getByRole('heading', { name: 'Profile' }).waitFor();
  await photograph(p, '/settings/account', 'settings-account', 'Settings');
  assertClean(p, 'the other sections');
});

/** Every settings section, by URL and a card heading that shows once it has loaded. */
const SETTINGS_SECTIONS: [string, string][] = [
  ['system', 'Health'], ['probe', 'Branding'], ['tls', 'Certificate in use'], ['email', 'SMTP server'], ['update', 'Running release'],
  ['access', 'ZeroTier'], ['controller', 'Controller'], ['config', 'Configuration'], ['database', 'Tables'], ['users', 'Users'],
  ['api-keys', 'API keys of all users'], ['audit', 'Audit log'], ['account', 'Two-factor sign-in'],
];

test('every settings section: clean, labelled, 375 px wide, light and dark', async () => {
  const { page } = p;
  await page.goto('/settings');
  const tabs = page.getByRole('navigation', { name: 'Settings sections' });
  await tabs.getByRole('link', { name: 'System' }).waitFor();
  assert.equal(await tabs.getByRole('link').count(), SETTINGS_SECTIONS.length, 'an administrator sees every section');
  for (const [id, heading] of SETTINGS_SECTIONS) {
    await page.goto(`/settings/${id}`);
    await page.getByRole('heading', { name: heading, level: 2, exact: true }).waitFor();
    await page.locator('main .loading').first().waitFor({ state: 'detached' });
    await photograph(p, `/settings/${id}`, `settings-section-${id}`, 'Settings');
    assertClean(p, `/settings/${id}`);
  }
});
