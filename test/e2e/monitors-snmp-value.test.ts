// An snmp monitor's page in a real browser against the real service: a UPS battery read from the project's
// simulator on loopback with a stored credential; the chart switches from the response time to the value
// read, shown in the monitor's unit ("87 %"), the choice kept in the URL; checked for console errors,
// labelled controls and its 375 px layout, and photographed in light and dark.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startSimulator, type Simulator } from '../helpers/snmp-sim.js';
import { assertClean, photograph, startSignedIn, type UiEnv, type UiPage } from './helpers/browser.js';

const COMMUNITY = 'E2e-Ups-Community-3';
let env: UiEnv;
let p: UiPage;
let sim: Simulator;
let id = '';

before(async () => {
  sim = await startSimulator([{ name: 'ups', community: COMMUNITY, text: '1.3.6.1.2.1.33.1.2.4.0|2|87\n1.3.6.1.2.1.1.3.0|67|4200' }]);
  ({ env, p } = await startSignedIn(async (e, a) => {
    const api = async (method: string, path: string, body?: unknown): Promise<any> => {
      const r = await e.t.request(method, path, { key: a.key, body });
      assert.ok(r.status < 300, `${method} ${path}: ${r.status} ${r.text}`);
      return r.body;
    };
    await api('POST', '/api/brain/vault/setup', { passphrase: 'E2e-Snmp-Value-Vault-Passphrase' });
    const cred = await api('POST', '/api/brain/credentials', { name: 'ups', kind: 'snmp_v2c', community: COMMUNITY, scope: ['127.0.0.1'] });
    id = (await api('POST', '/api/monitors', { name: 'ups-battery', check_type: 'snmp', target: `127.0.0.1:${sim.devices[0]!.port}`,
      interval: 3600, timeout: 4,
      settings: { credential_id: cred.short_id, oid: '1.3.6.1.2.1.33.1.2.4.0', compare: 'greater', value: '50', unit: '%' } })).id;
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
  await sim?.stop();
});

test('the chart of an snmp monitor shows the value read, in the monitor\'s unit', async () => {
  const { page } = p;
  await page.goto(`/monitors/${id}`);
  await page.getByRole('heading', { name: 'ups-battery', level: 1 }).waitFor();
  const chart = page.locator('.chart-card');
  const what = chart.getByLabel('What the chart shows');
  assert.deepEqual(await what.locator('option').allTextContents(), ['Response time', 'Value read']);
  await what.selectOption('value');
  await page.waitForURL(/measure=value/);
  await chart.getByRole('heading', { name: 'Value read' }).waitFor();
  await chart.getByRole('img', { name: /^Value read over the last \d+ h: average 87 %, lowest 87 %, highest 87 %/ }).waitFor();
  await chart.locator('canvas').first().waitFor();
  await photograph(p, `/monitors/${id}?measure=value`, 'monitor-snmp-value', 'ups-battery');
  assertClean(p, 'an snmp monitor\'s page');
});
