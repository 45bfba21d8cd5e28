// The topology map tells the truth (issue 33), in a real browser against the real service, all on
// loopback: a session of 25 nodes (a core switch and the hosts on it), web01 at 127.0.0.2 watched by a
// ping, an HTTP check that answers, an HTTP API answering 500 and a TCP check of a closed port, core-sw1
// at 127.0.0.3 by a ping alone, db01 at 127.0.0.4 by a ping and a TCP check failing below its threshold,
// and inventory endpoints web01 and core-sw1 on those addresses (matched, not linked). The map must:
// - draw web01 as a host that answers (its ring) with a red count of its 2 services down, not as down;
// - count db01's service as failing, in the failing colour (not down, not slow);
// - name the nodes web01 and core-sw1 after their inventory records, not by their addresses;
// - lay out a session without saved positions the same way on every visit (and in any window size);
// - open readable on a phone: labels drawn, nodes not specks.
// Screenshots at 1366 px and 375 px, light and dark: discovery-map-truth-*.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { assertClean, PHONE, SCREENSHOTS, startSignedIn, type UiEnv, type UiPage } from './helpers/browser.js';
import { graph, graphUntil, mapReady, photographBoth, signedInPage } from './helpers/discovery.js';

let env: UiEnv;
let admin: { username: string; password: string; key: string };
let p: UiPage;
let web: Server;
let sessionId = '';
const HOSTS = 22;

