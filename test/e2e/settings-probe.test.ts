// The probe's own settings in a real browser, the rest: the health gauges and host facts; the wizard's
// settings edited afterwards; branding (accent colour, sign-in notice, logo) seen on the sign-in page;
// SMTP settings saved and a test message received by an SMTP server on loopback (smtp-server); remote
// access with neither program installed (the install hint, not an error); a pairing code refused beside
// its field; the update page without a source; a database cleanup; and a viewer, who sees no
// administrator's controls.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { SMTPServer } from 'smtp-server';
import {
  assertClean, openPage, photograph, screenshot, signIn, startSignedIn, transferredBytes, type UiEnv, type UiPage,
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

const card = (page: UiPage['page'], title: string) => page.locator('.card', { has: page.getByRole('heading', { name: title, exact: true }) });

test('first load of /settings when signed in: under 150 KB compressed; a section loads with its own module', async () => {
  const context = await env.browser.newContext({ baseURL: env.url });
  const [name, value] = (await env.t.login(admin.username, admin.password)).split('=');
  await context.addCookies([{ name: name!, value: value!, url: env.url }]);
  const page = await context.newPage();
  await page.goto('/settings');
  await page.getByRole('heading', { name: 'Health', level: 2 }).waitFor();
  await page.waitForLoadState('networkidle');
  const t = await transferredBytes(page);
  console.log(`first load of /settings: ${t.items.length} responses, ${t.total} bytes of compressed bodies`);
  assert.ok(t.total < 150 * 1024, `transferred ${t.total} bytes`);
  const urls = t.items.map((i) => i.url);
  assert.ok(urls.includes('/pages/settings/system.js'));
  assert.ok(!urls.some((u) => /settings\/(tls|config|access|update)\.js$|qrcode/.test(u)), 'other sections are not loaded');
  await context.close();
  // The heaviest section, cold: remote access brings qrcode-generator.
  const cold = await env.browser.newContext({ baseURL: env.url });
  await cold.addCookies([{ name: name!, value: value!, url: env.url }]);
  const page2 = await cold.newPage();
  await page2.goto('/settings/access');
  await page2.getByRole('heading', { name: 'ZeroTier', level: 2 }).waitFor();
  await page2.waitForLoadState('networkidle');
  const a = await transferredBytes(page2);
  console.log(`first load of /settings/access (with qrcode-generator): ${a.total} bytes of compressed bodies`);
  assert.ok(a.total < 150 * 1024, `transferred ${a.total} bytes`);
  await cold.close();
});

test('system: gauges for CPU, memory, disk, temperature and uptime, and the host facts', async () => {
  const { page } = p;
  await page.goto('/settings');
  const health = card(page, 'Health');
  for (const name of [/^CPU: /, /^Memory: \d+ %/, /^Disk: \d+ %/, /^Temperature: /, /^Uptime: /]) await health.getByRole('img', { name }).waitFor();
  const host = card(page, 'Host');
  await host.getByText('Operating system').waitFor();
  await host.getByRole('cell', { name: 'lo', exact: false }).first().waitFor();
  // A PC names no board: its cpuinfo's "model : 49" is the CPU's model number and once showed as "Board 49" (issue 33).
  if (!existsSync('/proc/device-tree/model')) {
    assert.equal(await host.getByText('Board', { exact: true }).count(), 0, 'no Board row without a device tree');
  }
  await photograph(p, '/settings/system', 'settings-system-host', 'Settings');
  await host.getByRole('button', { name: 'Read again' }).click();
  await page.getByText('Reading the host facts again').waitFor();
  assertClean(p, 'the system section');
});

test('probe settings from the wizard are edited afterwards', async () => {
  const { page } = p;
  await page.goto('/settings/probe');
  const form = card(page, 'Probe');
  await form.getByLabel('Probe name').fill('Plant 2 probe');
  await form.getByLabel('Host name').fill('bad host');
  await form.getByRole('button', { name: 'Save probe settings' }).click();
  await form.locator('.field', { has: page.getByLabel('Host name') }).locator('.field-error').waitFor();
  await form.getByLabel('Host name').fill('plant2-probe');
  await form.getByLabel('Time zone').selectOption('Europe/Berlin');
  await form.getByLabel('Administrator e-mail').fill('noc@example.net');
  await form.getByRole('button', { name: 'Save probe settings' }).click();
  await page.getByText('Probe settings saved').waitFor();
  const cfg = await env.t.request('GET', '/api/config/json', { key: admin.key });
  assert.deepEqual(cfg.body.probe, { name: 'Plant 2 probe', hostname: 'plant2-probe', timezone: 'Europe/Berlin', admin_email: 'noc@example.net' });
  // The name is the probe's everywhere at once: the document title and the sidebar.
  await page.waitForFunction(() => document.title.endsWith('· Plant 2 probe'));
  assertClean(p, 'the probe settings', ['POST /api/setup/save 400']);
});

// A 1x1 PNG.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

test('branding: accent colour, sign-in notice and logo, shown on the sign-in page', async () => {
  const { page } = p;
  await page.goto('/settings/probe');
  const brand = card(page, 'Branding');
  await brand.getByLabel('Accent colour', { exact: true }).fill('teal');
  await brand.getByRole('button', { name: 'Save branding' }).click();
  await brand.locator('.field-error').first().waitFor();
  await brand.getByLabel('Accent colour', { exact: true }).fill('#7c3aed');
  await brand.getByLabel('Sign-in notice').fill('Call the NOC on 555-0100 before changing anything.');
  await brand.getByRole('button', { name: 'Save branding' }).click();
  await page.getByText('Branding saved').waitFor();
  await page.waitForFunction(() => document.documentElement.style.getPropertyValue('--accent') === '#7c3aed');
  await brand.getByLabel('Logo').setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: PNG });
  await page.getByText('Logo uploaded').waitFor();
  await brand.getByRole('img', { name: 'Current logo' }).waitFor();

  const out = await openPage(env);
  await out.page.goto('/login');
  await out.page.getByText('Call the NOC on 555-0100 before changing anything.').waitFor();
  await out.page.waitForFunction(() => document.documentElement.style.getPropertyValue('--accent') === '#7c3aed');
  assert.ok(await out.page.locator('img.logo').count() >= 1, 'the uploaded logo is on the sign-in page');
  await screenshot(out.page, 'settings-branding-sign-in');
  assertClean(out, 'the branded sign-in page', ['GET /api/me 401']);
  await out.context.close();

  await brand.getByRole('button', { name: 'Remove logo' }).click();
  await page.getByRole('dialog', { name: 'Remove the logo?' }).getByRole('button', { name: 'Remove' }).click();
  await page.getByText('Logo removed').waitFor();
  assertClean(p, 'the branding settings', ['POST /api/web-identity 400']);
});

