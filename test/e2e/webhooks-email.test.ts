// The e-mail alert channel in a real browser: the webhook form renders the e-mail provider from its
// self-description (recipients, no URL, no secret), says why it cannot be created before an SMTP server
// is set, refuses a bad address beside the Recipients field, creates the channel, lists it by its
// recipients and sends a test message to an SMTP server on loopback (the smtp-server package), with the
// server's reply shown. The SMTP settings page says when a new server dropped the stored password.
// Photographed at 1366 and 375 px, light and dark.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { parseMail } from '../helpers/mime.js';
import { sink, until, type Sink } from '../helpers/smtp-sink.js';
import {
  assertClean, assertLabelledControls, assertNoHorizontalOverflow, photograph, PHONE, screenshot, startSignedIn, type UiEnv, type UiPage,
} from './helpers/browser.js';

let env: UiEnv;
let admin: { key: string };
let p: UiPage;
let smtp: Sink;
let other: Sink;

before(async () => {
  smtp = await sink();
  other = await sink();
  ({ env, admin, p } = await startSignedIn());
});

after(async () => {
  await p?.context.close();
  await env?.close();
  await smtp?.close();
  await other?.close();
});

const importConfig = (patch: unknown) => env.t.request('POST', '/api/config/import', {
  key: admin.key, raw: JSON.stringify(patch), headers: { 'content-type': 'application/json' },
});

/** Opens the new-webhook form with the e-mail provider chosen; returns the dialog. */
async function newEmailChannel(page: UiPage['page']) {
  await page.goto('/webhooks');
  await page.getByRole('button', { name: 'New webhook' }).first().click();
  const dialog = page.getByRole('dialog', { name: 'New webhook' });
  await dialog.getByLabel('Provider').selectOption({ label: 'E-mail (SMTP)' });
  await dialog.getByLabel('Recipients').waitFor();
  return dialog;
}

test('an e-mail channel: created from the provider\'s fields, its bad address named, tested against an SMTP server', async () => {
  const { page } = p;
  let dialog = await newEmailChannel(page);
  // The provider describes itself: recipients, and neither a URL nor a secret.
  assert.equal(await dialog.getByLabel('URL').count(), 0, 'no URL field for e-mail');
  assert.equal(await dialog.getByLabel('Secret', { exact: true }).count(), 0, 'no secret field for e-mail');
  await dialog.getByText('E-mail addresses that get the alerts, separated by commas').waitFor();
  await dialog.getByLabel('Name').fill('NOC mail');
  // Several addresses need room: the field takes the form's width (x-wide), not one column of three.
  const width = async (label: string) => (await dialog.getByLabel(label).boundingBox())!.width;
  assert.ok(await width('Recipients') > 1.5 * await width('Name'), 'Recipients spans the form');

  // No SMTP server yet: the form says to set one up first.
  await dialog.getByLabel('Recipients').fill('noc@example.net');
  await dialog.getByRole('button', { name: 'Create webhook' }).click();
  await dialog.locator('.alert-error', { hasText: /No SMTP server is configured: set one in Settings, E-mail/ }).waitFor();

  assert.equal((await importConfig({ smtp: { host: '127.0.0.1', port: smtp.port, security: 'none' } })).status, 200);
  // A bad address is named beside the field.
  await dialog.getByLabel('Recipients').fill('noc@example.net, oncall@');
  await dialog.getByRole('button', { name: 'Create webhook' }).click();
  const fieldError = dialog.locator('.field', { has: page.getByLabel('Recipients') }).locator('.field-error');
  await fieldError.waitFor();
  assert.match(await fieldError.innerText(), /"oncall@" is not an e-mail address/);
  await photographDialog(p, 'webhooks-email-form-error');
  await dialog.getByLabel('Recipients').fill('noc@example.net, oncall@example.net');
  await dialog.getByRole('button', { name: 'Create webhook' }).click();
  await dialog.waitFor({ state: 'detached' });

  const row = page.getByRole('row', { name: /NOC mail/ });
  await row.waitFor();
  assert.match(await row.innerText(), /E-mail \(SMTP\)/);
  assert.match(await row.innerText(), /noc@example\.net, oncall@example\.net/, 'listed by its recipients');
  const stored = (await env.t.request('GET', '/api/webhooks', { key: admin.key })).body.items[0];
  assert.deepEqual(stored.options, { to: ['noc@example.net', 'oncall@example.net'] });
  assert.equal(stored.url, null);

  await row.getByRole('button', { name: 'Send a test to NOC mail' }).click();
  const result = page.getByRole('dialog', { name: 'Test of NOC mail' });
  await result.getByText('Delivered').waitFor();
  await result.getByText('SMTP reply').waitFor();
  assert.match(await result.innerText(), /250/);
  const got = await until('the test message', () => smtp.mails[0]);
  assert.deepEqual(got.to, ['noc@example.net', 'oncall@example.net']);
  assert.equal(parseMail(got.raw).subject, 'TEST: alerts from edge-probe reach this address');
  await page.keyboard.press('Escape');

  // Editing shows the recipients in their field, and still no URL.
  await row.getByRole('button', { name: 'Edit NOC mail' }).click();
  dialog = page.getByRole('dialog', { name: 'Edit NOC mail' });
  assert.equal(await dialog.getByLabel('Recipients').inputValue(), 'noc@example.net, oncall@example.net');
  assert.equal(await dialog.getByLabel('URL').count(), 0);
  await page.keyboard.press('Escape');
  await photograph(p, '/webhooks', 'webhooks-email-list', 'Webhooks');
  assertClean(p, 'the webhooks page', ['POST /api/webhooks 409', 'POST /api/webhooks 400']);
});

