// The inventory pages in a real browser against the real service: records created through the forms
// (the API's messages beside the fields they name), found by search and by short ID, linked to a
// monitor, edited (the history shows it) and deleted with their references cleared; the vault set
// up, locked and unlocked, and a credential whose secret is stored but never appears in the page or
// in any response the browser received. Every page is checked for console errors, labelled controls
// and its 375 px layout, and photographed (test/e2e/screenshots/).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  assertClean, photograph, screenshot, startSignedIn, type UiEnv, type UiPage,
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


const path = () => new URL(p.page.url()).pathname;
const h1 = (name: string) => p.page.getByRole('heading', { name, level: 1, exact: true });
/** The .field around a labelled control, for its error message. */
const fieldOf = (label: string) => p.page.locator('.field', { has: p.page.getByLabel(label, { exact: true }) });

test('records are created through the forms, found by search and short ID, linked, edited and deleted', async () => {
  const { page } = p;
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Inventory' }).click();
  await h1('Inventory').waitFor();
  await page.getByText('The inventory is empty').waitFor();
  await photograph(p, '/inventory', 'inventory-empty', 'Inventory');

  // A site: the API's messages land beside the fields they name.
  await page.getByRole('navigation', { name: 'Inventory types' }).getByRole('link', { name: 'Sites' }).click();
  await h1('Sites').waitFor();
  await page.getByText('No sites yet').waitFor();
  await page.getByRole('link', { name: 'New site' }).first().click();
  await h1('New site').waitFor();
  await page.getByLabel('Name', { exact: true }).fill('Head office');
  await page.getByLabel('Time zone').selectOption('Europe/Zurich');
  await page.getByLabel('Latitude').fill('47.3769');
  await page.getByRole('button', { name: 'Create site' }).click();
  await fieldOf('Longitude').locator('.field-error', { hasText: 'latitude and longitude go together' }).waitFor();
  await screenshot(page, 'inventory-form-errors');
  await page.getByLabel('Longitude').fill('8.5417');
  await page.getByLabel('Contact e-mail').fill('noc@example.org');
  await page.getByLabel('Tags').fill('hq,');
  await page.getByRole('button', { name: 'Create site' }).click();
  await h1('Head office').waitFor();
  assert.equal(path(), '/inventory/sites/ST-1');
  await page.locator('.inv-dl').getByText('Europe/Zurich').waitFor();

  // A location in it, picked from the site's list.
  await page.goto('/inventory/locations/new');
  await h1('New location').waitFor();
  await page.getByLabel('Name', { exact: true }).fill('Server room');
  await page.getByLabel('Site', { exact: true }).selectOption({ label: 'ST-1 · Head office' });
  await page.getByLabel('Rack').fill('R1');
  await page.getByRole('button', { name: 'Create location' }).click();
  await h1('Server room').waitFor();

  // An endpoint: lists one per line, a role, references to site and location.
  await page.goto('/inventory/endpoints/new');
  await h1('New endpoint').waitFor();
  await page.getByLabel('Host name').fill('core-sw1.lan');
  await page.getByLabel('IP addresses').fill('10.20.0.2\n2001:DB8:0::2');
  await page.getByLabel('MAC addresses').fill('AABB.CCDD.EEFF');
  await page.getByLabel('Role').selectOption({ label: 'Switch' });
  await page.getByLabel('Vendor').fill('Cisco');
  await page.getByLabel('Site', { exact: true }).selectOption({ label: 'ST-1 · Head office' });
  await page.getByLabel('Location', { exact: true }).selectOption({ label: 'LC-1 · Server room' });
  await page.getByRole('button', { name: 'Create endpoint' }).click();
  await h1('core-sw1.lan').waitFor();
  assert.equal(path(), '/inventory/endpoints/EP-1');
  const fields = page.locator('.inv-dl');
  await fields.getByText('2001:db8::2').waitFor();
  await fields.getByText('aa:bb:cc:dd:ee:ff').waitFor();
  await fields.getByRole('link', { name: 'LC-1 Server room' }).waitFor();

  // A subnet: a CIDR with host bits set is refused with the network it meant.
  await page.goto('/inventory/subnets/new');
  await h1('New subnet').waitFor();
  await page.getByLabel('Network (CIDR)').fill('10.20.0.5/24');
  await page.getByLabel('VLAN ID').fill('20');
  await page.getByLabel('Gateway').fill('10.20.0.1');
  await page.getByRole('button', { name: 'Add range' }).click();
  await page.getByLabel('First address 1').fill('10.20.0.100');
  await page.getByLabel('Last address 1').fill('10.20.0.50');
  await page.getByRole('button', { name: 'Create subnet' }).click();
  // Both at once: the network offered in one click, and the range in the wrong order.
  await fieldOf('Network (CIDR)').locator('.field-error', { hasText: 'did you mean the network 10.20.0.0/24?' }).waitFor();
  await page.locator('.rows-field .field-error', { hasText: 'Last address 1: end is before start' }).waitFor();
  await fieldOf('Network (CIDR)').getByRole('button', { name: 'Use 10.20.0.0/24' }).click();
  assert.equal(await page.getByLabel('Network (CIDR)').inputValue(), '10.20.0.0/24');
  await page.getByLabel('Last address 1').fill('10.20.0.199');
  await page.getByRole('button', { name: 'Create subnet' }).click();
  await h1('10.20.0.0/24').waitFor();
  assert.equal(path(), '/inventory/subnets/SN-1');
  await photograph(p, '/inventory/subnets/SN-1', 'inventory-subnet', '10.20.0.0/24');

  // Search across types: an address finds the endpoint and the subnet holding it.
  await page.goto('/inventory');
  await page.getByLabel('Search the inventory').fill('10.20.0.2');
  const results = page.getByRole('list', { name: 'Search results' });
  await results.getByRole('link', { name: 'EP-1 core-sw1.lan' }).waitFor();
  await results.getByRole('link', { name: 'SN-1 10.20.0.0/24' }).waitFor();
  assert.match(page.url(), /q=10\.20\.0\.2/);
  await photograph(p, '/inventory?q=10.20.0.2', 'inventory-search', 'Inventory');
  await page.getByLabel('Search the inventory').fill('cisco');
  await results.getByRole('link', { name: 'EP-1 core-sw1.lan' }).waitFor();
  await results.getByRole('link', { name: 'SN-1 10.20.0.0/24' }).waitFor({ state: 'detached' });
  // A short ID goes straight to its record; so does one in the address.
  await page.getByLabel('Search the inventory').fill('lc-1');
  await page.keyboard.press('Enter');
  await h1('Server room').waitFor();
  assert.equal(path(), '/inventory/locations/LC-1');
  await page.goto('/inventory/EP-1');
  await h1('core-sw1.lan').waitFor();
  assert.equal(path(), '/inventory/endpoints/EP-1');
  await page.goto('/inventory');
  await page.getByLabel('Search the inventory').fill('EP-99');
  await page.keyboard.press('Enter');
  await page.getByRole('alert').getByText(/EP-99/).waitFor();

  // A link to a monitor: the endpoint's page shows the monitor with its status, once (not again among the links).
  const mon = await env.t.request('POST', '/api/monitors', { key: admin.key,
    body: { name: 'Core switch SSH', check_type: 'tcp', target: '127.0.0.1:1', interval: 60, timeout: 2, failure_threshold: 1 } });
  assert.equal(mon.status, 201, mon.text);
  await page.goto('/inventory/endpoints/EP-1');
  await h1('core-sw1.lan').waitFor();
  await page.getByRole('button', { name: 'Add link' }).click();
  await page.getByLabel('This record').selectOption('monitored_by');
  await page.getByLabel('Kind of record').selectOption('monitors');
  await page.getByLabel('Monitor', { exact: true }).selectOption({ label: 'Core switch SSH' });
  await page.getByRole('button', { name: 'Add link' }).last().click();
  const monitors = page.locator('.card', { has: page.getByRole('heading', { name: 'Monitors' }) });
  await monitors.getByRole('link', { name: 'Core switch SSH' }).waitFor();
  await monitors.getByText('linked').waitFor();
  await monitors.locator('.status-down').waitFor({ timeout: 30_000 });
  const links = page.locator('.card', { has: page.getByRole('heading', { name: 'Links' }) });
  await links.getByText('No links').waitFor();
  assert.equal(await links.getByRole('link', { name: 'Core switch SSH' }).count(), 0);

  // Edit: only the changed field is sent, and the history says who changed what.
  await page.getByRole('link', { name: 'Edit' }).click();
  await h1('Edit core-sw1.lan').waitFor();
  await page.getByLabel('Vendor').fill('Arista');
  await page.getByLabel('Notes').fill('Stack of two.\nConsole on port 1.');
  await page.getByRole('button', { name: 'Add field' }).click();
  await page.getByLabel('Field name 1').fill('cost_center');
  await page.getByLabel('Value 1').fill('4711');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await h1('core-sw1.lan').waitFor();
  const history = page.locator('.card', { has: page.getByRole('heading', { name: 'History' }) });
  await history.getByText('Update').waitFor();
  assert.match(await history.locator('.hist').first().innerText(), /Vendor\s*Cisco\s*→\s*Arista/);
  await page.locator('.card', { has: page.getByRole('heading', { name: 'Notes' }) }).getByText('Console on port 1.').waitFor();
  await photograph(p, '/inventory/endpoints/EP-1', 'inventory-endpoint', 'core-sw1.lan');
  await page.goto('/inventory/endpoints/EP-1/edit');
  await h1('Edit core-sw1.lan').waitFor();
  await photograph(p, '/inventory/endpoints/EP-1/edit', 'inventory-endpoint-form', 'Edit core-sw1.lan');

  // Lists per type, with their filters.
  await page.goto('/inventory/endpoints');
  await page.getByRole('row', { name: /core-sw1\.lan/ }).waitFor();
  await page.getByLabel('Role').selectOption({ label: 'Router' });
  await page.getByText('No endpoint matches').waitFor();
  await page.getByRole('button', { name: 'Clear filters' }).click();
  await page.getByRole('row', { name: /core-sw1\.lan/ }).waitFor();
  await photograph(p, '/inventory/endpoints', 'inventory-endpoints', 'Endpoints');
  await page.goto('/inventory');
  await page.locator('.type-tile', { hasText: 'Endpoints' }).getByText('1', { exact: true }).waitFor();
  await photograph(p, '/inventory', 'inventory', 'Inventory');

  // Deleting the referenced site: refused first, then done with its references cleared.
  const siteId = (await env.t.request('GET', '/api/brain/sites/ST-1', { key: admin.key })).body.id;
  await page.goto('/inventory/sites/ST-1');
  await h1('Head office').waitFor();
  await page.locator('.card', { has: page.getByRole('heading', { name: /Locations/ }) }).getByRole('link', { name: 'LC-1 Server room' }).waitFor();
  await page.getByRole('button', { name: 'Delete Head office' }).click();
  await page.getByRole('dialog', { name: 'Delete ST-1 Head office?' }).getByRole('button', { name: 'Delete' }).click();
  const referenced = page.getByRole('dialog', { name: 'ST-1 is still referenced' });
  await referenced.getByText(/EP-1\.site_id/).waitFor();
  await referenced.getByRole('button', { name: 'Clear the references and delete' }).click();
  await h1('Sites').waitFor();
  await page.getByText('Deleted ST-1 Head office').waitFor();
  const ep = await env.t.request('GET', '/api/brain/endpoints/EP-1', { key: admin.key });
  assert.equal(ep.body.site_id, null);
  assertClean(p, 'the inventory pages', [
    'POST /api/brain/sites 400', 'POST /api/brain/subnets 400', 'GET /api/brain/resolve/EP-99 404', `DELETE /api/brain/sites/${siteId} 409`,
  ]);
});

