// Maintenance windows in the web UI (issue 34 §2), in a real browser against the real service and a local
// HTTP server on 127.0.0.1, the probe in Europe/Berlin and its clock a ManualClock that builds an hour of
// checks in a moment:
// - the window form refuses a bad window with every message beside its field from one submit (once, weekly,
//   cron), and no box above the form;
// - a one-off window made in the form (its times typed as Berlin wall-clock times, the probe's zone the
//   default) holds core-switch while it is down: the hour it covered three quarters of is painted
//   maintenance and says "25 % up (15 min), 75 % maintenance (45 min)", the beat bars count the checks in
//   the window ("in maintenance"), and its uptime stays 100 %;
// - a weekly window made in the form for a tag puts edge-router in maintenance: "Maintenance until …" in its
//   own blue (readable in light and dark, none of the other statuses' colours) in the list (with its own
//   filter chip), on its page (with "End maintenance") and on the dashboard (its tile);
// - "Maintenance for 1 hour" on a monitor's page is one click, and so is "End maintenance".
// Photographed at 1366 and 375 px, light and dark; no console errors.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import type { Locator } from 'playwright-core';
import { ManualClock } from '../../src/core/clock.js';
import {
  apiCaller, assertClean, assertNoHorizontalOverflow, photograph, PHONE, screenshot, startSignedIn, type UiEnv, type UiPage,
} from './helpers/browser.js';

const MIN = 60_000;
const HOUR = 3_600_000;
const ZONE = 'Europe/Berlin';
// The hour the history fills: the one before the current hour, so the clock ends at the current hour's start.
const H = Math.floor(Date.now() / HOUR) * HOUR - HOUR;

let env: UiEnv;
let p: UiPage;
let site: Server;
let clock: ManualClock;
let api: ReturnType<typeof apiCaller>;
const ids: Record<string, string> = {};
/** Whether core-switch's target answers 500. */
let coreFails = false;

/** The wall clock of Berlin at `t`: {date: "2026-12-07", time: "17:00", day: "mon"}. */
function berlin(t: number): { date: string; time: string; day: string } {
  const parts = Object.fromEntries(new Intl.DateTimeFormat('en-US', { timeZone: ZONE, hourCycle: 'h23', year: 'numeric', month: '2-digit',
    day: '2-digit', hour: '2-digit', minute: '2-digit', weekday: 'short' }).formatToParts(new Date(t)).map((x) => [x.type, x.value]));
  return { date: `${parts.year}-${parts.month}-${parts.day}`, time: `${parts.hour}:${parts.minute}`, day: parts.weekday!.toLowerCase() };
}

async function lastCheck(id: string): Promise<string | null> {
  return (await api('GET', `/api/monitors/${id}`)).last_check;
}

/** Moves the clock on and waits until each of the monitors has been checked at the new time. */
async function advance(ms: number, names: string[]): Promise<void> {
  const before = await Promise.all(names.map((n) => lastCheck(ids[n]!)));
  clock.advance(ms);
  for (const [i, n] of names.entries()) {
    for (let k = 0; ; k++) {
      if ((await lastCheck(ids[n]!)) !== before[i]) break;
      assert.ok(k < 500, `${n} was not checked`);
      await new Promise((r) => setTimeout(r, 5));
    }
  }
}

before(async () => {
  clock = new ManualClock(H);
  ({ env, p } = await startSignedIn(async (e, a) => {
    api = apiCaller(e, a.key);
    await api('POST', '/api/setup/save', { probe_name: 'edge-probe', timezone: ZONE });
    site = createServer((req, res) => {
      if (req.url === '/core' && coreFails) { res.statusCode = 500; res.end('broken'); return; }
      res.end('ok');
    });
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    for (const [name, path, interval, tags] of [['core-switch', '/core', 60, ['core']], ['edge-router', '/edge', 60, ['lab']],
      ['backup-nas', '/nas', 3600, []]] as const) {
      ids[name] = (await api('POST', '/api/monitors', { name, check_type: 'http', target: `${base}${path}`, interval, timeout: 5,
        failure_threshold: 1, tags })).id;
    }
    await advance(0, Object.keys(ids)); // checked at once: the timer is on the clock
  }, { clock }));
});

