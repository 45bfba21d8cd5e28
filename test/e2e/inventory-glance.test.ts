// Monitoring that reads right at a glance, the inventory side, in Debian's Chromium against the real
// service: a fresh /setup and a signed-out /login load without one failed request or console error (the
// app asks GET /api/auth/session, never a 401ing GET /api/me); an endpoint's "New monitor" opens the
// monitor form with the endpoint in its address; its SNMP cards and interface table (name, status,
// speed, traffic in KiB/MiB/GiB and bps, error counts) read from the project's SNMP simulator on loopback;
// a credential's usage list; a subnet's addresses and utilisation; a toast repeated shows once; scopes and
// a validation refusal in people's words. Screenshots: `glance-*`.
import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { startSimulator, type Simulator } from '../helpers/snmp-sim.js';
import {
  assertClean, assertLabelledControls, assertNoHorizontalOverflow, openPage, photograph, PHONE, signIn, startUi, transferredBytes,
  type UiEnv, type UiPage,
} from './helpers/browser.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const RECORDING = join(HERE, '..', 'fixtures', 'snmprec', 'if-table-switch.snmprec');
const COMMUNITY = 'glance-e2e-community-41';

let env: UiEnv;
let sim: Simulator;
let p: UiPage;
let admin: { username: string; password: string; key: string };
const ids: Record<string, { id: string; short_id: string }> = {};

async function api(method: string, path: string, body?: unknown) {
  const r = await env.t.request(method, path, { key: admin.key, body });
  assert.ok(r.status < 300, `${method} ${path}: ${r.status} ${r.text}`);
  return r.body;
}

before(async () => {
  sim = await startSimulator([{ name: 'if-sw1', community: COMMUNITY, file: RECORDING }]);
  env = await startUi();
});

after(async () => {
  await p?.context.close().catch(() => {});
  await env?.close();
  await sim?.stop();
});

test('a fresh /setup and a signed-out /login load with no failed request and no console error', async () => {
  const fresh = await openPage(env);
  await fresh.page.goto('/');
  await fresh.page.getByRole('heading', { name: 'Create the administrator', level: 1 }).waitFor();
  await fresh.page.waitForLoadState('networkidle');
  assert.equal(new URL(fresh.page.url()).pathname, '/setup');
  const setupBytes = await transferredBytes(fresh.page);
  assertClean(fresh, 'a fresh /setup');
  await fresh.context.close();

  const a = await env.t.admin();
  admin = { username: a.username, password: a.password, key: a.key };
  await api('POST', '/api/setup/save', { probe_name: 'glance-probe', timezone: 'UTC' });

  // A signed-out visit to a page that needs sign-in goes to /login, quietly.
  p = await openPage(env);
  await p.page.goto('/inventory');
  await p.page.getByRole('heading', { name: 'Sign in', level: 1 }).waitFor();
  await p.page.waitForLoadState('networkidle');
  assert.equal(new URL(p.page.url()).pathname, '/login');
  const loginBytes = await transferredBytes(p.page);
  assertClean(p, 'a signed-out /login');
  console.log(`first load: /setup ${setupBytes.total} B, /login ${loginBytes.total} B (compressed)`);
  assert.ok(loginBytes.total < 150_000 && setupBytes.total < 150_000);

  await signIn(p.page, admin.username, admin.password);
  assertClean(p, 'signing in');
  // Signing out and in again stays quiet too.
  await p.page.goto('/login');
  await p.page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
  assertClean(p, 'a signed-in visit to /login');
});

