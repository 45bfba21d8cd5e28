// The discovery scan page live and the topology map, in a real browser against the real service with the
// discovery lab running (docs/lab.md; needs root and the lab's programs, skipped otherwise). Packets go
// only to the lab's namespaces: the scans sweep the lab's lan, the monitor watches a lab host, reverse DNS
// asks the lab's resolver. A scan of the lab's lan is started from the form (the subnet offered as one of
// the probe's own), with SNMP and the lab's community typed in: its hosts appear in the table from the
// stream (the kept result is held back meanwhile); sorted by name and exported as CSV (formula-shaped
// values defused); it is saved as a session and its map shows the switches' LLDP link with the port names on the
// edge (clicked on the canvas, read in the details panel); a node's badge turns red, counting one failed
// service, when the TCP monitor on its address goes down; a node dragged stays where it was put after a reload (the whole arrangement is
// saved); manual nodes and edges are added and removed; an earlier scan of the lan (taken while one host
// was unplugged) marks that host new, and a node removed from the session shows as vanished. The map
// page's first load is printed and stays under 400 KB compressed. Screenshots: discovery-map-*.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { labSkipReason, startLab, type Lab } from '../helpers/lab.js';
import {
  assertClean, photograph, screenshot, startSignedIn, transferredBytes, type UiEnv, type UiPage,
} from './helpers/browser.js';

const skip = labSkipReason();

