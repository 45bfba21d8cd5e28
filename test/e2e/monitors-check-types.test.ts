// The monitor form draws each check type from GET /api/monitors/check-types (nothing in the UI names a
// check type or a setting): in a real browser, a DNS monitor is made with a record type chosen from the
// list its schema gives, a resolver that brings its port field with it and an expected answer that brings
// its match choice, against dnsmasq on loopback, and goes up; an HTTP monitor sends the headers typed
// into its name-value rows, a credential header kept as a stored secret across an edit. The form and the
// detail page are photographed in light and dark and checked at 375 px.
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { startDnsmasq, type Dnsmasq } from '../helpers/dnsmasq.js';
import { assertClean, photograph, startSignedIn, type UiEnv, type UiPage } from './helpers/browser.js';

let env: UiEnv;
let admin: { key: string };
let p: UiPage;
let dnsmasq: Dnsmasq;
let site: Server;
let sitePort = 0;
const seen: IncomingHttpHeaders[] = [];

before(async () => {
  dnsmasq = await startDnsmasq(['--local=/test/', '--host-record=probe.test,192.0.2.7', '--txt-record=probe.test,netprobe-e2e'], 'probe.test');
  site = createServer((req, res) => { seen.push(req.headers); res.end('ok'); });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  sitePort = (site.address() as AddressInfo).port;
  ({ env, admin, p } = await startSignedIn());
});

after(async () => {
  await p?.context.close();
  await env?.close();
  site?.closeAllConnections();
  await new Promise((r) => site?.close(r));
  await dnsmasq?.stop();
});

const hero = () => p.page.getByRole('region', { name: 'Current status' });
const stored = async (id: string) => (await env.t.request('GET', `/api/monitors/${id}`, { key: admin.key })).body;

test('a DNS monitor whose fields come from the check type\'s description: a record type, a resolver with its port, a match', async () => {
  const { page } = p;
  await page.goto('/monitors/new');
  await page.getByRole('heading', { name: 'New monitor', level: 1 }).waitFor();
  await page.getByText('DNS', { exact: true }).click();
  // The target field and the settings as the description says.
  const target = page.getByLabel('Name to resolve');
  assert.equal(await target.getAttribute('placeholder'), 'example.lan');
  await page.getByRole('heading', { name: 'Query' }).waitFor();
  const recordType = page.getByLabel('Record type');
  assert.deepEqual(await recordType.locator('option').allTextContents(), ['A', 'AAAA', 'CNAME', 'MX', 'NS', 'PTR', 'SOA', 'SRV', 'TXT', 'CAA']);
  assert.equal(await recordType.inputValue(), 'A', 'the default');
  // Fields shown by others: the resolver's port, and how the expected answer is matched.
  assert.equal(await page.getByLabel('Resolver port').count(), 0);
  assert.equal(await page.getByLabel('Match').count(), 0);
  await page.getByLabel('Resolver', { exact: true }).fill('127.0.0.1');
  await page.getByLabel('Resolver port').fill(String(dnsmasq.port));
  await page.getByLabel('Expected answer').fill('netprobe-e2e');
  const match = page.getByLabel('Match');
  assert.deepEqual(await match.locator('option').allTextContents(), ['An answer equals it', 'An answer contains it']);
  await match.selectOption({ label: 'An answer equals it' });
  await recordType.selectOption('TXT');
  await page.getByLabel('Name', { exact: true }).fill('Probe TXT');
  await target.fill('probe.test');
  await page.getByLabel('Check every (seconds)').fill('5');
  await page.getByLabel('Timeout (seconds)').fill('2');
  await photograph(p, '/monitors/new', 'monitor-form-dns', 'New monitor');
  await page.getByRole('button', { name: 'Create monitor' }).click();
  await page.getByRole('heading', { name: 'Probe TXT', level: 1 }).waitFor();
  const id = new URL(page.url()).pathname.split('/').pop()!;
  const m = await stored(id);
  assert.equal(m.check_type, 'dns');
  assert.deepEqual(m.settings, { record_type: 'TXT', resolver: '127.0.0.1', port: dnsmasq.port, expected: 'netprobe-e2e', match: 'equals' });
  await hero().getByText('Answering normally').waitFor({ timeout: 30_000 });

  // The configuration card describes the settings by the same schema.
  const config = page.locator('.card', { has: page.getByRole('heading', { name: 'Configuration' }) });
  for (const [k, v] of [['Check', 'DNS'], ['Record type', 'TXT'], ['Resolver', '127.0.0.1'], ['Resolver port', String(dnsmasq.port)],
    ['Match', 'An answer equals it']]) {
    assert.equal(await config.locator('dt', { hasText: new RegExp(`^${k}$`) }).locator('xpath=following-sibling::dd[1]').innerText(), v, k);
  }
  await photograph(p, `/monitors/${id}`, 'monitor-detail-dns', 'Probe TXT');
  assertClean(p, 'the DNS monitor');
});

