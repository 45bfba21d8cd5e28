// Shared setup of the end-to-end tests: the real service (in-process, fresh data directory, on
// 127.0.0.1), the UI's vendor modules copied in, and Debian's Chromium driven by playwright-core
// (headless, --no-sandbox). Every page opened through openPage() records console errors, uncaught
// exceptions and failed responses so a test can assert that a page ran clean.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { Clock } from '../../../src/core/clock.js';
import { startTestApp, type TestApp } from '../../helpers/harness.js';
import { vendorUi } from '../../../scripts/ui-vendor.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
export const REPO = join(HERE, '..', '..', '..');
export const SCREENSHOTS = join(REPO, 'test', 'e2e', 'screenshots');
export const CHROMIUM = process.env.NETPROBE_CHROMIUM ?? '/usr/bin/chromium';

export const PHONE = { width: 375, height: 812 };
export const DESKTOP = { width: 1366, height: 900 };

export interface UiEnv {
  t: TestApp;
  browser: Browser;
  /** The service's base URL, http://127.0.0.1:<port>. */
  url: string;
  close(): Promise<void>;
}

/**
 * Starts the service and Chromium. Copies the vendor modules first (the build does too). `clock`: the
 * service's time (a ManualClock builds hours of history in a moment; the browser keeps its own time).
 */
export async function startUi(opts: { clock?: Clock } = {}): Promise<UiEnv> {
  assert.ok(existsSync(CHROMIUM), `Chromium is needed at ${CHROMIUM}: apt-get install chromium`);
  await vendorUi({ root: REPO, log: () => {} });
  const t = await startTestApp({ clock: opts.clock });
  const browser = await chromium.launch({
    executablePath: CHROMIUM, headless: true,
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu', '--no-first-run', '--no-default-browser-check'],
  });
  return {
    t, browser, url: t.url,
    async close() { await browser.close().catch(() => {}); await t.close(); },
  };
}

export interface FailedResponse { status: number; method: string; url: string }

export interface UiPage {
  context: BrowserContext;
  page: Page;
  /** console.error messages and uncaught exceptions, in order. */
  errors: string[];
  /** Every response with status >= 400 (the API's expected refusals included). */
  failed: FailedResponse[];
}

/**
 * A new browser context (no cookies, no cache) and page. Chromium reports every HTTP error response
 * as a console error "Failed to load resource"; those are collected in `failed` instead, so a test can
 * say which refusals it expected (assertClean), and every other console error fails it.
 */
export async function openPage(env: UiEnv, viewport = DESKTOP): Promise<UiPage> {
  const context = await env.browser.newContext({ viewport, baseURL: env.url });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  const errors: string[] = [];
  const failed: FailedResponse[] = [];
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    if (/^Failed to load resource: the server responded with a status of \d+/.test(m.text())) return;
    // Chromium aborts its loads when the host's addresses change: another test file building its namespace
    // lab at the same time did that once (a full run, concurrency 2). What the page then shows is still checked.
    if (/^Failed to load resource: net::ERR_NETWORK_CHANGED$/.test(m.text())) return;
    errors.push(`${m.text()} (${m.location().url}:${m.location().lineNumber})`);
  });
  page.on('pageerror', (e) => errors.push(`uncaught: ${e.message}`));
  page.on('response', (r) => {
    if (r.status() >= 400) failed.push({ status: r.status(), method: r.request().method(), url: new URL(r.url()).pathname });
  });
  return { context, page, errors, failed };
}

/**
 * No console errors, no uncaught exceptions, and no failed response other than the `allowed` ones
 * (e.g. 'GET /api/me 401' for the signed-out check at start). Clears both lists afterwards.
 */
export function assertClean(p: UiPage, where: string, allowed: string[] = []): void {
  assert.deepEqual(p.errors, [], `console errors on ${where}`);
  const unexpected = p.failed.map((f) => `${f.method} ${f.url} ${f.status}`).filter((f) => !allowed.includes(f));
  assert.deepEqual(unexpected, [], `unexpected failed responses on ${where}`);
  p.errors.length = 0;
  p.failed.length = 0;
}

