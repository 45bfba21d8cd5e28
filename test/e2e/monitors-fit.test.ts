// The monitor pages fit the screen they are read on, in a real browser against the real service and a
// local HTTP server on 127.0.0.1: the list's row actions (check now, pause, edit, delete) are on screen
// at 1366 and 1920 px without sideways scrolling; at 375 px each filter select shows what it filters.
// Photographed at 1366 and 375 px, light and dark.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { apiCaller, assertClean, photograph, PHONE, startSignedIn, type UiEnv, type UiPage } from './helpers/browser.js';

let env: UiEnv;
let p: UiPage;
let site: Server;
let api: ReturnType<typeof apiCaller>;
const ids: Record<string, string> = {};

async function checked(id: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if ((await api('GET', `/api/monitors/${id}`)).last_check) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`monitor ${id} was never checked`);
}

before(async () => {
  ({ env, p } = await startSignedIn(async (e, a) => {
    api = apiCaller(e, a.key);
    site = createServer((req, res) => {
      if (req.url === '/fail') { res.statusCode = 500; res.end('the upstream gateway answered with an internal server error'); return; }
      res.end('ok');
    });
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    const make = async (name: string, path: string, extra: Record<string, unknown> = {}) => {
      ids[name] = (await api('POST', '/api/monitors', { name, check_type: 'http', target: `${base}${path}`, interval: 3600, timeout: 5,
        tags: ['production', 'web'], ...extra })).id;
    };
    await make('customer-portal-frontend', '/ok/a/rather/long/path/to/check?with=query', { degraded_ms: 500 });
    await make('billing-api-gateway', '/fail', { failure_threshold: 3 });
    await make('status-page', '/fail', { failure_threshold: 1 });
    for (const id of Object.values(ids)) await checked(id);
  }));
});

after(async () => {
  await p?.context.close();
  site?.closeAllConnections();
  await new Promise((r) => site?.close(r));
  await env?.close();
});

// Kept as source text (tsx helpers do not exist inside the browser). Where each row action sits and
// whether the table scrolls sideways inside its wrapper.
const ACTIONS_PROBE = `(() => {
  const vw = document.documentElement.clientWidth;
  const wrap = document.querySelector('.mon-card .table-wrap');
  const buttons = [...document.querySelectorAll('tbody tr .actions-col :is(button, a)')].map((el) => {
    const b = el.getBoundingClientRect();
    return { name: el.getAttribute('aria-label') || el.textContent.trim(), right: Math.round(b.right), width: Math.round(b.width) };
  });
  return { vw, wrapScroll: wrap.scrollWidth, wrapClient: wrap.clientWidth, buttons };
})()`;

for (const width of [1366, 1920]) {
  test(`at ${width} px every row action is on screen, and the list does not scroll sideways`, async () => {
    const { page } = p;
    await page.setViewportSize({ width, height: 900 });
    await page.goto('/monitors');
    await page.locator('tbody tr').nth(2).waitFor();
    await page.waitForLoadState('networkidle');
    const r = await page.evaluate(ACTIONS_PROBE) as { vw: number; wrapScroll: number; wrapClient: number;
      buttons: { name: string; right: number; width: number }[] };
    assert.ok(r.wrapScroll <= r.wrapClient, `the table needs ${r.wrapScroll} px inside ${r.wrapClient} px`);
    assert.ok(r.buttons.length >= 12, `four actions a row: ${JSON.stringify(r.buttons)}`);
    for (const b of r.buttons) assert.ok(b.width > 0 && b.right <= r.vw, `${b.name} at right=${b.right} in a ${r.vw} px window`);
    for (const name of ['Check billing-api-gateway now', 'Pause billing-api-gateway', 'Edit billing-api-gateway', 'Delete billing-api-gateway']) {
      assert.ok(await page.getByRole(name.startsWith('Edit') ? 'link' : 'button', { name, exact: true }).isVisible(), name);
    }
    assertClean(p, `/monitors at ${width}`);
  });
}

// The text each filter select shows, and whether it fits the select's box (a clipped "Sor" does not).
const SELECTS_PROBE = `(() => {
  const ctx = document.createElement('canvas').getContext('2d');
  return [...document.querySelectorAll('.mon-selects select')].map((el) => {
    const cs = getComputedStyle(el);
    ctx.font = cs.font;
    const text = el.selectedOptions[0]?.textContent.trim() ?? '';
    const room = el.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
    return { label: el.getAttribute('aria-label'), text, need: Math.ceil(ctx.measureText(text).width), room: Math.floor(room) };
  });
})()`;

test('at 375 px each filter select says what it filters and shows all of it', async () => {
  const phone = await p.context.newPage();
  await phone.setViewportSize(PHONE);
  await phone.goto('/monitors');
  await phone.locator('tbody tr').nth(2).waitFor();
  const selects = await phone.evaluate(SELECTS_PROBE) as { label: string; text: string; need: number; room: number }[];
  assert.deepEqual(selects.map((s) => s.text), ['All tags', 'All types', 'Sort: Problems first'].slice(0, selects.length),
    'the shown option names what it filters');
  for (const s of selects) assert.ok(s.need <= s.room, `${s.label}: "${s.text}" needs ${s.need} px, the select shows ${s.room} px`);
  await phone.close();
});