/** A port on `host` that nothing listens on (bound, then closed). */
async function closedPort(host = '127.0.0.2'): Promise<number> {
  const s = createTcpServer();
  await new Promise<void>((r) => s.listen(0, host, r));
  const port = (s.address() as AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

before(async () => {
  // web01's services: /ok answers 200, /api answers 500.
  web = createServer((req, res) => { res.writeHead(req.url === '/ok' ? 200 : 500).end(req.url === '/ok' ? 'ok' : 'broken'); });
  await new Promise<void>((r) => web.listen(0, '127.0.0.2', r));
  const port = (web.address() as AddressInfo).port;
  const closed = await closedPort();
  const dbClosed = await closedPort('127.0.0.4');
  ({ env, admin, p } = await startSignedIn(async (started, a) => {
    const call = async (path: string, body: unknown) => {
      const r = await started.t.request('POST', path, { key: a.key, body });
      assert.ok(r.status < 300, `${path}: ${r.status} ${r.text}`);
      return r.body;
    };
    const monitor = (name: string, check_type: string, target: string, settings: Record<string, unknown> = {},
      extra: Record<string, unknown> = {}) =>
      call('/api/monitors', { name, check_type, target, interval: 5, timeout: 2, failure_threshold: 1, settings, ...extra });
    await monitor('web01 ping', 'ping', '127.0.0.2', { count: 1, per_packet_timeout_ms: 500 });
    await monitor('web01 site', 'http', `http://127.0.0.2:${port}/ok`);
    await monitor('web01 API', 'http', `http://127.0.0.2:${port}/api`);
    await monitor('web01 closed port', 'tcp', `127.0.0.2:${closed}`);
    await monitor('core-sw1 ping', 'ping', '127.0.0.3', { count: 1, per_packet_timeout_ms: 500 });
    // db01's database port fails, below its threshold of 3 (checked hourly: it stays so): failing, not down, not slow.
    await monitor('db01 ping', 'ping', '127.0.0.4', { count: 1, per_packet_timeout_ms: 500 });
    await monitor('db01 postgres', 'tcp', `127.0.0.4:${dbClosed}`, {}, { interval: 3600, failure_threshold: 3 });
    await call('/api/brain/endpoints', { name: 'web01', ip_addresses: ['127.0.0.2'] });
    await call('/api/brain/endpoints', { name: 'core-sw1', ip_addresses: ['127.0.0.3'] });
    const hosts = Array.from({ length: HOSTS }, (_, i) => ({ id: `host-${i + 10}`, label: `127.0.1.${i + 10}`, kind: 'host',
      addresses: [`127.0.1.${i + 10}`] }));
    const session = await call('/api/v1sion/sessions', {
      name: 'Lab racks', subnets: ['127.0.0.0/16'],
      nodes: [{ id: 'sw-core', label: '127.0.0.3', kind: 'switch', addresses: ['127.0.0.3'] },
        { id: 'web', label: '127.0.0.2', kind: 'server', addresses: ['127.0.0.2'] },
        { id: 'db', label: '127.0.0.4', kind: 'server', addresses: ['127.0.0.4'] }, ...hosts],
      edges: [{ from: 'sw-core', to: 'web', from_port: 'swp1', source: 'fdb' }, { from: 'sw-core', to: 'db', from_port: 'swp40', source: 'fdb' },
        ...hosts.map((h, i) => ({ from: 'sw-core', to: h.id, from_port: `swp${i + 2}`, source: 'fdb' }))],
    });
    sessionId = session.id;
  }));
});

after(async () => {
  await p?.context.close();
  await env?.close();
  await new Promise((r) => web?.close(r));
});

const mapPath = () => `/discovery/sessions/${sessionId}/map`;
const node = (id: string) => `cy.getElementById(${JSON.stringify(id)})`;

test('a host that answers ping is drawn answering, with a red count of its 2 services down, a failing one in its own colour; nodes carry inventory names', async () => {
  const { page } = p;
  await page.goto(mapPath());
  await page.getByRole('heading', { name: 'Map of Lab racks', level: 1 }).waitFor();
  await mapReady(page);
  // Ping and /ok answer, /api (500) and the closed port fail: the host answers, 2 of its 3 services are down.
  await graphUntil(page, `(cy) => ${node('web')}.data('reach') === 'reachable' && ${node('web')}.data('badge') === 'down:2'`);
  // Its worst status is still down (the open endpoint's `status`); the ring and the count are what is drawn.
  assert.equal(await graph(page, `(cy) => ${node('web')}.data('status')`), 'down');
  // A switch watched only by ping: it answers and has no service badge.
  await graphUntil(page, `(cy) => ${node('sw-core')}.data('reach') === 'reachable' && ${node('sw-core')}.data('badge') === null`);
  // Inventory names (matched by address, not linked) instead of the addresses.
  await graphUntil(page, `(cy) => ${node('web')}.data('label') === 'web01' && ${node('sw-core')}.data('label') === 'core-sw1'`);
  assert.equal(await graph(page, `(cy) => ${node('web')}.data('inventory')`), 'matched');
  assert.equal(await graph(page, `(cy) => ${node('host-10')}.data('label')`), '127.0.1.10', 'a node no record stands for keeps its label');
  // The drawn ring: the node's border in the theme's "up" colour.
  const [border, up] = await graph<[string, string]>(page, `(cy) => [${node('web')}.style('border-color'),
    getComputedStyle(document.documentElement).getPropertyValue('--up').trim()]`);
  assert.ok(border.replace(/\s/g, '') === rgb(up), `the ring ${border} is the up colour ${up}`);

  // The list under the map says the same in words.
  await page.getByLabel('Filter the nodes').fill('web01');
  const row = page.getByRole('row', { name: /web01/ });
  await row.getByText('Answers', { exact: true }).waitFor();
  await row.getByText('2 of 3 services down').waitFor();
  await row.getByText('Matched, not linked').waitFor();
  await row.getByRole('button', { name: 'web01' }).click();
  const panel = page.locator('.map-panel');
  await panel.getByRole('heading', { name: 'web01' }).waitFor();
  await panel.getByText(/Matches\s+EP-\d+\s+web01/).waitFor();
  await panel.getByText('2 of 3 services down').first().waitFor();
  // A service failing below its threshold is counted as failing, in its own colour: not down, not slow.
  await graphUntil(page, `(cy) => ${node('db')}.data('reach') === 'reachable' && ${node('db')}.data('badge') === 'failing:1'`);
  await page.getByLabel('Filter the nodes').fill('127.0.0.4');
  const dbRow = page.getByRole('row', { name: /127\.0\.0\.4/ });
  const failing = dbRow.getByText('1 of 1 service failing');
  await failing.waitFor();
  assert.equal(await failing.evaluate((el) => el.closest('.badge')?.className), 'badge tone-failing');
  await page.getByLabel('Filter the nodes').fill('');
  await photographBoth(p, mapPath(), 'discovery-map-truth', 'Map of Lab racks');
  assertClean(p, 'the map of Lab racks');
});

/** '#15803d' as Cytoscape's style() gives it back: 'rgb(21,128,61)'. */
function rgb(hex: string): string {
  const h = hex.replace('#', '');
  return `rgb(${[0, 2, 4].map((i) => parseInt(h.slice(i, i + 2), 16)).join(',')})`;
}

type Positions = Record<string, { x: number; y: number }>;
const POSITIONS = '(cy) => Object.fromEntries(cy.nodes().map((n) => [n.id(), n.position()]))';

function samePositions(a: Positions, b: Positions, what: string): void {
  assert.deepEqual(Object.keys(a).sort(), Object.keys(b).sort());
  const moved = Object.keys(a).filter((id) => Math.abs(a[id]!.x - b[id]!.x) > 0.01 || Math.abs(a[id]!.y - b[id]!.y) > 0.01);
  assert.deepEqual(moved, [], `${what}: nodes placed elsewhere`);
}

test('without a saved layout the map is laid out the same way on every visit, whatever the window', async () => {
  const { page } = p;
  const stored = await env.t.request('GET', `/api/v1sion/sessions/${sessionId}`, { key: admin.key });
  assert.ok(stored.body.nodes.every((n: { position: unknown }) => n.position === null), 'no position saved');
  await page.goto(mapPath());
  await mapReady(page);
  const first = await graph<Positions>(page, POSITIONS);
  await page.reload();
  await mapReady(page);
  samePositions(first, await graph<Positions>(page, POSITIONS), 'a second visit');
  const other = await signedInPage(env, admin, { width: 1920, height: 1080 });
  await other.page.goto(mapPath());
  await mapReady(other.page);
  samePositions(first, await graph<Positions>(other.page, POSITIONS), 'a visit in a 1920 px window');
  await other.context.close();
  // Looking saved nothing: the next visit lays it out again, the same way.
  const still = await env.t.request('GET', `/api/v1sion/sessions/${sessionId}`, { key: admin.key });
  assert.ok(still.body.nodes.every((n: { position: unknown }) => n.position === null), 'no position saved by a visit');
  assertClean(p, 'two visits of the map');
});

test('on a phone the map opens with readable labels, centred on the core switch', async () => {
  const phone = await signedInPage(env, admin, PHONE);
  const { page } = phone;
  await page.goto(mapPath());
  await mapReady(page);
  await graphUntil(page, `(cy) => ${node('sw-core')}.data('label') === 'core-sw1'`);
  const view = await graph<{ zoom: number; font: number; minFont: number; width: number; shown: string[] }>(page, `(cy) => {
    const e = cy.extent();
    const inside = (n) => { const p = n.position(); return p.x > e.x1 && p.x < e.x2 && p.y > e.y1 && p.y < e.y2; };
    return { zoom: cy.zoom(), font: parseFloat(cy.nodes()[0].style('font-size')), minFont: parseFloat(cy.nodes()[0].style('min-zoomed-font-size')),
      width: cy.getElementById('sw-core').renderedWidth(), shown: cy.nodes().filter(inside).map((n) => n.data('label')) };
  }`);
  console.log(`the map at 375 px: zoom ${view.zoom.toFixed(2)}, labels ${(view.font * view.zoom).toFixed(1)} px, ` +
    `core node ${view.width.toFixed(0)} px wide, ${view.shown.length} of ${HOSTS + 3} nodes in view`);
  // Cytoscape draws no label under min-zoomed-font-size; 8 px is the least a label can be read at.
  assert.ok(view.font * view.zoom >= 8 && view.font * view.zoom >= view.minFont, `labels drawn ${(view.font * view.zoom).toFixed(1)} px high`);
  assert.ok(view.width >= 32, `nodes drawn ${view.width.toFixed(0)} px wide`);
  assert.ok(view.shown.includes('core-sw1'), `the core switch is in view: ${view.shown.join(', ')}`);
  assert.ok(view.shown.length >= 4, `several nodes in view: ${view.shown.join(', ')}`);
  // The first screen as a phone shows it (the full page is long: the node list follows the map).
  await page.emulateMedia({ colorScheme: 'light' });
  await page.screenshot({ path: join(SCREENSHOTS, 'discovery-map-truth-phone-view.png') });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: join(SCREENSHOTS, 'discovery-map-truth-phone-view-dark.png') });
  await page.emulateMedia({ colorScheme: 'light' });
  // Fit still shows everything on request.
  await page.getByRole('button', { name: 'Fit' }).click();
  assert.equal(await graph<number>(page, '(cy) => cy.nodes().filter((n) => { const e = cy.extent(); const p = n.position(); return p.x >= e.x1 && p.x <= e.x2 && p.y >= e.y1 && p.y <= e.y2; }).length'), HOSTS + 3);
  assertClean(phone, 'the map on a phone');
  await phone.context.close();
});
