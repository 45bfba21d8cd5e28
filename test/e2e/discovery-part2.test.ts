// Discovery, part 2 in a real browser: SSH targets, SSH enrichment, documented routes and the inventory
// comparison. Everything stays on loopback: a Cisco-like CLI over SSH on 127.0.0.1 (test/helpers/
// fake-cli-ssh.ts, answering the IOS samples of test/fixtures/ssh/cisco_ios/), scans of 127.0.0.0/29
// without SNMP, and reverse DNS off in the service's config.yaml. An SSH target is added through the form
// (only SSH credentials are offered), enriched (its facts shown: identity, interfaces, routes, LLDP),
// edited, refused when its host key changes (both fingerprints shown; an operator is told only an
// administrator may clear the pin; the administrator clears it and the next enrichment pins the new key)
// and deleted. A scan's "Compare with inventory" shows six new devices and "Create all new" (confirmed
// with its count) makes six endpoints, after which they match by address and are not linked (a loopback
// device has nothing a scan remembers a link by); the scan saved as a session is enriched over SSH (the node on
// 127.0.0.1 shows its facts, the others fail as refused), a route of its facts is imported as the node's
// own, a route documented in the form draws a layer-3 edge, and the session compared with the inventory
// has its nodes matched by address. Routes: created with an endpoint picked in the form, listed, filtered
// by an address they contain and by source, a duplicate refused with the API's 409, edited, deleted.
// Every page is checked for console errors, labelled controls and the 375 px layout, and photographed
// (test/e2e/screenshots/discovery2-*).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { PLATFORM_DEFS } from '../../src/modules/v1sion/enrich-ssh/platforms/index.js';
import { startFakeCli, type FakeCli } from '../helpers/fake-cli-ssh.js';
import { startSimulator, type Simulator } from '../helpers/snmp-sim.js';
import {
  assertClean, openPage, photograph, screenshot, signIn, startSignedIn, type UiEnv, type UiPage,
} from './helpers/browser.js';

const PASSWORD = 'fake-cli-E2e-Secret-4b7d';
const RECORDING = new URL('../fixtures/snmprec/linux-netsnmp-debian.snmprec', import.meta.url).pathname;
const COMMUNITY = 'e2e-routes-community';
const IOS = new URL('../fixtures/ssh/cisco_ios/', import.meta.url).pathname;
const outputs = Object.fromEntries(PLATFORM_DEFS.cisco_ios.commands.map((c) => [c.command, readFileSync(join(IOS, `${c.name}.txt`), 'utf8')]));

let env: UiEnv;
let admin: { username: string; password: string; key: string };
let p: UiPage;
let fake: FakeCli;
const cred: Record<string, { id: string; short_id: string }> = {};
let targetPath = '';
let jobId = '';
let sessionPath = '';

const api = async (method: string, path: string, body?: unknown) => {
  const r = await env.t.request(method, path, { key: admin.key, body });
  assert.ok(r.status < 300, `${method} ${path}: ${r.status} ${r.text}`);
  return r.body;
};

before(async () => {
  fake = await startFakeCli({ username: 'netops', password: PASSWORD, hostname: 'access-sw1', outputs });
  ({ env, admin, p } = await startSignedIn(async (started, a) => {
    // Loopback scans must not ask the machine's resolver for names; the configuration is read again.
    await writeFile(join(started.t.dataDir, 'config.yaml'), 'discovery:\n  reverse_dns: false\n');
    const config = await started.t.service.app.config.reload();
    assert.equal(config.discovery.reverse_dns, false);
    const call = (method: string, path: string, body?: unknown) => started.t.request(method, path, { key: a.key, body });
    assert.equal((await call('POST', '/api/brain/vault/setup', { passphrase: 'E2e-Discovery-Two-Vault-Passphrase' })).status, 200);
    for (const [name, body] of [['Switch CLI', { kind: 'ssh_password', username: 'netops', password: PASSWORD }],
      ['Lab SNMP', { kind: 'snmp_v2c', community: 'e2e-not-for-ssh' }]] as const) {
      const r = await call('POST', '/api/brain/credentials', { scope: ['10.77.0.0/16', '127.0.0.0/8'], name, ...body });
      assert.equal(r.status, 201, r.text);
      cred[name] = { id: r.body.id, short_id: r.body.short_id };
    }
  }));
});

