// Alerts routed to the people who care (issue 34 §3), in Chromium: the webhook form's "Send monitor alerts
// for" (all, monitors with tags, chosen monitors), "Remind every (minutes) while down" and the two groups
// of alert types, every field error beside its field; a monitor's page says who was told of its alerts and
// why the others were not; the event log shows the webhooks of each status change's alert. Real monitors
// against a web server on 127.0.0.1 raise real alerts to a receiver on loopback. Photographed at 1366 and
// 375 px, light and dark.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { Receiver } from '../helpers/webhook-receiver.js';
import { assertClean, photograph, startSignedIn, type UiEnv, type UiPage } from './helpers/browser.js';

let env: UiEnv;
let p: UiPage;
let rx: Receiver;
let web: Server;
let printer: { id: string };
let sw: { id: string };

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

before(async () => {
  ({ env, p } = await startSignedIn(async (e, admin) => {
    rx = await Receiver.start();
    web = createServer((req, res) => { res.statusCode = req.url === '/ok' ? 200 : 503; res.end('web'); });
    await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
    const webUrl = `http://127.0.0.1:${(web.address() as AddressInfo).port}`;
    const api = async (method: string, path: string, body?: unknown) => {
      const r = await e.t.request(method, path, { key: admin.key, body });
      assert.ok(r.status < 300, `${method} ${path}: ${r.status} ${r.text}`);
      return r.body;
    };
    await api('POST', '/api/webhooks', { name: 'Core team', url: `${rx.url}/core`, type: 'generic', monitors: { mode: 'tags', tags: ['core'] } });
    await api('POST', '/api/webhooks', { name: 'Everyone', url: `${rx.url}/all`, type: 'generic', reminder_minutes: 30 });
    const monitor = { check_type: 'http', interval: 5, timeout: 2, failure_threshold: 1 };
    sw = await api('POST', '/api/monitors', { ...monitor, name: 'Core switch', target: `${webUrl}/switch`, tags: ['core'] });
    printer = await api('POST', '/api/monitors', { ...monitor, name: 'Printer', target: `${webUrl}/printer`, tags: ['office'] });
    await api('POST', '/api/monitors', { ...monitor, name: 'Web', target: `${webUrl}/ok`, tags: ['edge'] });
    for (let i = 0; i < 300 && (await api('GET', '/api/webhooks/alerts')).total < 2; i++) await sleep(100);
    assert.equal((await api('GET', '/api/webhooks/alerts')).total, 2, 'the two downs');
  }));
});

after(async () => {
  await p?.context.close();
  await env?.close();
  await rx?.close();
  web?.closeAllConnections();
  await new Promise((resolve) => web?.close(resolve));
});

test('the webhook form: send for monitors with tags or chosen monitors, reminders, the alert types in two groups', async () => {
  const { page } = p;
  await page.goto('/webhooks');
  const row = (name: string) => page.getByRole('row', { name: new RegExp(name) });
  assert.match(await row('Core team').innerText(), /Monitors tagged core/);
  assert.match(await row('Everyone').innerText(), /All monitors · reminds every 30 min/);

  await page.getByRole('button', { name: 'New webhook' }).click();
  const dialog = page.getByRole('dialog', { name: 'New webhook' });
  await dialog.getByLabel('Name').fill('Office');
  await dialog.getByLabel('URL').fill(`${rx.url}/office`);
  await dialog.getByRole('group', { name: 'Monitor alerts', exact: true }).waitFor();
  await dialog.getByRole('group', { name: 'Discovery and system alerts' }).getByLabel(/System health/).check();
  await dialog.getByText('Monitors with tags').click();
  const tags = dialog.getByRole('combobox', { name: 'Tags' });
  await tags.fill('office');
  await tags.press('Enter');
  await dialog.getByLabel('Remind every (minutes) while down').fill('2');
  await dialog.getByRole('button', { name: 'Create webhook' }).click();
  // The server's rule, beside its field.
  await dialog.getByText(/greater than or equal to 5|at least 5|>=\s*5/i).waitFor();
  await dialog.getByLabel('Remind every (minutes) while down').fill('15');
  await dialog.getByRole('button', { name: 'Create webhook' }).click();
  await dialog.waitFor({ state: 'detached' });
  // The list reloads after the dialog closes: wait for the saved line rather than read the old one.
  await row('Office').filter({ hasText: 'Monitors tagged office · reminds every 15 min' }).waitFor();
  assert.match(await row('Office').innerText(), /System health[\s\S]*Monitors tagged office · reminds every 15 min/);

  await page.getByRole('button', { name: 'Edit Office' }).click();
  const edit = page.getByRole('dialog', { name: 'Edit Office' });
  assert.equal(await edit.getByLabel('Remind every (minutes) while down').inputValue(), '15');
  await edit.getByText('Chosen monitors').click();
  await edit.getByRole('combobox', { name: 'Monitors' }).selectOption({ label: 'Printer' });
  await edit.getByLabel('Remind every (minutes) while down').fill('');
  await edit.getByRole('button', { name: 'Save' }).click();
  await edit.waitFor({ state: 'detached' });
  await row('Office').filter({ hasText: 'Only Printer' }).waitFor();
  assert.doesNotMatch(await row('Office').innerText(), /reminds/);
  const saved = (await env.t.request('GET', '/api/webhooks', { key: (await env.t.admin()).key })).body.items.find((w: any) => w.name === 'Office');
  assert.deepEqual([saved.monitors, saved.reminder_minutes, saved.alert_types], [{ mode: 'monitors', ids: [printer.id] }, null,
    ['monitor_down', 'monitor_up', 'system_health']]);

  await photograph(p, '/webhooks', 'webhooks-routing', 'Webhooks');
  assertClean(p, 'the webhooks page', ['POST /api/webhooks 400']);
});

test('a monitor\'s page: who was told of its alerts, and why the others were not', async () => {
  const { page } = p;
  await page.goto(`/monitors/${printer.id}`);
  const card = page.locator('section.card', { has: page.getByRole('heading', { name: 'Who was told' }) });
  const down = card.locator('.al-item', { hasText: 'DOWN: Printer' });
  await down.waitFor();
  assert.match(await down.locator('.told', { hasText: 'Everyone' }).innerText(), /Delivered/);
  assert.match(await down.locator('.told', { hasText: 'Core team' }).innerText(),
    /Not told: not routed to it: it gets alerts only for monitors tagged core; this one is tagged office/);
  await photograph(p, `/monitors/${printer.id}`, 'monitor-who-was-told', 'Printer');
  assertClean(p, 'the monitor page');
});

test('the event log: each status change with the webhooks of its alert', async () => {
  const { page } = p;
  await page.goto('/monitors/events');
  const rowOf = (name: string) => page.getByRole('row').filter({ hasText: name }).filter({ hasText: /→\s*Down/ });
  await rowOf('Printer').locator('.told-badges').waitFor();
  assert.match(await rowOf('Printer').innerText(), /DOWN: Printer:\s*Core team: Not routed\s*Everyone: Delivered/);
  assert.equal(await rowOf('Printer').locator('.badge', { hasText: 'Core team: Not routed' }).getAttribute('title'),
    'Core team: Not told: not routed to it: it gets alerts only for monitors tagged core; this one is tagged office');
  assert.match(await rowOf('Core switch').innerText(), /Core team: Delivered\s*Everyone: Delivered/);
  await photograph(p, '/monitors/events', 'monitor-events-told', 'Monitors');
  assertClean(p, 'the event log');
  assert.ok(sw);
});
