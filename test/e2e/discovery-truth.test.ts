// Discovery tells the truth (issue 33), in a real browser against the real service. Every scan stays on
// loopback (127.0.0.0/29, without SNMP, reverse DNS off), and the inventory holds web01 on 127.0.0.2,
// not linked to anything. The pages must:
// - list the scans the probe keeps in any new tab (not only the tab that started them), one click from
//   the result;
// - show, in the scan's host table, the inventory record each host stands for: web01 matched, not linked;
// - say "Matched, not linked" for a device a record matches but that is not linked (never "Unchanged —
//   the inventory agrees"), and confirm "Create all new" naming how many records it makes;
// - name a session's scan by subnet and time (not its UUID), say "Seen" of the nodes that scan saw, and
//   name each node's inventory record;
// - say, before an IPv6 /64 scan runs, that it is not swept and what it does instead.
// Screenshots at 1366 px and 375 px, light and dark: discovery-truth-*.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { assertClean, DESKTOP, startSignedIn, type UiEnv, type UiPage } from './helpers/browser.js';
import { photographBoth, photographHere, signedInPage } from './helpers/discovery.js';

let env: UiEnv;
let admin: { username: string; password: string; key: string };
let p: UiPage;
let jobId = '';
let web01 = { id: '', short_id: '' };
const api = async (method: string, path: string, body?: unknown) => {
  const r = await env.t.request(method, path, { key: admin.key, body });
  assert.ok(r.status < 300, `${method} ${path}: ${r.status} ${r.text}`);
  return r.body;
};

before(async () => {
  ({ env, admin, p } = await startSignedIn(async (started) => {
    // Loopback scans must not ask the machine's resolver for names; the configuration is read again.
    await writeFile(join(started.t.dataDir, 'config.yaml'), 'discovery:\n  reverse_dns: false\n');
    await started.t.service.app.config.reload();
  }));
  web01 = await api('POST', '/api/brain/endpoints', { name: 'web01', ip_addresses: ['127.0.0.2'] });
  // The scan runs through the API, as if from another browser: the page that lists it never started it.
  jobId = (await api('POST', '/api/v1sion/scan', { subnet: '127.0.0.0/29', snmp_enabled: false })).job_id;
  await (await fetch(`${env.url}/api/v1sion/scan/${jobId}/stream`, { headers: { 'x-api-key': admin.key } })).text();
  assert.equal((await api('GET', `/api/v1sion/scan/${jobId}/result`)).hosts.length, 6);
});

after(async () => {
  await p?.context.close();
  await env?.close();
});

test('a new tab lists the scans the probe keeps, each one click from its result', async () => {
  const tab = await signedInPage(env, admin, DESKTOP);
  const { page } = tab;
  await page.goto('/discovery');
  const table = page.getByRole('table', { name: 'Scans kept on this probe' });
  const row = table.getByRole('row', { name: /127\.0\.0\.0\/29/ });
  await row.getByText('Completed').waitFor();
  assert.match(await row.innerText(), /127\.0\.0\.0\/29[\s\S]*Completed[\s\S]*6[\s\S]*6/);
  await row.getByRole('link', { name: '127.0.0.0/29', exact: true }).click();
  await page.waitForURL(`**/discovery?job=${jobId}`);
  await page.locator('section.disc-run').getByText('Completed', { exact: true }).first().waitFor();
  await page.getByRole('row', { name: /^127\.0\.0\.6\b/ }).waitFor();
  assertClean(tab, 'the kept scans in a new tab');
  await tab.context.close();
  await photographBoth(p, '/discovery', 'discovery-truth-scans', 'Discovery');
  assertClean(p, 'the kept scans');
});

test("the scan's host table names the inventory record each host stands for", async () => {
  const { page } = p;
  await page.goto(`/discovery?job=${jobId}`);
  const hosts = page.getByRole('table', { name: 'Hosts found' });
  await hosts.getByRole('columnheader', { name: 'In inventory' }).waitFor();
  const web = hosts.getByRole('row', { name: /^127\.0\.0\.2\b/ });
  await web.getByRole('link', { name: `${web01.short_id} web01` }).waitFor();
  await web.getByText('Matched, not linked').waitFor();
  await hosts.getByRole('row', { name: /^127\.0\.0\.1\b/ }).getByText('Not in inventory').waitFor();
  // The filter finds a host by its record's name.
  await page.getByLabel('Filter the hosts').fill('web01');
  await page.getByText('1 of 6').waitFor();
  await page.getByLabel('Filter the hosts').fill('');
  await photographBoth(p, `/discovery?job=${jobId}`, 'discovery-truth-hosts', 'Discovery');
  assertClean(p, 'the host table');
});