test('an HTTP monitor with headers typed into rows; a credential header stays stored across an edit', async () => {
  const { page } = p;
  await page.goto('/monitors/new');
  await page.getByRole('heading', { name: 'New monitor', level: 1 }).waitFor();
  await page.getByText('HTTP(S)', { exact: true }).click();
  await page.getByLabel('Name', { exact: true }).fill('Site with headers');
  await page.getByLabel('URL').fill(`http://127.0.0.1:${sitePort}/health`);
  await page.getByLabel('Check every (seconds)').fill('60');
  // The request body shows for methods that send one.
  assert.equal(await page.getByLabel('Request body').count(), 0);
  await page.getByLabel('Method').selectOption('POST');
  await page.getByLabel('Request body').waitFor();
  await page.getByLabel('Method').selectOption('GET');
  await page.getByRole('button', { name: 'Add header' }).click();
  await page.getByLabel('Header name 1').fill('X-Probe-Test');
  await page.getByLabel('Header value 1').fill('e2e');
  await page.getByRole('button', { name: 'Add header' }).click();
  await page.getByLabel('Header name 2').fill('Authorization');
  await page.getByLabel('Header value 2').fill('Bearer e2e-header-secret');
  await page.getByRole('button', { name: 'Create monitor' }).click();
  await page.getByRole('heading', { name: 'Site with headers', level: 1 }).waitFor();
  const id = new URL(page.url()).pathname.split('/').pop()!;
  await hero().getByText('Answering normally').waitFor({ timeout: 30_000 });
  const got = seen.find((h) => h['x-probe-test'] === 'e2e');
  assert.ok(got, 'the site received the typed header');
  assert.equal(got.authorization, 'Bearer e2e-header-secret');
  assert.deepEqual((await stored(id)).settings.headers, { 'X-Probe-Test': 'e2e', Authorization: { set: true } });
  const config = page.locator('.card', { has: page.getByRole('heading', { name: 'Configuration' }) });
  await config.getByText('X-Probe-Test: e2e · Authorization: stored').waitFor();

  // Edit: the secret header's value is not in the page, its row says it is stored, and saving keeps it.
  await page.getByRole('link', { name: 'Edit' }).click();
  await page.getByRole('heading', { name: 'Edit Site with headers', level: 1 }).waitFor();
  assert.equal(await page.getByLabel('Header value 2').inputValue(), '');
  assert.equal(await page.getByLabel('Header value 2').getAttribute('placeholder'), 'Stored — type to replace');
  assert.ok(!(await page.content()).includes('e2e-header-secret'), 'the stored header value is not in the page');
  await page.getByLabel('Header value 1').fill('e2e-2');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.getByRole('heading', { name: 'Site with headers', level: 1 }).waitFor();
  await config.getByText('X-Probe-Test: e2e-2 · Authorization: stored').waitFor();
  const saved = await env.t.request('GET', `/api/monitors/${id}`, { key: admin.key });
  assert.deepEqual(saved.body.settings.headers, { 'X-Probe-Test': 'e2e-2', Authorization: { set: true } });
  seen.length = 0;
  await page.getByRole('button', { name: 'Check now' }).click();
  await page.locator('.toast', { hasText: 'Site with headers: Up' }).waitFor();
  assert.equal(seen.find((h) => h['x-probe-test'] === 'e2e-2')?.authorization, 'Bearer e2e-header-secret', 'the stored secret is still sent');
  assertClean(p, 'the HTTP monitor');
});
