// What the monitor pages show is what happened (issue 33 §1), in a real browser against the real service
// and a local HTTP server on 127.0.0.1, with a ManualClock that builds an hour of history in a moment:
// - a monitor failing below its threshold reads "Failing 1 of 3" as its own status, in its own colour
//   (readable in light and dark), never "Degraded" (the word of a slow answer), in the list (with its own
//   filter), on its page, on the dashboard (a tile of its own, the attention list, recent events) and in
//   the event log (and the facts in its CSV);
// - the beat bar's caption and name count exactly the ticks drawn (60: 43 up, 17 down), not the list's 30;
// - an hour 28 % down is painted down, not green with a notch, and says its shares on hover and focus.
// Photographed at 1366 and 375 px, light and dark.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { ManualClock } from '../../src/core/clock.js';
import {
  apiCaller, assertClean, photograph, PHONE, startSignedIn, type UiEnv, type UiPage,
} from './helpers/browser.js';

const MIN = 60_000;
const HOUR = 3_600_000;
// The hour the history fills: the one before the current hour, so the clock ends near the browser's time.
const H = Math.floor(Date.now() / HOUR) * HOUR - HOUR;

let env: UiEnv;
let p: UiPage;
let site: Server;
let clock: ManualClock;
let api: ReturnType<typeof apiCaller>;
const ids: Record<string, string> = {};
/** Whether /flip answers 500. */
let flipFails = true;

async function lastCheck(id: string): Promise<string | null> {
  return (await api('GET', `/api/monitors/${id}`)).last_check;
}

/** Waits until the monitor's last check is not `before` any more. */
async function checkedAfter(id: string, before: string | null): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if ((await lastCheck(id)) !== before) return;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`monitor ${id} was not checked`);
}

before(async () => {
  clock = new ManualClock(H);
  ({ env, p } = await startSignedIn(async (e, a) => {
    api = apiCaller(e, a.key);
    let checks = 0;
    site = createServer((req, res) => {
      // /mix: 43 checks up, then 17 failed, then up again (the hour H: 43 min up, 17 min down).
      if (req.url === '/mix') { const n = checks++; res.statusCode = n >= 43 && n < 60 ? 500 : 200; res.end(res.statusCode === 200 ? 'ok' : 'broken'); return; }
      if (req.url === '/fail' || (req.url === '/flip' && flipFails)) { res.statusCode = 500; res.end('broken'); return; }
      if (req.url === '/slow') { setTimeout(() => res.end('ok'), 120); return; }
      res.end('ok');
    });
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    const make = async (name: string, path: string, extra: Record<string, unknown>) => {
      ids[name] = (await api('POST', '/api/monitors', { name, check_type: 'http', target: `${base}${path}`, timeout: 5, ...extra })).id;
      clock.advance(0); // checked at once: the timer is on the clock
      await checkedAfter(ids[name]!, null);
    };
    // An hour of checks a minute apart: H+0 … H+42 min up, H+43 … H+59 min failed (down at once), H+60 min up.
    await make('checkout-api', '/mix', { interval: 60, failure_threshold: 1 });
    for (let i = 1; i <= 60; i++) {
      const before = await lastCheck(ids['checkout-api']!);
      clock.advance(MIN);
      await checkedAfter(ids['checkout-api']!, before);
    }
    // Now (H+60 min, nothing more is checked unless asked): one failing 1 of 3, one slow, one failing 1 of 2
    // then down by a check by hand.
    await make('payments-failing', '/fail', { interval: 3600, failure_threshold: 3 });
    await make('search-slow', '/slow', { interval: 3600, degraded_ms: 20 });
    await make('gateway-flap', '/flip', { interval: 3600, failure_threshold: 2 });
    await api('POST', `/api/monitors/${ids['gateway-flap']}/check`);
    flipFails = false;
  }, { clock }));
});

after(async () => {
  await p?.context.close();
  site?.closeAllConnections();
  await new Promise((r) => site?.close(r));
  await env?.close();
});