test('the vault is set up, locked and unlocked; a credential secret is stored but never shown', async () => {
  const { page } = p;
  const SECRET = 'c0mmunity-Secret-4711';
  const PASSPHRASE = 'correct horse battery vault';
  // Every response body the browser receives from now on, to search for the secret.
  const bodies: Promise<string>[] = [];
  page.on('response', (r) => { bodies.push(r.text().catch(() => '')); });

  await page.goto('/inventory/credentials');
  await h1('Credentials').waitFor();
  const vault = page.getByRole('region', { name: 'Credential vault' });
  await vault.getByText('The vault is not set up').waitFor();
  await photograph(p, '/inventory/credentials', 'inventory-credentials-empty', 'Credentials');

  await vault.getByRole('button', { name: 'Set up the vault' }).click();
  const setup = page.getByRole('dialog', { name: 'Set up the vault' });
  await setup.getByLabel('Passphrase', { exact: true }).fill('too short');
  await setup.getByLabel('Passphrase again').fill('too short');
  await setup.getByRole('button', { name: 'Set up' }).click();
  await setup.locator('.field', { has: page.getByLabel('Passphrase', { exact: true }) }).locator('.field-error').waitFor();
  await setup.getByLabel('Passphrase', { exact: true }).fill(PASSPHRASE);
  await setup.getByLabel('Passphrase again').fill(`${PASSPHRASE}!`);
  await setup.getByRole('button', { name: 'Set up' }).click();
  await setup.getByText('Type the same passphrase again').waitFor();
  await setup.getByLabel('Passphrase again').fill(PASSPHRASE);
  await screenshot(page, 'vault-setup');
  await setup.getByRole('button', { name: 'Set up' }).click();
  await setup.waitFor({ state: 'detached' });
  await vault.getByText('The vault is unlocked').waitFor();

  // Locked, a secret cannot be stored: the API's reason shows in the form.
  await vault.getByRole('button', { name: 'Lock' }).click();
  await vault.getByText('The vault is locked').waitFor();
  await page.getByRole('link', { name: 'New credential' }).first().click();
  await h1('New credential').waitFor();
  await page.getByLabel('Name', { exact: true }).fill('Switches SNMP');
  await page.getByLabel('Kind').selectOption('snmp_v2c');
  await page.getByLabel('Community').fill(SECRET);
  await page.getByRole('button', { name: 'Create credential' }).click();
  await page.getByRole('alert').getByText(/locked/i).waitFor();

  // Unlock from the form's vault bar: a wrong passphrase is refused, the right one works.
  const formVault = page.getByRole('region', { name: 'Credential vault' });
  await formVault.getByRole('button', { name: 'Unlock' }).click();
  const unlock = page.getByRole('dialog', { name: 'Unlock the vault' });
  await unlock.getByLabel('Passphrase', { exact: true }).fill('not the passphrase');
  await unlock.getByRole('button', { name: 'Unlock' }).click();
  await unlock.getByRole('alert').waitFor();
  await unlock.getByLabel('Passphrase', { exact: true }).fill(PASSPHRASE);
  await unlock.getByRole('button', { name: 'Unlock' }).click();
  await unlock.waitFor({ state: 'detached' });
  await formVault.getByText('The vault is unlocked').waitFor();
  await page.getByRole('button', { name: 'Create credential' }).click();
  await h1('Switches SNMP').waitFor();
  assert.equal(path(), '/inventory/credentials/CR-1');
  const stored = page.locator('dl').getByText('Stored');
  await stored.waitFor();
  await photograph(p, '/inventory/credentials/CR-1', 'inventory-credential', 'Switches SNMP');

  // The edit form says a value is stored, without it; saving without typing keeps it.
  await page.getByRole('link', { name: 'Edit' }).click();
  await h1('Edit Switches SNMP').waitFor();
  assert.equal(await page.getByLabel(/^Community/).inputValue(), '');
  assert.equal(await page.getByLabel(/^Community/).getAttribute('placeholder'), 'Stored — type to replace');
  await page.getByLabel('User name').waitFor({ state: 'detached' });
  await page.getByLabel('Description').fill('Read-only community of the access switches');
  await photograph(p, '/inventory/credentials/CR-1/edit', 'inventory-credential-form', 'Edit Switches SNMP');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await h1('Switches SNMP').waitFor();
  const api = await env.t.request('GET', '/api/brain/credentials/CR-1', { key: admin.key });
  assert.deepEqual(api.body.community, { set: true });
  assert.equal(api.body.description, 'Read-only community of the access switches');

  await page.goto('/inventory/credentials');
  await page.getByRole('row', { name: /Switches SNMP/ }).getByText('Community').waitFor();
  await photograph(p, '/inventory/credentials', 'inventory-credentials', 'Credentials');

  // The secret is nowhere in the pages or in anything the browser received.
  for (const where of ['/inventory/credentials', '/inventory/credentials/CR-1', '/inventory/credentials/CR-1/edit']) {
    await page.goto(where);
    await page.waitForLoadState('networkidle');
    assert.ok(!(await page.content()).includes(SECRET), `the secret is not in ${where}`);
  }
  const received = await Promise.all(bodies);
  assert.ok(received.length > 20, 'responses were recorded');
  assert.equal(received.filter((b) => b.includes(SECRET)).length, 0, 'no response carried the secret');
  assertClean(p, 'the vault and credentials', [
    'POST /api/brain/vault/setup 400', 'POST /api/brain/credentials 423', 'POST /api/brain/vault/unlock 403',
  ]);
});