test('photographs of the list at 1366 and 375 px, light and dark', async () => {
  await p.page.setViewportSize({ width: 1366, height: 900 });
  await p.page.goto('/monitors');
  await p.page.locator('tbody tr').nth(2).waitFor();
  await photograph(p, '/monitors', 'monitors-fit-list', 'Monitors');
  assertClean(p, '/monitors');
});

test('an open incident on the dashboard says how long once, with the start in its title', async () => {
  const { page } = p;
  await page.setViewportSize({ width: 1366, height: 900 });
  await page.goto('/');
  const row = page.locator('.card', { has: page.getByRole('heading', { name: 'Open incidents' }) })
    .locator('li', { has: page.getByRole('link', { name: 'status-page', exact: true }) });
  await row.waitFor();
  const side = row.locator('.row-side');
  const text = (await side.innerText()).trim();
  assert.match(text, /^Down for \d+ (s|min)$/, `one duration, not "2 min · since 3 minutes ago": ${JSON.stringify(text)}`);
  assert.match(await side.getAttribute('title') ?? '', /^Down since \S/);
  await photograph(p, '/', 'monitors-fit-dashboard-incident', 'Dashboard');
  assertClean(p, '/');
});

test('the response chart draws "Degraded above" as a labelled dashed line, in light and dark', async () => {
  const { page } = p;
  await page.setViewportSize({ width: 1366, height: 900 });
  await page.goto(`/monitors/${ids['customer-portal-frontend']}`);
  const line = page.locator('.chart .chart-threshold');
  await line.waitFor();
  assert.equal((await line.innerText()).trim(), 'Degraded above 500 ms');
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await line.waitFor();
    const r = await page.evaluate(`((el) => {
      const over = el.parentElement.getBoundingClientRect(), b = el.getBoundingClientRect(), cs = getComputedStyle(el);
      const theme = getComputedStyle(document.documentElement).getPropertyValue('--degraded').trim();
      const probe = document.createElement('i'); probe.style.color = theme; document.body.append(probe);
      const degraded = getComputedStyle(probe).color; probe.remove();
      return { style: cs.borderTopStyle, colour: cs.borderTopColor, degraded, top: b.top - over.top, height: over.height, width: b.width, overWidth: over.width };
    })(document.querySelector('.chart .chart-threshold'))`) as { style: string; colour: string; degraded: string; top: number; height: number; width: number; overWidth: number };
    assert.equal(r.style, 'dashed', scheme);
    assert.equal(r.colour, r.degraded, `${scheme}: drawn in the theme's degraded colour`);
    assert.ok(r.top > 0 && r.top < r.height, `${scheme}: inside the plot (top ${r.top} of ${r.height})`);
    assert.ok(Math.abs(r.width - r.overWidth) < 1, `${scheme}: across the whole plot`);
  }
  await page.emulateMedia({ colorScheme: 'light' });
  assert.match(await page.locator('.chart[role=img]').getAttribute('aria-label') ?? '', /degraded above 500 ms$/);
  await photograph(p, `/monitors/${ids['customer-portal-frontend']}`, 'monitors-fit-threshold', 'customer-portal-frontend');
  assertClean(p, 'monitor detail');
});

// Every word a person can read on the page, with titles and accessible names (where a beat's label sits).
const READABLE = `[document.body.innerText, ...[...document.querySelectorAll('[title], [aria-label]')]
  .map((el) => (el.getAttribute('title') ?? '') + ' ' + (el.getAttribute('aria-label') ?? ''))].join('\\n')`;

test('the form and the monitor page speak of "failures before down", not failure_threshold', async () => {
  const { page } = p;
  await page.setViewportSize({ width: 1366, height: 900 });
  await page.goto(`/monitors/${ids['billing-api-gateway']}/edit`);
  const field = page.getByLabel('Failures before down', { exact: true });
  await field.waitFor();
  assert.equal(await field.inputValue(), '3');
  const hintText = await page.evaluate(`[...document.querySelectorAll('input[name=failure_threshold]')].map((el) =>
    (el.getAttribute('aria-describedby') ?? '').split(' ').map((id) => document.getElementById(id)?.textContent ?? '').join(' ')).join(' ')`) as string;
  assert.match(hintText, /Failed checks in a row before the monitor is down/);
  assert.doesNotMatch(await page.evaluate(READABLE) as string, /threshold/i, 'the form');
  await photograph(p, `/monitors/${ids['billing-api-gateway']}/edit`, 'monitors-fit-form', 'Edit billing-api-gateway');

  await page.goto(`/monitors/${ids['billing-api-gateway']}`);
  const config = page.locator('.card', { has: page.getByRole('heading', { name: 'Configuration' }) });
  await config.getByText('Failures before down', { exact: true }).waitFor();
  await page.locator('.beat-card').waitFor();
  assert.doesNotMatch(await page.evaluate(READABLE) as string, /threshold/i, 'the monitor page, with a failing beat');
  assertClean(p, 'form and detail');
});