after(async () => {
  await p?.context.close();
  await env?.close();
  await fake?.close();
});

const card = (title: string | RegExp) => p.page.locator('section.card', { has: p.page.getByRole('heading', { name: title, level: 2 }) });

test('SSH targets: added in the form with an SSH credential, enriched over the CLI on loopback, facts shown, edited', async () => {
  const { page } = p;
  await page.goto('/discovery');
  await page.getByRole('navigation', { name: 'Discovery views' }).getByRole('link', { name: 'SSH targets' }).click();
  await page.waitForURL(/\/discovery\/ssh-targets$/);
  await page.getByRole('heading', { name: 'No SSH targets yet' }).waitFor();
  await photograph(p, '/discovery/ssh-targets', 'discovery2-ssh-targets-empty', 'Discovery');

  await page.getByRole('button', { name: 'Add target' }).first().click();
  const dialog = page.getByRole('dialog', { name: 'Add an SSH target' });
  await dialog.getByLabel('Name').fill('access-sw1');
  await dialog.getByLabel('Host', { exact: true }).fill('127.0.0.1');
  await dialog.getByLabel('Port').fill(String(fake.port));
  // Only the SSH credential is offered, never the SNMP one.
  const options = await dialog.getByLabel('Credential').locator('option').allInnerTexts();
  assert.ok(options.some((o) => o.includes('Switch CLI') && o.includes('netops')), options.join(' | '));
  assert.ok(!options.some((o) => o.includes('Lab SNMP')), options.join(' | '));
  await dialog.getByLabel('Credential').selectOption(cred['Switch CLI']!.id);
  await dialog.getByLabel('Tags').fill('lab');
  await dialog.getByLabel('Tags').press('Enter');
  await screenshot(page, 'discovery2-ssh-target-form');
  await dialog.getByRole('button', { name: 'Add target' }).click();
  await page.waitForURL(/\/discovery\/ssh-targets\/[0-9a-f-]{36}$/);
  targetPath = new URL(page.url()).pathname;
  await page.getByRole('heading', { name: 'access-sw1', level: 1 }).waitFor();
  await page.getByRole('heading', { name: 'Not enriched yet' }).waitFor();
  await card('Host key').getByText('Not pinned yet').waitFor();

  // Enrich now: followed on the page, then the facts.
  await page.getByRole('button', { name: 'Enrich now' }).first().click();
  await page.waitForURL(/enrich=[0-9a-f-]{36}/);
  const progress = card('SSH enrichment');
  await progress.getByText('Finished', { exact: true }).waitFor({ timeout: 30_000 });
  await progress.getByText('Enriched', { exact: true }).waitFor();
  const facts = card('What the device said');
  await facts.getByText('WS-C2960X-48FPD-L').first().waitFor();
  assert.match(await facts.locator('.disc-kv').innerText(), /access-sw1[\s\S]*Cisco IOS[\s\S]*told by the SSH banner[\s\S]*FOC2101X0AB/);
  assert.equal(await facts.getByRole('table', { name: 'Interfaces' }).locator('tbody tr').count(), 5);
  await facts.getByRole('button', { name: /^Routes/ }).click();
  assert.equal(await facts.getByRole('table', { name: 'Routes' }).locator('tbody tr').count(), 7);
  await facts.getByRole('table', { name: 'Routes' }).getByText('10.78.0.0/16').waitFor();
  await facts.getByRole('button', { name: /^LLDP and CDP/ }).click();
  await facts.getByRole('table', { name: 'LLDP and CDP neighbours' }).getByText('sw2', { exact: true }).first().waitFor();
  assert.equal(await card('Host key').locator('.disc-fp').innerText(), fake.fingerprint);
  await facts.getByRole('button', { name: /^Routes/ }).click();
  await photograph(p, targetPath, 'discovery2-ssh-target', 'access-sw1');

  // The list: address, platform found, credential by name, pinned key, last enriched.
  await page.getByRole('link', { name: 'SSH targets' }).first().click();
  await page.waitForURL(/\/discovery\/ssh-targets$/);
  const row = page.getByRole('row', { name: /access-sw1/ });
  assert.match(await row.innerText(), new RegExp(`127\\.0\\.0\\.1:${fake.port}[\\s\\S]*Cisco IOS / IOS XE[\\s\\S]*Detected automatically[\\s\\S]*${cred['Switch CLI']!.short_id} Switch CLI[\\s\\S]*SHA256:`));
  await row.getByText('just now').first().waitFor();
  await photograph(p, '/discovery/ssh-targets', 'discovery2-ssh-targets', 'Discovery');

  // Edit: a new name and a second tag; the tag filter.
  await row.getByRole('button', { name: 'Edit access-sw1' }).click();
  const edit = page.getByRole('dialog', { name: 'Edit access-sw1' });
  await edit.getByLabel('Name').fill('Access switch 1');
  await edit.getByLabel('Tags').fill('floor-1');
  await edit.getByLabel('Tags').press('Enter');
  await edit.getByRole('button', { name: 'Save' }).click();
  await edit.waitFor({ state: 'detached' });
  await page.getByRole('row', { name: /Access switch 1/ }).waitFor();
  await page.getByRole('link', { name: 'Only targets tagged floor-1' }).click();
  await page.waitForURL(/tag=floor-1/);
  await page.getByRole('row', { name: /Access switch 1/ }).waitFor();
  assertClean(p, 'an SSH target added, enriched and edited');
});