test('an endpoint: New monitor with its address, and its SNMP cards with the interface table', async () => {
  const dev = sim.devices[0]!;
  await api('POST', '/api/brain/vault/setup', { passphrase: 'Glance-E2E-Vault-Passphrase-7' });
  ids.cred = await api('POST', '/api/brain/credentials', { scope: ['127.0.0.0/8'], name: 'lab v2c', kind: 'snmp_v2c', port: dev.port, community: COMMUNITY });
  ids.ep = await api('POST', '/api/brain/endpoints', { name: 'if-sw1', ip_addresses: [dev.host], role: 'switch', credential_id: ids.cred.id });
  const { page } = p;

  await page.goto(`/inventory/endpoints/${ids.ep.short_id}`);
  await page.getByRole('heading', { name: 'if-sw1', level: 1 }).waitFor();
  const newMonitor = page.getByRole('link', { name: 'New monitor' });
  const href = new URL(await newMonitor.getAttribute('href') ?? '', env.url);
  assert.equal(href.pathname, '/monitors/new');
  assert.deepEqual(Object.fromEntries(href.searchParams), { check_type: 'ping', target: dev.host, name: 'if-sw1', endpoint: ids.ep.short_id });
  await newMonitor.click();
  await page.waitForURL(/\/monitors\/new\?/);
  await page.getByRole('heading', { level: 1 }).waitFor();
  // Prefilled from the endpoint; once created, the monitor is linked to it (monitored_by).
  assert.equal(await page.getByLabel('Name', { exact: true }).inputValue(), 'if-sw1');
  assert.equal(await page.getByLabel('Host', { exact: true }).inputValue(), dev.host);
  await page.getByRole('button', { name: 'Create monitor' }).click();
  await page.waitForURL(/\/monitors\/[0-9a-f-]{36}$/);
  const monitorId = page.url().split('/').pop()!;
  const links = await api('GET', `/api/brain/endpoints/${ids.ep.id}/monitors`);
  assert.ok(JSON.stringify(links).includes(monitorId), `the endpoint links the new monitor: ${JSON.stringify(links)}`);
  await api('DELETE', `/api/monitors/${monitorId}`);
  await page.goto(`/inventory/endpoints/${ids.ep.short_id}`);

  await page.getByRole('heading', { name: 'if-sw1', level: 1 }).waitFor();
  await page.getByRole('button', { name: 'Read SNMP cards' }).click();
  // The interface table's card (the SNMP cards have an "Interfaces" card of their own).
  const table = page.locator('.if-card').getByRole('table', { name: 'Interfaces' });
  await table.waitFor();
  const row = (name: string) => table.getByRole('row').filter({ has: page.getByText(name, { exact: true }) });
  await row('Gi1/0/1').getByText('1 Gbps').waitFor();
  await row('Gi1/0/1').getByText('5 GiB').waitFor();
  await row('Gi1/0/1').getByText('to server rack').waitFor();
  await row('Te1/1/1').getByText('10 Gbps').waitFor();
  await row('Te1/1/1').getByText('919.8 GiB').waitFor();
  // Errors, inbound above outbound.
  assert.match(await row('Te1/1/1').getByRole('cell').nth(5).innerText(), /^in\s+17\s+out\s+3$/);
  assert.match(await row('Gi1/0/3').innerText(), /Down[\s\S]*Disabled/);
  await page.getByText('Interfaces (2 of 3 up)').waitFor();
  await page.getByText('read again for traffic rates').waitFor();
  // A second reading gives rates: the recorded counters do not move, so 0 bps.
  await page.locator('.if-card').getByRole('button', { name: 'Read again' }).click();
  await page.getByText('rates since the previous reading').waitFor();
  await row('Gi1/0/1').getByText('0 bps').first().waitFor();
  await photograph(p, `/inventory/endpoints/${ids.ep.short_id}`, 'glance-endpoint', 'if-sw1');
  assertClean(p, 'the endpoint page');
});

test('a credential shows where it is used', async () => {
  const dev = sim.devices[0]!;
  await api('POST', '/api/snmp/templates', { name: 'lab system', target: dev.host, credential_id: ids.cred.id, oids: ['system'] });
  await api('PUT', '/api/snmp/device-cards/edge-router', { target: dev.host, credential_id: ids.cred.short_id });
  await api('POST', '/api/v1sion/credentials', { credentials: [{ credential_id: ids.cred.id }] });
  const { page } = p;
  await page.goto(`/inventory/credentials/${ids.cred.short_id}`);
  await page.getByRole('heading', { name: 'lab v2c', level: 1 }).waitFor();
  const uses = page.getByRole('list', { name: 'Where the credential is used' });
  await uses.waitFor();
  await page.getByText('Where it is used (4)').waitFor();
  assert.deepEqual(await uses.getByRole('listitem').allInnerTexts().then((t) => t.map((x) => x.replace(/\s+/g, ' ').trim())), [
    `Endpoint ${ids.ep.short_id} if-sw1 ${dev.host}`,
    'Discovery Discovery credentials 1 of 1 tried by scans',
    `SNMP walk template lab system ${dev.host}`,
    `SNMP device cards edge-router ${dev.host}`,
  ]);
  assert.equal(await uses.getByRole('link', { name: 'edge-router' }).getAttribute('href'), '/snmp/devices?device=edge-router');
  assert.ok(!(await page.content()).includes(COMMUNITY));
  await photograph(p, `/inventory/credentials/${ids.cred.short_id}`, 'glance-credential', 'lab v2c');
  assertClean(p, 'the credential page');
});