test('e-mail: SMTP settings saved, a test message received on loopback, listed as sent', async () => {
  const { page } = p;
  const received: { from: string; to: string[]; data: string }[] = [];
  const server = new SMTPServer({
    authOptional: true, disabledCommands: ['STARTTLS'],
    onData(stream, session, cb) {
      let data = '';
      stream.on('data', (c) => { data += c; });
      stream.on('end', () => {
        received.push({ from: String(session.envelope.mailFrom && session.envelope.mailFrom.address), to: session.envelope.rcptTo.map((r) => r.address), data });
        cb();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  const before = await env.t.request('GET', '/api/config/json', { key: admin.key });
  try {
    await page.goto('/settings/email');
    const smtp = card(page, 'SMTP server');
    await smtp.getByLabel('SMTP server').fill('127.0.0.1');
    await smtp.getByLabel('Port').fill('0');
    await smtp.getByLabel('Security').selectOption('none');
    await smtp.getByRole('button', { name: 'Save e-mail settings' }).click();
    await smtp.locator('.field', { has: page.getByLabel('Port') }).locator('.field-error').waitFor();
    await smtp.getByLabel('Port').fill(String(port));
    await smtp.getByLabel('Sender address').fill('probe@example.net');
    await smtp.getByRole('button', { name: 'Save e-mail settings' }).click();
    await page.getByText(/E-mail settings saved/).waitFor();
    const cfg = await env.t.request('GET', '/api/config/json', { key: admin.key });
    assert.equal(cfg.body.smtp.host, '127.0.0.1');
    assert.equal(cfg.body.smtp.port, port);
    assert.equal(cfg.body.smtp.security, 'none');
    assert.deepEqual(cfg.body.probe, before.body.probe, 'other sections are untouched');

    const test = card(page, 'Test message');
    await test.getByLabel('Send to').fill('ops@example.net');
    await test.getByRole('button', { name: 'Send a test message' }).click();
    await test.getByText(/Sent to ops@example.net/).waitFor();
    assert.equal(received.length, 1);
    assert.deepEqual(received[0]!.to, ['ops@example.net']);
    assert.match(received[0]!.data, new RegExp(`Subject: Test message from ${before.body.probe.name}`));
    const recent = card(page, 'Recent messages');
    await recent.getByRole('row', { name: /ops@example.net/ }).getByText('Sent').waitFor();
    await screenshot(page, 'settings-email');
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  // The server is gone: the test fails, and the page says why in the API's words.
  await page.getByLabel('Send to').fill('ops@example.net');
  await page.getByRole('button', { name: 'Send a test message' }).click();
  await page.locator('form .alert-error', { hasText: /not sent/ }).waitFor();
  assertClean(p, 'the e-mail settings', ['POST /api/config/import 400', 'POST /api/dev/emails/test 502']);
});

test('remote access without ZeroTier or Tailscale installed: how to install them, not an error', async () => {
  const { page } = p;
  await page.goto('/settings/access');
  for (const [provider, name] of [['zerotier', 'ZeroTier'], ['tailscale', 'Tailscale']] as const) {
    const hint = page.getByTestId(`install-${provider}`);
    await hint.getByRole('heading', { name: `${name} is not installed` }).waitFor();
    await hint.getByRole('button', { name: 'Copy the commands' }).waitFor();
    await hint.getByRole('link', { name: `${name}'s instructions` }).waitFor();
  }
  assert.equal(await page.locator('.alert-error').count(), 0);
  assert.equal(await page.getByRole('button', { name: 'Join network' }).count(), 0, 'no join form for a program that is not there');
  assertClean(p, 'the remote access section');
});

test('controller: a damaged pairing code is refused beside the field; nothing is saved', async () => {
  const { page } = p;
  await page.goto('/settings/controller');
  await page.getByText('Not paired.').waitFor();
  await page.getByLabel('Pairing code').fill('not-a-pairing-code');
  await page.getByRole('button', { name: 'Pair', exact: true }).click();
  await page.locator('.field', { has: page.getByLabel('Pairing code') }).locator('.field-error').waitFor();
  const st = await env.t.request('GET', '/api/hivemind/status', { key: admin.key });
  assert.equal(st.body.paired, false);
  assertClean(p, 'the controller section', ['POST /api/hivemind/pair 400']);
});

test('updates without a source: the running release, nothing to check, no failed request', async () => {
  const { page } = p;
  await page.goto('/settings/update');
  await page.getByText('No update source is set').waitFor();
  await card(page, 'Running release').getByText('Not installed').waitFor();
  assert.equal(await page.getByRole('button', { name: 'Check for an update' }).isDisabled(), true);
  assert.equal(await page.getByRole('button', { name: 'Update now' }).isDisabled(), true);
  assert.equal(await page.getByRole('switch', { name: 'Check for a newer release once a day' }).isChecked(), true, 'on by default');
  assertClean(p, 'the update section');
});

test('database: statistics and a cleanup with what it did', async () => {
  const { page } = p;
  await page.goto('/settings/database');
  await card(page, 'Tables').getByRole('cell', { name: 'audit_log' }).waitFor();
  await page.getByRole('button', { name: 'Clean up now' }).click();
  await page.getByRole('dialog', { name: 'Clean up the database now?' }).getByRole('button', { name: 'Clean up' }).click();
  await page.getByText(/Cleanup finished in \d+ ms/).waitFor();
  const audit = await env.t.request('GET', '/api/audit-log?action=system.db_cleanup', { key: admin.key });
  assert.equal(audit.body.items.length, 1);
  assertClean(p, 'the database section');
});

test('a viewer sees the probe\'s state but no administrator\'s controls or sections', async () => {
  const viewer = await env.t.user('viewer');
  const v = await openPage(env);
  await signIn(v.page, viewer.username, viewer.password);
  const { page } = v;
  await page.goto('/settings');
  const tabs = page.getByRole('navigation', { name: 'Settings sections' });
  await tabs.getByRole('link', { name: 'System' }).waitFor();
  for (const hidden of ['Probe', 'E-mail', 'Configuration', 'Database', 'Users', 'Audit log']) {
    assert.equal(await tabs.getByRole('link', { name: hidden, exact: true }).count(), 0, `${hidden} is hidden`);
  }
  await page.goto('/settings/tls');
  await card(page, 'Certificate in use').getByText('Self-signed', { exact: true }).waitFor();
  assert.equal(await page.getByRole('button', { name: 'Upload and install' }).count(), 0);
  await page.getByText('Only an administrator can upload a certificate').waitFor();
  await page.goto('/settings/update');
  await page.getByText('No update source is set').waitFor();
  assert.equal(await page.getByRole('button', { name: 'Update now' }).count(), 0);
  await page.goto('/settings/controller');
  await page.getByText('Not paired.').waitFor();
  assert.equal(await page.getByLabel('Pairing code').count(), 0);
  await page.goto('/settings/access');
  await page.getByTestId('install-zerotier').waitFor();
  await page.goto('/settings/account');
  await page.getByText('Only administrators can turn on two-factor sign-in.').waitFor();
  await page.goto('/settings/config');
  await page.getByText('Not available').waitFor();
  assertClean(v, 'the settings of a viewer');
  await v.context.close();
});
