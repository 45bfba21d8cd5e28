// The Discovery section in a real browser. Every scan stays on loopback (127.0.0.0/29 and smaller or
// nearby loopback subnets), and reverse DNS is off in the service's config.yaml, so no packet and no DNS
// question leaves the machine. A scan of 127.0.0.0/29 without SNMP started from the form streams its six
// hosts into the live table (in address order) and completes with six devices; it is saved as a topology
// session whose page lists six nodes; a smaller scan merged into it marks four nodes missing; a larger
// one fills the table live and is cancelled from the page. Where UDP 161 on 127.0.0.5 can be bound
// (root), a recorded Cisco switch there is identified with a saved discovery credential. Refusals show as forms show them: a 400 beside the subnet, and the
// 403 for 198.51.100.0/24 (refused before anything is sent) with its detail naming
// discovery.allowed_ranges. Every page is checked for console errors, labelled controls and the 375 px
// layout, and photographed (test/e2e/screenshots/discovery-*).
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { startSimulator, type Simulator } from '../helpers/snmp-sim.js';
import {
  assertClean, photograph, screenshot, startSignedIn, transferredBytes, type UiEnv, type UiPage,
} from './helpers/browser.js';

const RECORDING = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'snmprec', 'cisco-ios-c2960x.snmprec');
const COMMUNITY = 'e2e-discovery-community';

let env: UiEnv;
let admin: { username: string; password: string; key: string };
let p: UiPage;
let sessionUrl = '';

before(async () => {
  ({ env, admin, p } = await startSignedIn(async (started) => {
    // Loopback scans must not ask the machine's resolver for names; the configuration is read again.
    await writeFile(join(started.t.dataDir, 'config.yaml'), 'discovery:\n  reverse_dns: false\n  snmp_timeout_ms: 300\n  snmp_retries: 0\n');
    const config = await started.t.service.app.config.reload();
    assert.equal(config.discovery.reverse_dns, false);
  }));
});

after(async () => {
  await p?.context.close();
  await env?.close();
});

const hostRows = () => p.page.locator('.disc-table-card tbody tr');
const runCard = () => p.page.locator('section.disc-run');

/** Fills the form and starts a scan (without SNMP unless asked); resolves with the job id the URL then holds. */
async function startScan(subnet: string, withSnmp = false): Promise<string> {
  const { page } = p;
  await page.getByLabel('Subnet').fill(subnet);
  const snmp = page.getByRole('switch', { name: 'Identify SNMP agents' });
  if ((await snmp.isChecked()) !== withSnmp) await snmp.setChecked(withSnmp);
  await page.getByRole('button', { name: 'Start scan' }).click();
  await page.waitForURL(/\/discovery\?job=[0-9a-f-]{36}/);
  return new URL(page.url()).searchParams.get('job')!;
}

test('the first load of /discovery stays under 150 KB', async () => {
  const context = await env.browser.newContext({ baseURL: env.url });
  const [name, value] = (await env.t.login(admin.username, admin.password)).split('=');
  await context.addCookies([{ name: name!, value: value!, url: env.url }]);
  const page = await context.newPage();
  await page.goto('/discovery');
  await page.getByRole('heading', { name: 'Discovery', level: 1 }).waitFor();
  await page.getByRole('button', { name: 'Start scan' }).waitFor();
  await page.waitForLoadState('networkidle');
  const t = await transferredBytes(page);
  console.log(`first load of /discovery: ${t.items.length} responses, ${t.total} bytes of compressed bodies`);
  assert.ok(t.total < 150 * 1024, `transferred ${t.total} bytes`);
  await context.close();
});

