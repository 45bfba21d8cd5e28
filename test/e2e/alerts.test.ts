// The Alerts page (issue 33 §5): alerts can be followed without the admin-only debug endpoints. Real
// monitors against a web server on 127.0.0.1 raise real alerts to two receivers on loopback (one answers,
// one refuses with 503): the page shows each alert with what became of it — sent, held back by a down
// parent and why, sent after the hold — and per webhook whether it was told and how the delivery went
// (delivered, failed with its next attempt) or, in plain words, why not; the deliveries waiting and every
// attempt with status, time and error; filters by type, outcome and webhook. The webhook URL's token is
// in no page and no response the browser got. Photographed at 1366 and 375 px, light and dark.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { Receiver } from '../helpers/webhook-receiver.js';
import {
  assertClean, photograph, startSignedIn, type UiEnv, type UiPage,
} from './helpers/browser.js';

/** A token in the failing webhook's URL path: shown as ***, never itself. */
const TOKEN = 'Zk8pQ2mW7xR4tY9uB3nV';

let env: UiEnv;
let p: UiPage;
let ok: Receiver;
let bad: Receiver;
let web: Server;
const status = new Map<string, number>();
/** Every API answer the browser received, to look for the token in. */
const bodies: string[] = [];

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

before(async () => {
  ({ env, p } = await startSignedIn(async (e, admin) => {
    ok = await Receiver.start();
    bad = await Receiver.start();
    bad.fallback = { status: 503, body: `no hook at /hooks/${TOKEN}` };
    web = createServer((req, res) => { res.statusCode = status.get(req.url ?? '') ?? 200; res.end('web'); });
    await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
    const webUrl = `http://127.0.0.1:${(web.address() as AddressInfo).port}`;
    // Retries ten minutes apart: the failed delivery still waits while the page is looked at.
    await e.t.service.app.config.update({ webhooks: { retry_base_seconds: 600 } });
    const api = async (method: string, path: string, body?: unknown) => {
      const r = await e.t.request(method, path, { key: admin.key, body });
      assert.ok(r.status < 300, `${method} ${path}: ${r.status} ${r.text}`);
      return r.body;
    };
    const until = async (what: string, check: () => Promise<boolean>) => {
      for (let i = 0; i < 300; i++) { if (await check()) return; await sleep(100); }
      throw new Error(`timed out waiting for ${what}`);
    };
    const isDown = (id: string) => async () => (await api('GET', `/api/monitors/${id}`)).status === 'down';
    const logged = (n: number) => async () => (await api('GET', '/api/webhooks/alerts')).total >= n;

    await api('POST', '/api/webhooks', { name: 'Ops channel', url: `${ok.url}/ops`, type: 'generic',
      alert_types: ['monitor_down', 'monitor_up'] });
    await api('POST', '/api/webhooks', { name: 'Pager', url: `${bad.url}/hooks/${TOKEN}`, type: 'generic',
      alert_types: ['monitor_down', 'monitor_up'] });
    // The core switch goes down: told to both (the pager refuses it).
    status.set('/switch', 503);
    const monitor = { check_type: 'http', interval: 5, timeout: 2, failure_threshold: 1 };
    const sw = await api('POST', '/api/monitors', { ...monitor, name: 'Core switch', target: `${webUrl}/switch` });
    await until('the switch down', isDown(sw.id));
    await until('its alert', logged(1));
    // A web server behind it fails too: held back, the switch explains it.
    status.set('/web', 503);
    const ws = await api('POST', '/api/monitors', { ...monitor, name: 'Web server', target: `${webUrl}/web`, parents: [sw.id] });
    await until('the web server down', isDown(ws.id));
    await until('its held alert', logged(2));
    // A webhook added now never heard of the switch's down; then the switch comes back, the web server does not.
    await api('POST', '/api/webhooks', { name: 'Night shift', url: `${ok.url}/night`, type: 'generic',
      alert_types: ['monitor_down', 'monitor_up'] });
    status.set('/switch', 200);
    await until('the recovery and the released down', logged(4));
    await api('DELETE', `/api/monitors/${ws.id}`);
    await api('DELETE', `/api/monitors/${sw.id}`);
  }));
  p.page.on('response', async (r) => {
    if (!new URL(r.url()).pathname.startsWith('/api/')) return;
    bodies.push(await r.text().catch(() => ''));
  });
});

after(async () => {
  await p?.context.close();
  await env?.close();
  await ok?.close();
  await bad?.close();
  web?.closeAllConnections();
  await new Promise((resolve) => web?.close(resolve));
});

