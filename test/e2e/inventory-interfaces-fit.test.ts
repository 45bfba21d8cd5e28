// An endpoint's interface table fits the screen it is read on (issue 33 §2), in Debian's Chromium against
// the real service: the table is read live over SNMP from the project's simulator on 127.0.0.1 (an
// access switch recorded with long aliases and busy error and discard counters), through the endpoint's
// management credential, as a person does with "Read SNMP cards". At 1366 and 1920 px every column,
// errors and discards included, is on screen at a readable width and no cell cuts its figures off; at
// 375 px the table is the stacked cards of every other table, each label and figure whole. Photographed
// at 1366 and 375 px, light and dark (`if-fit-*`).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startSimulator, type Simulator } from '../helpers/snmp-sim.js';
import {
  apiCaller, assertClean, assertLabelledControls, assertNoHorizontalOverflow, PHONE, screenshot, startSignedIn, type UiEnv, type UiPage,
} from './helpers/browser.js';

const COMMUNITY = 'if-fit-e2e-community-9';

/** An access switch as a recording: ifTable and ifXTable of eight ports, 64-bit counters, long aliases. */
function recording(): string {
  const IF = '1.3.6.1.2.1.2.2.1', IFX = '1.3.6.1.2.1.31.1.1.1';
  const ports = [
    { name: 'Gi1/0/1', descr: 'GigabitEthernet1/0/1', alias: 'to server rack 4, patch panel B port 17 (hypervisor uplink)', mbps: 1000, up: true },
    { name: 'Gi1/0/2', descr: 'GigabitEthernet1/0/2', alias: 'reception printer', mbps: 100, up: true },
    { name: 'Gi1/0/3', descr: 'GigabitEthernet1/0/3', alias: '', mbps: 1000, up: false, shut: true },
    { name: 'Gi1/0/24', descr: 'GigabitEthernet1/0/24', alias: 'wireless access point, first floor east corridor', mbps: 1000, up: true },
    { name: 'Te1/1/1', descr: 'TenGigabitEthernet1/1/1', alias: 'uplink core-sw1 Te1/0/48', mbps: 10000, up: true },
    { name: 'Te1/1/2', descr: 'TenGigabitEthernet1/1/2', alias: 'uplink core-sw2 Te1/0/48 (standby)', mbps: 10000, up: false },
    { name: 'Po1', descr: 'Port-channel1', alias: 'LACP bundle to the storage array controllers', mbps: 20000, up: true },
    { name: 'Vl10', descr: 'Vlan10', alias: 'management', mbps: 1000, up: true },
  ];
  const lines = ['1.3.6.1.2.1.1.1.0|4|Busy access switch', '1.3.6.1.2.1.1.5.0|4|busy-sw1', `1.3.6.1.2.1.2.1.0|2|${ports.length}`];
  const col = (base: string, n: number, type: number | string, value: string | number) => lines.push(`${base}.${n}|${type}|${value}`);
  ports.forEach((p, i) => {
    const n = i + 1;
    col(`${IF}.1`, n, 2, n);
    col(`${IF}.2`, n, 4, p.descr);
    col(`${IF}.3`, n, 2, p.name.startsWith('Vl') ? 53 : p.name.startsWith('Po') ? 161 : 6);
    col(`${IF}.5`, n, 66, Math.min(p.mbps * 1_000_000, 4_294_967_295));
    col(`${IF}.6`, n, '4x', `00005e0053${n.toString(16).padStart(2, '0')}`);
    col(`${IF}.7`, n, 2, p.shut ? 2 : 1);
    col(`${IF}.8`, n, 2, p.up ? 1 : 2);
    // Busy counters: errors and discards in the millions on some ports, as a bad cable or a full buffer
    // leaves them; the uplink's at the largest a Counter32 holds, the widest figures the table can show.
    const MAX = 4_294_967_295;
    col(`${IF}.13`, n, 65, n === 5 ? MAX : n % 2 ? 1_048_576 * n : 0);
    col(`${IF}.14`, n, 65, n === 5 ? MAX : n % 3 ? 2_345_678 * n : 12);
    col(`${IF}.19`, n, 65, n === 5 ? MAX : n % 2 ? 0 : 987_654 * n);
    col(`${IF}.20`, n, 65, n === 5 ? MAX : n * 7);
    col(`${IFX}.1`, n, 4, p.name);
    col(`${IFX}.6`, n, 70, 98_765_432_101_234 * n);
    col(`${IFX}.10`, n, 70, 12_345_678_901_234 * n);
    col(`${IFX}.15`, n, 66, p.mbps);
    if (p.alias) col(`${IFX}.18`, n, 4, p.alias);
  });
  // snmprec is ordered by OID.
  const arcs = (l: string) => l.split('|')[0]!.split('.').map(Number);
  return lines.sort((a, b) => {
    const x = arcs(a), y = arcs(b);
    for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
    return x.length - y.length;
  }).join('\n') + '\n';
}