test('a scan of 127.0.0.0/29 without SNMP: six hosts live, completed, six devices, saved as a session of six nodes', async () => {
  const { page } = p;
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Discovery' }).click();
  await page.getByRole('heading', { name: 'Discovery', level: 1 }).waitFor();
  assert.equal(await page.getByRole('link', { name: 'Scan', exact: true }).getAttribute('aria-current'), 'page');
  // The community is a password field, and no saved credential exists yet.
  assert.equal(await page.getByLabel('Community').getAttribute('type'), 'password');
  await page.getByText('No discovery credentials are saved').waitFor();
  await page.getByLabel('SNMP version').selectOption('3');
  await page.getByLabel('SNMPv3 user').waitFor();
  await page.getByLabel('Privacy key').waitFor();
  await screenshot(page, 'discovery-scan-form-v3');
  await page.getByLabel('SNMP version').selectOption('2c');
  await page.getByLabel('Community').fill('never-in-the-url');
  await photograph(p, '/discovery', 'discovery-scan-form', 'Discovery');

  const job = await startScan('127.0.0.0/29');
  assert.doesNotMatch(page.url(), /never-in-the-url/);
  await runCard().getByText('Completed', { exact: true }).first().waitFor({ timeout: 60_000 });
  await page.getByRole('link', { name: 'Hosts (6)' }).waitFor();
  assert.equal(await hostRows().count(), 6);
  const ips = await hostRows().locator('td:first-child .cell-title').allInnerTexts();
  assert.deepEqual(ips.map((s) => s.trim()), ['127.0.0.1', '127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5', '127.0.0.6']);
  await hostRows().first().locator('.disc-src-icmp').waitFor();
  assert.equal(await page.locator('progress.disc-progress').getAttribute('value'), '100');
  const facts = await runCard().locator('.disc-facts').innerText();
  assert.match(facts, /Live\s+6/);
  assert.match(facts, /Devices\s+6/);
  // The probe keeps the scan (listed for every tab); the community is in no storage of the page.
  const stored = await page.evaluate(() => JSON.stringify({ ...sessionStorage }) + JSON.stringify({ ...localStorage }));
  assert.doesNotMatch(stored, /never-in-the-url/);

  // The filter, then the devices and links tabs.
  await page.getByLabel('Filter the hosts').fill('127.0.0.4');
  await page.waitForFunction(() => document.querySelectorAll('.disc-table-card tbody tr').length === 1);
  await page.getByLabel('Filter the hosts').fill('');
  await photograph(p, `/discovery?job=${job}`, 'discovery-scan-hosts', 'Discovery');
  await page.getByRole('link', { name: 'Devices (6)' }).click();
  await page.waitForURL(/view=devices/);
  await page.getByRole('table', { name: 'Devices' }).waitFor();
  assert.equal(await hostRows().count(), 6);
  await screenshot(page, 'discovery-scan-devices');
  await page.getByRole('link', { name: 'Links (0)' }).click();
  await page.getByRole('heading', { name: 'No links' }).waitFor();
  await page.getByRole('link', { name: 'Hosts (6)' }).click();

  // Save it as a topology session, then its page.
  await page.getByRole('button', { name: 'Save as topology session' }).click();
  const dialog = page.getByRole('dialog', { name: 'Save as topology session' });
  assert.match(await dialog.getByLabel('Name').inputValue(), /^127\.0\.0\.0\/29 · /);
  await dialog.getByLabel('Name').fill('Loopback lab');
  await dialog.getByLabel('Notes').fill('The probe talking to itself.');
  await dialog.getByRole('button', { name: 'Save session' }).click();
  await page.waitForURL(/\/discovery\/sessions\/[0-9a-f-]{36}$/);
  sessionUrl = new URL(page.url()).pathname;
  await page.getByRole('heading', { name: 'Loopback lab', level: 1 }).waitFor();
  await page.getByRole('table', { name: 'Nodes' }).waitFor();
  assert.equal(await page.getByRole('table', { name: 'Nodes' }).locator('tbody tr').count(), 6);
  await page.getByRole('table', { name: 'Nodes' }).getByText('ip-127.0.0.1', { exact: true }).waitFor();
  await page.getByText('The probe talking to itself.').waitFor();
  assert.equal(await page.getByRole('link', { name: /^Scan of 127\.0\.0\.0\/29,/ }).getAttribute('href'), `/discovery?job=${job}`);
  await photograph(p, sessionUrl, 'discovery-session', 'Loopback lab');

  // The list of sessions.
  await page.getByRole('link', { name: 'Sessions', exact: true }).click();
  await page.getByRole('heading', { name: 'Discovery', level: 1 }).waitFor();
  const row = page.getByRole('row', { name: /Loopback lab/ });
  await row.getByText('127.0.0.0/29').waitFor();
  assert.equal((await row.locator('td.num').allInnerTexts()).map((s) => s.trim()).join(' '), '6 0');
  await photograph(p, '/discovery/sessions', 'discovery-sessions', 'Discovery');
  assertClean(p, 'a scan saved as a session');
});