test('the SMTP settings say so when a new server dropped the stored password', async () => {
  const { page } = p;
  assert.equal((await importConfig({ smtp: { user: 'probe', password: 'smtp-Pa55-for-e2e' } })).status, 200);
  await page.goto('/settings/email');
  const card = page.locator('.card', { has: page.getByRole('heading', { name: 'SMTP server', exact: true }) });
  await card.getByText('A password is stored.').waitFor();
  await card.getByLabel('Port').fill(String(other.port));
  await card.getByRole('button', { name: 'Save e-mail settings' }).click();
  await page.getByText(/smtp\.password.*was dropped because the address changed/).waitFor();
  await card.getByText('No password is stored.').waitFor();
  const cfg = await env.t.request('GET', '/api/config/json', { key: admin.key });
  assert.deepEqual(cfg.body.smtp.password, { set: false });
  assertClean(p, 'the e-mail settings');
});

/** The open dialog in light and dark at 1366 px, then the same form at 375 px: no sideways scrolling, labelled. */
async function photographDialog(ui: UiPage, name: string): Promise<void> {
  const { page } = ui;
  await page.emulateMedia({ colorScheme: 'light' });
  await screenshot(page, name);
  await page.emulateMedia({ colorScheme: 'dark' });
  await screenshot(page, `${name}-dark`);
  await page.emulateMedia({ colorScheme: 'light' });
  const phone = await ui.context.newPage();
  await phone.setViewportSize(PHONE);
  phone.on('pageerror', (e) => ui.errors.push(`uncaught (phone): ${e.message}`));
  try {
    const dialog = await newEmailChannel(phone);
    await dialog.getByLabel('Name').fill('NOC mail');
    await dialog.getByLabel('Recipients').fill('noc@example.net, oncall@');
    await dialog.getByRole('button', { name: 'Create webhook' }).click();
    await dialog.locator('.field', { has: phone.getByLabel('Recipients') }).locator('.field-error').waitFor();
    await assertNoHorizontalOverflow(phone, 'the e-mail channel form at 375 px');
    await assertLabelledControls(phone, 'the e-mail channel form at 375 px');
    await screenshot(phone, `${name}-phone`);
    await phone.emulateMedia({ colorScheme: 'dark' });
    await screenshot(phone, `${name}-phone-dark`);
  } finally {
    await phone.close();
  }
}