describe('the scan page live and the topology map, against the discovery lab', { skip: skip ?? false }, () => {
  let lab: Lab;
  let env: UiEnv;
  let admin: { username: string; password: string; key: string };
  let p: UiPage;
  let lan: string;
  let sessionId = '';
  let previousJob = '';
  const api = (method: string, path: string, body?: unknown) => env.t.request(method, path, { key: admin.key, body });
  const ip = (host: string) => lab.host(host).addresses[0]!;

  /** Runs a scan through the API and waits for its result. */
  async function scanByApi(): Promise<string> {
    const r = await api('POST', '/api/v1sion/scan', { subnet: lan, community: lab.snmp.community, snmp_version: '2c', credentials: [] });
    assert.equal(r.status, 202, r.text);
    const res = await fetch(`${env.url}/api/v1sion/scan/${r.body.job_id}/stream`, { headers: { 'x-api-key': admin.key } });
    await res.text();
    const got = await api('GET', `/api/v1sion/scan/${r.body.job_id}/result`);
    assert.equal(got.status, 200, got.text);
    return r.body.job_id;
  }

  /** The map's Cytoscape instance, read in the page. */
  const graph = <T>(fn: string): Promise<T> => p.page.evaluate(`(() => { const cy = document.querySelector('.map-canvas')._cyreg.cy; return (${fn})(cy); })()`) as Promise<T>;
  // The graph takes a session the API answered on its next render: wait for it rather than read once.
  // Polled from here: waitForFunction polls a string predicate with eval, which the page's CSP refuses.
  const graphUntil = async (fn: string, timeoutMs = 15_000): Promise<void> => {
    for (const end = Date.now() + timeoutMs; !(await graph<boolean>(fn));) {
      if (Date.now() > end) assert.fail(`the graph never satisfied ${fn}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const mapReady = async () => {
    await p.page.locator('.map-canvas canvas').first().waitFor();
    await p.page.locator('.map-loading').waitFor({ state: 'detached' });
  };

  before(async () => {
    lab = await startLab({ corpus: false });
    lan = lab.subnets.find((s) => s.name === 'lan')!.cidr;
    ({ env, admin, p } = await startSignedIn(async (started, a) => {
      // The default SNMP patience: with 500 ms and no retry, a switch that answered late on a loaded machine (the
      // suite runs two files at once) went unidentified, and its LLDP neighbour became a node of its own.
      await writeFile(join(started.t.dataDir, 'config.yaml'), `discovery:\n  dns_servers: [${lab.resolver}]\n`);
      await started.t.service.app.config.reload();
      admin = a;
    }));
    // The earlier scan of the lan, taken while plain5 was unplugged: the map compares with it.
    const plain5 = lab.host('plain5');
    assert.equal((await lab.exec('plain5', 'ip', ['link', 'set', 'eth0', 'down'])).code, 0);
    try {
      previousJob = await scanByApi();
    } finally {
      assert.equal((await lab.exec('plain5', 'ip', ['link', 'set', 'eth0', 'up'])).code, 0);
    }
    const prev = await api('GET', `/api/v1sion/scan/${previousJob}/result`);
    assert.ok(!prev.body.hosts.some((h: { ip: string }) => h.ip === plain5.addresses[0]), 'plain5 was not in the earlier scan');
  });

  after(async () => {
    await p?.context.close();
    await env?.close();
    await lab?.stop();
  });

  test('a scan of the lab lan from the form: hosts appear live, it completes, it is saved as a session', async () => {
    const { page } = p;
    await page.goto('/discovery');
    // The lab's lan is one of the probe's own subnets: offered under the field, and a click fills it in.
    const own = page.getByRole('group', { name: "The probe's own networks" });
    await own.getByRole('button', { name: lan, exact: true }).click();
    assert.equal(await page.getByLabel('Subnet').inputValue(), lan);
    const snmp = page.getByRole('switch', { name: 'Identify SNMP agents' });
    if (!(await snmp.isChecked())) await snmp.setChecked(true);
    await page.getByLabel('SNMP version').selectOption('2c');
    await page.getByLabel('Community').fill(lab.snmp.community);
    // The kept result is held back until the table has been looked at: the rows there came from the stream.
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => { release = resolve; });
    const resultUrl = '**/api/v1sion/scan/*/result';
    await page.route(resultUrl, async (route) => { await held; await route.continue(); });
    // Every change of the host table is noted with whether the scan was still running then (printed).
    await page.evaluate(`(() => {
      window.__hostLog = [];
      new MutationObserver(() => {
        const rows = document.querySelectorAll('.disc-table-card tbody tr').length;
        const last = window.__hostLog[window.__hostLog.length - 1];
        const running = !!document.querySelector('section.disc-run-running');
        if (!last || last.rows !== rows || last.running !== running) window.__hostLog.push({ rows, running });
      }).observe(document.body, { childList: true, subtree: true, attributes: true });
    })()`);
    await page.getByRole('button', { name: 'Start scan' }).click();
    await page.waitForURL(/\/discovery\?job=[0-9a-f-]{36}/);
    const rows = page.locator('.disc-table-card tbody tr');
    await page.getByRole('row', { name: new RegExp(`${ip('sw1').replace(/\./g, '\\.')}\\b`) }).waitFor({ timeout: 120_000 });
    const streamed = await rows.count();
    assert.ok(streamed > 0);
    release();
    await page.locator('section.disc-run .badge', { hasText: 'Completed' }).waitFor({ timeout: 120_000 });
    await page.getByRole('button', { name: 'Save as topology session' }).waitFor();
    await page.unroute(resultUrl);
    const log = await page.evaluate('window.__hostLog') as { rows: number; running: boolean }[];
    console.log(`host rows from the stream before the result: ${streamed}; table changes (rows, running): ` +
      log.map((e) => `${e.rows}${e.running ? ' running' : ''}`).join(' / '));
    const live = lab.liveIn('lan').filter((a) => a.host !== 'probe');
    assert.ok(await rows.count() >= Math.min(live.length, 100) - 0, `${await rows.count()} hosts listed`);
    await page.getByRole('row', { name: new RegExp(ip('sw1').replace(/\./g, '\\.')) }).first().waitFor();

    // Sorted by name, exported as CSV in that order; a value shaped like a formula is defused.
    await page.getByLabel('Sort by').selectOption('name');
    const firstByName = (await rows.first().locator('td').nth(1).textContent())?.trim();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
    const csv = (await (await download.createReadStream()).toArray()).join('');
    const lines = csv.trim().split('\r\n');
    assert.equal(lines[0], 'address,name,mac,mac_vendor,vendor,model,os,serial,open_ports,found_by,rtt_ms');
    assert.equal(lines.length - 1, await page.locator('.disc-table-card tbody tr').count());
    assert.equal(lines[1]!.split(',')[1], firstByName);
    assert.equal(await page.evaluate(`import('/pages/discovery/model.js').then((m) => m.csvField('=HYPERLINK("x")'))`), `"'=HYPERLINK(""x"")"`);
    await page.getByLabel('Sort by').selectOption('ip');

    await page.getByRole('button', { name: 'Save as topology session' }).click();
    await page.getByLabel('Name').fill('Lab lan');
    await page.getByRole('button', { name: 'Save session' }).click();
    await page.waitForURL(/\/discovery\/sessions\/[0-9a-f-]{36}$/);
    sessionId = new URL(page.url()).pathname.split('/').pop()!;
    assertClean(p, 'the scan and the saved session');
  });

  test("the map shows the lab's LLDP link between the switches with its port names", async () => {
    const { page } = p;
    await page.getByRole('link', { name: 'Map', exact: true }).click();
    await page.waitForURL(/\/map/);
    await page.getByRole('heading', { name: 'Map of Lab lan', level: 1 }).waitFor();
    await mapReady();
    const edges = await graph<{ kind: string; from_port: string; to_port: string; source: string; target: string }[]>(
      '(cy) => cy.edges().map((e) => ({ ...e.data() }))');
    // A switch is the node whose addresses hold its lan address (the first shown may be another of its own).
    const session = (await api('GET', `/api/v1sion/sessions/${sessionId}`)).body as { nodes: { id: string; addresses: string[] }[] };
    const drawn = new Set(await graph<string[]>('(cy) => cy.nodes().map((n) => n.id())'));
    const nodeOf = (addr: string) => session.nodes.find((n) => n.addresses.includes(addr) && drawn.has(n.id))?.id;
    const sw1 = nodeOf(ip('sw1'))!;
    const sw2 = nodeOf(ip('sw2'))!;
    assert.ok(sw1 && sw2, `both switches are nodes: ${JSON.stringify(session.nodes.map((n) => n.addresses))}`);
    const link = edges.find((e) => e.kind === 'lldp' && [e.source, e.target].sort().join() === [sw1, sw2].sort().join());
    assert.ok(link, `an LLDP edge between sw1 and sw2 among ${JSON.stringify(edges.map((e) => e.kind))}`);
    const ports = link.source === sw1 ? [link.from_port, link.to_port] : [link.to_port, link.from_port];
    assert.deepEqual(ports, ['swp2', 'swp1']);

    // Clicking the edge on the canvas shows both ends with their ports.
    const mid = await graph<{ x: number; y: number }>(
      `(cy) => { const e = cy.edges().filter((x) => x.data('kind') === 'lldp' && [x.data('source'), x.data('target')].sort().join() === ${JSON.stringify([sw1, sw2].sort().join())}); cy.fit(e.connectedNodes(), 80); return e.renderedMidpoint(); }`);
    const box = (await page.locator('.map-canvas').boundingBox())!;
    await page.mouse.click(box.x + mid.x, box.y + mid.y);
    const panel = page.locator('.map-panel');
    await panel.getByRole('heading', { name: /^Edge e\d+$/ }).waitFor();
    await panel.getByText('swp2', { exact: true }).waitFor();
    await panel.getByText('swp1', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Fit' }).click();
    assertClean(p, 'the map');
  });

  test("a node's badge turns red, counting the failed service, when the monitor on its address goes down", async () => {
    const { page } = p;
    const silent = ip('silent');
    const mon = await api('POST', '/api/monitors', {
      name: 'Lab web', check_type: 'tcp', target: `${silent}:80`, interval: 5, timeout: 2, failure_threshold: 1,
    });
    assert.equal(mon.status, 201, mon.text);
    const names = await graph<Record<string, string>>('(cy) => Object.fromEntries(cy.nodes().map((n) => [n.data("sub"), n.id()]))');
    const node = names[silent]!;
    assert.ok(node, 'the silent host is a node');
    const badge = page.locator(`.map-node-status[data-node="${node}"]`);
    const badgeIs = (status: string) => page.locator(`.map-node-status[data-node="${node}"][data-status="${status}"]`);
    await page.getByLabel('Filter the nodes').fill(silent);
    await badgeIs('up').waitFor({ timeout: 30_000 });
    await graphUntil(`(cy) => cy.getElementById(${JSON.stringify(node)}).data('status') === 'up'`);

    // Pointed at a closed port of the same host: the check is refused, the monitor goes down.
    const put = await api('PUT', `/api/monitors/${mon.body.id}`, { target: `${silent}:81` });
    assert.equal(put.status, 200, put.text);
    await badgeIs('down').waitFor({ timeout: 30_000 });
    await graphUntil(`(cy) => cy.getElementById(${JSON.stringify(node)}).data('status') === 'down'`);
    // The host ignores ping and its one service fails: nothing says whether it answers, and a red 1 counts the service.
    await graphUntil(`(cy) => cy.getElementById(${JSON.stringify(node)}).data('badge') === 'down:1'`);
    await page.locator(`.map-node-services[data-node="${node}"]`).getByText('1 of 1 service down').waitFor();
    await badge.getByText('Unknown').waitFor();
    await page.getByLabel('Filter the nodes').fill('');
    await screenshot(page, 'discovery-map-down');
    assertClean(p, 'the badge going red');
  });

  test('a dragged node stays where it was put after a reload; the whole arrangement is saved', async () => {
    const { page } = p;
    await page.getByRole('button', { name: 'Fit' }).click();
    const sw1 = await graph<string>(`(cy) => cy.nodes().filter((n) => n.data('sub') === ${JSON.stringify(ip('sw1'))}).id()`);
    const from = await graph<{ x: number; y: number }>(`(cy) => cy.getElementById(${JSON.stringify(sw1)}).renderedPosition()`);
    const box = (await page.locator('.map-canvas').boundingBox())!;
    await page.mouse.move(box.x + from.x, box.y + from.y);
    await page.mouse.down();
    for (let i = 1; i <= 10; i++) await page.mouse.move(box.x + from.x + i * 6, box.y + from.y + i * 4);
    await page.mouse.up();
    await page.getByText(/^Layout saved/).waitFor();
    const moved = await graph<{ x: number; y: number }>(`(cy) => cy.getElementById(${JSON.stringify(sw1)}).position()`);
    const stored = await api('GET', `/api/v1sion/sessions/${sessionId}`);
    assert.ok(stored.body.nodes.every((n: { position: unknown }) => n.position !== null), 'every node has a saved position');
    const s1 = stored.body.nodes.find((n: { id: string }) => n.id === sw1);
    assert.ok(Math.abs(s1.position.x - moved.x) < 0.2 && Math.abs(s1.position.y - moved.y) < 0.2, 'the dragged position is stored');
    const all = await graph<Record<string, { x: number; y: number }>>('(cy) => Object.fromEntries(cy.nodes().map((n) => [n.id(), n.position()]))');

    await page.reload();
    await mapReady();
    const again = await graph<Record<string, { x: number; y: number }>>('(cy) => Object.fromEntries(cy.nodes().map((n) => [n.id(), n.position()]))');
    for (const [id, pos] of Object.entries(all)) {
      assert.ok(Math.abs(again[id]!.x - pos.x) < 0.2 && Math.abs(again[id]!.y - pos.y) < 0.2, `${id} is where it was`);
    }
    assertClean(p, 'the layout saved and restored');
  });

  test('manual nodes and edges are added and removed', async () => {
    const { page } = p;
    await page.getByRole('button', { name: 'Node', exact: true }).click();
    await page.getByLabel('Label').fill('Patch panel');
    await page.getByLabel('Kind').selectOption('switch');
    await page.getByRole('button', { name: 'Add node' }).click();
    await page.locator('.map-panel').getByRole('heading', { name: 'Patch panel' }).waitFor();
    await graphUntil("(cy) => cy.getElementById('manual-patch-panel').nonempty()");

    await page.getByRole('button', { name: 'Edge', exact: true }).click();
    const inSession = (await api('GET', `/api/v1sion/sessions/${sessionId}`)).body as { nodes: { id: string; addresses: string[] }[] };
    const sw1 = inSession.nodes.find((n) => n.addresses.includes(ip('sw1')))!.id;
    await page.getByLabel('From node').selectOption('manual-patch-panel');
    await page.getByLabel('From port').fill('P12');
    await page.getByLabel('To node').selectOption(sw1);
    await page.getByLabel('To port').fill('swp9');
    await page.getByRole('button', { name: 'Add edge' }).click();
    await page.getByText('Added the edge').waitFor();
    await graphUntil('(cy) => cy.edges(".src-manual").nonempty()');
    const manual = await graph<{ from_port: string; to_port: string }[]>('(cy) => cy.edges(".src-manual").map((e) => e.data())');
    assert.deepEqual(manual.map((e) => [e.from_port, e.to_port]), [['P12', 'swp9']]);
    let stored = await api('GET', `/api/v1sion/sessions/${sessionId}`);
    assert.ok(stored.body.edges.some((e: { source: string; from_port: string }) => e.source === 'manual' && e.from_port === 'P12'));

    // Removing the manual node takes its edge along.
    await page.getByLabel('Filter the nodes').fill('Patch panel');
    await page.getByRole('button', { name: 'Patch panel', exact: true }).click();
    await page.locator('.map-panel').getByRole('button', { name: 'Remove from the map' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove' }).click();
    await page.getByText('Removed Patch panel').waitFor();
    await page.getByLabel('Filter the nodes').fill('');
    stored = await api('GET', `/api/v1sion/sessions/${sessionId}`);
    assert.ok(!stored.body.nodes.some((n: { id: string }) => n.id === 'manual-patch-panel'));
    assert.ok(!stored.body.edges.some((e: { source: string }) => e.source === 'manual'));
    assertClean(p, 'manual nodes and edges');
  });

  test('compared with the earlier scan: the host plugged in since is new, a node removed since has vanished', async () => {
    const { page } = p;
    // plain1 leaves the session: the earlier scan still has it.
    const plain1 = await graph<string>(`(cy) => cy.nodes().filter((n) => n.data('sub') === ${JSON.stringify(ip('plain1'))}).id()`);
    const rm = await api('PATCH', `/api/v1sion/sessions/${sessionId}`, { remove_nodes: [plain1] });
    assert.equal(rm.status, 200, rm.text);
    await page.goto(`/discovery/sessions/${sessionId}/map`);
    await mapReady();
    await page.getByLabel('Compare with').selectOption(previousJob);
    await page.locator('.map-compare-sum').waitFor();
    await graphUntil(`(cy) => cy.nodes().some((n) => n.data('sub') === ${JSON.stringify(ip('plain1'))} && n.data('mark') === 'vanished')`);
    const marks = await graph<Record<string, string | null>>('(cy) => Object.fromEntries(cy.nodes().map((n) => [n.data("sub"), n.data("mark")]))');
    assert.equal(marks[ip('plain5')], 'new', JSON.stringify(marks));
    assert.equal(marks[ip('plain1')], 'vanished', JSON.stringify(marks));
    assert.equal(Object.values(marks).filter((m) => m === 'new').length, 1, JSON.stringify(marks));
    await page.getByRole('row', { name: /plain1|10\.77/ }).filter({ hasText: 'Vanished' }).first().waitFor();
    await photograph(p, `/discovery/sessions/${sessionId}/map?compare=${previousJob}`, 'discovery-map', 'Map of Lab lan');
    assertClean(p, 'the comparison');
  });

  test('the first load of the map page stays under 400 KB compressed', async () => {
    const context = await env.browser.newContext({ baseURL: env.url });
    const [name, value] = (await env.t.login(admin.username, admin.password)).split('=');
    await context.addCookies([{ name: name!, value: value!, url: env.url }]);
    const page = await context.newPage();
    await page.goto(`/discovery/sessions/${sessionId}/map`);
    await page.locator('.map-canvas canvas').first().waitFor();
    await page.waitForLoadState('networkidle');
    const t = await transferredBytes(page);
    const cy = t.items.filter((i) => i.url.includes('cytoscape')).reduce((a, b) => a + b.bytes, 0);
    console.log(`first load of the map page: ${t.items.length} responses, ${t.total} bytes of compressed bodies (Cytoscape ${cy})`);
    assert.ok(t.total < 400 * 1024, `transferred ${t.total} bytes`);
    await context.close();
  });
});
