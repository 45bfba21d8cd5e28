// What the discovery end-to-end tests share beyond helpers/browser.ts: a signed-in page of a given size
// in a fresh browser context (no cookies, no storage of another tab), the topology map's Cytoscape
// instance read in the page, and screenshots at 1366 px and 375 px in light and dark (of a path, or of
// the page as it is now).
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { DESKTOP, openPage, photograph, PHONE, SCREENSHOTS, type UiEnv, type UiPage } from './browser.js';

/** A new context (its own storage: a new tab of another window) signed in by the session cookie. */
export async function signedInPage(env: UiEnv, admin: { username: string; password: string }, viewport = PHONE): Promise<UiPage> {
  const p = await openPage(env, viewport);
  const [name, value] = (await env.t.login(admin.username, admin.password)).split('=');
  await p.context.addCookies([{ name: name!, value: value!, url: env.url }]);
  return p;
}

/** The page opened at `path` (as it is after a reload), then photograph(): 1366 and 375 px, light and dark. */
export async function photographBoth(p: UiPage, path: string, name: string, ready: string): Promise<void> {
  await p.page.goto(path);
  await p.page.getByRole('heading', { name: ready, level: 1, exact: true }).waitFor();
  await photograph(p, path, name, ready);
}

/**
 * Screenshots of the page as it is now (a dialog open, a field typed in): at 1366 px and 375 px, light
 * and dark; the page is back at 1366 px, light, afterwards.
 */
export async function photographHere(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  for (const [size, suffix] of [[DESKTOP, ''], [PHONE, '-phone']] as const) {
    await page.setViewportSize(size);
    await page.emulateMedia({ colorScheme: 'light' });
    await page.screenshot({ path: join(SCREENSHOTS, `${name}${suffix}.png`), animations: 'disabled' });
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.screenshot({ path: join(SCREENSHOTS, `${name}${suffix}-dark.png`), animations: 'disabled' });
  }
  await page.setViewportSize(DESKTOP);
  await page.emulateMedia({ colorScheme: 'light' });
}

/**
 * The map's Cytoscape instance, read in the page: `fn` is source text of a function of it. Kept as text:
 * tsx names functions with a helper that does not exist inside the browser.
 */
export const graph = <T>(page: Page, fn: string): Promise<T> =>
  page.evaluate(`(() => { const cy = document.querySelector('.map-canvas')._cyreg.cy; return (${fn})(cy); })()`) as Promise<T>;

/** Polls the graph until `fn` holds (waitForFunction evaluates strings, which the page's CSP refuses). */
export async function graphUntil(page: Page, fn: string, timeoutMs = 30_000): Promise<void> {
  for (const end = Date.now() + timeoutMs; !(await graph<boolean>(page, fn));) {
    if (Date.now() > end) assert.fail(`the graph never satisfied ${fn}: ${JSON.stringify(await graph(page, NODE_DATA))}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Every node's data, by id (what a failure prints). */
export const NODE_DATA = '(cy) => Object.fromEntries(cy.nodes().map((n) => [n.id(), n.data()]))';

/** Waits until the map is drawn. */
export async function mapReady(page: Page): Promise<void> {
  await page.locator('.map-canvas canvas').first().waitFor();
  await page.locator('.map-loading').waitFor({ state: 'detached' });
}
