// A measurement on the monitor's page, in a real browser against the real service: the chart of a ping
// monitor of 127.0.0.1 (fping on loopback) switches from the response time to the packet loss and back,
// the choice kept in the URL (and its figures follow); checked for console errors, labelled
// controls and its 375 px layout, and photographed in light and dark.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertClean, photograph, startSignedIn, type UiEnv, type UiPage } from './helpers/browser.js';

let env: UiEnv;
let p: UiPage;
let id = '';

before(async () => {
  ({ env, p } = await startSignedIn(async (e, a) => {
    const api = async (method: string, path: string, body?: unknown): Promise<any> => {
      const r = await e.t.request(method, path, { key: a.key, body });
      assert.ok(r.status < 300, `${method} ${path}: ${r.status} ${r.text}`);
      return r.body;
    };
    id = (await api('POST', '/api/monitors', { name: 'echo-ping', check_type: 'ping', target: '127.0.0.1', interval: 3600, timeout: 5 })).id;
    for (let i = 0; i < 300; i++) {
      if ((await api('GET', `/api/monitors/${id}`)).last_check) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    await api('POST', `/api/monitors/${id}/check`); // a second point on the chart
  }));
});

after(async () => {
  await p?.context.close();
  await env?.close();
});

test('the chart shows the response time or the packet loss, the choice kept in the URL', async () => {
  const { page } = p;
  await page.goto(`/monitors/${id}`);
  await page.getByRole('heading', { name: 'echo-ping', level: 1 }).waitFor();
  const chart = page.locator('.chart-card');
  await chart.getByRole('heading', { name: 'Response time' }).waitFor();
  const what = chart.getByLabel('What the chart shows');
  assert.deepEqual(await what.locator('option').allTextContents(), ['Response time', 'Packet loss']);
  await what.selectOption('loss_pct');
  await page.waitForURL(/measure=loss_pct/);
  await chart.getByRole('heading', { name: 'Packet loss' }).waitFor();
  await chart.getByRole('img', { name: /^Packet loss over the last \d+ h: average 0 %, lowest 0 %, highest 0 %/ }).waitFor();
  await chart.locator('canvas').first().waitFor();
  await photograph(p, `/monitors/${id}?measure=loss_pct`, 'monitor-measurement', 'echo-ping');

  await what.selectOption('');
  await chart.getByRole('heading', { name: 'Response time' }).waitFor();
  await chart.getByRole('img', { name: /^Response time over the last \d+ h: average / }).waitFor();
  assertClean(p, 'the monitor page with a measurement');
});
