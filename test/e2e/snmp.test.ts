// The SNMP section in a real browser against the snmprec simulator on 127.0.0.1 (a recorded Cisco
// 2960X, v2c): a walk template created in its dialog (the API's message beside a bad subtree), run
// (the values in the walk table) with its last run in the list, edited and deleted with confirmation;
// then an inventory endpoint's device cards read live, a device without a credential saying why it
// could not be read, and an unknown device the API's 404 detail. The vault and the credential are set
// up through the API. Every page is checked for console errors, labelled controls and the 375 px
// layout, and photographed (test/e2e/screenshots/snmp-*).
import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { startSimulator, type Simulator } from '../helpers/snmp-sim.js';
import {
  assertClean, photograph, screenshot, startSignedIn, type UiEnv, type UiPage,
} from './helpers/browser.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const RECORDING = join(HERE, '..', 'fixtures', 'snmprec', 'cisco-ios-c2960x.snmprec');
const COMMUNITY = 'e2e-lab-community';

let env: UiEnv;
let key: string;
let p: UiPage;
let sim: Simulator;
let credential: { id: string; short_id: string };

async function api(method: string, path: string, body?: unknown) {
  return env.t.request(method, path, { key, body });
}

before(async () => {
  ({ env, p } = await startSignedIn(async (started, admin) => {
    env = started;
    key = admin.key;
    await prepare();
  }));
});

async function prepare(): Promise<void> {
  const vault = await api('POST', '/api/brain/vault/setup', { passphrase: 'E2e-Snmp-Vault-Passphrase-7' });
  assert.equal(vault.status, 200, vault.text);
  assert.equal(vault.body.locked, false, 'setup leaves the vault unlocked');
  sim = await startSimulator([{ file: RECORDING, name: 'access-sw1', community: COMMUNITY }]);
  const dev = sim.devices[0]!;
  const cred = await api('POST', '/api/brain/credentials', { scope: ['127.0.0.0/8'], name: 'Lab switches v2c', kind: 'snmp_v2c', port: dev.port, community: COMMUNITY });
  assert.equal(cred.status, 201, cred.text);
  credential = { id: cred.body.id, short_id: cred.body.short_id };
}

after(async () => {
  await p?.context.close();
  await sim?.stop();
  await env?.close();
});

test('a walk template: created in its dialog, run (values in the walk table), last run listed, edited, deleted', async () => {
  const { page } = p;
  await page.goto('/snmp/templates');
  await page.getByRole('heading', { name: 'No templates yet' }).waitFor();
  assert.equal(await page.getByRole('link', { name: 'Templates' }).getAttribute('aria-current'), 'page');

  await page.getByRole('button', { name: 'New template' }).first().click();
  const dialog = page.getByRole('dialog', { name: 'New template' });
  await dialog.getByLabel('Name').fill('Access switch system');
  await dialog.getByLabel('Agent').fill('127.0.0.1');
  await dialog.getByLabel('Credential').selectOption({ label: `${credential.short_id} · Lab switches v2c (v2c, port ${sim.devices[0]!.port})` });
  await dialog.getByLabel('Subtrees').fill('system\nnoSuchThingAtAll');
  await dialog.getByLabel('Timeout per answer (seconds)').fill('5');
  await dialog.getByRole('button', { name: 'Create template' }).click();
  // The API names oids.1; its message shows beside the subtrees.
  const oidsError = dialog.locator('.field', { has: page.getByLabel('Subtrees') }).locator('.field-error');
  await oidsError.waitFor();
  assert.match(await oidsError.innerText(), /noSuchThingAtAll/);
  await screenshot(page, 'snmp-template-form');
  await dialog.getByLabel('Subtrees').fill('system');
  await dialog.getByRole('button', { name: 'Create template' }).click();
  await dialog.waitFor({ state: 'detached' });

  const row = page.getByRole('row', { name: /Access switch system/ });
  await row.getByText('Never').waitFor();
  await row.getByRole('link', { name: credential.short_id }).waitFor();
  await row.getByText('127.0.0.1', { exact: true }).waitFor();

  await row.getByRole('button', { name: 'Run Access switch system' }).click();
  const run = page.getByRole('dialog', { name: 'Run of Access switch system' });
  await run.getByText(/\d+ values from/).waitFor();
  await run.getByRole('cell', { name: /sysName\.0/ }).waitFor();
  await run.getByRole('cell', { name: 'access-sw1', exact: true }).waitFor();
  await run.getByLabel('Filter the values').fill('location');
  assert.equal(await run.getByRole('cell', { name: 'access-sw1', exact: true }).count(), 0, 'the filter hides other values');
  await run.getByLabel('Filter the values').fill('');
  await screenshot(page, 'snmp-template-run');
  const count = Number((await run.locator('.walk-summary strong').innerText()).trim());
  assert.ok(count >= 6, `the system group holds at least six values, got ${count}`);
  await run.getByRole('button', { name: 'Close' }).first().click();
  await run.waitFor({ state: 'detached' });

  await row.getByText('Success').waitFor();
  await row.getByText(new RegExp(`^${count} values in`)).waitFor();
  await photograph(p, '/snmp/templates', 'snmp-templates', 'SNMP');

  await row.getByRole('button', { name: 'Edit Access switch system' }).click();
  const edit = page.getByRole('dialog', { name: 'Edit Access switch system' });
  assert.equal(await edit.getByLabel('Subtrees').inputValue(), 'system');
  assert.equal(await edit.getByLabel('Credential').inputValue(), credential.id);
  await edit.getByLabel('Name').fill('Access switch interfaces');
  await edit.getByLabel('Subtrees').fill('ifDescr\nifOperStatus');
  await edit.getByRole('button', { name: 'Save' }).click();
  await edit.waitFor({ state: 'detached' });
  const edited = page.getByRole('row', { name: /Access switch interfaces/ });
  await edited.getByText('ifOperStatus').waitFor();
  const stored = await api('GET', '/api/snmp/templates');
  assert.deepEqual(stored.body.items[0].oids, ['ifDescr', 'ifOperStatus']);
  assert.equal(stored.body.items[0].options.timeout, 5, 'options kept');

  await edited.getByRole('button', { name: 'Delete Access switch interfaces' }).click();
  await page.getByRole('dialog', { name: 'Delete Access switch interfaces?' }).getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('heading', { name: 'No templates yet' }).waitFor();
  assert.equal((await api('GET', '/api/snmp/templates')).body.total, 0);
  assertClean(p, 'the templates tab', ['POST /api/snmp/templates 400']);
});

