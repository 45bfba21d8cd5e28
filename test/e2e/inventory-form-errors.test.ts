// Forms say every error at once, each once and beside its field (issue 33 §3), in a real browser against
// the real service: a site with a time zone the probe does not know, a latitude out of range and a bad
// e-mail address gets all three back from one submit, with no box repeating them, while its two-line
// address is taken as it is; the latitude is refused as soon as it is left, from the server's own schema;
// the time zone is the setup wizard's picker; a subnet whose CIDR has host bits is offered its network in
// one click; the vault dialog's warning reads as a sentence. Screenshots at 1366 px and 375 px, light and
// dark (test/e2e/screenshots/forms-*).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import {
  assertClean, assertNoHorizontalOverflow, DESKTOP, PHONE, screenshot, startSignedIn, type UiEnv, type UiPage,
} from './helpers/browser.js';

let env: UiEnv;
let p: UiPage;

before(async () => {
  ({ env, p } = await startSignedIn());
});

after(async () => {
  await p?.context.close();
  await env?.close();
});

const h1 = (page: Page, name: string) => page.getByRole('heading', { name, level: 1, exact: true });
/** The .field around a labelled control, for its error message. */
const fieldOf = (page: Page, label: string) => page.locator('.field', { has: page.getByLabel(label, { exact: true }) });

/** Light and dark screenshots of the page as it is now. */
async function shots(page: Page, name: string): Promise<void> {
  await page.emulateMedia({ colorScheme: 'light' });
  await screenshot(page, name);
  await page.emulateMedia({ colorScheme: 'dark' });
  await screenshot(page, `${name}-dark`);
  await page.emulateMedia({ colorScheme: 'light' });
}