// Kept as source text (tsx helpers do not exist inside the browser). The contrast of an element's text with
// what shows behind it (its background composited over its ancestors'), and the theme's colours.
const CONTRAST = `((el) => {
  const parse = (c) => { const v = c.match(/[\\d.]+/g).map(Number); return { r: v[0], g: v[1], b: v[2], a: v.length > 3 ? v[3] : 1 }; };
  const layers = [];
  for (let n = el; n; n = n.parentElement) { const c = parse(getComputedStyle(n).backgroundColor); if (c.a > 0) layers.push(c); if (c.a >= 1) break; }
  let bg = { r: 255, g: 255, b: 255 };
  for (const c of layers.reverse()) bg = { r: c.r * c.a + bg.r * (1 - c.a), g: c.g * c.a + bg.g * (1 - c.a), b: c.b * c.a + bg.b * (1 - c.a) };
  const lum = (c) => { const f = (x) => { x /= 255; return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4; }; return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b); };
  const fg = parse(getComputedStyle(el).color);
  const a = lum(fg), b = lum(bg);
  const theme = (name) => { const i = document.createElement('i'); i.style.color = 'var(' + name + ')'; document.body.append(i); const c = getComputedStyle(i).color; i.remove(); return c; };
  return { ratio: (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05), colour: getComputedStyle(el).color,
    failing: theme('--failing'), degraded: theme('--degraded'), down: theme('--down') };
})`;

test('failing below the threshold reads "Failing 1 of 3" in the list, with its own filter and colour, never "Degraded"', async () => {
  const { page } = p;
  await page.goto('/monitors');
  await page.locator('tbody tr').nth(3).waitFor();
  const row = (name: string) => page.locator('tbody tr', { has: page.getByRole('link', { name, exact: true }) });
  const failing = row('payments-failing');
  assert.equal((await failing.locator('.badge.status-failing').innerText()).trim(), 'Failing 1 of 3');
  assert.doesNotMatch(await failing.innerText(), /degraded/i, 'the failing row never says "Degraded"');
  assert.equal(await failing.getAttribute('class').then((c) => c?.includes('mon-failing')), true);
  const slow = row('search-slow');
  assert.equal((await slow.locator('.badge[class*="status-"]').innerText()).trim(), 'Degraded');
  assert.equal((await slow.locator('.mon-reason').innerText()).trim(), 'Slow');
  assert.equal((await row('gateway-flap').locator('.badge[class*="status-"]').innerText()).trim(), 'Down');

  // The status filters tell the two apart, with their counts.
  const chips = page.getByRole('group', { name: 'Status' });
  assert.match(await chips.getByRole('button', { name: /^Failing/ }).innerText(), /Failing\s*1/);
  assert.match(await chips.getByRole('button', { name: /^Degraded/ }).innerText(), /Degraded\s*1/);
  await chips.getByRole('button', { name: /^Failing/ }).click();
  await page.waitForURL(/status=failing/);
  await row('search-slow').waitFor({ state: 'detached' });
  assert.deepEqual(await page.locator('tbody tr .cell-title').allTextContents(), ['payments-failing']);
  await chips.getByRole('button', { name: /^Degraded/ }).click();
  await page.waitForURL(/status=degraded/);
  await row('payments-failing').waitFor({ state: 'detached' });
  assert.deepEqual(await page.locator('tbody tr .cell-title').allTextContents(), ['search-slow']);
  await chips.getByRole('button', { name: /^All/ }).click();
  await failing.waitFor();

  // Its own colour, apart from slow and down, and readable in light and dark.
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    const c = await page.evaluate(`(${CONTRAST})(document.querySelector('tbody tr.mon-failing .badge.status-failing'))`) as
      { ratio: number; colour: string; failing: string; degraded: string; down: string };
    assert.equal(c.colour, c.failing, `${scheme}: the failing colour`);
    assert.notEqual(c.failing, c.degraded, `${scheme}: not the colour of slow`);
    assert.notEqual(c.failing, c.down, `${scheme}: not the colour of down`);
    assert.ok(c.ratio >= 4.5, `${scheme}: "Failing 1 of 3" at a contrast of ${c.ratio.toFixed(2)}`);
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await photograph(p, '/monitors', 'monitors-truth-list', 'Monitors');
  assertClean(p, '/monitors');
});

