// Interface polling in a real browser against the real service and the project's SNMP simulator on
// 127.0.0.1 (v2c, two interfaces with 64-bit counters): a device added in the Polling tab's dialog with a
// stored credential (the API's message beside a bad agent first), polled three times through "Poll now" with the
// simulator's counters moved between the polls (the recordings are static: the test adds the octets the
// link "carried" to ifHCIn/OutOctets and their 32-bit twins, and moves sysUpTime on), so the device page
// shows a rate, a sparkline and the second interface's status; an interface watched with its switch; the
// table sorted; the interface's graph page at an hour (canvas charts with data) and a month (the 95th
// percentile and the API's rule); pause, resume, and delete with confirmation. Each page is checked for
// console errors, labelled controls and the 375 px layout, and photographed light and dark
// (test/e2e/screenshots/snmp-polling-*).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startSimulator, type SimDevice, type Simulator } from '../helpers/snmp-sim.js';
import { apiCaller, assertClean, photograph, screenshot, startSignedIn, type UiEnv, type UiPage } from './helpers/browser.js';

const COMMUNITY = 'E2e-Polling-Community-5';
const IF = '1.3.6.1.2.1.2.2.1';
const IFX = '1.3.6.1.2.1.31.1.1.1';

/** A switch with two gigabit ports: Gi0/1 up (the uplink), Gi0/2 down; counters start well above zero. */
function recording(): string {
  const rows: string[] = ['1.3.6.1.2.1.1.1.0|4|Lab switch', '1.3.6.1.2.1.1.3.0|67|360000', '1.3.6.1.2.1.1.5.0|4|poll-sw1',
    '1.3.6.1.2.1.25.1.1.0|67|8640000'];
  const ports = [{ i: 1, name: 'Gi0/1', alias: 'uplink to core', oper: 1 }, { i: 2, name: 'Gi0/2', alias: '', oper: 2 }];
  const col = (base: string, c: number, i: number, tag: number, v: string | number) => `${base}.${c}.${i}|${tag}|${v}`;
  for (const p of ports) {
    rows.push(col(IF, 1, p.i, 2, p.i), col(IF, 2, p.i, 4, p.name), col(IF, 3, p.i, 2, 6), col(IF, 5, p.i, 66, 1_000_000_000),
      col(IF, 7, p.i, 2, 1), col(IF, 8, p.i, 2, p.oper), col(IF, 9, p.i, 67, 100),
      col(IF, 10, p.i, 65, 5_000_000), col(IF, 11, p.i, 65, 9000), col(IF, 13, p.i, 65, 0), col(IF, 14, p.i, 65, 0),
      col(IF, 16, p.i, 65, 3_000_000), col(IF, 17, p.i, 65, 7000), col(IF, 19, p.i, 65, 0), col(IF, 20, p.i, 65, 0),
      col(IFX, 1, p.i, 4, p.name), col(IFX, 2, p.i, 65, 0), col(IFX, 3, p.i, 65, 0), col(IFX, 4, p.i, 65, 0), col(IFX, 5, p.i, 65, 0),
      col(IFX, 6, p.i, 70, 5_000_000), col(IFX, 7, p.i, 70, 9000), col(IFX, 8, p.i, 70, 0), col(IFX, 9, p.i, 70, 0),
      col(IFX, 10, p.i, 70, 3_000_000), col(IFX, 11, p.i, 70, 7000), col(IFX, 12, p.i, 70, 0), col(IFX, 13, p.i, 70, 0),
      col(IFX, 15, p.i, 66, 1000), col(IFX, 18, p.i, 4, p.alias), col(IFX, 19, p.i, 67, 0));
  }
  return rows.join('\n');
}

/**
 * Moves the simulated agent on by `seconds`: sysUpTime and hrSystemUptime, and Gi0/1's counters by what
 * `inBps` and `outBps` carry in that time (octets, both widths; packets at 1,000 bytes each).
 */