test('a subnet shows its addresses, their endpoints and its utilisation', async () => {
  const net = await api('POST', '/api/brain/subnets', { cidr: '10.40.0.0/26', gateway: '10.40.0.1', dhcp_ranges: [{ start: '10.40.0.32', end: '10.40.0.47' }] });
  await api('POST', '/api/brain/endpoints', { name: 'gw', ip_addresses: ['10.40.0.1'] });
  await api('POST', '/api/brain/endpoints', { name: 'laptop', ip_addresses: ['10.40.0.33'] });
  await api('POST', '/api/brain/endpoints', { name: 'nas', ip_addresses: ['10.40.0.10'] });
  const { page } = p;
  await page.goto(`/inventory/subnets/${net.short_id}`);
  await page.getByRole('heading', { name: '10.40.0.0/26', level: 1 }).waitFor();
  await page.getByText('4.8 % used').waitFor();
  await page.getByText('3 of 62 usable addresses', { exact: false }).waitFor();
  const meter = page.getByRole('meter', { name: 'Utilisation' });
  assert.equal(await meter.getAttribute('aria-valuenow'), '3');
  const table = page.getByRole('table', { name: 'Addresses in 10.40.0.0/26' });
  const rows = await table.locator('tbody tr').allInnerTexts();
  assert.deepEqual(rows.map((r) => r.split(/\s+/)[0]), ['10.40.0.1', '10.40.0.10', '10.40.0.33']);
  assert.match(rows[0]!, /gw[\s\S]*Gateway/);
  assert.match(rows[2]!, /laptop[\s\S]*DHCP range/);
  await table.getByRole('link', { name: /nas/ }).click();
  await page.getByRole('heading', { name: 'nas', level: 1 }).waitFor();
  await page.goBack();
  await photograph(p, `/inventory/subnets/${net.short_id}`, 'glance-subnet', '10.40.0.0/26');
  assertClean(p, 'the subnet page');
});

test('a toast repeated for the same event shows once; scopes and refusals in people\'s words', async () => {
  const { page } = p;
  await page.goto('/inventory');
  await page.getByRole('heading', { name: 'Inventory', level: 1 }).waitFor();
  // The app's own toast module (the same instance the pages use): the same event three times.
  await page.evaluate(`import('/lib/toast.js').then(({ toast }) => { toast.ok('Saved core-sw1'); toast.ok('Saved core-sw1'); toast.ok('Saved core-sw1');
    toast.info('Checking…', { key: 'check:1' }); toast.info('Checked: up', { key: 'check:1' }); })`);
  const toasts = page.locator('.toasts .toast');
  await toasts.filter({ hasText: 'Saved core-sw1' }).waitFor();
  assert.equal(await toasts.filter({ hasText: 'Saved core-sw1' }).count(), 1);
  assert.match(await toasts.filter({ hasText: 'Saved core-sw1' }).innerText(), /×3/);
  assert.equal(await toasts.filter({ hasText: 'Check' }).count(), 1);
  assert.match(await toasts.filter({ hasText: 'Check' }).innerText(), /Checked: up/);

  const words = await page.evaluate(`import('/lib/vocabulary.js').then((v) => ({
    one: v.scopeLabel('brain:read'), list: v.scopeLabels(['brain:read', 'monitors:read', 'monitors:write', 'v1sion:write']),
    admin: v.scopeLabels(['admin', 'brain:read']), action: v.auditActionLabel('snmp.template.create'),
    target: v.auditTarget({ target: 'web', details: { id: '3f2a9c1b-1111-4111-8111-111111111111' } }) }))`);
  assert.deepEqual(words, {
    one: 'Inventory: read', list: ['Monitors: read and write', 'Inventory: read', 'Discovery: read and write'],
    admin: ['Administration (every scope)'], action: 'SNMP: template create',
    target: { text: 'web · 3f2a9c1b', title: '3f2a9c1b-1111-4111-8111-111111111111' },
  });

  // A refusal of the API: the message beside the field, and only there (no box above the form repeats it).
  await page.goto('/inventory/sites/new');
  await page.getByLabel('Name').first().fill('Harbour office');
  await page.getByLabel('Latitude').fill('95');
  await page.getByLabel('Longitude').fill('10');
  await page.getByRole('button', { name: /Create/ }).click();
  const field = page.locator('.field', { has: page.getByLabel('Latitude') }).locator('.field-error');
  await field.waitFor();
  assert.equal(await field.innerText(), 'At most 90');
  assert.equal(await page.locator('form .alert-error').count(), 0, 'the error is not repeated above the form');
  assert.equal(await page.getByText('At most 90').count(), 1);
  assert.equal(await page.getByLabel('Latitude').getAttribute('aria-invalid'), 'true');
  await assertLabelledControls(page, 'the site form with a refusal');
  await page.setViewportSize(PHONE);
  await assertNoHorizontalOverflow(page, 'the site form at 375 px');
  assertClean(p, 'toasts and refusals', ['POST /api/brain/sites 400']);
});