test('a changed host key is refused with both fingerprints; only an administrator clears the pin; the next enrichment pins the new key', async () => {
  const { page } = p;
  const pinned = fake.fingerprint;
  await fake.restart();
  assert.notEqual(fake.fingerprint, pinned);
  await page.goto('/discovery/ssh-targets');
  await page.getByRole('button', { name: 'Enrich now: Access switch 1' }).click();
  const progress = card('SSH enrichment');
  await progress.getByText('Failed', { exact: true }).waitFor({ timeout: 30_000 });
  await progress.getByText(pinned).first().waitFor();
  await page.getByRole('row', { name: /Access switch 1/ }).getByText('Host key changed').waitFor();
  await screenshot(page, 'discovery2-ssh-targets-key-changed');

  // An operator sees the refusal, and that clearing the pin is an administrator's.
  const op = await env.t.user('operator');
  const other = await openPage(env);
  await signIn(other.page, op.username, op.password);
  await other.page.goto(targetPath);
  const alertBox = other.page.getByRole('alert').filter({ hasText: 'The host key changed' });
  await alertBox.waitFor();
  assert.match(await alertBox.innerText(), new RegExp(`Pinned\\s+${pinned.replace(/[+/]/g, '\\$&')}[\\s\\S]*Presented\\s+${fake.fingerprint.replace(/[+/]/g, '\\$&')}`));
  await alertBox.getByText('an administrator can clear the pin').waitFor();
  assert.equal(await other.page.getByRole('button', { name: 'Clear pinned host key' }).count(), 0);
  await other.context.close();

  // The administrator clears it (after a confirmation) and enriches again.
  await page.goto(targetPath);
  await page.getByRole('alert').filter({ hasText: 'The host key changed' }).waitFor();
  await screenshot(page, 'discovery2-ssh-target-key-changed');
  await card('Host key').getByRole('button', { name: 'Clear pinned host key' }).click();
  const confirmBox = page.getByRole('dialog', { name: /Clear the pinned host key/ });
  await confirmBox.getByText(pinned).waitFor();
  await confirmBox.getByRole('button', { name: 'Clear the pin' }).click();
  await card('Host key').getByText('Not pinned yet').waitFor();
  await page.getByRole('button', { name: 'Enrich now' }).first().click();
  await card('SSH enrichment').getByText('Finished', { exact: true }).waitFor({ timeout: 30_000 });
  await page.waitForFunction((fp) => document.querySelector('.disc-fp')?.textContent === fp, fake.fingerprint);
  await page.getByRole('alert').filter({ hasText: 'The host key changed' }).waitFor({ state: 'detached' });
  const audit = await api('GET', '/api/audit-log?limit=200');
  assert.ok(audit.items.some((e: any) => e.action === 'v1sion.ssh_host_key_clear'));

  // A second target deleted from the list, after a confirmation.
  await api('POST', '/api/v1sion/ssh-targets', { name: 'old-router', host: '127.0.0.9', credential_id: cred['Switch CLI']!.id });
  await page.goto('/discovery/ssh-targets');
  await page.getByRole('button', { name: 'Delete old-router' }).click();
  await page.getByRole('dialog', { name: 'Delete old-router?' }).getByRole('button', { name: 'Delete' }).click();
  await page.getByText('Deleted old-router').waitFor();
  await page.getByRole('row', { name: /old-router/ }).waitFor({ state: 'detached' });
  assertClean(p, 'a changed host key');
});