after(async () => {
  await p?.context.close();
  site?.closeAllConnections();
  await new Promise((r) => site?.close(r));
  await env?.close();
});

/** The message shown beside a field of the dialog, found by the field's label (its error is what describes it). */
async function errorBeside(dialog: Locator, label: string | RegExp): Promise<string> {
  const field = dialog.locator('.field', { has: dialog.page().getByText(label, { exact: true }) }).first();
  return (await field.locator('.field-error').innerText()).trim();
}

async function openForm(page: UiPage['page']): Promise<Locator> {
  await page.getByRole('button', { name: 'New window' }).first().click();
  const dialog = page.getByRole('dialog', { name: 'New maintenance window' });
  await dialog.waitFor();
  return dialog;
}

const kind = (dialog: Locator, label: string) => dialog.locator('label.seg', { hasText: label }).click();

test('the window form shows every refusal beside its field from one submit (once, weekly, cron), at 1366 and 375 px', async () => {
  const { page } = p;
  await page.goto('/monitors/maintenance');
  await page.getByRole('heading', { name: 'Maintenance', level: 1 }).waitFor();
  await page.getByText('No maintenance windows').waitFor();
  assert.match(await page.locator('.page-sub').innerText(), /times in Europe\/Berlin, the probe's time zone/);
  const dialog = await openForm(page);
  assert.equal(await dialog.getByLabel('Time zone', { exact: true }).inputValue(), ZONE, 'the probe\'s zone is the default');
  // Once: no name, closing before it opens, no monitor chosen.
  await dialog.getByLabel('From', { exact: true }).fill('2026-12-24T10:00');
  await dialog.getByLabel('To', { exact: true }).fill('2026-12-24T09:00');
  await dialog.getByRole('button', { name: 'Create window' }).click();
  await dialog.locator('.field-error').nth(2).waitFor();
  assert.equal(await errorBeside(dialog, 'Name'), 'Required');
  assert.equal(await errorBeside(dialog, 'To'), 'Must be after the start');
  assert.equal(await errorBeside(dialog, 'Monitors'), 'Choose at least one monitor');
  assert.equal(await dialog.locator('.field-error').count(), 3, 'each message once');
  assert.equal(await dialog.locator('.alert-error').count(), 0, 'no box above the form: every message is beside its field');
  await screenshot(page, 'maintenance-form-errors');
  await page.emulateMedia({ colorScheme: 'dark' });
  await screenshot(page, 'maintenance-form-errors-dark');
  await page.emulateMedia({ colorScheme: 'light' });

  // Weekly: no day, no times, for tags but none given; all four from one submit.
  await kind(dialog, 'Weekly');
  await dialog.getByText('Monitors with tags').click();
  await dialog.getByLabel('Name', { exact: true }).fill('Nightly backups');
  await dialog.getByRole('button', { name: 'Create window' }).click();
  await dialog.locator('.field-error').nth(3).waitFor();
  assert.equal(await errorBeside(dialog, 'Starts at'), 'Required');
  assert.equal(await errorBeside(dialog, 'Ends at'), 'Required');
  assert.equal(await dialog.locator('fieldset', { has: page.getByText('Days', { exact: true }) }).locator('.field-error').innerText(),
    'Choose at least one day');
  assert.equal(await errorBeside(dialog, 'Tags'), 'Choose at least one tag');
  assert.equal(await dialog.locator('.alert-error').count(), 0);

  // Cron: a fifth week and no duration.
  await kind(dialog, 'Cron');
  await dialog.getByText('All monitors', { exact: true }).click();
  assert.match(await dialog.getByText(/0 6 \* \* 0#1 = first Sunday 06:00/).innerText(), /first Sunday 06:00/, 'the hint');
  await dialog.getByLabel('Cron expression', { exact: true }).fill('0 6 * * 0#9');
  await dialog.getByLabel('Lasts (minutes)', { exact: true }).fill('0');
  await dialog.getByRole('button', { name: 'Create window' }).click();
  await dialog.locator('.field-error').nth(1).waitFor();
  assert.match(await errorBeside(dialog, 'Cron expression'), /0#9/);
  assert.equal(await errorBeside(dialog, 'Lasts (minutes)'), 'At least 1');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  assertClean(p, 'the refused windows', Array(3).fill('POST /api/monitors/maintenance 400'));

  // The same form on a phone, light and dark: its messages beside the fields, nothing wider than the screen.
  const phone = await p.context.newPage();
  await phone.setViewportSize(PHONE);
  await phone.goto('/monitors/maintenance');
  const small = await openForm(phone);
  await small.getByLabel('From', { exact: true }).fill('2026-12-24T10:00');
  await small.getByLabel('To', { exact: true }).fill('2026-12-24T09:00');
  await small.getByRole('button', { name: 'Create window' }).click();
  await small.locator('.field-error').nth(2).waitFor();
  await assertNoHorizontalOverflow(phone, 'the window form at 375 px');
  await screenshot(phone, 'maintenance-form-errors-phone');
  await phone.emulateMedia({ colorScheme: 'dark' });
  await screenshot(phone, 'maintenance-form-errors-phone-dark');
  await phone.close();
  p.failed.length = 0; // the phone's refused submit (its console is not p's)
});

test('a one-off window made in the form holds core-switch through an outage: the hour is maintenance, the uptime 100 %', async () => {
  const { page } = p;
  await page.goto('/monitors/maintenance');
  const dialog = await openForm(page);
  await dialog.getByLabel('Name', { exact: true }).fill('Switch firmware');
  // Typed as the probe's wall-clock times (Berlin), the zone the form starts on.
  const [from, to] = [berlin(H), berlin(H + 45 * MIN)];
  await dialog.getByLabel('From', { exact: true }).fill(`${from.date}T${from.time}`);
  await dialog.getByLabel('To', { exact: true }).fill(`${to.date}T${to.time}`);
  await dialog.getByLabel('Monitors', { exact: true }).selectOption({ label: 'core-switch' });
  await dialog.getByRole('button', { name: 'Create window' }).click();
  await dialog.waitFor({ state: 'detached' });
  const row = page.locator('tbody tr', { hasText: 'Switch firmware' });
  await row.waitFor();
  assert.equal((await row.locator('.badge').first().innerText()).trim(), 'Open');
  const when = await row.locator('td').nth(2).innerText();
  assert.ok(when.includes(`${from.time}–${to.time}`), `the occurrence in the probe's zone (${from.time}–${to.time}): ${when}`);
  const stored = (await api('GET', '/api/monitors/maintenance')).items[0];
  assert.deepEqual([stored.schedule.from, stored.schedule.to, stored.timezone],
    [new Date(H).toISOString(), new Date(H + 45 * MIN).toISOString(), ZONE], 'the times typed, read in Berlin');

  // An hour of checks a minute apart; core-switch is down from minute 10 to 20, inside the window.
  for (let i = 1; i <= 60; i++) {
    coreFails = i >= 10 && i <= 20;
    await advance(MIN, ['core-switch', 'edge-router']);
  }
  const core = await api('GET', `/api/monitors/${ids['core-switch']}`);
  assert.equal(core.maintenance, null, 'the window is over');
  assert.equal(core.stats.uptime_24h, 100, 'down only inside the window');

  // The list: the last 30 checks, 14 of them in the window; the hour painted maintenance.
  await page.goto('/monitors');
  const line = page.locator('tbody tr', { has: page.getByRole('link', { name: 'core-switch', exact: true }) });
  const beats = line.locator('.beats');
  await beats.locator('.beat-maintenance').first().waitFor();
  assert.equal(await beats.getAttribute('aria-label'), 'Last 30 checks: 16 up, 14 in maintenance');
  assert.equal(await beats.locator('.beat-maintenance').count(), 14);
  const start = await page.evaluate(`new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' }).format(${H})`) as string;
  const hour = line.locator(`.sbar-seg[title^="${start}–"]`);
  await hour.waitFor();
  assert.match(await hour.getAttribute('class') ?? '', /\bsbar-maintenance\b/);
  assert.match(await hour.getAttribute('title') ?? '', /: 25 % up \(15 min\), 75 % maintenance \(45 min\)$/);

  // Its page: 60 results, 44 in the window; the hour on hover; the uptime.
  await page.goto(`/monitors/${ids['core-switch']}`);
  const card = page.locator('.beat-card .beats');
  await card.locator('.beat-maintenance').first().waitFor();
  assert.match(await card.getAttribute('aria-label') ?? '', /^Last 60 checks \(.+\): 16 up, 44 in maintenance$/);
  assert.equal(await card.locator('.beat-maintenance').count(), 44);
  const bar = page.locator('.card', { has: page.getByRole('heading', { name: 'Last 24 hours' }) });
  const seg = bar.locator(`.sbar-seg[title^="${start}–"]`);
  await seg.hover();
  assert.match(await bar.locator('.sbar-readout').innerText(), /: 25 % up \(15 min\), 75 % maintenance \(45 min\)$/);
  assert.match(await bar.locator('.bar-note').innerText(), /maintenance 45 min\. Uptime 100\.00 % of the time outside maintenance/);
  assert.ok(await page.locator('.table .badge.status-maintenance', { hasText: 'Maintenance' }).count() > 0, 'results checked in the window are marked');
  await photograph(p, `/monitors/${ids['core-switch']}`, 'maintenance-hours', 'core-switch');
  assertClean(p, 'a one-off window');
});

// The contrast of an element's text with what shows behind it, and the theme's status colours (source text:
// tsx helpers do not exist inside the browser).
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
  return { ratio: (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05), colour: getComputedStyle(el).color, maintenance: theme('--maintenance'),
    others: ['--up', '--down', '--degraded', '--failing', '--paused', '--unknown'].map(theme) };
})`;

test('a weekly window made in the form for a tag: edge-router reads "Maintenance until …" in its own blue, in the list, its page and the dashboard', async () => {
  const { page } = p;
  const now = berlin(clock.now());
  const endHour = `${String((Number(now.time.slice(0, 2)) + 2) % 24).padStart(2, '0')}:00`;
  await page.goto('/monitors/maintenance');
  const dialog = await openForm(page);
  await dialog.getByLabel('Name', { exact: true }).fill('Lab rack move');
  await dialog.getByLabel('Description', { exact: true }).fill('Moving the lab rack to row 4.');
  await kind(dialog, 'Weekly');
  await dialog.getByRole('checkbox', { name: now.day.replace(/^./, (c) => c.toUpperCase()), exact: true }).check();
  await dialog.getByLabel('Starts at', { exact: true }).fill(`${now.time.slice(0, 2)}:00`);
  await dialog.getByLabel('Ends at', { exact: true }).fill(endHour);
  await dialog.getByText('Monitors with tags').click();
  await dialog.getByLabel('Tags', { exact: true }).fill('lab');
  await dialog.getByLabel('Tags', { exact: true }).press('Enter');
  await dialog.getByRole('button', { name: 'Create window' }).click();
  await dialog.waitFor({ state: 'detached' });
  const row = page.locator('tbody tr', { hasText: 'Lab rack move' });
  await row.waitFor();
  assert.equal((await row.locator('.badge').first().innerText()).trim(), 'Open');
  assert.match(await row.innerText(), new RegExp(`Weekly: [A-Z][a-z]{2}, ${now.time.slice(0, 2)}:00–${endHour}`));
  assert.match(await row.innerText(), /Tags: lab/);
  await advance(MIN, ['core-switch', 'edge-router']); // a check of edge-router inside the window
  const edge = await api('GET', `/api/monitors/${ids['edge-router']}`);
  assert.equal(edge.maintenance?.name, 'Lab rack move');
  // The browser's clock time of the window's end, with the date when it is not today in the browser (the window
  // may end after midnight: at 22:00 it ends at 00:00 tomorrow).
  const until = await page.evaluate(`(() => { const t = new Date('${edge.maintenance.until}');
    const today = t.toDateString() === new Date().toDateString();
    return new Intl.DateTimeFormat(undefined, today ? { hour: '2-digit', minute: '2-digit' }
      : { day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' }).format(t); })()`);

  // The list: the badge, "until …" and the window's name; its own filter chip; its colour in light and dark.
  await page.goto('/monitors');
  const line = page.locator('tbody tr', { has: page.getByRole('link', { name: 'edge-router', exact: true }) });
  await line.locator('.badge.status-maintenance').waitFor();
  assert.equal((await line.locator('.badge.status-maintenance').innerText()).trim(), 'Maintenance');
  assert.equal((await line.locator('.mon-until').innerText()).trim(), `until ${until}`);
  assert.equal((await line.locator('.mon-window').innerText()).trim(), 'Lab rack move');
  assert.match(await line.locator('.badge.status-maintenance').getAttribute('title') ?? '', /^Lab rack move holds its alerts until .+; checks still run: Up$/);
  assert.match(await line.getAttribute('class') ?? '', /\bmon-maintenance\b/);
  assert.equal(await line.locator('.beats .beat').last().getAttribute('class'), 'beat beat-maintenance', 'its newest check, in the window');
  const chips = page.getByRole('group', { name: 'Status' });
  assert.match(await chips.getByRole('button', { name: /^Maintenance/ }).innerText(), /Maintenance\s*1/);
  await chips.getByRole('button', { name: /^Maintenance/ }).click();
  await page.waitForURL(/status=maintenance/);
  await page.locator('tbody tr', { hasText: 'core-switch' }).waitFor({ state: 'detached' });
  assert.deepEqual(await page.locator('tbody tr .cell-title').allTextContents(), ['edge-router']);
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    const c = await page.evaluate(`(${CONTRAST})(document.querySelector('tbody tr.mon-maintenance .badge.status-maintenance'))`) as
      { ratio: number; colour: string; maintenance: string; others: string[] };
    assert.equal(c.colour, c.maintenance, `${scheme}: the maintenance colour`);
    assert.ok(!c.others.includes(c.maintenance), `${scheme}: none of the other statuses' colours (${c.maintenance} among ${c.others.join(' ')})`);
    assert.ok(c.ratio >= 4.5, `${scheme}: "Maintenance" at a contrast of ${c.ratio.toFixed(2)}`);
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await chips.getByRole('button', { name: /^All/ }).click();
  await photograph(p, '/monitors', 'maintenance-list', 'Monitors');

  // Its page: the status, the window, what the checks say, and the end one click away.
  await page.goto(`/monitors/${ids['edge-router']}`);
  const hero = page.getByRole('region', { name: 'Current status' });
  await hero.locator('.badge.status-maintenance', { hasText: 'Maintenance' }).waitFor();
  assert.equal((await hero.locator('.mon-until').innerText()).trim(), `until ${until}`);
  await hero.getByText('Lab rack move holds its alerts').waitFor();
  assert.match(await hero.locator('.hero-msg').innerText(), /^Checks still run: Up · /);
  await hero.getByRole('button', { name: 'End maintenance' }).waitFor();
  await photograph(p, `/monitors/${ids['edge-router']}`, 'maintenance-monitor', 'edge-router');

  // The dashboard: a tile of its own; not a problem.
  await page.goto('/');
  const tile = page.locator('a.tile-maintenance');
  await tile.locator('.tile-value', { hasText: '1' }).waitFor();
  assert.equal((await tile.locator('.tile-label').innerText()).trim(), 'Maintenance');
  assert.equal(await tile.getAttribute('href'), '/monitors?status=maintenance');
  assert.match(await page.locator('.health').innerText(), /All monitors outside maintenance are up · 2 up of 3, 1 in maintenance/);
  // Eight tiles: each label whole inside its tile, from a laptop's width to the narrowest eight abreast.
  for (const width of [1366, 1201, 1100]) {
    await page.setViewportSize({ width, height: 900 });
    const cut = await page.evaluate(`[...document.querySelectorAll('.tile')].filter((t) => {
      const l = t.querySelector('.tile-label'), a = t.getBoundingClientRect(), b = l.getBoundingClientRect();
      return l.scrollWidth > l.clientWidth + 0.5 || b.right > a.right - 8 || a.right > document.documentElement.clientWidth;
    }).map((t) => t.textContent)`) as string[];
    assert.deepEqual(cut, [], `tiles cut at ${width} px`);
  }
  await page.setViewportSize({ width: 1366, height: 900 });
  await photograph(p, '/', 'maintenance-dashboard', 'Dashboard');
  await page.goto('/monitors/maintenance');
  await page.locator('tbody tr', { hasText: 'Lab rack move' }).getByRole('button', { name: 'End Lab rack move now' }).waitFor();
  await photograph(p, '/monitors/maintenance', 'maintenance-windows', 'Maintenance');
  assertClean(p, 'a weekly window');
});

test('"Maintenance for 1 hour" from a monitor\'s page is one click, and so is its end', async () => {
  const { page } = p;
  // The probe's clock to the browser's (a quick window starts by the browser's clock).
  clock.advance(Math.max(0, Date.now() - clock.now()) + 1000);
  await page.goto(`/monitors/${ids['backup-nas']}`);
  const hero = page.getByRole('region', { name: 'Current status' });
  await hero.locator('.badge.status-up').waitFor();
  const group = hero.getByRole('group', { name: 'Start maintenance' });
  assert.deepEqual(await group.getByRole('button').evaluateAll((bs) => bs.map((b) => b.getAttribute('aria-label'))),
    ['Maintenance for 30 min', 'Maintenance for 1 hour', 'Maintenance for 2 hours', 'Maintenance for 4 hours']);
  await group.getByRole('button', { name: 'Maintenance for 1 hour' }).click();
  await hero.locator('.badge.status-maintenance', { hasText: 'Maintenance' }).waitFor();
  await hero.getByText('backup-nas maintenance holds its alerts').waitFor();
  const windows = (await api('GET', '/api/monitors/maintenance')).items as any[];
  const quick = windows.find((w) => w.name === 'backup-nas maintenance');
  assert.equal(quick.state, 'open');
  assert.deepEqual([quick.applies_to, quick.monitor_ids, quick.schedule.kind], ['monitors', [ids['backup-nas']], 'once']);
  const minutes = (Date.parse(quick.schedule.to) - Date.now()) / MIN;
  assert.ok(minutes > 58 && minutes <= 61, `closes in an hour: ${minutes.toFixed(1)} min`);
  assert.equal((await api('GET', `/api/monitors/${ids['backup-nas']}`)).maintenance?.id, quick.id);

  await hero.getByRole('button', { name: 'End maintenance' }).click();
  await hero.locator('.badge.status-up').waitFor();
  await group.getByRole('button', { name: 'Maintenance for 1 hour' }).waitFor();
  assert.equal((await api('GET', `/api/monitors/maintenance/${quick.id}`)).state, 'over');
  assert.equal((await api('GET', `/api/monitors/${ids['backup-nas']}`)).maintenance, null);
  await page.goto('/monitors/maintenance');
  const row = page.locator('tbody tr', { hasText: 'backup-nas maintenance' });
  assert.equal((await row.locator('.badge').first().innerText()).trim(), 'Over');

  // "End now" on the list ends an open window in one click too.
  const lab = page.locator('tbody tr', { hasText: 'Lab rack move' });
  await lab.getByRole('button', { name: 'End Lab rack move now' }).click();
  await lab.locator('.badge', { hasText: 'Scheduled' }).waitFor();
  assert.equal((await api('GET', `/api/monitors/${ids['edge-router']}`)).maintenance, null);
  assertClean(p, 'maintenance from a monitor\'s page');
});