let env: UiEnv;
let p: UiPage;
let sim: Simulator;
let endpoint: { id: string; short_id: string };

before(async () => {
  sim = await startSimulator([{ name: 'busy-sw1', community: COMMUNITY, text: recording() }]);
  ({ env, p } = await startSignedIn(async (e, a) => {
    const api = apiCaller(e, a.key);
    const dev = sim.devices[0]!;
    await api('POST', '/api/brain/vault/setup', { passphrase: 'If-Fit-E2E-Vault-Passphrase-3' });
    const cred = await api('POST', '/api/brain/credentials', { scope: ['127.0.0.0/8'], name: 'lab v2c', kind: 'snmp_v2c', port: dev.port, community: COMMUNITY });
    endpoint = await api('POST', '/api/brain/endpoints', { name: 'busy-sw1', ip_addresses: [dev.host], role: 'switch', credential_id: cred.id });
  }));
});

after(async () => {
  await p?.context.close();
  await env?.close();
  await sim?.stop();
});

const COLUMNS = ['Interface', 'Status', 'Speed', 'In', 'Out', 'Errors', 'Discards'];

/** Opens the endpoint's page at this size and reads its SNMP cards, as a person does; resolves once the interface table is in. */
async function openTable(width: number, height: number): Promise<void> {
  const { page } = p;
  await page.setViewportSize({ width, height });
  await page.goto(`/inventory/endpoints/${endpoint.short_id}`);
  await page.getByRole('heading', { name: 'busy-sw1', level: 1 }).waitFor();
  await page.getByRole('button', { name: 'Read SNMP cards' }).click();
  await page.locator('.if-card').getByRole('table', { name: 'Interfaces' }).locator('tbody tr').nth(7).waitFor();
  await page.getByText('Interfaces (6 of 8 up)').waitFor();
  await page.waitForLoadState('networkidle');
}

interface Box { left: number; right: number; top: number; bottom: number; width: number }
interface Cell extends Box { column: string; text: string; scroll: number; client: number; label: number; leaves: (Box & { text: string })[] }
interface Probe { vw: number; wrap: Box & { scroll: number; client: number }; heads: (Box & { text: string })[]; rows: Cell[][] }

// Kept as source text (tsx's function helpers do not exist inside the browser). The interface table's
// wrapper, its header cells and every body cell: where it is, whether it cuts its content off (scrollWidth
// over clientWidth), how wide its stacked label is (the ::before a phone shows), and every piece of text in it.
const TABLE_PROBE = `(() => {
  const box = (el) => { const b = el.getBoundingClientRect(); return { left: b.left, right: b.right, top: b.top, bottom: b.bottom, width: b.width }; };
  const ctx = document.createElement('canvas').getContext('2d');
  const card = document.querySelector('.if-card');
  const wrap = card.querySelector('.table-wrap');
  const heads = [...card.querySelectorAll('thead th')].map((th) => ({ text: th.textContent.trim(), ...box(th) }));
  const rows = [...card.querySelectorAll('tbody tr')].map((tr) => [...tr.children].map((td, i) => {
    const before = getComputedStyle(td, '::before');
    ctx.font = before.font;
    const label = before.content && before.content !== 'none' && before.display !== 'none'
      ? Math.min(ctx.measureText(td.dataset.label || '').width, td.clientWidth * 0.4) : 0;
    const leaves = [...td.querySelectorAll('*')].filter((el) => !el.children.length && el.textContent.trim())
      .map((el) => ({ text: el.textContent.trim(), ...box(el) }));
    return { column: td.dataset.label || heads[i].text, text: td.innerText.trim(), scroll: td.scrollWidth, client: td.clientWidth,
      label, leaves, ...box(td) };
  }));
  return { vw: document.documentElement.clientWidth, wrap: { scroll: wrap.scrollWidth, client: wrap.clientWidth, ...box(wrap) }, heads, rows };
})()`;

