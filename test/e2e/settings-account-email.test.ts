// Changing your own e-mail address under Settings → Account in a real browser: the form asks for the
// current password only once the address differs, shows a wrong one at the field, and saves with the
// right one; at 375 px and in dark mode, with the password field showing.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  assertClean, assertLabelledControls, assertNoHorizontalOverflow, openPage, PHONE, screenshot, signIn, startSignedIn, type UiEnv, type UiPage,
} from './helpers/browser.js';

let env: UiEnv;
let admin: { username: string; password: string; key: string };
let p: UiPage;

before(async () => { ({ env, admin, p } = await startSignedIn()); });
after(async () => { await p?.context.close(); await env?.close(); });

test('a new e-mail address needs the current password', async () => {
  const { page } = p;
  await page.goto('/settings/account');
  const profile = page.locator('.card', { has: page.getByRole('heading', { name: 'Profile', exact: true }) });
  await profile.getByLabel('E-mail').waitFor();
  assert.equal(await profile.getByLabel('Current password').count(), 0, 'no password asked while the address is unchanged');
  await profile.getByLabel('E-mail').fill('ops@example.net');
  await profile.getByLabel('Current password').fill('not the password at all');
  await profile.getByRole('button', { name: 'Save profile' }).click();
  await profile.locator('.field-error').waitFor();
  await profile.getByLabel('Current password').fill(admin.password);
  await profile.getByRole('button', { name: 'Save profile' }).click();
  await page.getByText('Profile saved').waitFor();
  const me = await env.t.request('GET', '/api/me', { key: admin.key });
  assert.equal(me.body.user.email, 'ops@example.net');
  assertClean(p, 'the account page', ['PUT /api/users/' + me.body.user.id + ' 400']);
});

test('the password field fits at 375 px and in dark mode', async () => {
  const phone = await openPage(env, PHONE);
  try {
    const { page } = phone;
    await signIn(page, admin.username, admin.password);
    await page.goto('/settings/account');
    const profile = page.locator('.card', { has: page.getByRole('heading', { name: 'Profile', exact: true }) });
    await profile.getByLabel('E-mail').fill('noc@example.net');
    await profile.getByLabel('Current password').waitFor();
    await assertNoHorizontalOverflow(page, 'the account page at 375 px');
    await assertLabelledControls(page, 'the account page at 375 px');
    await screenshot(page, 'settings-account-email-phone');
    await page.emulateMedia({ colorScheme: 'dark' });
    await screenshot(page, 'settings-account-email-phone-dark');
    assertClean(phone, 'the account page at 375 px');
  } finally {
    await phone.context.close();
  }
});