test('a scan compared with the inventory: six new devices, "Create all new" makes six endpoints', async () => {
  const { page } = p;
  await page.goto('/discovery');
  await page.getByLabel('Subnet').fill('127.0.0.0/29');
  await page.getByRole('switch', { name: 'Identify SNMP agents' }).setChecked(false);
  await page.getByRole('button', { name: 'Start scan' }).click();
  await page.waitForURL(/\/discovery\?job=[0-9a-f-]{36}/);
  jobId = new URL(page.url()).searchParams.get('job')!;
  await page.locator('section.disc-run').getByText('Completed', { exact: true }).first().waitFor({ timeout: 60_000 });

  // No SNMP, no routing tables: nothing offered.
  await page.getByRole('link', { name: 'Offered routes (0)' }).click();
  await page.getByRole('heading', { name: 'No routes offered' }).waitFor();

  await page.getByRole('link', { name: 'Compare with inventory' }).click();
  await page.waitForURL(/view=inventory/);
  const list = page.getByRole('list', { name: 'New devices' });
  await list.waitFor();
  assert.equal(await list.locator(':scope > li').count(), 6);
  assert.match(await page.locator('.stat-tiles').innerText(), /New\s+6[\s\S]*Matched, not linked\s+0[\s\S]*Changed\s+0[\s\S]*Unchanged\s+0/);
  await list.locator(':scope > li').first().getByRole('heading', { name: '127.0.0.1' }).waitFor();
  await photograph(p, `/discovery?job=${jobId}&view=inventory`, 'discovery2-scan-inventory', 'Discovery');

  await page.getByRole('button', { name: 'Create all new (6)' }).click();
  await page.getByRole('dialog', { name: 'Create 6 endpoints in the inventory?' }).getByRole('button', { name: 'Create 6 endpoints' }).click();
  const results = page.locator('section.disc-rc-results');
  await results.getByRole('heading', { name: 'Create all new: 6 created' }).waitFor();
  assert.equal(await results.getByRole('table', { name: 'What was done' }).locator('tbody tr').count(), 6);
  assert.equal(await results.getByText('Created', { exact: true }).count(), 6);
  // Loopback devices have no MAC, serial or engine ID: a scan cannot remember a link, they match by address again.
  await page.getByRole('button', { name: /^Matched, not linked\s*6/ }).waitFor();
  await screenshot(page, 'discovery2-scan-inventory-created');
  const endpoints = await api('GET', '/api/brain/endpoints?limit=50');
  assert.equal(endpoints.total, 6);
  assert.deepEqual(endpoints.items.map((e: any) => e.ip_addresses[0]).sort(),
    ['127.0.0.1', '127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5', '127.0.0.6']);
  await page.getByRole('button', { name: /^Matched, not linked/ }).click();
  const unlinked = page.getByRole('list', { name: 'Matched, not linked devices' });
  assert.equal(await unlinked.locator(':scope > li').count(), 6);
  await unlinked.getByText('by management address').first().waitFor();
  await unlinked.getByText(/Nothing identifies this device across scans/).first().waitFor();
  await page.getByRole('button', { name: /^Missing/ }).click();
  await page.getByRole('heading', { name: 'Nothing missing' }).waitFor();
  assertClean(p, 'a scan compared with the inventory');
});

