// The inventory connected to what watches it, in Debian's Chromium against the real service: an endpoint's
// page lists every monitor on its addresses without a hand-made link and the linked ones, each once (not
// again under Links), with "Linked" in its history; a subnet's page shows, beside the documented
// addresses, those a real discovery scan of loopback found alive that nobody documented, and the free ones.
// Screenshots `watch-*` at 1366 and 375 px, light and dark.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { freePort } from '../helpers/net.js';
import { apiCaller, assertClean, photograph, startSignedIn, type UiEnv, type UiPage } from './helpers/browser.js';

let env: UiEnv;
let p: UiPage;
let web: Server;
let call: ReturnType<typeof apiCaller>;
const made: Record<string, any> = {};

before(async () => {
  web = createServer((_req, res) => res.end('ok')).listen(0, '127.0.0.2');
  await new Promise((r) => web.once('listening', r));
  const port = (web.address() as AddressInfo).port;
  ({ env, p } = await startSignedIn(async (e, admin) => {
    call = apiCaller(e, admin.key);
    // A loopback scan must not ask the machine's resolver.
    await e.t.request('POST', '/api/config/import', { key: admin.key, body: { discovery: { reverse_dns: false } } });
    made.ep = await call('POST', '/api/brain/endpoints', { name: 'edge-web', ip_addresses: ['127.0.0.2'], role: 'server' });
    const base = { interval: 3600, timeout: 2, failure_threshold: 1 };
    made.web = await call('POST', '/api/monitors', { ...base, name: 'Web check', check_type: 'http', target: `http://127.0.0.2:${port}/` });
    made.closed = await call('POST', '/api/monitors', { ...base, name: 'Closed port', check_type: 'tcp', target: `127.0.0.2:${await freePort()}` });
    made.named = await call('POST', '/api/monitors', { ...base, name: 'By name', check_type: 'tcp', target: `localhost:${await freePort()}` });
    for (const m of [made.web, made.closed, made.named]) await call('POST', `/api/monitors/${m.id}/check`);
    // Linked by hand: one on its address (then listed once), one on a name (only a link can say it watches this endpoint).
    for (const m of [made.web, made.named]) {
      await call('POST', '/api/brain/links', { from: { type: 'endpoints', id: made.ep.id }, to: { type: 'monitors', id: m.id }, relation: 'monitored_by' });
    }
  }));
});

after(async () => {
  await p?.context.close().catch(() => {});
  await env?.close();
  web?.close();
});

test("an endpoint's page: the monitors on its addresses and the linked ones, each once, and the links in its history", async () => {
  const { page } = p;
  await page.goto(`/inventory/endpoints/${made.ep.short_id}`);
  await page.getByRole('heading', { name: 'edge-web', level: 1 }).waitFor();
  const card = page.locator('.card', { has: page.getByRole('heading', { name: 'Monitors (3)' }) });
  await card.waitFor();
  const rows = card.getByRole('listitem');
  assert.deepEqual(await rows.locator('.row-title').allInnerTexts(), ['By name', 'Closed port', 'Web check']);
  assert.match(await rows.nth(0).innerText(), /linked/);
  assert.match(await rows.nth(1).innerText(), /Down[\s\S]*on 127\.0\.0\.2/);
  assert.match(await rows.nth(2).innerText(), /Up[\s\S]*on 127\.0\.0\.2 · linked/);
  // Every monitor is named once on the page: not again under Links.
  for (const name of ['By name', 'Closed port', 'Web check']) assert.equal(await page.getByRole('link', { name, exact: true }).count(), 1, name);
  const links = page.locator('.card', { has: page.getByRole('heading', { name: 'Links' }) });
  await links.getByText('No links').waitFor();
  const history = page.locator('.card', { has: page.getByRole('heading', { name: 'History' }) });
  await history.getByText('Linked: monitored by monitor Web check').waitFor();
  // The record says what the monitors found: when it was last seen alive.
  await page.locator('.inv-dl').getByText('a monitor found it up').waitFor();
  assertClean(p, 'the endpoint page');
  await photograph(p, `/inventory/endpoints/${made.ep.short_id}`, 'watch-endpoint', 'edge-web');
  assertClean(p, 'the endpoint page at 375 px');

  // Removing the link from the monitors card: the monitor stays (it watches the address), the link goes, and the history says so.
  await rows.nth(2).getByRole('button', { name: 'Remove the link to Web check' }).click();
  await history.getByText('Unlinked: monitored by monitor Web check').waitFor();
  await page.locator('.card', { has: page.getByRole('heading', { name: 'Monitors (3)' }) }).getByRole('listitem').nth(2)
    .filter({ hasNotText: 'linked' }).waitFor();
  // On the list, the endpoint's status is the worst of its monitors'.
  await page.goto('/inventory/endpoints');
  const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: 'edge-web' }) });
  await row.getByText('2 of 3 down').waitFor();
  assertClean(p, 'the endpoints list');
});

test("a subnet's page: the addresses a discovery scan found alive that nobody documented, and the free ones", async () => {
  const { page } = p;
  const subnet = await call('POST', '/api/brain/subnets', { cidr: '127.0.0.0/28', name: 'Loopback lab', gateway: '127.0.0.1',
    dhcp_ranges: [{ start: '127.0.0.10', end: '127.0.0.12' }] });
  const scan = await call('POST', '/api/v1sion/scan', { subnet: '127.0.0.0/29', snmp_enabled: false });
  const stream = await fetch(`${env.url}/api/v1sion/scan/${scan.job_id}/stream`, { headers: { 'x-api-key': (await env.t.admin()).key } });
  assert.match(await stream.text(), /"type":"completed"/);
  for (let i = 0; i < 200 && !(await call('GET', `/api/brain/subnets/${subnet.id}/addresses`)).discovered.total; i++) {
    await new Promise((r) => setTimeout(r, 20));
  }
  await page.goto(`/inventory/subnets/${subnet.short_id}`);
  await page.getByRole('heading', { name: 'Loopback lab', level: 1 }).waitFor();
  const found = page.getByRole('table', { name: 'Addresses found alive in 127.0.0.0/28 that no endpoint has' });
  await found.waitFor();
  assert.deepEqual(await found.locator('tbody .cell-title').allInnerTexts(), ['127.0.0.3', '127.0.0.4', '127.0.0.5', '127.0.0.6']);
  await page.getByRole('heading', { name: 'Found alive, not documented (4)' }).waitFor();
  await page.getByRole('heading', { name: 'Free (8)' }).waitFor();
  const free = page.getByRole('list', { name: 'Free addresses in 127.0.0.0/28' });
  assert.deepEqual((await free.getByRole('listitem').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim()),
    ['127.0.0.7 – 127.0.0.9 3', '127.0.0.10 – 127.0.0.12 3 · DHCP range', '127.0.0.13 – 127.0.0.14 2']);
  // The documented ones say when they were last seen alive.
  const documented = page.getByRole('table', { name: 'Addresses in 127.0.0.0/28' });
  const ep = documented.getByRole('row').filter({ hasText: '127.0.0.2' });
  assert.match(await ep.innerText(), /edge-web[\s\S]*(just now|seconds? ago|\d+ s ago|now)/i);
  await page.getByText('4 more found alive').waitFor();
  assertClean(p, 'the subnet page');
  await photograph(p, `/inventory/subnets/${subnet.short_id}`, 'watch-subnet', 'Loopback lab');
  assertClean(p, 'the subnet page at 375 px');
});