function advance(dev: SimDevice, seconds: number, inBps: number, outBps: number): void {
  const add = (oid: string, n: number, wrap32 = false) => {
    const v = dev.recording.vars.find((x) => x.oid === oid);
    assert.ok(v?.num !== undefined, `the recording has ${oid}`);
    v.num = wrap32 ? BigInt.asUintN(32, v.num + BigInt(Math.round(n))) : v.num + BigInt(Math.round(n));
  };
  add('1.3.6.1.2.1.1.3.0', seconds * 100, true);
  add('1.3.6.1.2.1.25.1.1.0', seconds * 100, true);
  const inOctets = (inBps / 8) * seconds, outOctets = (outBps / 8) * seconds;
  add(`${IFX}.6.1`, inOctets); add(`${IF}.10.1`, inOctets, true);
  add(`${IFX}.10.1`, outOctets); add(`${IF}.16.1`, outOctets, true);
  add(`${IFX}.7.1`, inOctets / 1000); add(`${IF}.11.1`, inOctets / 1000, true);
  add(`${IFX}.11.1`, outOctets / 1000); add(`${IF}.17.1`, outOctets / 1000, true);
}

let env: UiEnv;
let p: UiPage;
let sim: Simulator;
let api: ReturnType<typeof apiCaller>;
let credential: { id: string; short_id: string; name: string };
let deviceId = '';
let lastPoll = Date.now();

before(async () => {
  sim = await startSimulator([{ name: 'poll-sw1', community: COMMUNITY, text: recording() }]);
  ({ env, p } = await startSignedIn(async (e, a) => {
    api = apiCaller(e, a.key);
    await api('POST', '/api/brain/vault/setup', { passphrase: 'E2e-Polling-Vault-Passphrase-9' });
    const c = await api('POST', '/api/brain/credentials', { name: 'Lab switches v2c', kind: 'snmp_v2c', community: COMMUNITY,
      port: sim.devices[0]!.port, scope: ['127.0.0.0/8'] });
    credential = { id: c.id, short_id: c.short_id, name: c.name };
  }));
});

after(async () => {
  await p?.context.close();
  await env?.close();
  await sim?.stop();
});

/** Clicks "Poll now" and waits for the poll it asked for, with the agent moved on by the time since the last one. */
async function pollNow(where: import('playwright-core').Locator, inBps: number, outBps: number): Promise<void> {
  const seconds = Math.max(1, (Date.now() - lastPoll) / 1000);
  advance(sim.devices[0]!, seconds, inBps, outBps);
  lastPoll = Date.now();
  const answered = p.page.waitForResponse((r) => r.url().endsWith(`/api/snmp/polling/${deviceId}/poll`) && r.request().method() === 'POST');
  await where.getByRole('button', { name: /^Poll now/ }).click();
  assert.ok((await answered).status() < 300, 'poll now answered');
}

