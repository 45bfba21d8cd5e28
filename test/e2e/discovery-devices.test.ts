// Devices known over time in Chromium (issue 35 §2-3): the list puts the new device first with its badge,
// the moved one says where it is now, the search finds a device by its MAC in another notation, acknowledging
// it takes the badge away, and the device's page shows its history and takes "transient". The known state is
// made by merging two scan results through the code every completed scan goes through (devices/merge.ts,
// store.ts). Photographed at 1366 and 375 px, light and dark.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { mergeScan } from '../../src/modules/v1sion/devices/merge.js';
import { loadDevices, isSubnetKnown, writeMerge } from '../../src/modules/v1sion/devices/store.js';
import type { ScanDevice, ScanResult } from '../../src/modules/v1sion/scan/result.js';
import { assertClean, photograph, startSignedIn, type UiEnv, type UiPage } from './helpers/browser.js';

let env: UiEnv;
let p: UiPage;
const SUBNET = '10.20.0.0/24';

function dev(id: string, ip: string, mac: string, extra: Partial<ScanDevice> = {}): ScanDevice {
  return { id, name: ip, kind: 'host', addresses: [ip], macs: [mac], vendor_key: null, vendor: null, model: null, serial: null, sys_name: null,
    engine_id: null, chassis_id: null, seen: 'scan', merged_by: [], ...extra };
}
const result = (devices: ScanDevice[], links: ScanResult['links']): ScanResult => ({
  job_id: `job-${devices.length}`, subnet: SUBNET, state: 'completed', started_at: '', finished_at: '', duration_ms: 1,
  counts: { addresses: 254, live: devices.length, snmp: 1, devices: devices.length, links: links.length }, hosts: [], devices, links, warnings: [],
});

before(async () => {
  ({ env, p } = await startSignedIn(async (e) => {
    const store = e.t.service.app.store;
    const merge = async (r: ScanResult, now: number) => {
      const out = mergeScan({ known: loadDevices(store), result: r, subnetKnown: isSubnetKnown(store, SUBNET), now, missing: { after_ms: 0, after_runs: 1 },
        newId: () => crypto.randomUUID() });
      await store.write((tx) => writeMerge(tx, out, SUBNET, r.job_id, now));
    };
    const sw = dev('s', '10.20.0.2', '02:00:00:00:00:02', { kind: 'switch', sys_name: 'core-sw1', vendor: 'Cisco', model: 'C9300-24T' });
    const nas = dev('n', '10.20.0.30', '02:00:00:00:00:30', { name: 'nas.office.lan', vendor: 'Synology' });
    const now = Date.now();
    await merge(result([sw, nas], [{ from: 's', to: 'n', from_port: 'Gi1/0/3', to_port: null, source: 'fdb', vlan: 10 }]), now - 3_600_000);
    const printer = dev('p', '10.20.0.40', 'ac:de:48:00:11:22', { name: 'printer-2f', vendor: 'Brother' });
    await merge(result([sw, nas, printer], [{ from: 's', to: 'n', from_port: 'Gi1/0/7', to_port: null, source: 'fdb', vlan: 10 }]), now - 60_000);
  }));
});

after(async () => {
  await p?.context.close();
  await env?.close();
});

test('the list: the new device first, the moved one where it is now; found by a MAC in another notation; acknowledged', async () => {
  const { page } = p;
  await page.goto('/discovery/devices');
  await page.getByRole('heading', { name: 'Discovery', level: 1 }).waitFor();
  const rows = page.getByRole('row');
  await rows.nth(1).waitFor();
  assert.match(await rows.nth(1).innerText(), /printer-2f[\s\S]*New/, 'the new device first');
  const nasRow = page.getByRole('row', { name: /nas\.office\.lan/ });
  assert.match(await nasRow.innerText(), /core-sw1\s+port\s+Gi1\/0\/7\s+·\s+VLAN 10/);
  assert.match(await nasRow.innerText(), /Changed/);
  await photograph(p, '/discovery/devices', 'discovery-devices', 'Discovery');

  await page.getByRole('searchbox', { name: /Where is it/ }).fill('ACDE.4800');
  await page.getByRole('row', { name: /nas\.office\.lan/ }).waitFor({ state: 'detached' }); // only the MAC that starts so
  await page.getByRole('row', { name: /printer-2f/ }).waitFor();
  await page.getByRole('button', { name: 'Acknowledge printer-2f' }).click();
  await page.getByText('Acknowledged 1 device').waitFor();
  await page.getByRole('row', { name: /printer-2f/ }).filter({ hasNotText: 'New' }).waitFor();
  assertClean(p, '/discovery/devices');
});

test('a device\'s page: now, its history, and marking it transient', async () => {
  const { page } = p;
  await page.goto('/discovery/devices?q=nas');
  await page.getByRole('link', { name: 'nas.office.lan' }).click();
  await page.getByRole('heading', { name: 'nas.office.lan', level: 1 }).waitFor();
  const history = page.locator('.dev-history');
  await history.waitFor();
  const text = await history.innerText();
  assert.match(text, /Moved\s+moved from core-sw1 port Gi1\/0\/3 \(VLAN 10\) to core-sw1 port Gi1\/0\/7 \(VLAN 10\)/);
  assert.match(text, /First seen\s+first seen in the first scan of 10\.20\.0\.0\/24 \(baseline\)/);
  assert.equal(await page.getByRole('link', { name: 'Look it up by MAC' }).getAttribute('href'), '/inventory?q=02%3A00%3A00%3A00%3A00%3A30');
  await page.getByRole('radio', { name: /Transient/ }).check();
  await page.getByText('nas.office.lan: transient').waitFor();
  await page.getByText(/marked transient by/).waitFor();
  const id = page.url().split('/').pop()!;
  await photograph(p, `/discovery/devices/${id}`, 'discovery-device', 'nas.office.lan');
  assertClean(p, '/discovery/devices/:id');
});