const inside = (b: Box, outer: { left: number; right: number }) => b.left >= outer.left - 1 && b.right <= outer.right + 1;
const fmt = (b: { left: number; right: number }) => `${Math.round(b.left)}..${Math.round(b.right)}`;

/** Every cell whole: inside the wrapper's visible box and the window, its text inside it, nothing cut off. */
function assertCellsWhole(r: Probe, where: string): void {
  const view = { left: Math.max(0, r.wrap.left), right: Math.min(r.vw, r.wrap.right) };
  assert.equal(r.rows.length, 8, `${where}: eight interfaces`);
  for (const row of r.rows) {
    assert.equal(row.length, COLUMNS.length, where);
    for (const c of row) {
      const what = `${where}, ${row[0]!.text.split('\n')[0]} / ${c.column}`;
      assert.ok(c.width >= 40, `${what}: ${Math.round(c.width)} px wide`);
      assert.ok(inside(c, view), `${what}: the cell at ${fmt(c)} is not all in view (${fmt(view)})`);
      assert.ok(c.scroll <= c.client + 1, `${what}: needs ${c.scroll} px in ${c.client} px, "${c.text}" is cut off`);
      for (const l of c.leaves) {
        assert.ok(l.width > 0 && inside(l, c), `${what}: "${l.text}" at ${fmt(l)} outside its cell ${fmt(c)}`);
        assert.ok(l.left >= c.left + c.label - 1, `${what}: "${l.text}" at ${Math.round(l.left)} runs into its label (to ${Math.round(c.left + c.label)})`);
      }
    }
  }
}

/** The busiest port's errors and discards, each count whole (4,294,967,295 in and out). */
function assertBusiestCounts(r: Probe, where: string): void {
  const uplink = r.rows.find((row) => row[0]!.text.startsWith('Te1/1/1'));
  assert.ok(uplink, `${where}: the Te1/1/1 row`);
  for (const column of ['Errors', 'Discards']) {
    const cell: Cell = uplink.find((c) => c.column.startsWith(column))!;
    assert.equal(cell.text.match(/4,294,967,295/g)?.length, 2, `${where}: ${column} of Te1/1/1 shows both counts: ${JSON.stringify(cell.text)}`);
    assert.ok(cell.leaves.filter((l) => l.text === '4,294,967,295').length === 2, `${where}: ${column} of Te1/1/1, each count in its own line`);
  }
}

/** Light and dark screenshots of the page as it is (the table read), from its top (the sticky top bar there). */
async function shoot(name: string): Promise<void> {
  const { page } = p;
  await page.evaluate('window.scrollTo(0, 0)');
  await page.emulateMedia({ colorScheme: 'light' });
  await screenshot(page, name);
  await page.emulateMedia({ colorScheme: 'dark' });
  await screenshot(page, `${name}-dark`);
  await page.emulateMedia({ colorScheme: 'light' });
}

// Whatever on the page cuts its own content off: a box that clips or scrolls sideways with more inside it
// than it shows (visually hidden captions and table heads excepted: they are meant to be 1 px).
const CLIPPED_PROBE = `(() => [...document.querySelectorAll('main *, .page *')].filter((el) => {
  const cs = getComputedStyle(el);
  if (cs.overflowX === 'visible' || el.clientWidth <= 1 || cs.clip !== 'auto') return false;
  return el.scrollWidth > el.clientWidth + 1;
}).map((el) => el.tagName.toLowerCase() + '.' + [...el.classList].join('.') + ' ' + el.scrollWidth + '/' + el.clientWidth + ' ' +
  JSON.stringify((el.innerText || '').slice(0, 60))))()`;

