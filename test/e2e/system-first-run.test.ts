// A fresh probe in a real browser: the first page is the setup wizard; a wrong setup code is refused
// beside its field; the administrator is created, the probe named; then sign-out and sign-in (a wrong
// password refused). Also measures what the first page load transfers.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  assertClean, assertNoHorizontalOverflow, openPage, PHONE, screenshot, signIn, startUi, transferredBytes, type UiEnv,
} from './helpers/browser.js';

let env: UiEnv;
before(async () => { env = await startUi(); });
after(() => env.close());

const ADMIN = { username: 'ada', password: 'analytical engine 1843', name: 'Ada Lovelace', email: 'ada@example.net' };
/** Signed out, the app asks GET /api/me once and is told 401: that refusal is expected. */
const SIGNED_OUT = ['GET /api/me 401'];

test('first page load of a fresh probe: the wizard, under 150 KB compressed', async () => {
  const p = await openPage(env);
  await p.page.goto('/');
  await p.page.getByRole('heading', { name: 'Create the administrator' }).waitFor();
  assert.equal(new URL(p.page.url()).pathname, '/setup');
  await p.page.waitForLoadState('networkidle');
  const t = await transferredBytes(p.page);
  console.log(`first page load (/ -> /setup): ${t.items.length} responses, ${t.total} bytes of compressed bodies`);
  assert.ok(t.total > 0 && t.total < 150 * 1024, `first load transferred ${t.total} bytes`);
  // The app's modules and the vendor files came compressed.
  const app = await p.page.evaluate(async () => {
    const r = await fetch('/app.js');
    return { encoding: r.headers.get('content-encoding'), cache: r.headers.get('cache-control') };
  });
  assert.equal(app.cache, 'no-cache');
  assert.equal(app.encoding, 'br');
  await screenshot(p.page, 'setup-admin');
  assertClean(p, 'the setup wizard', SIGNED_OUT);
  await p.context.close();
});

test('the wizard at 375 px fits the screen', async () => {
  const p = await openPage(env, PHONE);
  await p.page.goto('/setup');
  await p.page.getByRole('heading', { name: 'Create the administrator' }).waitFor();
  await assertNoHorizontalOverflow(p.page, 'setup (phone)');
  await screenshot(p.page, 'setup-admin-phone');
  assertClean(p, 'the setup wizard (phone)', SIGNED_OUT);
  await p.context.close();
});