test('each alert with what became of it, and per webhook whether it was told and how, or why not', async () => {
  const { page } = p;
  await page.goto('/');
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Alerts' }).click();
  await page.getByRole('heading', { name: 'Alerts', level: 1 }).waitFor();
  await page.getByText(/\d+ deliver(y|ies) waiting to be sent/).waitFor();

  // An alert by its title and the badge saying what became of it.
  const item = (title: string, outcome: string) => page.locator('.al-item', { has: page.getByRole('link', { name: title, exact: true }) })
    .filter({ has: page.locator('.al-head .badge', { hasText: new RegExp(`^${outcome}$`) }) });
  const down = item('DOWN: Core switch', 'Sent');
  await down.waitFor();
  const told = (scope: typeof down, webhook: string) => scope.locator('.told', { hasText: webhook });
  assert.match(await told(down, 'Ops channel').innerText(), /Delivered\s*HTTP 200/);
  assert.match(await told(down, 'Pager').innerText(), /Waiting\s*Attempt 1 failed \(HTTP 503 Service Unavailable\); next attempt in (9|10) minutes/);

  const held = item('DOWN: Web server', 'Held back');
  assert.match(await held.innerText(), /Held back: Core switch is (down|failing)\. Nobody was told\./);
  // Each webhook it would have gone to, not told, and why.
  for (const webhook of ['Ops channel', 'Pager']) {
    assert.match(await told(held, webhook).innerText(), /Not told: held back: Core switch is (down|failing)/);
  }

  const up = item('UP: Core switch', 'Sent');
  assert.match(await told(up, 'Ops channel').innerText(), /Delivered/);
  assert.match(await told(up, 'Pager').innerText(), /Waiting\s*Not tried yet/);
  assert.match(await told(up, 'Night shift').innerText(), /Not told: it never heard of the problem this recovery ends/);

  const released = item('DOWN: Web server', 'Sent after a hold');
  assert.match(await released.innerText(), /Its alert was held back from .* \(Core switch is (down|failing)\); it is still down now that nothing holds it\./);
  assert.match(await told(released, 'Night shift').innerText(), /Delivered/);

  await photograph(p, '/alerts', 'alerts', 'Alerts');
  assert.equal((await page.content()).includes(TOKEN), false, 'the token is not on the page');
  assertClean(p, 'the alerts page');
});

test('filters by outcome and type, kept in the address', async () => {
  const { page } = p;
  const titles = page.locator('.al-item .al-title');
  // A new filter loads its list afresh: wait for what it should show, then look at all of it.
  const shows = async (title: string) => { await page.locator('.al-item .al-title', { hasText: title }).first().waitFor(); return titles.allInnerTexts(); };
  await page.goto('/alerts');
  await page.locator('.al-item').first().waitFor();
  await page.getByLabel('Outcome').selectOption('held');
  await page.waitForURL(/outcome=held/);
  await page.locator('.al-item .badge', { hasText: /^Held back$/ }).waitFor();
  assert.deepEqual(await titles.allInnerTexts(), ['DOWN: Web server']);

  await page.getByLabel('Outcome').selectOption('');
  await shows('UP: Core switch');
  await page.getByLabel('Alert type').selectOption('monitor_up');
  await page.waitForURL(/type=monitor_up/);
  await page.locator('.al-filters').getByRole('button', { name: 'Reset' }).waitFor();
  await page.getByRole('link', { name: 'DOWN: Core switch' }).waitFor({ state: 'detached' });
  assert.deepEqual(await shows('UP: Core switch'), ['UP: Core switch']);
  await page.getByLabel('Outcome').selectOption('held');
  await page.getByText('No alert matches these filters').waitFor();
  await page.getByRole('button', { name: 'Reset' }).click();
  assert.equal((await shows('DOWN: Core switch')).length, 4);
  assertClean(p, 'the alerts page, filtered');
});

test('deliveries: what waits and when it is tried next, every attempt with its status, time and error', async () => {
  const { page } = p;
  await page.goto('/alerts');
  await page.getByRole('navigation', { name: 'Alerts and deliveries' }).getByRole('link', { name: 'Deliveries' }).click();
  await page.waitForURL(/\/alerts\/deliveries$/);
  const waiting = page.getByRole('table', { name: 'Deliveries waiting to be sent' });
  const first = waiting.getByRole('row', { name: /DOWN: Core switch/ });
  assert.match(await first.innerText(), /Pager[\s\S]*1 failed attempt[\s\S]*HTTP 503[\s\S]*in (9|10) minutes/);
  assert.match(await waiting.getByRole('row', { name: /UP: Core switch/ }).innerText(), /Not tried yet[\s\S]*after 1 earlier delivery/);

  const attempts = page.getByRole('table', { name: 'Delivery attempts' });
  const refused = attempts.getByRole('row', { name: /Pager/ }).first();
  assert.match(await refused.innerText(), /Failed, will retry[\s\S]*503[\s\S]*HTTP 503 Service Unavailable[\s\S]*no hook at \/hooks\/\*\*\*/);
  assert.match(await attempts.getByRole('row', { name: /Ops channel/ }).first().innerText(), /Delivered[\s\S]*200/);

  await page.getByLabel('Webhook').selectOption({ label: 'Pager' });
  await page.waitForURL(/webhook_id=/);
  await attempts.getByRole('row', { name: /Ops channel/ }).first().waitFor({ state: 'detached' });
  await attempts.getByRole('row', { name: /Pager/ }).first().waitFor();
  for (const text of await attempts.locator('tbody tr').allInnerTexts()) assert.match(text, /Pager/);
  await page.getByLabel('Outcome').selectOption('delivered');
  await page.getByText('No attempt matches these filters').waitFor();
  await page.getByRole('button', { name: 'Reset' }).click();
  await attempts.getByRole('row', { name: /Ops channel/ }).first().waitFor();

  await photograph(p, '/alerts/deliveries', 'alerts-deliveries', 'Alerts');
  assert.equal((await page.content()).includes(TOKEN), false, 'the token is not on the page');
  assertClean(p, 'the deliveries page');
});

test('the token of a webhook URL is in no answer the browser got', async () => {
  await p.page.goto('/webhooks');
  await p.page.getByRole('row', { name: /Pager/ }).waitFor();
  assert.match(await p.page.getByRole('row', { name: /Pager/ }).innerText(), /\/hooks\/\*\*\*/);
  await p.page.waitForLoadState('networkidle');
  assert.ok(bodies.length > 10, `${bodies.length} API answers seen`);
  assert.ok(bodies.some((b) => b.includes('/hooks/***')), 'answers show the redacted form');
  assert.equal(bodies.filter((b) => b.includes(TOKEN)).length, 0, 'no answer holds the token');
  assertClean(p, 'the webhooks page');
});