/** Saves a full-page screenshot as test/e2e/screenshots/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<string> {
  await mkdir(SCREENSHOTS, { recursive: true });
  const file = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true, animations: 'disabled' });
  return file;
}

/**
 * Measures in the page. Kept as source text: tsx names functions with a helper (__name) that does not
 * exist inside the browser, so functions declared in the test would break page.evaluate.
 */
const OVERFLOW_PROBE = `(() => {
  const vw = document.documentElement.clientWidth;
  // Inside a box that scrolls or clips (a tab strip, a visually hidden table head) content may be
  // wider: that box is checked itself. Elements hidden off-canvas (the closed drawer) do not count.
  const contained = (el) => {
    for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
      const cs = getComputedStyle(a);
      if (cs.overflowX !== 'visible' || cs.clip !== 'auto') return true;
    }
    return false;
  };
  const wide = [...document.querySelectorAll('body *')].filter((el) => {
    const b = el.getBoundingClientRect();
    return b.width > 0 && b.right > vw + 1 && getComputedStyle(el).visibility !== 'hidden' && !contained(el);
  }).slice(0, 5).map((el) => el.tagName.toLowerCase() + '.' + [...el.classList].join('.') + ' right=' + Math.round(el.getBoundingClientRect().right));
  return { vw, scrollWidth: document.documentElement.scrollWidth, wide };
})()`;

/** Nothing on the page is wider than the viewport (no sideways scrolling on a phone). */
export async function assertNoHorizontalOverflow(page: Page, where: string): Promise<void> {
  const r = await page.evaluate(OVERFLOW_PROBE) as { vw: number; scrollWidth: number; wide: string[] };
  assert.ok(r.scrollWidth <= r.vw && r.wide.length === 0,
    `${where}: content wider than the ${r.vw}px viewport (scrollWidth ${r.scrollWidth}): ${r.wide.join(', ')}`);
}

const LABEL_PROBE = `(() => {
  const visible = (el) => { const b = el.getBoundingClientRect(); return b.width > 0 && b.height > 0 && getComputedStyle(el).visibility !== 'hidden'; };
  const name = (el) => (el.getAttribute('aria-label') || (el.labels && [...el.labels].map((l) => l.textContent).join(' ')) ||
    (el.getAttribute('aria-labelledby') || '').split(' ').map((id) => document.getElementById(id)?.textContent ?? '').join(' ') ||
    (el.matches('button, a') ? el.textContent : '') || el.getAttribute('title') || '').trim();
  return [...document.querySelectorAll('button, a[href], input:not([type=hidden]), select, textarea')]
    .filter((el) => visible(el) && !el.closest('[inert]'))
    .filter((el) => !name(el) || el.tabIndex < 0)
    .map((el) => el.outerHTML.slice(0, 120));
})()`;

/** Every visible control has a name (label, text or aria-label) and can be reached with the keyboard. */
export async function assertLabelledControls(page: Page, where: string): Promise<void> {
  const bad = await page.evaluate(LABEL_PROBE) as string[];
  assert.deepEqual(bad, [], `${where}: controls without a name or out of the tab order`);
}

