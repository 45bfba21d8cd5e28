// Uptime as a user of Uptime Kuma or LibreNMS reads it, in a real browser against the real service and a
// local HTTP server on 127.0.0.1: a monitor whose every check failed reads 0 %, although it is still
// below its failure threshold ("Failing 2 of 5": no incident yet). Before, the time after those failures
// counted as available and the same monitor read 100 %. A monitor that answers slowly stays available.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { apiCaller, assertClean, photograph, startSignedIn, type UiEnv, type UiPage } from './helpers/browser.js';

let env: UiEnv;
let p: UiPage;
let site: Server;
let api: ReturnType<typeof apiCaller>;
const ids: Record<string, string> = {};

async function results(id: string, n: number): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if ((await api('GET', `/api/monitors/${id}/results?limit=1`)).total >= n) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`monitor ${id} never had ${n} results`);
}

before(async () => {
  ({ env, p } = await startSignedIn(async (e, a) => {
    api = apiCaller(e, a.key);
    site = createServer((req, res) => {
      if (req.url === '/fail') { res.statusCode = 500; res.end('broken'); return; }
      setTimeout(() => res.end('ok'), 60);
    });
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    const make = async (name: string, path: string, extra: Record<string, unknown>) => {
      ids[name] = (await api('POST', '/api/monitors', { name, check_type: 'http', target: `${base}${path}`, interval: 3600, timeout: 5,
        ...extra })).id;
    };
    await make('broken-api', '/fail', { failure_threshold: 5 });
    await make('slow-site', '/slow', { degraded_ms: 20 });
    for (const id of Object.values(ids)) await results(id, 1);
    // Some time at that status, then a second check by hand: the time between is what uptime weighs.
    await new Promise((r) => setTimeout(r, 300));
    for (const id of Object.values(ids)) {
      await api('POST', `/api/monitors/${id}/check`);
      await results(id, 2);
    }
  }));
});

after(async () => {
  await p?.context.close();
  site?.closeAllConnections();
  await new Promise((r) => site?.close(r));
  await env?.close();
});

test('a monitor that never answered reads 0 % in the list and on its page, below its failure threshold too', async () => {
  const { page } = p;
  await page.goto('/monitors');
  await page.getByRole('heading', { name: 'Monitors', level: 1 }).waitFor();
  const row = (name: string) => page.locator('tbody tr', { has: page.getByRole('link', { name, exact: true }) });
  await row('broken-api').waitFor();
  assert.equal(await row('broken-api').locator('.bar-pct').textContent(), '0.00 %');
  assert.equal(await row('slow-site').locator('.bar-pct').textContent(), '100.00 %', 'slow answers are available time');
  await photograph(p, '/monitors', 'monitors-uptime', 'Monitors');

  await page.goto(`/monitors/${ids['broken-api']}`);
  await page.getByRole('heading', { name: 'broken-api', level: 1 }).waitFor();
  const uptimes = page.locator('.stat', { has: page.locator('.stat-label', { hasText: 'Uptime' }) });
  assert.deepEqual(await uptimes.locator('.stat-value').allTextContents(), ['0.00 %', '0.00 %', '0.00 %'], '24 hours, 7 and 30 days');
  await page.getByText(/Uptime 0\.00 % of the time/).waitFor();
  await photograph(p, `/monitors/${ids['broken-api']}`, 'monitor-uptime-failing', 'broken-api');
  assertClean(p, '/monitors');
});