test('the monitor page, the dashboard and the event log say "Failing 1 of 3" too', async () => {
  const { page } = p;
  await page.goto(`/monitors/${ids['payments-failing']}`);
  const hero = page.getByRole('region', { name: 'Current status' });
  await hero.locator('.badge.status-failing', { hasText: 'Failing 1 of 3' }).waitFor();
  await hero.getByText('1 failed check in a row; down after 2 more').waitFor();
  assert.doesNotMatch(await hero.innerText(), /degraded/i, 'the monitor page never says "Degraded" of a failing monitor');
  await photograph(p, `/monitors/${ids['payments-failing']}`, 'monitors-truth-failing', 'payments-failing');

  await page.goto('/');
  await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
  const tile = page.locator('a.tile-failing');
  await tile.locator('.tile-value', { hasText: '1' }).waitFor();
  assert.equal((await tile.locator('.tile-label').innerText()).trim(), 'Failing');
  assert.equal(await tile.getAttribute('href'), '/monitors?status=failing');
  assert.equal((await page.locator('a.tile-degraded .tile-value').innerText()).trim(), '1', 'slow alone is degraded');
  const attention = page.locator('.card', { has: page.getByRole('heading', { name: 'Needs attention' }) });
  const item = attention.locator('li', { has: page.getByRole('link', { name: 'payments-failing', exact: true }) });
  assert.equal((await item.locator('.badge.status-failing').innerText()).trim(), 'Failing 1 of 3');
  assert.doesNotMatch(await item.innerText(), /degraded/i);
  assert.deepEqual(await attention.locator('li .row-title').allTextContents(), ['gateway-flap', 'payments-failing', 'search-slow'],
    'down, then failing, then slow');
  const recent = page.locator('.events li', { has: page.getByRole('link', { name: 'payments-failing', exact: true }) });
  await recent.getByText(/Unknown\s*→\s*Failing 1 of 3/).first().waitFor();
  await photograph(p, '/', 'monitors-truth-dashboard', 'Dashboard');

  await page.goto('/monitors/events');
  const ev = (name: string) => page.locator('tbody tr', { has: page.getByRole('link', { name, exact: true }) }).filter({ hasText: 'Status change' });
  await ev('payments-failing').first().waitFor();
  assert.match(await ev('payments-failing').locator('.ev-text').innerText(), /^Unknown → Failing 1 of 3 · /);
  assert.equal(await ev('payments-failing').locator('.event-mark').getAttribute('class'), 'event-mark status-failing');
  const flap = await ev('gateway-flap').locator('.ev-text').allInnerTexts();
  assert.deepEqual(flap.map((t) => t.split(' · ')[0]), ['Failing 1 of 2 → Down', 'Unknown → Failing 1 of 2'], 'newest first');
  await photograph(p, '/monitors/events', 'monitors-truth-events', 'Monitors');

  // The facts behind it, in the API and the CSV export.
  const events = (await api('GET', `/api/monitors/events?monitor_id=${ids['gateway-flap']}&kind=status_change`)).items;
  assert.deepEqual(events.map((e: any) => [e.to_status, e.details.failing ?? null, e.details.from_failing ?? null]), [
    ['down', null, { streak: 1, threshold: 2 }], ['degraded', { streak: 1, threshold: 2 }, null]]);
  const csv = await api('GET', `/api/monitors/events/export?monitor_id=${ids['payments-failing']}&kind=status_change`) as string;
  assert.match(csv, /""failing"":\{""streak"":1,""threshold"":3\}/);
  assertClean(p, 'monitor page, dashboard and event log');
});

/** The beat bar's ticks by tone, and its caption and name. */
const BEATS = `(() => {
  const bar = document.querySelector('.beat-card .beats');
  const n = {};
  for (const b of bar.querySelectorAll('.beat:not(.beat-empty)')) { const t = [...b.classList].find((c) => c.startsWith('beat-') && c !== 'beat-manual').slice(5); n[t] = (n[t] ?? 0) + 1; }
  return { n, name: bar.getAttribute('aria-label'), note: document.querySelector('.beat-card + .bar-note').textContent };
})()`;

