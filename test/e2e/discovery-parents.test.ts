// The session page's "Proposed parents" card in Chromium (issue 35 §5): a session the probe is not in says
// so, and choosing where the probe is brings the proposals with their reasons; Apply on one row, then Apply
// all; a parent a person set stays (Kept). Photographed at 1366 and 375 px, light and dark.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertClean, photograph, startSignedIn, type UiEnv, type UiPage } from './helpers/browser.js';

let env: UiEnv;
let p: UiPage;
let session: string;
const ids: Record<string, string> = {};

before(async () => {
  ({ env, p } = await startSignedIn(async (e, admin) => {
    const api = (method: string, path: string, body?: unknown) => e.t.request(method, path, { key: admin.key, body });
    // Loopback addresses: the monitors' first checks stay on the machine, and none is the probe's own (lo is never).
    const node = (id: string, label: string, address: string) => ({ id, label, addresses: [address] });
    const s = await api('POST', '/api/v1sion/sessions', {
      name: 'Office floor 2',
      nodes: [node('probe', 'netprobe', '127.0.0.1'), node('sw1', 'core-sw1', '127.0.0.2'), node('sw2', 'floor2-sw', '127.0.0.3'),
        node('nas', 'nas.office.lan', '127.0.0.30'), node('printer', 'printer-2f', '127.0.0.40')],
      edges: [
        { from: 'sw1', to: 'probe', from_port: 'Gi1/0/1', source: 'fdb' },
        { from: 'sw1', to: 'sw2', from_port: 'Gi1/0/24', to_port: 'Gi0/1', source: 'lldp' },
        { from: 'sw2', to: 'nas', from_port: 'Gi0/7', source: 'fdb' },
        { from: 'sw2', to: 'printer', from_port: 'Gi0/9', source: 'fdb' },
      ],
    });
    assert.equal(s.status, 201, s.text);
    session = s.body.id;
    for (const [name, target, type] of [['core-sw1', '127.0.0.2', 'ping'], ['floor2-sw', '127.0.0.3', 'ping'],
      ['nas', '127.0.0.30', 'ping'], ['nas web', 'http://127.0.0.30:9/', 'http'], ['printer', '127.0.0.40', 'ping']] as const) {
      const r = await api('POST', '/api/monitors', { name, check_type: type, target, interval: 3600 });
      assert.equal(r.status, 201, r.text);
      ids[name] = r.body.id;
    }
    // A person already set the printer's parent: the proposal never replaces it.
    assert.equal((await api('PUT', `/api/monitors/${ids.printer}`, { parents: [ids['core-sw1']] })).status, 200);
  }));
});

after(async () => {
  await p?.context.close();
  await env?.close();
});

test('proposed parents: where the probe is, why each, apply one, apply all, a person\'s parent kept', async () => {
  const { page } = p;
  await page.goto(`/discovery/sessions/${session}`);
  await page.getByRole('heading', { name: 'Office floor 2', level: 1 }).waitFor();
  const card = page.locator('section.card').filter({ has: page.getByRole('heading', { name: /^Proposed parents/ }) });
  await card.getByText(/The probe is not in this session/).waitFor();

  await card.getByRole('combobox', { name: 'The probe is at' }).selectOption({ label: 'netprobe' });
  const row = (name: string) => card.getByRole('row').filter({ has: page.getByRole('link', { name, exact: true }) }).first();
  await row('nas').waitFor();
  assert.match(await row('nas').innerText(), /floor2-sw[\s\S]*No parents[\s\S]*New[\s\S]*127\.0\.0\.30 \(nas\.office\.lan\) is behind floor2-sw port Gi0\/7 \(FDB\)/);
  assert.match(await row('nas web').innerText(), /watched by ping "nas" too/);
  assert.match(await row('printer').innerText(), /core-sw1[\s\S]*Set by a person[\s\S]*Kept/);
  assert.match(page.url(), /\?probe_at=probe$/);
  await photograph(p, `/discovery/sessions/${session}?probe_at=probe`, 'discovery-parents', 'Office floor 2');

  await row('nas').getByRole('button', { name: 'Apply the proposed parents of nas' }).click();
  await page.getByText('1 applied').waitFor();
  await row('nas').filter({ hasText: 'Applied' }).waitFor();
  await card.getByRole('button', { name: 'Apply all (2)' }).click();
  await page.getByText('2 applied').waitFor();
  await row('nas web').filter({ hasText: 'From a proposal' }).waitFor();
  assert.equal(await card.getByRole('button', { name: /^Apply all/ }).count(), 0, 'nothing left to apply');
  assert.match(await row('printer').innerText(), /Kept/);

  const monitor = await env.t.request('GET', `/api/monitors/${ids['floor2-sw']}`, { key: (await env.t.admin()).key });
  assert.deepEqual(monitor.body.parents, [ids['core-sw1']]);
  assertClean(p, '/discovery/sessions/:id');
});