/** Bytes of response bodies as they came over the wire (compressed), for everything the page loaded. */
export async function transferredBytes(page: Page): Promise<{ total: number; items: { url: string; bytes: number }[] }> {
  return page.evaluate(() => {
    const entries = [...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')] as PerformanceResourceTiming[];
    const items = entries.map((e) => ({ url: new URL(e.name).pathname, bytes: e.encodedBodySize }));
    return { total: items.reduce((a, b) => a + b.bytes, 0), items };
  });
}

/** Calls the API with this key (a test's own setup and checks); any answer of 300 or more fails the test. Resolves with the body. */
export function apiCaller(env: UiEnv, key: string) {
  return async (method: string, path: string, body?: unknown) => {
    const r = await env.t.request(method, path, { key, body });
    assert.ok(r.status < 300, `${method} ${path}: ${r.status} ${r.text}`);
    return r.body;
  };
}

/** Signs in through the sign-in page and waits for the dashboard. */
export async function signIn(page: Page, username: string, password: string): Promise<void> {
  await page.goto('/login');
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
}

/**
 * Screenshots of the page in light and dark (after earlier toasts are dismissed), then the same path
 * opened at 375 px: checked for sideways overflow and labelled controls, and photographed light and dark.
 */
export async function photograph(p: UiPage, path: string, name: string, ready: string): Promise<void> {
  const { page } = p;
  await page.waitForLoadState('networkidle');
  const dismiss = page.getByRole('button', { name: 'Dismiss' });
  for (let i = 0; i < 5 && (await dismiss.count()); i++) await dismiss.first().click({ timeout: 1000 }).catch(() => {});
  await assertLabelledControls(page, path);
  await page.emulateMedia({ colorScheme: 'light' });
  await screenshot(page, name);
  await page.emulateMedia({ colorScheme: 'dark' });
  await screenshot(page, `${name}-dark`);
  await page.emulateMedia({ colorScheme: 'light' });
  const phone = await p.context.newPage();
  await phone.setViewportSize(PHONE);
  phone.on('pageerror', (e) => p.errors.push(`uncaught (phone): ${e.message}`));
  phone.on('console', (m) => { if (m.type() === 'error' && !/^Failed to load resource/.test(m.text())) p.errors.push(`(phone) ${m.text()}`); });
  await phone.goto(path);
  await phone.getByRole('heading', { name: ready, level: 1, exact: true }).waitFor();
  await phone.waitForLoadState('networkidle');
  await assertNoHorizontalOverflow(phone, `${path} at 375 px`);
  await assertLabelledControls(phone, `${path} at 375 px`);
  await screenshot(phone, `${name}-phone`);
  await phone.emulateMedia({ colorScheme: 'dark' });
  await screenshot(phone, `${name}-phone-dark`);
  await phone.close();
}

export interface SignedIn {
  env: UiEnv;
  admin: { username: string; password: string; key: string };
  p: UiPage;
}

/**
 * A set-up probe (named edge-probe, UTC) with an administrator, and a desktop page signed in as them.
 * `prepare` runs after setup and before the browser opens (peers, records made through the API);
 * `opts.clock` is the service's clock (startUi).
 */
export async function startSignedIn(prepare?: (env: UiEnv, admin: SignedIn['admin']) => Promise<void>,
  opts: { clock?: Clock } = {}): Promise<SignedIn> {
  const env = await startUi(opts);
  let p: UiPage | undefined;
  try {
    const a = await env.t.admin();
    const admin = { username: a.username, password: a.password, key: a.key };
    const saved = await env.t.request('POST', '/api/setup/save', { key: a.key, body: { probe_name: 'edge-probe', timezone: 'UTC' } });
    assert.equal(saved.status, 200, saved.text);
    await prepare?.(env, admin);
    p = await openPage(env);
    await signIn(p.page, admin.username, admin.password);
    assertClean(p, 'sign-in', ['GET /api/me 401']);
    return { env, admin, p };
  } catch (e) {
    // The caller never gets the service and browser to close: close them here (a suite whose `before`
    // failed would otherwise never exit), and say where the page was.
    const where = p ? `; the page was at ${p.page.url()} (errors: ${JSON.stringify(p.errors)}, failed: ${JSON.stringify(p.failed)}):\n` +
      `${(await p.page.locator('body').innerText({ timeout: 1000 }).catch(() => '(no body)')).slice(0, 500)}` : '';
    await p?.context.close().catch(() => undefined);
    await env.close().catch(() => undefined);
    if (e instanceof Error) e.message += where;
    throw e;
  }
}