/** A signed-in page of the same browser context at another width. */
async function pageAt(viewport: typeof DESKTOP): Promise<Page> {
  const page = await p.context.newPage();
  await page.setViewportSize(viewport);
  page.on('pageerror', (e) => p.errors.push(`uncaught: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error' && !/^Failed to load resource/.test(m.text())) p.errors.push(m.text()); });
  page.on('response', (r) => { if (r.status() >= 400) p.failed.push({ status: r.status(), method: r.request().method(), url: new URL(r.url()).pathname }); });
  return page;
}

const ADDRESS = 'Bahnhofstrasse 1\n8001 Zürich';

/**
 * Presses "Create site" as a person does, the button held a moment: pressing it leaves the e-mail field,
 * whose check against the server's schema comes back while the button is down. Its message must not move
 * the button from under the pointer, or the release lands beside it and the submit is lost.
 */
async function pressCreate(page: Page): Promise<void> {
  const button = page.getByRole('button', { name: 'Create site' });
  await button.scrollIntoViewIfNeeded();
  const box = (await button.boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  // Held until the field's check has come back and been drawn: the schema it waits for is the page's own.
  await page.evaluate(`(async () => {
    const rc = await import('/lib/request-check.js');
    await rc.schemaOf('POST', '/api/brain/sites');
    await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  })()`);
  await page.mouse.up();
}

/** Fills the new-site form with three faults and the two-line address, and submits it; resolves the POSTs sent. */
async function submitBadSite(page: Page): Promise<string[]> {
  const posts: string[] = [];
  page.on('request', (r) => { if (r.method() === 'POST' && new URL(r.url()).pathname === '/api/brain/sites') posts.push(r.postData() ?? ''); });
  await page.goto('/inventory/sites/new');
  await h1(page, 'New site').waitFor();
  await page.getByLabel('Name', { exact: true }).fill('Head office');
  await page.getByLabel('Address', { exact: true }).fill(ADDRESS);
  // The time zone is the wizard's picker of the zones this browser knows. One it lists that the probe's
  // time zone database lacks (a zone newer than the probe's) is the server's to refuse: made here.
  const zone = page.getByLabel('Time zone');
  assert.equal(await zone.evaluate((el) => el.tagName), 'SELECT', 'the time zone is a picker');
  const offered = await zone.evaluate((el) => Array.from((el as HTMLSelectElement).options, (o) => o.value));
  assert.ok(offered.includes('Europe/Zurich'), `the picker offers Europe/Zurich: ${offered.slice(0, 5).join(', ')}… (${offered.length})`);
  await zone.evaluate((el) => (el as HTMLSelectElement).add(new Option('Mars/Olympus', 'Mars/Olympus')));
  await zone.selectOption('Mars/Olympus');
  // Left with a latitude out of range: refused at once, from the server's schema, before any submit.
  await page.getByLabel('Latitude').fill('91');
  await page.getByLabel('Longitude').fill('8.54');
  await fieldOf(page, 'Latitude').locator('.field-error', { hasText: 'At most 90' }).waitFor();
  assert.equal(posts.length, 0, 'nothing was sent to find that out');
  await page.getByLabel('Contact e-mail').fill('not-an-email');
  await pressCreate(page);
  await fieldOf(page, 'Time zone').locator('.field-error', { hasText: 'Unknown IANA time zone: Mars/Olympus' }).waitFor();
  return posts;
}

/** Every error once, beside its field, and nothing in a box above the form. */
async function assertEachOnce(page: Page, where: string): Promise<void> {
  await fieldOf(page, 'Latitude').locator('.field-error', { hasText: 'At most 90' }).waitFor();
  await fieldOf(page, 'Contact e-mail').locator('.field-error', { hasText: 'Not an e-mail address' }).waitFor();
  assert.equal(await page.locator('.alert-error').count(), 0, `${where}: no box repeats the fields' errors`);
  for (const text of ['Unknown IANA time zone', 'At most 90', 'Not an e-mail address']) {
    assert.equal(await page.getByText(text).count(), 1, `${where}: "${text}" is shown once`);
  }
  assert.equal(await page.locator('.field-error').count(), 3, `${where}: three fields in error, no other`);
  assert.equal(await page.locator('.field', { has: page.getByLabel('Address', { exact: true }) }).locator('.field-error').count(), 0,
    `${where}: the two-line address is fine`);
}

test('a site with a bad time zone and a two-line address: every error at once, each once beside its field; then it saves', async () => {
  const { page } = p;
  const posts = await submitBadSite(page);
  await assertEachOnce(page, '1366 px');
  assert.equal(posts.length, 1, 'one submit brought every error');
  assert.equal(JSON.parse(posts[0]!).address, ADDRESS, 'the address went with its line break');
  // The first field in error has the focus, so a screen reader reads its message.
  await page.waitForFunction(() => document.activeElement?.getAttribute('name') === 'time_zone');
  await shots(page, 'forms-site-errors');
  assertClean(p, 'the refused site', ['POST /api/brain/sites 400']);

  // The same at 375 px.
  const phone = await pageAt(PHONE);
  await submitBadSite(phone);
  await assertEachOnce(phone, '375 px');
  await assertNoHorizontalOverflow(phone, 'the refused site at 375 px');
  await shots(phone, 'forms-site-errors-phone');
  await phone.close();
  assertClean(p, 'the refused site at 375 px', ['POST /api/brain/sites 400']);

  // Fixed: it saves, and the address keeps its two lines.
  await page.getByLabel('Time zone').selectOption('Europe/Zurich');
  await page.getByLabel('Latitude').fill('47.37');
  await page.getByLabel('Contact e-mail').fill('noc@example.org');
  await page.getByRole('button', { name: 'Create site' }).click();
  await h1(page, 'Head office').waitFor();
  const shown = page.locator('.inv-dl dd', { has: page.locator('.inv-lines') });
  assert.equal(await shown.innerText(), ADDRESS, 'the page shows the address on its two lines');
  const site = await env.t.request('GET', '/api/brain/sites/ST-1', { key: (await env.t.admin()).key });
  assert.equal(site.body.address, ADDRESS);
  assert.equal(site.body.time_zone, 'Europe/Zurich');
  assertClean(p, 'the saved site');
});

/** Submits a subnet whose CIDR has host bits, and waits for the offer of its network. */
async function submitHostBits(page: Page): Promise<void> {
  await page.goto('/inventory/subnets/new');
  await h1(page, 'New subnet').waitFor();
  await page.getByLabel('Network (CIDR)').fill('10.30.0.5/24');
  await page.getByLabel('Gateway').fill('10.30.0.1');
  await page.getByRole('button', { name: 'Create subnet' }).click();
  await fieldOf(page, 'Network (CIDR)').locator('.field-error', { hasText: '10.30.0.5/24 has host bits set: did you mean the network 10.30.0.0/24?' }).waitFor();
}

test('a CIDR with host bits is refused with its network, put in with one click', async () => {
  const phone = await pageAt(PHONE);
  await submitHostBits(phone);
  await assertNoHorizontalOverflow(phone, 'the refused subnet at 375 px');
  await shots(phone, 'forms-subnet-host-bits-phone');
  await phone.close();

  const { page } = p;
  await submitHostBits(page);
  assert.equal(await page.locator('.alert-error').count(), 0, 'the error is beside the field only');
  await shots(page, 'forms-subnet-host-bits');
  const use = fieldOf(page, 'Network (CIDR)').getByRole('button', { name: 'Use 10.30.0.0/24' });
  await use.click();
  assert.equal(await page.getByLabel('Network (CIDR)').inputValue(), '10.30.0.0/24');
  assert.equal(await fieldOf(page, 'Network (CIDR)').locator('.field-error').count(), 0, 'the error goes with the fix');
  await page.getByRole('button', { name: 'Create subnet' }).click();
  await h1(page, '10.30.0.0/24').waitFor();
  assertClean(p, 'the subnet', ['POST /api/brain/subnets 400', 'POST /api/brain/subnets 400']);
});

test('the vault dialog warns in a sentence', async () => {
  const page = await pageAt(DESKTOP);
  await page.goto('/inventory/credentials/new');
  await page.getByRole('button', { name: 'Set up the vault' }).click();
  const dialog = page.getByRole('dialog');
  const text = (await dialog.locator('.alert-warn').innerText()).replace(/\s+/g, ' ');
  assert.match(text, /cannot be recovered: losing it loses the secrets \(the credentials themselves remain\)/);
  await page.close();
  assertClean(p, 'the vault dialog');
});

test('the wizard, the probe settings and a site pick their time zone from the same list', async () => {
  const page = await pageAt(DESKTOP);
  const zones = async () => page.getByLabel('Time zone', { exact: true }).locator('option').evaluateAll(
    (os) => os.map((o) => (o as HTMLOptionElement).value).filter(Boolean));
  await page.goto('/settings/probe');
  await page.getByLabel('Time zone', { exact: true }).waitFor();
  const probe = await zones();
  await page.goto('/inventory/sites/new');
  await h1(page, 'New site').waitFor();
  const site = await zones();
  assert.ok(probe.length > 100 && probe[0] === 'UTC', `the list starts with UTC: ${probe.slice(0, 3).join(', ')}`);
  assert.deepEqual(site, probe, 'a site offers the probe\'s zones (and may be left empty)');
  await page.close();
  assertClean(p, 'the time zone pickers');
});