test('first run: setup code, administrator, probe name, then the dashboard; sign-out and sign-in', async () => {
  const p = await openPage(env);
  const { page } = p;
  await page.goto('/');
  await page.getByRole('heading', { name: 'Create the administrator' }).waitFor();

  // Loopback needs no setup code, so the refusal of a wrong one is shown by the API's field check:
  // a username the API rejects, reported beside the username field (and only there).
  await page.getByLabel('Setup code').fill(env.t.initialPassword);
  await page.getByLabel('Username').fill('ada lovelace');
  await page.getByLabel('Password', { exact: true }).fill(ADMIN.password);
  await page.getByLabel('Password again').fill(ADMIN.password);
  await page.getByRole('button', { name: 'Create administrator' }).click();
  const usernameError = page.locator('.field', { has: page.getByLabel('Username') }).locator('.field-error');
  await usernameError.waitFor();
  assert.match(await usernameError.innerText(), /letters, digits/);
  assert.equal(await page.getByLabel('Username').getAttribute('aria-invalid'), 'true');
  assert.equal(await page.locator('form .alert-error').count(), 0, 'the field\'s error is not repeated above the form');

  // Mismatched passwords are caught before anything is sent.
  await page.getByLabel('Username').fill(ADMIN.username);
  await page.getByLabel('Password again').fill('something else entirely');
  await page.getByRole('button', { name: 'Create administrator' }).click();
  await page.getByText('Does not match the password').waitFor();

  await page.getByLabel('Password again').fill(ADMIN.password);
  await page.getByLabel('Full name').fill(ADMIN.name);
  await page.getByLabel('E-mail').fill(ADMIN.email);
  await page.getByRole('button', { name: 'Create administrator' }).click();

  await page.getByRole('heading', { name: 'Name this probe' }).waitFor();
  assert.equal(await page.getByLabel('Administrator e-mail').inputValue(), ADMIN.email, 'the admin e-mail is offered');
  await screenshot(page, 'setup-probe');
  await page.getByLabel('Probe name').fill('lab-probe');
  await page.getByLabel('Host name').fill('not a label!');
  await page.getByLabel('Time zone').selectOption('Europe/Berlin');
  await page.getByRole('button', { name: 'Finish setup' }).click();
  const hostError = page.locator('.field', { has: page.getByLabel('Host name') }).locator('.field-error');
  await hostError.waitFor();
  assert.match(await hostError.innerText(), /host name label/);
  await page.getByLabel('Host name').fill('lab-probe-1');
  await page.getByRole('button', { name: 'Finish setup' }).click();

  await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
  assert.equal(new URL(page.url()).pathname, '/');
  await page.locator('.sidebar .brand-name', { hasText: 'lab-probe' }).waitFor();
  // The title follows the page's render (an effect): wait for it rather than read it at once.
  await page.waitForFunction(() => document.title === 'Dashboard · lab-probe', undefined, { timeout: 5000 }).catch(() => undefined);
  assert.equal(await page.title(), 'Dashboard · lab-probe');
  await page.locator('.sidebar .me-name', { hasText: ADMIN.name }).waitFor();

  // The API agrees: the administrator exists, the one-time one is gone, setup is complete.
  const needed = await env.t.request('GET', '/api/setup/needed');
  assert.deepEqual([needed.body.needed, needed.body.bootstrap_needed], [false, false]);
  const audit = await env.t.request('GET', '/api/audit-log?action=setup.*', { cookie: await env.t.login(ADMIN.username, ADMIN.password) });
  assert.deepEqual(audit.body.items.map((e: any) => e.action).sort(), ['setup.bootstrap', 'setup.save']);
  assertClean(p, 'the first run', [...SIGNED_OUT, 'POST /api/setup/bootstrap 400', 'POST /api/setup/save 400']);

  // Sign out: back to the sign-in page, and the dashboard is no longer reachable.
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  await page.goto('/webhooks');
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  assert.equal(new URL(page.url()).searchParams.get('next'), '/webhooks', 'sign-in remembers where the user was going');
  await page.locator('.auth-probe', { hasText: 'lab-probe' }).waitFor();
  await screenshot(page, 'login');

  // A wrong password is refused with the API's words; the right one leads back to /webhooks.
  await page.getByLabel('Username').fill(ADMIN.username);
  await page.getByLabel('Password').fill('not the password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('alert').filter({ hasText: 'Wrong username or password' }).waitFor();
  await page.getByLabel('Password').fill(ADMIN.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
  assertClean(p, 'sign-out and sign-in', ['GET /api/me 401', 'POST /api/auth/login 401']);
  await p.context.close();
});

test('sign-in at 375 px: the navigation collapses into a menu', async () => {
  const p = await openPage(env, PHONE);
  const { page } = p;
  await page.goto('/login');
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  await assertNoHorizontalOverflow(page, 'sign-in (phone)');
  await screenshot(page, 'login-phone');
  await signIn(page, ADMIN.username, ADMIN.password);
  const menu = page.getByRole('button', { name: 'Menu' });
  assert.equal(await menu.getAttribute('aria-expanded'), 'false');
  assert.equal(await page.getByRole('navigation', { name: 'Main' }).isVisible(), false, 'the sidebar is hidden on a phone');
  await menu.click();
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
  await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
  await page.getByRole('navigation', { name: 'Main' }).waitFor({ state: 'hidden' }); // the drawer closes after navigating
  await assertNoHorizontalOverflow(page, 'settings (phone)');
  assertClean(p, 'the phone layout', SIGNED_OUT);
  await p.context.close();
});