test('a newer, smaller scan merged into the session marks the nodes it did not see missing', async () => {
  const { page } = p;
  await page.goto('/discovery');
  await startScan('127.0.0.0/30');
  await runCard().getByText('Completed', { exact: true }).first().waitFor({ timeout: 60_000 });
  await page.getByRole('link', { name: 'Hosts (2)' }).waitFor();

  await page.goto(sessionUrl);
  await page.getByRole('button', { name: 'Merge a newer scan' }).click();
  const dialog = page.getByRole('dialog', { name: 'Merge a newer scan' });
  // The newest kept scan is offered first (none of the session's own subnet but its own).
  assert.match(await dialog.getByLabel('Scan').locator('option:checked').innerText(), /^127\.0\.0\.0\/30/);
  await dialog.getByRole('button', { name: 'Merge' }).click();
  await dialog.waitFor({ state: 'detached' });
  await page.getByText('Merged the scan: 0 new, 4 missing').waitFor();
  await page.getByRole('button', { name: /^Missing/ }).click();
  await page.waitForFunction(() => document.querySelectorAll('table tbody tr.disc-node-missing').length === 4);
  assert.equal(await page.getByRole('table', { name: 'Nodes' }).locator('tbody tr').count(), 4);
  await page.getByRole('table', { name: 'Nodes' }).getByText('ip-127.0.0.6', { exact: true }).waitFor();
  await screenshot(page, 'discovery-session-merged');

  // Rename.
  await page.getByRole('button', { name: 'Edit' }).click();
  const edit = page.getByRole('dialog', { name: 'Edit Loopback lab' });
  await edit.getByLabel('Name').fill('Loopback lab, merged');
  await edit.getByRole('button', { name: 'Save' }).click();
  await page.getByRole('heading', { name: 'Loopback lab, merged', level: 1 }).waitFor();
  assertClean(p, 'a merged session');
});

test('a larger scan fills the table live; Cancel stops it and what it found is kept', async () => {
  const { page } = p;
  await page.goto('/discovery');
  // 4,094 loopback addresses: identifying them takes a few seconds, time to see the table fill and cancel.
  await startScan('127.0.16.0/20');
  const cancel = runCard().getByRole('button', { name: 'Cancel scan' });
  await cancel.waitFor();
  // The form folds away while a scan is on the page, and opens again.
  assert.equal(await page.getByRole('button', { name: 'New scan' }).getAttribute('aria-expanded'), 'false');
  await runCard().getByText('Identifying hosts').waitFor({ timeout: 30_000 });
  await hostRows().first().waitFor();
  await screenshot(page, 'discovery-scan-running');
  await cancel.click();
  await runCard().getByText('Cancelled', { exact: true }).first().waitFor({ timeout: 30_000 });
  await page.getByRole('button', { name: 'New scan' }).click();
  await page.getByRole('button', { name: 'Start scan' }).waitFor();
  assert.equal(await page.getByLabel('Subnet').inputValue(), '127.0.16.0/20');
  await page.getByRole('button', { name: 'Hide' }).click();
  await screenshot(page, 'discovery-scan-cancelled');
  assertClean(p, 'a cancelled scan');
});