for (const width of [1366, 1920]) {
  test(`at ${width} px every column of the interface table is on screen, errors and discards whole, without sideways scrolling`, async () => {
    await openTable(width, 900);
    const r = await p.page.evaluate(TABLE_PROBE) as Probe;
    assert.deepEqual(r.heads.map((h) => COLUMNS.find((c) => h.text.startsWith(c))), COLUMNS, `the columns: ${r.heads.map((h) => h.text).join(', ')}`);
    assert.ok(r.wrap.scroll <= r.wrap.client, `the table needs ${r.wrap.scroll} px inside ${r.wrap.client} px: its last columns are behind a scrollbar`);
    for (const h of r.heads) {
      assert.ok(h.width >= 40 && inside(h, { left: r.wrap.left, right: Math.min(r.vw, r.wrap.right) }), `header ${h.text} at ${fmt(h)}`);
    }
    // Not squeezed into a column of the page: the table has room, and an alias wraps into lines, not a word a line.
    assert.ok(r.wrap.width >= 900, `the table has ${Math.round(r.wrap.width)} px of a ${r.vw} px window`);
    assert.ok(r.heads[0]!.width >= 160, `the interface column is ${Math.round(r.heads[0]!.width)} px wide`);
    assertCellsWhole(r, `${width} px`);
    assertBusiestCounts(r, `${width} px`);
    assert.deepEqual(await p.page.evaluate(CLIPPED_PROBE), [], `${width} px: nothing on the page cuts its content off`);
    if (width === 1366) await shoot('if-fit-endpoint');
    assertClean(p, `the endpoint page at ${width} px`);
  });
}

test('at 375 px each interface is a stacked card: every label and figure whole, nothing sideways', async () => {
  await openTable(PHONE.width, PHONE.height);
  const r = await p.page.evaluate(TABLE_PROBE) as Probe;
  assert.ok(r.wrap.scroll <= r.wrap.client, `the table needs ${r.wrap.scroll} px inside ${r.wrap.client} px`);
  // The stacked card labels each figure with its column's name; the first cell is the card's title.
  for (const row of r.rows) assert.deepEqual(row.slice(1).map((c) => COLUMNS.find((name) => c.column.startsWith(name))), COLUMNS.slice(1));
  assertCellsWhole(r, '375 px');
  assertBusiestCounts(r, '375 px');
  assert.deepEqual(await p.page.evaluate(CLIPPED_PROBE), [], '375 px: nothing on the page cuts its content off');
  await assertNoHorizontalOverflow(p.page, 'the endpoint page at 375 px');
  await assertLabelledControls(p.page, 'the endpoint page at 375 px');
  await shoot('if-fit-endpoint-phone');
  assertClean(p, 'the endpoint page at 375 px');
});

test('in a window narrower than the table, it scrolls inside its wrapper with the interface names kept in view', async () => {
  await openTable(900, 800);
  const wrap = p.page.locator('.if-card .table-wrap');
  const before = await p.page.evaluate(TABLE_PROBE) as Probe;
  assert.ok(before.wrap.scroll > before.wrap.client, `at 900 px the table (${before.wrap.scroll} px) is wider than its wrapper (${before.wrap.client} px)`);
  assert.equal(await p.page.evaluate('document.documentElement.scrollWidth <= document.documentElement.clientWidth'), true, 'the page itself does not scroll sideways');
  await wrap.evaluate((el) => { el.scrollLeft = el.scrollWidth; });
  const r = await p.page.evaluate(TABLE_PROBE) as Probe;
  for (const row of r.rows) {
    const name = row[0]!;
    assert.ok(Math.abs(name.left - r.wrap.left) <= 1, `${name.text.split('\n')[0]}: the name stays at the wrapper's left edge (${Math.round(name.left)} vs ${Math.round(r.wrap.left)})`);
    // The pinned name covers what scrolls under it, and the last figures are now in view beside it.
    const discards = row[row.length - 1]!;
    assert.ok(discards.left >= name.right - 1 && inside(discards, r.wrap), `${name.text.split('\n')[0]}: discards at ${fmt(discards)} beside the name (to ${Math.round(name.right)})`);
  }
  assertClean(p, 'the endpoint page at 900 px');
});
