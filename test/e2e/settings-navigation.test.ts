// The settings sections can all be found (issue 33 §2): 13 tabs in one strip hid the last five at
// 1366 px and showed four on a phone. Now a grouped side list shows every section beside the page at
// 1366 px, and on a phone /settings is that list, each section one tap away with a way back. Every
// entry must lie inside the viewport (no sideways scrolling, at 1366 px not even downwards) and open
// its section. Screenshots: settings-nav-*.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import {
  assertClean, assertNoHorizontalOverflow, DESKTOP, openPage, PHONE, screenshot, signIn, startSignedIn, type UiEnv, type UiPage,
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

/** Every section an administrator sees: its entry in the list and a card heading shown once it loaded. */
const SECTIONS: [id: string, entry: string, heading: string][] = [
  ['system', 'System', 'Health'], ['probe', 'Probe', 'Branding'], ['update', 'Updates', 'Running release'],
  ['config', 'Configuration', 'Configuration'], ['database', 'Database', 'Tables'], ['tls', 'TLS', 'Certificate in use'],
  ['email', 'E-mail', 'SMTP server'], ['access', 'Remote access', 'ZeroTier'], ['controller', 'Controller', 'Controller'],
  ['users', 'Users', 'Users'], ['api-keys', 'API keys', 'API keys of all users'], ['audit', 'Audit log', 'Audit log'],
  ['account', 'Account', 'Two-factor sign-in'],
];

/** The entry lies wholly inside the viewport (and, with `fold`, above its lower edge too). */
async function assertOnScreen(page: Page, entry: Locator, name: string, fold: boolean): Promise<void> {
  const box = await entry.boundingBox();
  const vp = page.viewportSize()!;
  assert.ok(box, `${name}: not shown`);
  assert.ok(box.x >= 0 && box.x + box.width <= vp.width, `${name}: x ${box.x}..${box.x + box.width} outside the ${vp.width} px viewport`);
  if (fold) assert.ok(box.y >= 0 && box.y + box.height <= vp.height, `${name}: y ${box.y}..${box.y + box.height} below the ${vp.height} px fold`);
}

async function photos(page: Page, name: string): Promise<void> {
  await page.emulateMedia({ colorScheme: 'light' });
  await screenshot(page, name);
  await page.emulateMedia({ colorScheme: 'dark' });
  await screenshot(page, `${name}-dark`);
  await page.emulateMedia({ colorScheme: 'light' });
}

test('at 1366 px every section is listed beside the page, in view, and opens from the list', async () => {
  const { page } = p;
  assert.deepEqual(page.viewportSize(), DESKTOP);
  await page.goto('/settings');
  await page.getByRole('heading', { name: 'Health', level: 2 }).waitFor();
  const nav = page.getByRole('navigation', { name: 'Settings sections' });
  assert.equal(await nav.getByRole('link').count(), SECTIONS.length, 'an administrator sees every section');
  await assert.doesNotReject(nav.getByRole('link', { name: 'System', exact: true }).and(page.locator('[aria-current="page"]')).waitFor(),
    '/settings opens the first section beside the list');
  for (const [, entry] of SECTIONS) await assertOnScreen(page, nav.getByRole('link', { name: entry, exact: true }), entry, true);
  await assertNoHorizontalOverflow(page, '/settings at 1366 px');
  await photos(page, 'settings-nav-desktop');
  for (const [id, entry, heading] of SECTIONS) {
    const link = nav.getByRole('link', { name: entry, exact: true });
    await link.click();
    await page.waitForURL(`**/settings/${id}`);
    await page.getByRole('heading', { name: heading, level: 2, exact: true }).waitFor();
    assert.equal(await link.getAttribute('aria-current'), 'page', `${entry} is marked as the current section`);
    // The list stays where it was: the next entry is still in view after opening a long section.
    await assertOnScreen(page, nav.getByRole('link', { name: SECTIONS.at(-1)![1], exact: true }), `${entry}: the last entry`, true);
    await assertNoHorizontalOverflow(page, `/settings/${id} at 1366 px`);
  }
  await photos(page, 'settings-nav-desktop-account');
  assertClean(p, 'the settings sections at 1366 px');
});

test('at 375 px /settings is the list of every section; each opens, says where it is and leads back', async () => {
  const ph = await openPage(env, PHONE);
  try {
    const { page } = ph;
    await signIn(page, admin.username, admin.password);
    await page.goto('/settings');
    const nav = page.getByRole('navigation', { name: 'Settings sections' });
    await nav.getByRole('link', { name: 'System', exact: true }).waitFor();
    assert.equal(await nav.getByRole('link').count(), SECTIONS.length, 'every section is listed');
    assert.equal(await page.getByRole('heading', { name: 'Health', level: 2 }).count(), 0, 'the list alone, no section yet');
    for (const [, entry] of SECTIONS) await assertOnScreen(page, nav.getByRole('link', { name: entry, exact: true }), entry, false);
    await assertNoHorizontalOverflow(page, '/settings at 375 px');
    await photos(page, 'settings-nav-phone');
    for (const [id, entry, heading] of SECTIONS) {
      await nav.getByRole('link', { name: entry, exact: true }).click();
      await page.waitForURL(`**/settings/${id}`);
      await page.getByRole('heading', { name: heading, level: 2, exact: true }).waitFor();
      await page.locator('.settings-crumb').getByText(entry, { exact: true }).waitFor();
      await page.getByRole('link', { name: 'All settings' }).click();
      await page.waitForURL('**/settings');
      await nav.getByRole('link', { name: entry, exact: true }).waitFor();
    }
    // A deep link opens its section directly.
    await page.goto('/settings/users');
    await page.getByRole('heading', { name: 'Users', level: 2, exact: true }).waitFor();
    await page.getByRole('link', { name: 'All settings' }).waitFor();
    await assertNoHorizontalOverflow(page, '/settings/users at 375 px');
    await photos(page, 'settings-nav-phone-users');
    assertClean(ph, 'the settings sections at 375 px', ['GET /api/me 401']);
  } finally {
    await ph.context.close();
  }
});

test('a viewer\'s list leaves out the administrator\'s sections and the groups left empty', async () => {
  const viewer = await env.t.user('viewer');
  const v = await openPage(env);
  try {
    await signIn(v.page, viewer.username, viewer.password);
    await v.page.goto('/settings');
    const nav = v.page.getByRole('navigation', { name: 'Settings sections' });
    await nav.getByRole('link', { name: 'System', exact: true }).waitFor();
    const names = (await nav.getByRole('link').allInnerTexts()).map((t) => t.trim());
    assert.deepEqual(names, ['System', 'Updates', 'TLS', 'Remote access', 'Controller', 'API keys', 'Account']);
    assertClean(v, 'a viewer\'s settings list', ['GET /api/me 401']);
  } finally {
    await v.context.close();
  }
});
