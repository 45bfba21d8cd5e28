// Monitoring at a glance, in a real browser against the real service and a local HTTP server on
// 127.0.0.1: a failing check below the threshold reads "Failing 1 of 3", apart from "Degraded · Slow"; the list
// puts problems first, sorts by a column header, and shows each monitor's beat bar beside its 24-hour
// bar; the detail page has the reason, the beat bar and the inventory records the monitor is linked to.
// Each page is checked for console errors, labelled controls and its 375 px layout, and photographed.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { assertClean, photograph, startSignedIn, type UiEnv, type UiPage } from './helpers/browser.js';

let env: UiEnv;
let admin: { username: string; password: string; key: string };
let p: UiPage;
let site: Server;
let base = '';
const ids: Record<string, string> = {};

const api = async (method: string, path: string, body?: unknown): Promise<any> => {
  const r = await env.t.request(method, path, { key: admin.key, body });
  assert.ok(r.status < 300, `${method} ${path}: ${r.status} ${r.text}`);
  return r.body;
};

async function checked(id: string): Promise<any> {
  for (let i = 0; i < 300; i++) {
    const m = await api('GET', `/api/monitors/${id}`);
    if (m.last_check) return m;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`monitor ${id} was never checked`);
}

before(async () => {
  ({ env, admin, p } = await startSignedIn(async (e, a) => {
    env = e;
    admin = a;
    site = createServer((req, res) => {
      if (req.url === '/fail') { res.statusCode = 500; res.end('broken'); return; }
      if (req.url === '/slow') { setTimeout(() => res.end('ok'), 120); return; }
      res.end('ok');
    });
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    const make = async (name: string, path: string, extra: Record<string, unknown> = {}) => {
      ids[name] = (await api('POST', '/api/monitors', { name, check_type: 'http', target: `${base}${path}`, interval: 3600, timeout: 5,
        ...extra })).id;
    };
    await make('alpha-ok', '/ok');
    await make('bravo-failing', '/fail', { failure_threshold: 3 });
    await make('charlie-slow', '/slow', { degraded_ms: 20 });
    await make('delta-down', '/fail', { failure_threshold: 1 });
    for (const id of Object.values(ids)) await checked(id);
    const ep = await api('POST', '/api/brain/endpoints', { name: 'web-frontend-01', ip_addresses: ['127.0.0.1'] });
    await api('POST', '/api/brain/links', { from: { type: 'endpoints', id: ep.id }, to: { type: 'monitors', id: ids['alpha-ok'] },
      relation: 'monitored_by' });
  }));
});

after(async () => {
  await p?.context.close();
  site?.closeAllConnections();
  await new Promise((r) => site?.close(r));
  await env?.close();
});

const rowNames = () => p.page.locator('tbody tr .cell-title').allTextContents();

test('the list: problems first, "Failing 1 of 3" apart from "Slow", beat bars, sorting by a column', async () => {
  const { page } = p;
  await page.goto('/monitors');
  await page.getByRole('heading', { name: 'Monitors', level: 1 }).waitFor();
  await page.locator('tbody tr').nth(3).waitFor();
  assert.deepEqual(await rowNames(), ['delta-down', 'bravo-failing', 'charlie-slow', 'alpha-ok'], 'problems first by default');

  const row = (name: string) => page.locator('tbody tr', { has: page.getByRole('link', { name, exact: true }) });
  assert.equal(await row('bravo-failing').locator('.badge.status-failing').textContent(), 'Failing 1 of 3');
  assert.equal(await row('bravo-failing').locator('.mon-reason').count(), 0, 'failing is its status, not a reason beside "Degraded"');
  assert.equal(await row('charlie-slow').locator('.mon-reason').textContent(), 'Slow');
  assert.equal(await row('delta-down').locator('.mon-reason').count(), 0, 'down says down');
  assert.equal(await row('alpha-ok').locator('.mon-reason').count(), 0);

  // Beat bars beside the 24-hour bars, named in words.
  await row('bravo-failing').getByRole('img', { name: 'Last 1 check: 1 failing' }).waitFor();
  await row('delta-down').getByRole('img', { name: 'Last 1 check: 1 down' }).waitFor();
  await row('charlie-slow').getByRole('img', { name: 'Last 1 check: 1 degraded' }).waitFor();
  assert.equal(await row('alpha-ok').locator('.beat-up').count(), 1);
  await row('alpha-ok').getByRole('img', { name: /^Last 24 hours: / }).waitFor();
  assert.equal(await page.locator('.bar-col .sbar').count(), 4, 'a 24-hour bar per monitor');

  // Sorting by a column header: names ascending, then descending; kept in the URL.
  await page.getByRole('button', { name: 'Monitor' }).click();
  await page.waitForURL(/sort=name/);
  assert.deepEqual(await rowNames(), ['alpha-ok', 'bravo-failing', 'charlie-slow', 'delta-down']);
  assert.equal(await page.locator('th[aria-sort="ascending"]').textContent().then((t) => t?.startsWith('Monitor')), true);
  await page.getByRole('button', { name: 'Monitor' }).click();
  await page.waitForURL(/dir=desc/);
  assert.deepEqual(await rowNames(), ['delta-down', 'charlie-slow', 'bravo-failing', 'alpha-ok']);
  // And back to problems first from the sort menu.
  await page.getByLabel('Sort by').selectOption('problems');
  await page.waitForURL((u) => !u.search.includes('sort='));
  assert.deepEqual(await rowNames(), ['delta-down', 'bravo-failing', 'charlie-slow', 'alpha-ok']);

  await photograph(p, '/monitors', 'monitors-glance', 'Monitors');
  assertClean(p, '/monitors');
});

test('the detail page: the reason, the beat bar, the time-weighted bar and the linked endpoint', async () => {
  const { page } = p;
  // A second failure: 2 of 3, by hand (an outlined beat).
  const now = await api('POST', `/api/monitors/${ids['bravo-failing']}/check`);
  assert.equal(now.monitor.degraded_reason, 'failing');
  await page.goto(`/monitors/${ids['bravo-failing']}`);
  await page.getByRole('heading', { name: 'bravo-failing', level: 1 }).waitFor();
  const hero = page.getByRole('region', { name: 'Current status' });
  await hero.getByText('Failing 2 of 3', { exact: true }).waitFor();
  await hero.getByText('2 failed checks in a row; down after 1 more').waitFor();
  await page.getByRole('img', { name: /^Last 2 checks \(.+\): 2 failing$/ }).waitFor();
  assert.equal(await page.locator('.beat-card .beat-manual').count(), 1, 'the manual check is marked');
  await page.getByRole('group', { name: /^Last 24 hours: / }).first().waitFor();
  await photograph(p, `/monitors/${ids['bravo-failing']}`, 'monitor-glance-failing', 'bravo-failing');

  await page.goto(`/monitors/${ids['charlie-slow']}`);
  await page.getByRole('heading', { name: 'charlie-slow', level: 1 }).waitFor();
  await page.getByRole('region', { name: 'Current status' }).getByText('Slow', { exact: true }).waitFor();

  await page.goto(`/monitors/${ids['alpha-ok']}`);
  await page.getByRole('heading', { name: 'alpha-ok', level: 1 }).waitFor();
  const link = page.getByRole('link', { name: 'web-frontend-01' });
  await link.waitFor();
  assert.match((await link.getAttribute('href')) ?? '', /^\/inventory\/endpoints\/EP-\d+$/);
  await page.getByRole('heading', { name: 'Inventory' }).waitFor();
  assertClean(p, 'monitor detail pages');
});
