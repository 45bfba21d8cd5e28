// Where a stored credential may be used (its scope), in a real browser against the real service: an
// administrator gives a credential its scope in the form (a bad entry's message names the entry, beside
// the field) and reads it on the credential's page ("Only endpoints that use it" when empty); an SSH target outside the scope is marked in the credential's "Where it is used" and
// "Allow" adds its address to the scope. An operator's enrichment against the Cisco-like CLI of
// test/helpers/fake-cli-ssh.ts on 127.0.0.1, whose key is not pinned, sends no password: the target's page
// shows the presented fingerprint (the operator reads that an administrator can pin it; the list says "Host
// key not pinned"), the administrator pins it, and the operator's next enrichment logs in. An operator
// editing an endpoint cannot pick its management credential. Screenshots: `credscope-*`.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { PLATFORM_DEFS } from '../../src/modules/v1sion/enrich-ssh/platforms/index.js';
import { startFakeCli, type FakeCli } from '../helpers/fake-cli-ssh.js';
import {
  apiCaller, assertClean, openPage, photograph, screenshot, signIn, startSignedIn, type UiEnv, type UiPage,
} from './helpers/browser.js';

const PASSWORD = 'Scope-E2e-Ssh-Secret-9c21';
const IOS = new URL('../fixtures/ssh/cisco_ios/', import.meta.url).pathname;
const outputs = Object.fromEntries(PLATFORM_DEFS.cisco_ios.commands.map((c) => [c.command, readFileSync(join(IOS, `${c.name}.txt`), 'utf8')]));

let env: UiEnv;
let p: UiPage;
let fake: FakeCli;
let api: ReturnType<typeof apiCaller>;
let operator: { username: string; password: string };
let targetPath = '';

before(async () => {
  fake = await startFakeCli({ username: 'netops', password: PASSWORD, hostname: 'access-sw1', outputs });
  let admin: { key: string };
  ({ env, admin, p } = await startSignedIn());
  api = apiCaller(env, admin.key);
  await api('POST', '/api/brain/vault/setup', { passphrase: 'E2e-Credential-Scope-Vault-Passphrase' });
  operator = await env.t.user('operator');
});

after(async () => {
  await p?.context.close();
  await env?.close();
  await fake?.close();
});

const h1 = (name: string) => p.page.getByRole('heading', { name, level: 1 });
const card = (page: UiPage['page'], title: string | RegExp) =>
  page.locator('section.card', { has: page.getByRole('heading', { name: title, level: 2 }) });

test('an administrator gives a credential its scope in the form; a bad entry is named beside the field', async () => {
  const { page } = p;
  await page.goto('/inventory/credentials/new');
  await h1('New credential').waitFor();
  await page.getByLabel('Name', { exact: true }).fill('Access switches');
  await page.getByLabel('Kind').selectOption('ssh_password');
  await page.getByLabel('User name').fill('netops');
  await page.getByLabel(/^Password/).fill(PASSWORD);
  const scope = page.getByLabel('Where it may be used');
  await page.getByText('Inventory endpoints that use it count too. Anything else is refused.').waitFor();
  await scope.fill('10.77.0.5/16\nbad name!\n10.0.0.0/33');
  await page.getByRole('button', { name: 'Create credential' }).click();
  await page.locator('.field-error', { hasText: '10.0.0.0/33: Prefix length must be 0-32' }).waitFor();
  assert.match(await page.locator('.field', { has: scope }).locator('.field-error').innerText(), /"bad name!" is not an address, a network \(CIDR\) or a host name/);
  assert.equal(await scope.getAttribute('aria-invalid'), 'true');
  await photograph(p, '/inventory/credentials/new', 'credscope-form', 'New credential');
  await screenshot(page, 'credscope-form-error');

  await scope.fill('10.77.0.5/16\nSw1.Lab.');
  assert.equal(await scope.getAttribute('aria-invalid'), null, 'editing clears the message');
  await page.getByRole('button', { name: 'Create credential' }).click();
  await h1('Access switches').waitFor();
  // Canonical on the way in: host bits masked, the name lower-cased.
  const details = page.locator('dl.inv-dl');
  assert.match(await details.innerText(), /Where it may be used\s+10\.77\.0\.0\/16\s+sw1\.lab/);
  assertClean(p, 'a credential created with a scope', ['POST /api/brain/credentials 400']);

  // Without a scope, only the endpoints that use it.
  const bare = await api('POST', '/api/brain/credentials', { name: 'Printers SNMP', kind: 'snmp_v2c', community: 'e2e-printers' });
  await page.goto(`/inventory/credentials/${bare.short_id}`);
  await h1('Printers SNMP').waitFor();
  assert.match(await details.innerText(), /Where it may be used\s+Only endpoints that use it/);
  assertClean(p, 'a credential without a scope');
});