test('a device added in the Polling tab with a stored credential, polled three times: rates on its page', async () => {
  const { page } = p;
  await page.goto('/snmp/polling');
  assert.equal(await page.getByRole('link', { name: 'Polling' }).getAttribute('aria-current'), 'page');
  await page.getByRole('heading', { name: 'No devices polled yet' }).waitFor();
  await page.getByRole('button', { name: 'Add device' }).first().click();
  const dialog = page.getByRole('dialog', { name: 'Add a device to poll' });
  await dialog.getByLabel('Agent').fill('not a host name!');
  await dialog.getByLabel('Credential').selectOption({ label: `${credential.short_id} · ${credential.name} (v2c, port ${sim.devices[0]!.port})` });
  await dialog.getByLabel('Name').fill('poll-sw1');
  await dialog.getByLabel('Utilisation at or above (%)').fill('90');
  await dialog.getByRole('button', { name: 'Add device' }).click();
  // The API names the target: its message shows beside the agent.
  await dialog.locator('.field', { has: page.getByLabel('Agent') }).locator('.field-error').waitFor();
  await dialog.getByLabel('Agent').fill('127.0.0.1');
  await dialog.getByRole('button', { name: 'Add device' }).click();
  await dialog.waitFor({ state: 'detached' });

  const row = page.getByRole('row', { name: /poll-sw1/ });
  await row.getByText('60 s', { exact: true }).waitFor();
  const listed = await api('GET', '/api/snmp/polling');
  assert.equal(listed.total, 1);
  deviceId = listed.items[0].id;
  assert.equal(listed.items[0].credential_id, credential.id);
  assert.equal(listed.items[0].util_alert_pct, 90);
  assert.equal(listed.items[0].all_interfaces, true);

  // Three polls, 80 Mbit/s in and 20 Mbit/s out between each (two points: a line on the graphs).
  await pollNow(row, 0, 0);
  await row.getByText('OK', { exact: true }).waitFor();
  await row.getByText(/2 of 2 polled/).waitFor();
  for (let k = 0; k < 2; k++) {
    await page.waitForTimeout(1500);
    await pollNow(row, 80e6, 20e6);
  }

  await row.getByRole('link', { name: 'poll-sw1' }).click();
  await page.waitForURL(new RegExp(`/snmp/polling/${deviceId}$`));
  await page.getByRole('heading', { name: 'poll-sw1', level: 1 }).waitFor();
  const gi1 = page.getByRole('row', { name: /Gi0\/1/ });
  await gi1.getByText('uplink to core').waitFor();
  // The rate the counters moved by: 80 Mbit/s in, within the page's rounding and the timing of the polls.
  const rates = await gi1.locator('td[data-label="Bit/s now"]').innerText();
  const m = /in\s+([\d.]+) Mbps\s+out\s+([\d.]+) Mbps/.exec(rates);
  assert.ok(m, `Gi0/1 shows its rates in Mbps: ${rates}`);
  assert.ok(Math.abs(Number(m[1]) - 80) < 20 && Math.abs(Number(m[2]) - 20) < 5, `about 80 and 20 Mbps: ${rates}`);
  assert.match(await gi1.locator('td[data-label="Utilisation"]').innerText(), /in\s+[\d.]+ %/);
  await gi1.getByRole('img', { name: /^Gi0\/1, the last hour: in [\d.]+ Mbps/ }).waitFor();
  assert.ok(await gi1.locator('svg.spark path.spark-in').count() === 1, 'a sparkline of the traffic in');
  const gi2 = page.getByRole('row', { name: /Gi0\/2/ });
  await gi2.getByText('Down', { exact: true }).waitFor();

  // Watch Gi0/2 with its switch: the API says so.
  const detail = await api('GET', `/api/snmp/polling/${deviceId}`);
  const key2 = detail.interfaces.find((i: { name: string }) => i.name === 'Gi0/2').key;
  assert.equal(detail.interfaces.find((i: { name: string }) => i.name === 'Gi0/2').watched, false);
  await gi2.getByRole('switch', { name: 'Watch Gi0/2' }).click();
  await page.getByText('Gi0/2: watched').waitFor();
  assert.equal((await api('GET', `/api/snmp/polling/${deviceId}`)).interfaces.find((i: { key: number }) => i.key === key2).watched, true);
  assert.equal(await gi2.getByRole('switch', { name: 'Watch Gi0/2' }).isChecked(), true);

  // Sorted by bit/s, highest first: Gi0/1 leads; then by name again.
  await page.getByLabel('Sort interfaces by').selectOption('in');
  await page.waitForURL(/sort=in/);
  await page.getByRole('button', { name: /Sorted ascending/ }).click();
  await page.waitForURL(/dir=desc/);
  assert.match(await page.locator('tbody tr').first().innerText(), /Gi0\/1/);
  await photograph(p, `/snmp/polling/${deviceId}`, 'snmp-polling-device', 'poll-sw1');
  await photograph(p, '/snmp/polling', 'snmp-polling', 'SNMP');
  assertClean(p, 'the polling tab and the device page', ['POST /api/snmp/polling 400']);
});

