// A monitor failing below its threshold reads "Failing 1 of 3" in the inventory too (issue 33 §1), in
// Debian's Chromium against the real service and local HTTP servers: on an endpoint's Monitors card and in
// the endpoints list's Status column (the endpoint's worst monitor: failing ranks above slow, as on the
// monitor pages), in the failing colour, never "Degraded", the word a slow answer keeps ("Degraded · Slow").
// Screenshots `inventory-failing-*` at 1366 and 375 px, light and dark.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import type { Locator } from 'playwright-core';
import { apiCaller, assertClean, photograph, startSignedIn, type UiEnv, type UiPage } from './helpers/browser.js';

let env: UiEnv;
let p: UiPage;
const servers: Server[] = [];
const made: Record<string, any> = {};

/** A web server on a loopback address: /fail answers 500, /slow answers after 120 ms. */
async function site(host: string): Promise<string> {
  const s = createServer((req, res) => {
    if (req.url === '/fail') { res.statusCode = 500; res.end('broken'); return; }
    if (req.url === '/slow') { setTimeout(() => res.end('ok'), 120); return; }
    res.end('ok');
  });
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, host, r));
  return `http://${host}:${(s.address() as AddressInfo).port}`;
}

before(async () => {
  ({ env, p } = await startSignedIn(async (e, admin) => {
    const call = apiCaller(e, admin.key);
    const [one, three] = [await site('127.0.0.1'), await site('127.0.0.3')];
    const make = async (name: string, target: string, extra: Record<string, unknown> = {}) =>
      call('POST', '/api/monitors', { name, check_type: 'http', target, interval: 3600, timeout: 5, ...extra });
    made.failing = await make('api-500', `${one}/fail`, { failure_threshold: 3 });
    made.slow = await make('web-slow', `${one}/slow`, { degraded_ms: 20 });
    made.slowOnly = await make('docs-slow', `${three}/slow`, { degraded_ms: 20 });
    // Each is checked once when it is made: the failing one is 1 failed check of 3, not down.
    for (const m of [made.failing, made.slow, made.slowOnly]) {
      for (let i = 0; i < 300 && !(await call('GET', `/api/monitors/${m.id}`)).last_check; i++) await new Promise((r) => setTimeout(r, 20));
    }
    const state = await call('GET', `/api/monitors/${made.failing.id}`);
    assert.deepEqual([state.status, state.degraded_reason, state.failing_streak], ['degraded', 'failing', 1]);
    assert.equal((await call('GET', `/api/monitors/${made.slow.id}`)).degraded_reason, 'slow');
    made.ep = await call('POST', '/api/brain/endpoints', { name: 'app-server', ip_addresses: ['127.0.0.1'], role: 'server' });
    made.docs = await call('POST', '/api/brain/endpoints', { name: 'docs-server', ip_addresses: ['127.0.0.3'], role: 'server' });
  }));
});

after(async () => {
  await p?.context.close().catch(() => {});
  await env?.close();
  for (const s of servers) { s.closeAllConnections(); s.close(); }
});

/** The badge's text colour and the theme's --failing, as the page computes them. */
async function colours(badge: Locator): Promise<{ color: string; failing: string }> {
  return badge.evaluate((el) => {
    const probe = document.createElement('span');
    probe.style.color = 'var(--failing)';
    document.body.append(probe);
    const failing = getComputedStyle(probe).color;
    probe.remove();
    return { color: getComputedStyle(el).color, failing };
  });
}

/** In light and dark: the badge is in the failing colour. */
async function assertFailingColour(badge: Locator, where: string): Promise<void> {
  for (const scheme of ['light', 'dark'] as const) {
    await p.page.emulateMedia({ colorScheme: scheme });
    const c = await colours(badge);
    assert.equal(c.color, c.failing, `${where} in ${scheme}: the failing colour`);
  }
  await p.page.emulateMedia({ colorScheme: 'light' });
}

test("an endpoint's Monitors card: \"Failing 1 of 3\" in the failing colour, apart from \"Degraded · Slow\"", async () => {
  const { page } = p;
  await page.goto(`/inventory/endpoints/${made.ep.short_id}`);
  await page.getByRole('heading', { name: 'app-server', level: 1 }).waitFor();
  const card = page.locator('.card', { has: page.getByRole('heading', { name: 'Monitors (2)' }) });
  const row = (name: string) => card.getByRole('listitem').filter({ has: page.getByRole('link', { name, exact: true }) });
  await row('api-500').waitFor();
  const failing = row('api-500').locator('.badge');
  assert.equal(await failing.innerText(), 'Failing 1 of 3');
  assert.equal(await failing.getAttribute('title'), '1 failed check in a row; down after 2 more');
  assert.doesNotMatch(await row('api-500').innerText(), /Degraded/, 'failing is not the word for slow');
  await assertFailingColour(failing, 'the failing monitor\'s badge');
  assert.match((await row('web-slow').innerText()).replace(/\s+/g, ' '), /Degraded · Slow/);
  assertClean(p, 'the endpoint page');
  await photograph(p, `/inventory/endpoints/${made.ep.short_id}`, 'inventory-failing-endpoint', 'app-server');
  assertClean(p, 'the endpoint page at 375 px');
});

test('the endpoints list: the worst monitor is the failing one, "Failing 1 of 3"; slow alone reads "Degraded · Slow"', async () => {
  const { page } = p;
  await page.goto('/inventory/endpoints');
  const row = (name: string) => page.getByRole('row').filter({ has: page.getByRole('link', { name, exact: true }) });
  await row('app-server').waitFor();
  const status = row('app-server').locator('.watch-cell');
  assert.equal(await status.locator('.badge').innerText(), 'Failing 1 of 3');
  assert.match((await status.innerText()).replace(/\s+/g, ' '), /^Failing 1 of 3 2 monitors$/);
  await assertFailingColour(status.locator('.badge'), 'the endpoint\'s status');
  assert.match((await row('docs-server').locator('.watch-cell').innerText()).replace(/\s+/g, ' '), /^Degraded · Slow 1 monitor$/);
  assertClean(p, 'the endpoints list');
  await photograph(p, '/inventory/endpoints', 'inventory-failing-list', 'Endpoints');
  assertClean(p, 'the endpoints list at 375 px');
});