test('the beat bar says what it draws: 60 ticks, 43 up and 17 down', async () => {
  const { page } = p;
  await page.goto(`/monitors/${ids['checkout-api']}`);
  await page.locator('.beat-card .beat-down').first().waitFor();
  const r = await page.evaluate(BEATS) as { n: Record<string, number>; name: string; note: string };
  assert.deepEqual(r.n, { up: 43, down: 17 }, 'the ticks drawn');
  const m = /^Last (\d+) checks \((.+)\): (.+)$/.exec(r.name);
  assert.ok(m, `the bar's name: ${r.name}`);
  const said: Record<string, number> = {};
  for (const part of m[3]!.split(', ')) { const [k, ...w] = part.split(' '); said[w.join(' ')] = Number(k); }
  assert.equal(Number(m[1]), 60, 'as many checks as ticks');
  assert.deepEqual(said, r.n, `the caption's mix is the ticks': ${r.name}`);
  assert.equal(r.note.split('. ')[0], r.name, 'the caption under the bar says the same');

  // On a phone every tick counted is on screen (none clipped off the bar's left end).
  const phone = await p.context.newPage();
  await phone.setViewportSize(PHONE);
  await phone.goto(`/monitors/${ids['checkout-api']}`);
  await phone.locator('.beat-card .beat-down').first().waitFor();
  const shown = await phone.evaluate(`(() => {
    const bar = document.querySelector('.beat-card .beats').getBoundingClientRect();
    const ticks = [...document.querySelectorAll('.beat-card .beat:not(.beat-empty)')].map((b) => b.getBoundingClientRect());
    return { ticks: ticks.length, inside: ticks.filter((t) => t.width >= 2 && t.left >= bar.left - 0.5 && t.right <= bar.right + 0.5).length };
  })()`) as { ticks: number; inside: number };
  assert.deepEqual(shown, { ticks: 60, inside: 60 }, 'at 375 px');
  await phone.close();
  assertClean(p, 'the beat bar');
});

test('an hour 28 % down is painted down, with its shares on hover and focus (detail and list)', async () => {
  const { page } = p;
  await page.goto(`/monitors/${ids['checkout-api']}`);
  // The hour H by its start as the page writes times.
  const start = await page.evaluate(`new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' }).format(${H})`) as string;
  const card = page.locator('.card', { has: page.getByRole('heading', { name: 'Last 24 hours' }) });
  const hour = card.locator(`.sbar-seg[title^="${start}–"]`);
  await hour.waitFor();
  const cls = await hour.getAttribute('class') ?? '';
  assert.match(cls, /\bsbar-down\b/, `painted down, not green with a notch: ${cls}`);
  assert.doesNotMatch(cls, /sbar-up|sbar-blip/);
  const label = await hour.getAttribute('title');
  assert.match(label ?? '', new RegExp(`^${start}–[^:]+:\\d\\d\\D*: 72 % up \\(43 min\\), 28 % down \\(17 min\\)$`), 'the hour, then its shares');
  // An image named by the same words, in a group named by the whole bar's summary.
  const bar = page.getByRole('group', { name: /^Last 24 hours: down 17 min/ });
  assert.equal(await bar.getByRole('img', { name: label!, exact: true }).count(), 1);
  const readout = card.locator('.sbar-readout');

  // Pointed at: written out under the bar.
  await hour.hover();
  assert.equal(await readout.innerText(), label);
  await page.mouse.move(0, 0);
  // Focused from the keyboard: one tab stop (the current hour), the arrow keys move to the hour before.
  assert.equal(await bar.locator('[tabindex="0"]').count(), 1, 'one tab stop for the bar');
  await bar.locator('[tabindex="0"]').focus();
  await page.keyboard.press('ArrowLeft');
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), label);
  assert.equal(await readout.innerText(), label);
  await photograph(p, `/monitors/${ids['checkout-api']}`, 'monitors-truth-hours', 'checkout-api');

  // The list's compact bar: the same colour and tooltip.
  await page.goto('/monitors');
  const row = page.locator('tbody tr', { has: page.getByRole('link', { name: 'checkout-api', exact: true }) });
  const seg = row.locator(`.sbar-seg[title^="${start}–"]`);
  await seg.waitFor();
  assert.match(await seg.getAttribute('class') ?? '', /\bsbar-down\b/);
  assert.equal(await seg.getAttribute('title'), label);
  assertClean(p, 'the 24-hour bars');
});