test('compared with the inventory: "Matched, not linked" in plain words; "Create all new" says how many it makes', async () => {
  const { page } = p;
  await page.goto(`/discovery?job=${jobId}&view=inventory`);
  await page.getByRole('list', { name: 'New devices' }).waitFor();
  const tiles = await page.locator('.stat-tiles').innerText();
  assert.match(tiles, /New\s+5[\s\S]*Matched, not linked\s+1[\s\S]*Unchanged\s+0/);
  await page.getByRole('button', { name: /^Matched, not linked\s*1/ }).click();
  const unlinked = page.getByRole('list', { name: 'Matched, not linked devices' });
  const item = unlinked.locator(':scope > li').first();
  await item.getByRole('heading', { name: '127.0.0.2' }).waitFor();
  await item.getByText(/Matches\s+EP-\d+\s+web01/).waitFor();
  assert.doesNotMatch(await item.innerText(), /Unchanged|agrees/);
  await photographBoth(p, `/discovery?job=${jobId}&view=inventory&group=unlinked`, 'discovery-truth-unlinked', 'Discovery');

  // Create all new: a confirmation that names the count; cancelled, nothing is made.
  await page.getByRole('button', { name: 'Create all new (5)' }).click();
  const ask = page.getByRole('dialog', { name: 'Create 5 endpoints in the inventory?' });
  await ask.getByText(/127\.0\.0\.1, 127\.0\.0\.3, 127\.0\.0\.4, 127\.0\.0\.5, 127\.0\.0\.6/).waitFor();
  await photographHere(page, 'discovery-truth-create-all');
  await ask.getByRole('button', { name: 'Cancel' }).click();
  await ask.waitFor({ state: 'detached' });
  assert.equal((await api('GET', '/api/brain/endpoints')).total, 1, 'nothing was created');
  await page.getByRole('button', { name: 'Create all new (5)' }).click();
  await page.getByRole('dialog', { name: 'Create 5 endpoints in the inventory?' }).getByRole('button', { name: 'Create 5 endpoints' }).click();
  await page.locator('section.disc-rc-results').getByRole('heading', { name: 'Create all new: 5 created' }).waitFor();
  assert.equal((await api('GET', '/api/brain/endpoints')).total, 6);
  assertClean(p, 'the comparison with the inventory');
});

test('the session page names its scan by subnet and time, says "Seen" of the nodes it saw, and names their records', async () => {
  const { page } = p;
  const session = await api('POST', '/api/v1sion/sessions', { name: 'Loopback truth', scan_job_id: jobId });
  const path = `/discovery/sessions/${session.id}`;
  // web01 is linked on the session's node: the session remembers it.
  await api('POST', '/api/v1sion/brain/link', { session_id: session.id, device_id: 'ip-127.0.0.2',
    inventory: { type: 'endpoints', id: web01.short_id }, apply_fields: false });
  await page.goto(path);
  await page.getByRole('heading', { name: 'Loopback truth', level: 1 }).waitFor();
  const scan = page.getByRole('link', { name: /^Scan of 127\.0\.0\.0\/29,/ });
  await scan.waitFor();
  assert.equal(await scan.getAttribute('href'), `/discovery?job=${jobId}`);
  assert.doesNotMatch(await page.locator('main').innerText(), new RegExp(jobId), 'no scan id on the page');
  const nodes = page.getByRole('table', { name: 'Nodes' });
  const web = nodes.getByRole('row', { name: /ip-127\.0\.0\.2\b/ });
  await web.getByText('Seen', { exact: true }).waitFor();
  await web.getByRole('link', { name: `${web01.short_id} web01` }).waitFor();
  await web.getByText('Linked', { exact: true }).waitFor();
  // The endpoints created before match their nodes by address: named, and said to be not linked.
  const other = nodes.getByRole('row', { name: /ip-127\.0\.0\.3\b/ });
  await other.getByText('Seen', { exact: true }).waitFor();
  await other.getByText('Matched, not linked').waitFor();
  assert.equal(await nodes.getByText('Seen', { exact: true }).count(), 6, 'every node the scan saw says so');
  await photographBoth(p, path, 'discovery-truth-session', 'Loopback truth');
  assertClean(p, 'the session page');
});

test('an IPv6 /64 says before it runs that it is not swept, and what the scan does instead', async () => {
  const { page } = p;
  await page.goto('/discovery');
  const subnet = page.getByLabel('Subnet');
  await subnet.fill('fd00:1:2:3::/64');
  const note = page.getByRole('note');
  await note.getByText('A /64 is not swept').waitFor();
  assert.match(await note.innerText(), /all-nodes|every IPv6 node on the link/);
  assert.match(await note.innerText(), /neighbour cache/);
  assert.match(await note.innerText(), /\/120/);
  await photographHere(page, 'discovery-truth-ipv6');
  await subnet.fill('fd00:1:2:3::/120');
  await note.waitFor({ state: 'detached' });
  await subnet.fill('10.0.0.0/24');
  assert.equal(await page.getByRole('note').count(), 0);
  assertClean(p, 'the IPv6 note');
});