test('the scan saved as a session, enriched over SSH: the node on 127.0.0.1 shows its facts; a route imported and one drawn as a layer-3 edge', async () => {
  const { page } = p;
  await page.goto(`/discovery?job=${jobId}`);
  await page.getByRole('button', { name: 'Save as topology session' }).click();
  const save = page.getByRole('dialog', { name: 'Save as topology session' });
  await save.getByLabel('Name').fill('Loopback part 2');
  await save.getByRole('button', { name: 'Save session' }).click();
  await page.waitForURL(/\/discovery\/sessions\/[0-9a-f-]{36}$/);
  sessionPath = new URL(page.url()).pathname;
  const sessionId = sessionPath.split('/').pop()!;
  await page.getByRole('heading', { name: 'Loopback part 2', level: 1 }).waitFor();

  await page.getByRole('button', { name: 'Enrich over SSH' }).click();
  const dialog = page.getByRole('dialog', { name: 'Enrich over SSH' });
  await dialog.getByLabel('Credential').selectOption(cred['Switch CLI']!.id);
  await dialog.getByLabel('SSH port').fill(String(fake.port));
  await screenshot(page, 'discovery2-session-enrich-form');
  await dialog.getByRole('button', { name: 'Enrich 6 devices' }).click();
  await page.waitForURL(/enrich=[0-9a-f-]{36}/);
  const progress = card("SSH enrichment of this session's nodes");
  await progress.getByText('Finished', { exact: true }).waitFor({ timeout: 60_000 });
  assert.match(await progress.getByRole('status').innerText(), /1 enriched, 5 failed/);
  await progress.getByRole('listitem').filter({ hasText: '127.0.0.2' }).getByText('Failed', { exact: true }).waitFor();
  await screenshot(page, 'discovery2-session-enriching');
  const nodes = page.getByRole('table', { name: 'Nodes' });
  const node = nodes.getByRole('row', { name: /ip-127\.0\.0\.1\b/ });
  await node.getByRole('button', { name: /^Facts of .* over SSH$/ }).waitFor();
  assert.match(await node.innerText(), /access-sw1/);
  assert.match(await page.locator('.stat-tiles').innerText(), /Enriched over SSH\s+1/);
  await photograph(p, sessionPath, 'discovery2-session-enriched', 'Loopback part 2');

  // The node's facts, and one of its routes documented as the node's own.
  await node.getByRole('button', { name: /^Facts of .* over SSH$/ }).click();
  const facts = page.getByRole('dialog', { name: /what the device said/ });
  await facts.getByText('WS-C2960X-48FPD-L').first().waitFor();
  await facts.getByRole('button', { name: /^Routes/ }).click();
  await facts.getByRole('button', { name: 'Import the route to 10.79.0.0/16' }).click();
  await facts.getByRole('row', { name: /10\.79\.0\.0\/16/ }).getByText('Imported').waitFor();
  await screenshot(page, 'discovery2-session-node-facts');
  await facts.getByRole('button', { name: 'Close' }).first().click();
  const imported = await api('GET', '/api/v1sion/routes?source=ssh');
  assert.equal(imported.total, 1);
  assert.deepEqual([imported.items[0].destination, imported.items[0].next_hop, imported.items[0].device.node_id],
    ['10.79.0.0/16', '10.77.0.3', 'ip-127.0.0.1']);

  // A route of node 127.0.0.1 through 127.0.0.2, documented in the form: a layer-3 edge.
  await page.goto('/discovery/routes');
  await page.getByRole('button', { name: 'Add route' }).first().click();
  const form = page.getByRole('dialog', { name: 'Document a route' });
  await form.getByLabel('Destination').fill('10.99.0.0/16');
  await form.getByLabel('Next hop').fill('127.0.0.2');
  await form.getByLabel('Device that holds the route').selectOption('session_node');
  await form.getByLabel('Session').selectOption(sessionId);
  await form.getByLabel('Node').selectOption('ip-127.0.0.1');
  await form.getByRole('button', { name: 'Add route' }).click();
  await form.waitFor({ state: 'detached' });
  await page.getByRole('row', { name: /10\.99\.0\.0\/16/ }).getByText('Session node').waitFor();
  await page.goto(sessionPath);
  const l3 = page.getByRole('table', { name: 'Layer-3 edges' });
  await l3.waitFor();
  assert.match(await l3.locator('tbody tr').first().innerText(), /127\.0\.0\.1[\s\S]*127\.0\.0\.2[\s\S]*10\.99\.0\.0\/16/);
  await screenshot(page, 'discovery2-session-l3');

  // The session against the inventory: the enriched node now says more than its endpoint (vendor, model, serial,
  // OS), field by field; the vendor a person typed into the endpoint is kept. The other nodes match by address.
  const ep = (await api('GET', '/api/brain/endpoints?limit=50')).items.find((e: any) => e.ip_addresses[0] === '127.0.0.1');
  await api('PUT', `/api/brain/endpoints/${ep.id}`, { vendor: 'Typed by hand' });
  await page.getByRole('link', { name: 'Compare with inventory' }).click();
  await page.getByRole('heading', { name: 'Compare with inventory', level: 1 }).waitFor();
  // Matched by address, not linked: all six; the enriched one with the fields that differ.
  const unlinked = page.getByRole('list', { name: 'Matched, not linked devices' });
  await unlinked.waitFor();
  assert.equal(await unlinked.locator(':scope > li').count(), 6);
  const item = unlinked.locator(':scope > li').filter({ has: page.getByRole('heading', { name: '127.0.0.1', exact: true }) });
  await item.getByText('by management address').waitFor();
  await item.getByText(/^\d+ fields? differs?$/).waitFor();
  const fields = item.getByRole('table', { name: 'Fields that differ' });
  assert.match(await fields.getByRole('row', { name: /^Vendor/ }).innerText(), /Typed by hand[\s\S]*Cisco[\s\S]*Kept: set by hand/);
  assert.match(await fields.getByRole('row', { name: /^Serial number/ }).innerText(), /Empty[\s\S]*FOC2101X0AB[\s\S]*Writes it/);
  await photograph(p, `${sessionPath}/inventory`, 'discovery2-session-inventory', 'Compare with inventory');
  // "Link to another…" offers the match first, and any endpoint by search.
  await item.getByRole('button', { name: 'Link to another record: 127.0.0.1' }).click();
  const link = page.getByRole('dialog', { name: 'Link 127.0.0.1 to…' });
  assert.match(await link.getByRole('radio', { checked: true }).locator('xpath=..').innerText(), new RegExp(`${ep.short_id}[\\s\\S]*matched on management address`));
  assert.equal(await link.getByRole('radio').count(), 6);
  await screenshot(page, 'discovery2-link-dialog');
  await link.getByRole('button', { name: 'Cancel' }).click();
  await item.getByRole('button', { name: `Link to ${ep.short_id}: 127.0.0.1` }).click();
  const results = page.locator('section.disc-rc-results');
  await results.getByText('Linked', { exact: true }).waitFor();
  assert.match(await results.innerText(), /Wrote [^\n]*Serial number[\s\S]*Kept \(set by hand\): Vendor/);
  const after = await api('GET', `/api/brain/endpoints/${ep.id}`);
  assert.deepEqual([after.vendor, after.serial_number], ['Typed by hand', 'FOC2101X0AB']);
  // Linked now (on the session's node): among the changed ones; only the hand-set vendor still differs, and a
  // link never writes it.
  await page.getByRole('button', { name: /^Changed\s*1/ }).click();
  const changed = page.getByRole('list', { name: 'Changed devices' });
  const linked = changed.locator(':scope > li').first();
  await linked.getByText('Linked to').waitFor();
  assert.equal(await linked.getByRole('button', { name: /^Write/ }).count(), 0);
  assert.equal(await linked.getByRole('table', { name: 'Fields that differ' }).locator('tbody tr').count(), 1);
  assert.equal(await unlinked.locator(':scope > li').count(), 0, 'the unlinked list is not shown now');
  await screenshot(page, 'discovery2-session-inventory-linked');
  assertClean(p, 'a session enriched over SSH');
});

