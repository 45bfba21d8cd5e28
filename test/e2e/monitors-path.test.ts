// A path (MTR) monitor's page in a real browser against the real service and the real mtr, to 127.0.0.1 (one
// hop, loopback only): the Path card shows the latest path hop by hop with its loss and latency, the hops over
// the recent checks, its segments (all LAN: 127.0.0.1 is the probe itself; the unit and lab tests split ISP and
// internet) and the route changes (none here: the lab test makes one); checked for console errors,
// labelled controls and its 375 px layout, and photographed in light and dark. Needs mtr (mtr-tiny).
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { assertClean, photograph, startSignedIn, type UiEnv, type UiPage } from './helpers/browser.js';

const skip = existsSync('/usr/bin/mtr') ? false : 'the path check needs mtr (apt-get install mtr-tiny)';
let env: UiEnv;
let p: UiPage;
let id = '';

before(async () => {
  if (skip) return;
  ({ env, p } = await startSignedIn(async (e, a) => {
    const api = async (method: string, path: string, body?: unknown): Promise<any> => {
      const r = await e.t.request(method, path, { key: a.key, body });
      assert.ok(r.status < 300, `${method} ${path}: ${r.status} ${r.text}`);
      return r.body;
    };
    id = (await api('POST', '/api/monitors', { name: 'loopback path', check_type: 'path', target: '127.0.0.1', interval: 3600, timeout: 5,
      settings: { cycles: 1 } })).id;
    for (let i = 0; i < 300; i++) {
      if ((await api('GET', `/api/monitors/${id}`)).last_check) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    await api('POST', `/api/monitors/${id}/check`); // a second column in the grid
  }));
});

after(async () => {
  await p?.context.close();
  await env?.close();
});

test('a path monitor\'s page shows its hops with loss and latency, the hops over time and its route changes', { skip }, async () => {
  const { page } = p;
  await page.goto(`/monitors/${id}`);
  await page.getByRole('heading', { name: 'loopback path', level: 1 }).waitFor();
  const card = page.locator('.card', { has: page.getByRole('heading', { name: 'Path', exact: true }) });
  const table = card.getByRole('table', { name: 'The latest path, hop by hop' });
  await table.waitFor();
  const cells = await table.locator('tbody tr').first().locator('td').allTextContents();
  assert.equal(cells[0]!.trim(), '1');
  assert.equal(cells[1]!.trim(), 'LAN');
  assert.match(cells[2]!, /127\.0\.0\.1/);
  assert.match(cells[3]!, /^\s*0 %\s*$/);
  assert.match(cells[4]!, /ms/);
  const segs = card.getByRole('list', { name: 'Segments of the path' });
  assert.deepEqual((await segs.getByRole('listitem').allTextContents()).map((x) => x.replace(/\s+/g, ' ').trim()),
    ['LAN hop 1', 'ISP no hop', 'Internet no hop']);
  await card.getByText('the destination is the probe itself').waitFor();
  await card.getByText('the path ends in the LAN').waitFor();
  await card.getByRole('img', { name: 'Hops over the last 2 checks, newest on the right' }).waitFor();
  assert.equal(await card.locator('.path-cell.pl-ok').count(), 2);
  await card.getByText('No route change since the monitor\'s first check.').waitFor();
  await photograph(p, `/monitors/${id}`, 'monitor-path', 'loopback path');
  assertClean(p, 'a path monitor\'s page');
});
