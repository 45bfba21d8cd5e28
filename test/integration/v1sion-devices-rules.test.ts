// Whose rule says a known device is missing (src/modules/v1sion/devices/service.ts): a scan profile's own
// missing_after_minutes / missing_after_scans win over the discovery settings for the scans it runs; a
// person's scan, or a profile that sets none, takes the settings. Through the profiles API and the same
// merge every finished scan goes through (results made by hand, a real service and store).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { DeviceWatch } from '../../src/modules/v1sion/devices/service.js';
import type { ScanDevice, ScanResult } from '../../src/modules/v1sion/scan/result.js';
import { ManualClock } from '../../src/core/clock.js';
import { startTestApp, type TestApp } from '../helpers/harness.js';

let t: TestApp;
let key: string;
const clock = new ManualClock(Date.parse('2026-06-01T08:00:00Z'));
const api = (method: string, path: string, body?: unknown) => t.request(method, path, { key, body });

before(async () => {
  t = await startTestApp({ clock });
  key = (await t.admin()).key;
});
after(() => t.close());

const dev = (id: string, ip: string, mac: string): ScanDevice => ({ id, name: ip, kind: 'host', addresses: [ip], macs: [mac], vendor_key: null,
  vendor: null, model: null, serial: null, sys_name: null, engine_id: null, chassis_id: null, seen: 'scan', merged_by: [] });
const result = (subnet: string, devices: ScanDevice[]): ScanResult => ({ job_id: `j-${Math.random()}`, subnet, state: 'completed', started_at: '',
  finished_at: '', duration_ms: 1, counts: { addresses: 6, live: devices.length, snmp: 0, devices: devices.length, links: 0 }, hosts: [], devices,
  links: [], warnings: [] });

test("a profile's own missing rule wins for its scans; without one, and for a person's scan, the settings' (120 min, 3 scans)", async () => {
  const make = async (name: string, extra: Record<string, unknown>) => {
    const r = await api('POST', '/api/v1sion/profiles', { name, subnets: ['127.0.0.0/29'], snmp_enabled: false, enabled: false,
      schedule: { kind: 'interval', every: 15, unit: 'minutes' }, ...extra });
    assert.equal(r.status, 201, r.text);
    return r.body;
  };
  const quick = await make('quick', { missing_after_minutes: 0, missing_after_scans: 1 });
  assert.deepEqual([quick.missing_after_minutes, quick.missing_after_scans], [0, 1]);
  const plain = await make('plain', {});
  assert.deepEqual([plain.missing_after_minutes, plain.missing_after_scans], [null, null]);
  // A PUT clears it back to the settings.
  const cleared = await api('PUT', `/api/v1sion/profiles/${quick.id}`, { missing_after_scans: null });
  assert.deepEqual([cleared.body.missing_after_minutes, cleared.body.missing_after_scans], [0, null]);
  await api('PUT', `/api/v1sion/profiles/${quick.id}`, { missing_after_scans: 1 });

  // The module's own watch, fed the results a scan would hand it (a second one beside it: the same store).
  const watch = new DeviceWatch(t.service.app, { onFinished: () => {} });
  const profiles = (id: string) => ({ [quick.id]: { after_minutes: 0, after_scans: 1 } } as Record<string, object>)[id] ?? {};
  watch.useProfileRules(profiles);
  const run = async (subnet: string, devices: ScanDevice[], profileId: string | null) => {
    clock.advance(15 * 60_000);
    const out = await watch.merge(result(subnet, devices), profileId);
    return out.changes.filter((c) => c.alert === 'device_missing').length;
  };
  const a = dev('a', '127.0.0.2', '02:00:00:00:01:02');
  const b = dev('b', '127.0.0.3', '02:00:00:00:01:03');
  for (const [subnet, profileId] of [['10.61.0.0/29', quick.id], ['10.62.0.0/29', plain.id], ['10.63.0.0/29', null]] as const) {
    const ax = { ...a, addresses: [subnet.replace(/0\/29$/, '2')] };
    const bx = { ...b, addresses: [subnet.replace(/0\/29$/, '3')], macs: [`${b.macs[0]!.slice(0, -2)}${subnet.split('.')[1]}`] };
    const ay = { ...ax, macs: [`${a.macs[0]!.slice(0, -2)}${subnet.split('.')[1]}`] };
    await run(subnet, [ay, bx], profileId);
    await run(subnet, [ay, bx], profileId);
    const first = await run(subnet, [ay], profileId);
    if (profileId === quick.id) assert.equal(first, 1, 'the profile\'s rule: one scan without it is enough');
    else {
      assert.equal(first, 0, `${profileId ? 'a profile without its own rule' : "a person's scan"}: the settings' 3 scans and 120 minutes`);
      assert.equal(await run(subnet, [ay], profileId), 0);
      clock.advance(120 * 60_000);
      assert.equal(await run(subnet, [ay], profileId), 1, 'then, after 3 scans and 2 hours');
    }
  }
});