test('routes: documented with an endpoint picked in the form, listed, filtered by address and source; a duplicate is the 409; edited and deleted', async () => {
  const { page } = p;
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Discovery' }).click();
  await page.getByRole('navigation', { name: 'Discovery views' }).getByRole('link', { name: 'Routes' }).click();
  await page.waitForURL(/\/discovery\/routes$/);
  await page.getByRole('table', { name: 'Routes' }).waitFor();

  const add = async (destination: string, nextHop: string) => {
    await page.getByRole('button', { name: 'Add route' }).first().click();
    const form = page.getByRole('dialog', { name: 'Document a route' });
    await form.getByLabel('Destination').fill(destination);
    await form.getByLabel('Next hop').fill(nextHop);
    await form.getByLabel('Device that holds the route').selectOption('endpoint');
    await form.getByLabel('Search endpoint').fill('127.0.0.3');
    await form.getByRole('radio').nth(1).waitFor({ state: 'detached' });
    await form.getByRole('radio', { name: /EP-\d+ .*127\.0\.0\.3/ }).check();
    await form.getByLabel('Interface').fill('Vlan20');
    await form.getByLabel('Metric').fill('20');
    await form.getByLabel('Note').fill('Towards the lab servers.');
    return form;
  };
  const form = await add('10.20.0.0/16', '10.77.0.3');
  await screenshot(page, 'discovery2-route-form');
  await form.getByRole('button', { name: 'Add route' }).click();
  await form.waitFor({ state: 'detached' });
  const row = page.getByRole('row', { name: /10\.20\.0\.0\/16/ });
  assert.match(await row.innerText(), /10\.77\.0\.3[\s\S]*EP-\d+[\s\S]*Endpoint[\s\S]*Vlan20[\s\S]*20[\s\S]*Manual/);

  // The same device, destination and next hop again: the API's 409, as the form's problem.
  const again = await add('10.20.0.0/16', '10.77.0.3');
  await again.getByRole('button', { name: 'Add route' }).click();
  await again.locator('.alert-error').waitFor();
  await screenshot(page, 'discovery2-route-duplicate');
  await again.getByRole('button', { name: 'Cancel' }).click();

  // Filters: an address the destination holds (sent once it is whole), and the source.
  const contains = page.getByLabel('Routes to an address');
  await contains.fill('10.20.');
  await page.getByText('Type a whole IPv4 or IPv6 address.').waitFor();
  await contains.fill('10.20.5.1');
  await page.waitForFunction(() => document.querySelectorAll('table tbody tr').length === 1);
  await page.getByRole('row', { name: /10\.20\.0\.0\/16/ }).waitFor();
  await contains.fill('10.30.0.1');
  await page.getByRole('heading', { name: 'No route matches' }).waitFor();
  await contains.fill('');
  await page.getByLabel('Source').selectOption('ssh');
  await page.waitForURL(/source=ssh/);
  await page.getByRole('row', { name: /10\.79\.0\.0\/16/ }).waitFor();
  assert.equal(await page.getByRole('table', { name: 'Routes' }).locator('tbody tr').count(), 1);
  await page.getByLabel('Source').selectOption('');
  await page.waitForFunction(() => document.querySelectorAll('table tbody tr').length === 3);
  await photograph(p, '/discovery/routes', 'discovery2-routes', 'Discovery');

  // Edit the metric; delete the route.
  await page.getByRole('button', { name: 'Edit the route to 10.20.0.0/16' }).click();
  const edit = page.getByRole('dialog', { name: 'Edit the route to 10.20.0.0/16' });
  assert.match(await edit.getByRole('radio', { checked: true }).locator('xpath=..').innerText(), /EP-\d+/);
  await edit.getByLabel('Metric').fill('30');
  await edit.getByRole('button', { name: 'Save' }).click();
  await edit.waitFor({ state: 'detached' });
  await page.getByRole('row', { name: /10\.20\.0\.0\/16/ }).getByText('30', { exact: true }).waitFor();
  await page.getByRole('button', { name: 'Delete the route to 10.20.0.0/16' }).click();
  await page.getByRole('dialog', { name: 'Delete the route to 10.20.0.0/16?' }).getByRole('button', { name: 'Delete' }).click();
  await page.getByText('Deleted the route to 10.20.0.0/16').waitFor();
  await page.getByRole('row', { name: /10\.20\.0\.0\/16/ }).waitFor({ state: 'detached' });
  assertClean(p, 'routes', ['POST /api/v1sion/routes 409']);
});