test('an SNMP agent on 127.0.0.5:161 identified with a saved discovery credential, named by reference', async (t) => {
  let sim: Simulator;
  try {
    sim = await startSimulator([{ file: RECORDING, name: 'access-sw1', community: COMMUNITY, host: '127.0.0.5', port: 161 }]);
  } catch (e) {
    // UDP 161 needs root (or CAP_NET_BIND_SERVICE), and no agent of the machine on it.
    t.skip(`UDP port 161 on 127.0.0.5 is not available here: ${(e as Error).message}`);
    return;
  }
  try {
    const api = (method: string, path: string, body?: unknown) => env.t.request(method, path, { key: admin.key, body });
    const vault = await api('POST', '/api/brain/vault/setup', { passphrase: 'E2e-Discovery-Vault-Passphrase-9' });
    assert.equal(vault.status, 200, vault.text);
    const cred = await api('POST', '/api/brain/credentials', { scope: ['127.0.0.0/8'], name: 'Lab switches v2c', kind: 'snmp_v2c', community: COMMUNITY });
    assert.equal(cred.status, 201, cred.text);
    const saved = await api('POST', '/api/v1sion/credentials', { credentials: [{ credential_id: cred.body.id }] });
    assert.equal(saved.status, 200, saved.text);

    const { page } = p;
    await page.goto('/discovery');
    const list = page.getByRole('list', { name: 'Saved discovery credentials' });
    await list.getByRole('link', { name: `${cred.body.short_id} Lab switches v2c` }).waitFor();
    assert.ok(await page.getByRole('switch', { name: 'Also try the saved discovery credential' }).isChecked());
    // A wrong community typed in is tried first; the saved credential is the one the agent answers.
    await page.getByLabel('Community').fill('a-wrong-community-typed-in');
    await screenshot(page, 'discovery-scan-form-saved');
    await startScan('127.0.0.4/30', true);
    await runCard().getByText('Completed', { exact: true }).first().waitFor({ timeout: 60_000 });
    const agent = page.getByRole('row', { name: /127\.0\.0\.5/ });
    await agent.getByRole('link', { name: `${cred.body.short_id} Lab switches v2c` }).waitFor();
    assert.match(await agent.innerText(), /Cisco/);
    await agent.locator('.disc-src-snmp').waitFor();
    assert.match(await runCard().locator('.disc-facts').innerText(), /SNMP agents\s+1/);
    const stored = await page.evaluate(() => JSON.stringify({ ...sessionStorage }) + JSON.stringify({ ...localStorage }) + location.href);
    assert.doesNotMatch(stored, /a-wrong-community-typed-in|e2e-discovery-community/);
    await photograph(p, page.url().replace(env.url, ''), 'discovery-scan-snmp', 'Discovery');
    await page.getByRole('link', { name: /^Devices/ }).click();
    await page.getByRole('table', { name: 'Devices' }).getByText('Switch', { exact: true }).first().waitFor();
    await screenshot(page, 'discovery-scan-snmp-devices');
    await page.getByRole('link', { name: /^Links/ }).click();
    await page.waitForURL(/view=links/);
    await screenshot(page, 'discovery-scan-snmp-links');
    assertClean(p, 'a scan with SNMP');
  } finally {
    await sim.stop();
  }
});

test('refusals: a subnet with host bits beside the field, and 198.51.100.0/24 with its 403 detail', async () => {
  const { page } = p;
  await page.goto('/discovery');
  await page.getByLabel('Subnet').fill('10.0.0.5/24');
  await page.getByRole('switch', { name: 'Identify SNMP agents' }).uncheck();
  await page.getByRole('button', { name: 'Start scan' }).click();
  const subnetError = page.locator('.field', { has: page.getByLabel('Subnet') }).locator('.field-error');
  await subnetError.waitFor();
  assert.equal(await page.getByLabel('Subnet').getAttribute('aria-invalid'), 'true');

  // A documentation range: the service refuses it before sending anything.
  await page.getByLabel('Subnet').fill('198.51.100.0/24');
  await page.getByRole('button', { name: 'Start scan' }).click();
  const alert = page.locator('form .alert-error');
  await alert.waitFor();
  assert.match(await alert.innerText(), /198\.51\.100\.0\/24 is outside the ranges.*discovery\.allowed_ranges/s);
  assert.doesNotMatch(page.url(), /job=/);
  await screenshot(page, 'discovery-scan-refused');
  assert.equal(env.t.service.app.jobs.list('v1sion.scan').filter((j) => j.meta?.subnet === '198.51.100.0/24').length, 0);
  assertClean(p, 'refused scans', ['POST /api/v1sion/scan 400', 'POST /api/v1sion/scan 403']);
});