test('a use outside the scope is marked, and "Allow" adds its destination to the scope', async () => {
  const { page } = p;
  const cred = (await api('GET', '/api/brain/credentials?q=Access')).items[0];
  const target = await api('POST', '/api/v1sion/ssh-targets', { name: 'access-sw1', host: '127.0.0.1', port: fake.port, credential_id: cred.id });
  targetPath = `/discovery/ssh-targets/${target.id}`;
  await page.goto(`/inventory/credentials/${cred.short_id}`);
  await h1('Access switches').waitFor();
  const uses = card(page, /Where it is used/);
  const row = uses.getByRole('listitem').filter({ hasText: 'access-sw1' });
  await row.getByText('Outside its scope: 127.0.0.1 — refused until an administrator adds it.').waitFor();
  await uses.getByText('1 outside its scope').waitFor();
  await photograph(p, `/inventory/credentials/${cred.short_id}`, 'credscope-usage-outside', 'Access switches');

  await row.getByRole('button', { name: 'Allow 127.0.0.1 for access-sw1' }).click();
  await page.getByText(`${cred.short_id} may now be used at 127.0.0.1`).waitFor();
  await row.getByText(/Outside its scope/).waitFor({ state: 'detached' });
  await page.locator('dl.inv-dl').getByText('127.0.0.1', { exact: true }).waitFor();
  assert.deepEqual((await api('GET', `/api/brain/credentials/${cred.id}`)).scope, ['10.77.0.0/16', 'sw1.lab', '127.0.0.1']);
  assert.equal(await uses.getByText(/outside its scope/).count(), 0);
  assertClean(p, 'a use allowed');
});

test('an operator\'s enrichment sends no password to an unpinned key; the administrator pins the key it presented', async () => {
  // The operator starts it from the target's page: refused before any password, the fingerprint shown.
  const op = await openPage(env);
  await signIn(op.page, operator.username, operator.password);
  await op.page.goto(targetPath);
  await op.page.getByRole('heading', { name: 'access-sw1', level: 1 }).waitFor();
  await card(op.page, 'Host key').getByText('Others\' enrichments with a password credential send no password').waitFor();
  await op.page.getByRole('button', { name: 'Enrich now' }).first().click();
  await card(op.page, 'SSH enrichment').getByText('Failed', { exact: true }).waitFor({ timeout: 30_000 });
  const notice = op.page.getByRole('alert').filter({ hasText: 'The host key is not pinned: no password was sent' });
  await notice.waitFor();
  assert.equal(await notice.locator('.disc-fp').innerText(), `${fake.fingerprint} (ecdsa-sha2-nistp256)`);
  await notice.getByText('An administrator can pin it.').waitFor();
  await notice.getByRole('button', { name: 'Copy fingerprint' }).waitFor();
  assert.equal(await op.page.getByRole('button', { name: 'Pin this key' }).count(), 0);
  assert.deepEqual(fake.passwords, [], 'no password was offered');
  await op.page.goto('/discovery/ssh-targets');
  await op.page.getByRole('row', { name: /access-sw1/ }).getByText('Host key not pinned').waitFor();

  // An operator editing an endpoint does not get a credential picker that could only be refused.
  const ep = await api('POST', '/api/brain/endpoints', { name: 'edge-sw', ip_addresses: ['10.77.0.9'] });
  await op.page.goto(`/inventory/endpoints/${ep.short_id}/edit`);
  await op.page.getByRole('heading', { name: 'Edit edge-sw', level: 1 }).waitFor();
  const picker = op.page.getByLabel('Management credential');
  assert.equal(await picker.isDisabled(), true);
  await op.page.locator('.field', { has: picker }).getByText('Only an administrator links a credential.').waitFor();
  await photograph(op, `/inventory/endpoints/${ep.short_id}/edit`, 'credscope-endpoint-operator', 'Edit edge-sw');
  assertClean(op, 'an operator\'s refused enrichment');

  // The administrator compares and pins it.
  const { page } = p;
  await page.goto(targetPath);
  const adminNotice = page.getByRole('alert').filter({ hasText: 'The host key is not pinned' });
  await adminNotice.waitFor();
  await photograph(p, targetPath, 'credscope-ssh-unpinned', 'access-sw1');
  await adminNotice.getByRole('button', { name: 'Pin this key' }).click();
  const confirmBox = page.getByRole('dialog', { name: 'Pin this host key for access-sw1?' });
  await confirmBox.getByText(fake.fingerprint).waitFor();
  await confirmBox.getByRole('button', { name: 'Pin this key' }).click();
  await page.getByText('Pinned the host key of access-sw1').waitFor();
  await page.getByRole('status').filter({ hasText: 'Host key pinned' }).waitFor();
  assert.equal(await card(page, 'Host key').locator('.disc-fp').innerText(), fake.fingerprint);
  await screenshot(page, 'credscope-ssh-pinned');
  const pinned = await api('GET', targetPath.replace('/discovery/', '/api/v1sion/'));
  assert.equal(pinned.host_key, fake.fingerprint);
  assert.equal(pinned.host_key_type, 'ecdsa-sha2-nistp256');
  assertClean(p, 'a host key pinned');

  // Now the operator's enrichment logs in.
  await op.page.goto(targetPath);
  await op.page.getByRole('button', { name: 'Enrich now' }).first().click();
  await card(op.page, 'SSH enrichment').getByText('Finished', { exact: true }).waitFor({ timeout: 30_000 });
  await card(op.page, 'What the device said').getByText('WS-C2960X-48FPD-L').first().waitFor();
  assert.deepEqual(fake.passwords, [PASSWORD]);
  assertClean(op, 'the operator\'s enrichment after the pin');
  await op.context.close();
});