test('a scan\'s offered routes imported: without a device, then as the routes of the endpoint the device is linked to; twice is the 409', async (t) => {
  // A Linux router on 127.0.0.13:161: the Net-SNMP recording, layer 3 by sysServices, with an ipCidrRouteTable.
  const CIDR = '1.3.6.1.2.1.4.24.4.1';
  const rows: [string, number, number, number, number][] = [
    ['0.0.0.0.0.0.0.0.0.10.77.0.254', 2, 4, 3, 0], ['10.20.0.0.255.255.0.0.0.10.77.0.3', 2, 4, 13, 20],
    ['10.77.0.0.255.255.255.0.0.0.0.0.0', 2, 3, 2, 0],
  ];
  const text = [
    ...readFileSync(RECORDING, 'utf8').split('\n').filter((l) => l && !l.startsWith('1.3.6.1.2.1.1.5.0|')),
    '1.3.6.1.2.1.1.5.0|4|edge-rtr', '1.3.6.1.2.1.1.7.0|2|78', `1.3.6.1.2.1.4.24.3.0|66|${rows.length}`,
    ...rows.flatMap(([ix, ifIndex, type, proto, metric]) => [`${CIDR}.5.${ix}|2|${ifIndex}`, `${CIDR}.6.${ix}|2|${type}`,
      `${CIDR}.7.${ix}|2|${proto}`, `${CIDR}.11.${ix}|2|${metric}`]),
  ].join('\n');
  let sim: Simulator;
  try {
    sim = await startSimulator([{ text, name: 'edge-rtr', community: COMMUNITY, host: '127.0.0.13', port: 161 }]);
  } catch (e) {
    // UDP 161 needs root (or CAP_NET_BIND_SERVICE).
    t.skip(`UDP port 161 on 127.0.0.13 is not available here: ${(e as Error).message}`);
    return;
  }
  try {
    const { page } = p;
    await page.goto('/discovery');
    await page.getByLabel('Subnet').fill('127.0.0.12/30');
    await page.getByRole('switch', { name: 'Identify SNMP agents' }).setChecked(true);
    await page.getByLabel('Community').fill(COMMUNITY);
    await page.getByRole('button', { name: 'Start scan' }).click();
    await page.waitForURL(/\/discovery\?job=[0-9a-f-]{36}/);
    const job = new URL(page.url()).searchParams.get('job')!;
    await page.locator('section.disc-run').getByText('Completed', { exact: true }).first().waitFor({ timeout: 60_000 });
    await page.getByRole('link', { name: /^Offered routes \(\d+\)$/ }).click();
    const table = page.getByRole('table', { name: 'Offered routes' });
    await table.waitFor();
    const row = (dest: string) => table.getByRole('row', { name: new RegExp(`^${dest.replace(/[./]/g, '\\$&')}`) });
    await row('10.20.0.0/16').getByText('Not linked to an endpoint').waitFor();
    assert.match(await row('10.20.0.0/16').innerText(), /10\.77\.0\.3[\s\S]*eth0[\s\S]*20[\s\S]*ospf[\s\S]*edge-rtr[\s\S]*Not linked to an endpoint/);

    // Not linked yet: the person picks the endpoint, or none.
    await row('10.20.0.0/16').getByRole('button', { name: /^Import the route to 10\.20\.0\.0\/16/ }).click();
    const dialog = page.getByRole('dialog', { name: 'Import the route to 10.20.0.0/16' });
    assert.ok(await dialog.getByRole('radio', { name: /No device/ }).isChecked());
    await screenshot(page, 'discovery2-scan-route-import');
    await dialog.getByRole('button', { name: 'Import route' }).click();
    await row('10.20.0.0/16').getByText('Imported').waitFor();

    // Linked through the inventory comparison: then a route imports as the endpoint's at once.
    await page.getByRole('link', { name: 'Compare with inventory' }).click();
    const item = page.getByRole('list', { name: 'New devices' }).locator(':scope > li').filter({ has: page.getByRole('heading', { name: 'edge-rtr' }) });
    await item.getByRole('button', { name: 'Create endpoint for edge-rtr' }).click();
    const created = page.locator('section.disc-rc-results');
    await created.getByText('Created', { exact: true }).waitFor();
    const short = (await created.locator('.disc-sid').first().innerText()).trim();
    await page.getByRole('link', { name: /^Offered routes/ }).click();
    await row('0.0.0.0/0').getByText(short).waitFor();
    await row('0.0.0.0/0').getByRole('button', { name: /^Import the route to 0\.0\.0\.0\/0/ }).click();
    await row('0.0.0.0/0').getByText('Imported').waitFor();
    const snmp = await api('GET', '/api/v1sion/routes?source=snmp');
    const byDest = new Map(snmp.items.map((r: any) => [r.destination, r]));
    assert.equal((byDest.get('10.20.0.0/16') as any).device, null);
    assert.deepEqual([(byDest.get('0.0.0.0/0') as any).device.short_id, (byDest.get('0.0.0.0/0') as any).next_hop], [short, '10.77.0.254']);

    // The same route again: the API's 409, said plainly on its row.
    await page.reload();
    await row('0.0.0.0/0').getByRole('button', { name: /^Import the route to 0\.0\.0\.0\/0/ }).click();
    await row('0.0.0.0/0').getByText('Already documented').waitFor();
    await row('0.0.0.0/0').getByText(/documented already/).waitFor();
    await screenshot(page, 'discovery2-scan-routes');
    await photograph(p, `/discovery?job=${job}&view=routes`, 'discovery2-scan-routes', 'Discovery');
    assertClean(p, 'offered routes imported', ['POST /api/v1sion/routes 409']);
  } finally {
    await sim.stop();
  }
});