test('an interface\'s graphs: the last hour with data, the month with its 95th percentile and rule', async () => {
  const { page } = p;
  const detail = await api('GET', `/api/snmp/polling/${deviceId}`);
  const gi1 = detail.interfaces.find((i: { name: string }) => i.name === 'Gi0/1');
  await page.goto(`/snmp/polling/${deviceId}`);
  await page.getByRole('link', { name: 'Gi0/1' }).click();
  await page.waitForURL(new RegExp(`/snmp/polling/${deviceId}/interfaces/${gi1.key}$`));
  await page.getByRole('heading', { name: 'Gi0/1', level: 1 }).waitFor();
  await page.getByRole('link', { name: 'poll-sw1' }).waitFor();

  await page.getByRole('group', { name: 'Time range' }).getByRole('button', { name: 'Hour' }).click();
  await page.waitForURL(/range=hour/);
  const traffic = page.locator('section.card', { has: page.getByRole('heading', { name: 'Traffic' }) });
  await traffic.getByRole('img', { name: /^Gi0\/1, bits per second over the last hour: in average [\d.]+ Mbps/ }).waitFor();
  await traffic.locator('canvas').first().waitFor();
  await page.getByRole('heading', { name: 'Utilisation' }).waitFor();
  await page.getByRole('heading', { name: 'Errors and discards per second' }).waitFor();
  await page.getByRole('img', { name: /share of polls that found it up over the last hour: 100/ }).waitFor();
  await photograph(p, `/snmp/polling/${deviceId}/interfaces/${gi1.key}?range=hour`, 'snmp-polling-interface', 'Gi0/1');

  await page.getByRole('group', { name: 'Time range' }).getByRole('button', { name: 'Month' }).click();
  await page.waitForURL(/range=month/);
  const month = await api('GET', `/api/snmp/polling/${deviceId}/interfaces/${gi1.key}/history?range=month`);
  assert.ok(month.p95, 'the month view has a 95th percentile');
  await page.getByText('95th percentile', { exact: false }).first().waitFor();
  await page.getByText(month.p95.rule, { exact: true }).waitFor();
  await page.emulateMedia({ colorScheme: 'dark' });
  await screenshot(page, 'snmp-polling-interface-month-dark');
  await page.emulateMedia({ colorScheme: 'light' });
  assertClean(p, 'the interface graph page');
});

test('pause, resume and delete from the list', async () => {
  const { page } = p;
  await page.goto('/snmp/polling');
  const row = page.getByRole('row', { name: /poll-sw1/ });
  await row.getByRole('button', { name: 'Pause poll-sw1' }).click();
  await row.getByText('Paused', { exact: true }).waitFor();
  assert.equal((await api('GET', `/api/snmp/polling/${deviceId}`)).enabled, false);
  assert.equal(await row.getByRole('button', { name: 'Poll now poll-sw1' }).isDisabled(), true, 'a paused device is not polled now');
  await row.getByRole('button', { name: 'Resume poll-sw1' }).click();
  await row.getByRole('button', { name: 'Pause poll-sw1' }).waitFor();
  assert.equal((await api('GET', `/api/snmp/polling/${deviceId}`)).enabled, true);
  await row.getByRole('button', { name: 'Delete poll-sw1' }).click();
  await page.getByRole('dialog', { name: 'Stop polling poll-sw1?' }).getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('heading', { name: 'No devices polled yet' }).waitFor();
  assert.equal((await api('GET', '/api/snmp/polling')).total, 0);
  assertClean(p, 'pause, resume and delete');
});

test('the Devices tab\'s "Poll over time" opens the dialog filled in with the device\'s agent and credential', async () => {
  const { page } = p;
  const ep = await api('POST', '/api/brain/endpoints', { name: 'poll-sw1', ip_addresses: ['127.0.0.1'], credential_id: credential.id });
  await page.goto(`/snmp/devices?device=${ep.short_id}`);
  await page.getByRole('link', { name: 'Poll over time' }).click();
  await page.waitForURL(/\/snmp\/polling\?add=1/);
  const dialog = page.getByRole('dialog', { name: 'Add a device to poll' });
  assert.equal(await dialog.getByLabel('Agent').inputValue(), '127.0.0.1');
  assert.equal(await dialog.getByLabel('UDP port').inputValue(), String(sim.devices[0]!.port));
  // Asked for by the endpoint's short ID: the device is that endpoint (its name is the API's default, the agent).
  assert.equal(await dialog.getByLabel('Inventory endpoint').inputValue(), ep.short_id);
  assert.equal(await dialog.getByLabel('Name').inputValue(), '');
  await dialog.getByLabel('Credential').locator(`option[value="${credential.id}"]`).waitFor({ state: 'attached' });
  assert.equal(await dialog.getByLabel('Credential').inputValue(), credential.id);
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await page.waitForURL(/\/snmp\/polling$/);
  assertClean(p, 'the Devices tab\'s link to polling');
});