test('device cards: an inventory endpoint read live; a device without a credential says why; an unknown one 404s', async () => {
  const { page } = p;
  const ep = await api('POST', '/api/brain/endpoints', { name: 'access-sw1', ip_addresses: ['127.0.0.1'], credential_id: credential.id });
  assert.equal(ep.status, 201, ep.text);
  const bare = await api('POST', '/api/brain/endpoints', { name: 'no-credential-sw', ip_addresses: ['127.0.0.1'] });
  assert.equal(bare.status, 201, bare.text);

  await page.goto('/snmp/devices');
  await page.getByLabel('Device name or short ID').fill(ep.body.short_id);
  await page.getByRole('button', { name: 'Show cards' }).click();
  await page.waitForURL(new RegExp(`/snmp/devices\\?device=${ep.body.short_id}$`));
  await page.getByText('Live', { exact: true }).waitFor();
  await page.getByText('identified live').waitFor();
  const system = page.locator('section.card', { has: page.getByRole('heading', { name: 'System', exact: true }) });
  await system.getByRole('cell', { name: 'access-sw1', exact: true }).waitFor();
  // Each value carries the time it was read.
  assert.ok(await system.locator('time[datetime]').count() >= 3);
  assert.match(await page.locator('dt:text-is("Address") + dd').innerText(), /^127\.0\.0\.1/);
  const vendor = await page.locator('dt:text-is("Vendor") + dd').innerText();
  assert.match(vendor, /Cisco/);
  await photograph(p, `/snmp/devices?device=${ep.body.short_id}`, 'snmp-device', 'SNMP');

  await page.getByLabel('Device name or short ID').fill('no-credential-sw');
  await page.getByRole('button', { name: 'Show cards' }).click();
  await page.getByText('The device could not be read').waitFor();
  await page.getByText('No SNMP credential for this device', { exact: false }).waitFor();
  await page.getByRole('heading', { name: 'System', exact: true }).waitFor();
  await screenshot(page, 'snmp-device-unread');

  await page.getByLabel('Device name or short ID').fill('nobody-knows-me');
  await page.getByRole('button', { name: 'Show cards' }).click();
  await page.getByText('no inventory endpoint of that name', { exact: false }).waitFor();
  await page.goBack();
  await page.getByText('The device could not be read').waitFor();
  assert.equal(await page.getByLabel('Device name or short ID').inputValue(), 'no-credential-sw');
  assertClean(p, 'the devices tab', ['GET /api/snmp/device-cards/nobody-knows-me 404']);
});

test('the walk and vendors tabs', async () => {
  const { page } = p;
  await page.goto('/snmp');
  assert.equal(await page.getByRole('link', { name: 'Walk' }).getAttribute('aria-current'), 'page');
  await page.getByLabel('Community').waitFor();
  await page.getByRole('link', { name: 'Vendors' }).click();
  await page.waitForURL(/\/snmp\/vendors$/);
  await page.getByText('Cisco switches and routers', { exact: false }).waitFor();
  await photograph(p, '/snmp/vendors', 'snmp-vendors', 'SNMP');
  assertClean(p, 'the walk and vendors tabs');
});
