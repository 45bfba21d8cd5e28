// Status pages in a real browser against the real service, with real HTTP targets on 127.0.0.1 (issue 34 §4):
// - signed in: the status pages tab; the form refuses a page without a title beside its field; a page made
//   in the form (its address from its title, a monitor added to its group with an alias, a notice) is listed
//   with a link to its public address;
// - signed out, in a browser context that never signed in: /status/<slug> shows the title, the notice, the
//   group, the monitor by its alias with its state ("Down" for the failing one), its 90-day bar and the
//   planned maintenance of a window touching it, and nothing of what the page does not name (the other
//   monitor, targets); a document without scripts and without console errors, fitting 375 px;
// Photographed at 1366 and 375 px, light and dark (the signed-in list and the public page).
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import {
  apiCaller, assertClean, assertNoHorizontalOverflow, openPage, photograph, PHONE, screenshot, type UiEnv, type UiPage, startSignedIn,
} from './helpers/browser.js';

let env: UiEnv;
let p: UiPage;
let site: Server;
let api: ReturnType<typeof apiCaller>;
const ids: Record<string, string> = {};

before(async () => {
  ({ env, p } = await startSignedIn(async (e, a) => {
    api = apiCaller(e, a.key);
    site = createServer((req, res) => { res.statusCode = req.url === '/mail' ? 503 : 200; res.end('ok'); });
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    for (const [name, path, tags] of [['web-frontend', '/web', ['public']], ['mail-relay', '/mail', ['public']],
      ['secret-backend', '/secret', ['internal']]] as const) {
      ids[name] = (await api('POST', '/api/monitors', { name, check_type: 'http', target: `${base}${path}`, interval: 3600, timeout: 5,
        failure_threshold: 1, tags })).id;
    }
    const from = Date.now() + 2 * 86_400_000;
    await api('POST', '/api/monitors/maintenance', { name: 'Mail relay patching', applies_to: 'tags', tags: ['public'],
      schedule: { kind: 'once', from: new Date(from).toISOString(), to: new Date(from + 2 * 3_600_000).toISOString() } });
    for (let i = 0; i < 300; i++) {
      const list = (await api('GET', '/api/monitors')).monitors as { status: string }[];
      if (list.every((m) => m.status !== 'unknown')) break;
      await new Promise((r) => setTimeout(r, 20));
    }
  }));
});
after(async () => {
  await p?.context.close();
  await env?.close();
  site?.close();
});

test('signed in: a page made in the form, refused first without a title', async () => {
  const { page } = p;
  await page.goto('/monitors');
  await page.getByRole('link', { name: 'Status pages' }).click();
  await page.getByRole('heading', { name: 'Status pages', level: 1 }).waitFor();
  await page.getByRole('button', { name: 'New status page' }).first().click();
  const dialog = page.getByRole('dialog', { name: 'New status page' });
  await dialog.getByRole('button', { name: 'Create page' }).click();
  await dialog.locator('.field-error', { hasText: 'Required' }).first().waitFor();
  assert.equal(await dialog.locator('.alert-error').count(), 0, 'no box above the form: the message is beside its field');
  assertClean(p, 'the refused page', ['POST /api/monitors/status-pages 400']);

  await dialog.getByLabel('Title', { exact: true }).fill('Example Ltd services');
  // The address follows the title (set after the title's render).
  const address = dialog.getByLabel('Address', { exact: true });
  for (let i = 0; i < 100 && (await address.inputValue()) !== 'example-ltd-services'; i++) await page.waitForTimeout(20);
  assert.equal(await address.inputValue(), 'example-ltd-services', 'the address follows the title');
  await dialog.getByLabel('Notice', { exact: true }).fill('Phones are answered 08:00-18:00');
  await dialog.getByLabel('Name of group 1').fill('Customer services');
  await dialog.getByLabel('Add a monitor to group 1').selectOption({ label: 'web-frontend' });
  await dialog.getByLabel('Add a monitor to group 1').selectOption({ label: 'mail-relay' });
  await dialog.getByLabel('Name readers see for web-frontend').fill('Website');
  await dialog.getByRole('button', { name: 'Create page' }).click();
  await dialog.waitFor({ state: 'detached' });
  const row = page.getByRole('row', { name: /Example Ltd services/ });
  await row.getByRole('link', { name: '/status/example-ltd-services' }).waitFor();
  assert.match(await row.innerText(), /2 in 1 group/);
  assertClean(p, 'the page made');
  await photograph(p, '/monitors/status-pages', 'monitors-status-pages', 'Status pages');
  assertClean(p, 'the list photographed');

  // The form at 375 px: its groups' rows fit.
  const phone = await p.context.newPage();
  await phone.setViewportSize(PHONE);
  await phone.goto('/monitors/status-pages');
  await phone.getByRole('button', { name: 'Edit Example Ltd services' }).click();
  const edit = phone.getByRole('dialog', { name: 'Edit Example Ltd services' });
  assert.equal(await edit.getByLabel('Name readers see for web-frontend').inputValue(), 'Website');
  await assertNoHorizontalOverflow(phone, 'the page form at 375 px');
  await screenshot(phone, 'monitors-status-pages-form-phone');
  await phone.emulateMedia({ colorScheme: 'dark' });
  await screenshot(phone, 'monitors-status-pages-form-phone-dark');
  await phone.close();
});

test('signed out: the public page shows what it names, and nothing else', async () => {
  const reader = await openPage(env);
  try {
    const res = await reader.page.goto('/status/example-ltd-services');
    assert.equal(res?.status(), 200);
    await reader.page.getByRole('heading', { name: 'Example Ltd services', level: 1 }).waitFor();
    const text = await reader.page.locator('body').innerText();
    for (const s of ['Phones are answered 08:00-18:00', 'Customer services', 'Website', 'mail-relay', 'Partial outage', 'Planned maintenance',
      'Affects Website, mail-relay']) assert.ok(text.includes(s), `shows ${s}: ${text}`);
    assert.equal(await reader.page.locator('li', { hasText: 'mail-relay' }).locator('.state').innerText(), 'Down');
    assert.equal(await reader.page.locator('li', { hasText: 'Website' }).locator('.state').innerText(), 'Operational');
    assert.equal(await reader.page.locator('li', { hasText: 'Website' }).locator('.bars i').count(), 90);
    const source = await reader.page.content();
    for (const s of ['secret-backend', 'web-frontend', '127.0.0.1', 'Mail relay patching', ids['web-frontend']!]) {
      assert.ok(!source.includes(s), `never shows ${s}`);
    }
    assert.equal(await reader.page.locator('script').count(), 0, 'no script');
    assert.deepEqual(await reader.context.cookies(), [], 'never signed in');
    assertClean(reader, 'the public page');
    const phone = await reader.context.newPage();
    await phone.setViewportSize(PHONE);
    await phone.goto('/status/example-ltd-services');
    await assertNoHorizontalOverflow(phone, 'the public page at 375 px');
    assert.equal(await phone.locator('li', { hasText: 'Website' }).locator('.bars i:visible').count(), 30, '30 days at 375 px');
    await phone.close();
    await photograph(reader, '/status/example-ltd-services', 'status-page-public', 'Example Ltd services');
    assertClean(reader, 'the public page photographed');

    const missing = await reader.page.goto('/status/no-such-page');
    assert.equal(missing?.status(), 404);
    await reader.page.getByRole('heading', { name: 'No such status page', level: 1 }).waitFor();
    assertClean(reader, 'an unknown address', ['GET /status/no-such-page 404']);
  } finally {
    await reader.context.close();
  }
});
