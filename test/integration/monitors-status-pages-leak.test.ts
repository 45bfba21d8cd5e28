// The leak test of public status pages: a page shows only what it names. Monitors are made with distinctive
// targets, tags, settings, result messages and names, beside monitors the page does not name and a
// maintenance window with a distinctive name and description that touches the page; each distinctive word is
// first seen where it belongs (the signed-in API: so it is real, and would show if the page leaked it), then
// looked for in every public form a reader can get (HTML at /status/<slug> and its API path, the JSON, plain
// and compressed, HEAD and 304 answers' headers): none may appear, nor any monitor's or window's id.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { after, before, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/harness.js';

let t: TestApp;
let key: string;
let web: Server;
const api = <T = any>(method: string, path: string, body?: unknown) => t.request<T>(method, path, { key, body });
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Words that must never reach a reader. */
const SECRET = {
  targetPath: 'leaktargetpath7q', tag: 'leaktag3z', otherName: 'leak-other-monitor-9x', otherTag: 'leakothertag4k',
  message: 'Leaky Message Token', header: 'leakheadervalue5m', windowName: 'leak window 8w', windowText: 'leak window description 2v',
  probeName: 'leak-probe-name-6n', realName: 'leak-real-name-1c',
};

before(async () => {
  t = await startTestApp();
  key = (await t.admin()).key;
  await api('POST', '/api/setup/save', { probe_name: SECRET.probeName, timezone: 'UTC' });
  web = createServer((req, res) => {
    if (req.url?.includes('fail')) { res.statusCode = 500; res.statusMessage = SECRET.message; }
    res.end('body');
  });
  await new Promise<void>((r) => web.listen(0, '127.0.0.1', r));
});
after(async () => {
  await t.close();
  web.close();
});

test('a public page shows nothing it does not name: no targets, tags, messages, settings, ids or other monitors', async () => {
  const base = `http://127.0.0.1:${(web.address() as AddressInfo).port}`;
  const make = async (name: string, path: string, tags: string[]) => {
    const r = await api('POST', '/api/monitors', { name, check_type: 'http', target: `${base}/${path}`, interval: 3600, timeout: 2,
      failure_threshold: 1, tags, settings: { headers: { 'X-Leak': SECRET.header } } });
    assert.equal(r.status, 201, r.text);
    return r.body.id as string;
  };
  const shown = await make(SECRET.realName, `${SECRET.targetPath}/fail`, [SECRET.tag]);
  const plain = await make('plain-monitor', `${SECRET.targetPath}/ok`, [SECRET.tag]);
  const other = await make(SECRET.otherName, `${SECRET.targetPath}/other`, [SECRET.otherTag]);
  const win = await api('POST', '/api/monitors/maintenance', {
    name: SECRET.windowName, description: SECRET.windowText, applies_to: 'tags', tags: [SECRET.tag],
    schedule: { kind: 'once', from: new Date(Date.now() + 3_600_000).toISOString(), to: new Date(Date.now() + 7_200_000).toISOString() },
  });
  assert.equal(win.status, 201, win.text);
  const page = await api('POST', '/api/monitors/status-pages', {
    slug: 'leak', title: 'Public services', notice: '',
    groups: [{ name: 'Services', monitors: [{ id: shown, alias: 'Website' }, { id: plain }] }],
  });
  assert.equal(page.status, 201, page.text);

  // The words are real: the signed-in API shows them where they belong.
  let detail: any;
  for (let i = 0; i < 300 && (detail = (await api('GET', `/api/monitors/${shown}`)).body).status !== 'down'; i++) await sleep(10);
  assert.equal(detail.status, 'down');
  assert.ok(detail.last_message.includes(SECRET.message), detail.last_message);
  assert.ok(detail.target.includes(SECRET.targetPath) && detail.tags.includes(SECRET.tag));

  // Everything a reader can get.
  const forms: { what: string; text: string }[] = [];
  const get = async (what: string, path: string, headers: Record<string, string> = {}, method = 'GET') => {
    const r = await fetch(t.url + path, { method, headers });
    const text = await r.text(); // decompressed by fetch()
    const head: string[] = [];
    r.headers.forEach((v, k) => head.push(`${k}: ${v}`));
    forms.push({ what, text: `${head.join('\n')}\n\n${text}` });
    return r;
  };
  const html = await get('HTML', '/status/leak');
  assert.equal(html.status, 200);
  await get('HTML at its API path', '/api/monitors/status-pages/public/leak/page');
  assert.equal((await get('JSON', '/api/monitors/status-pages/public/leak')).status, 200);
  // fetch() decompresses gzip itself; ask through the raw node client for the compressed bytes.
  const { request } = await import('node:http');
  const gz = await new Promise<Buffer>((resolve, reject) => {
    request(`${t.url}/api/monitors/status-pages/public/leak`, { headers: { 'accept-encoding': 'gzip' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c)).on('end', () => resolve(Buffer.concat(chunks))).on('error', reject);
    }).on('error', reject).end();
  });
  forms.push({ what: 'JSON, gzip', text: gunzipSync(gz).toString() });
  await get('HEAD', '/status/leak', {}, 'HEAD');
  await get('304', '/status/leak', { 'if-none-match': html.headers.get('etag')! });

  const json = JSON.parse(forms.find((f) => f.what === 'JSON')!.text.split('\n\n').slice(1).join('\n\n'));
  // What the page names is there (the test would pass on an empty page otherwise).
  assert.deepEqual(json.groups[0].monitors.map((m: any) => [m.name, m.status]), [['Website', 'down'], ['plain-monitor', 'up']]);
  assert.match(json.notices[0].text, /^Planned maintenance/);
  assert.ok(forms[0]!.text.includes('Website') && forms[0]!.text.includes('Planned maintenance'));

  const never = [...Object.values(SECRET), shown, plain, other, win.body.id, page.body.id, base, '127.0.0.1:'];
  const leaks = forms.flatMap((f) => never.filter((w) => f.text.includes(w)).map((w) => `${f.what} shows ${w}`));
  assert.deepEqual(leaks, []);
  // Nothing of the monitor's own name once the page gives an alias.
  assert.ok(forms.every((f) => !f.text.includes(SECRET.realName)));
});
