// The build a probe runs: dist/src/main.js as one module (scripts/bundle.mjs), started as systemd starts
// it. Each module in it must still know its own place: the routes their source files (GET
// /api/developer/routes), the OID store its data file beside it (GET /api/snmp/store). Skipped, saying so,
// when dist/ was not built (./build.sh test builds it first).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../helpers/net.js';
import { spawnService } from '../helpers/service-process.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MAIN = join(ROOT, 'dist/src/main.js');
const built = existsSync(MAIN);
const skip = built ? false : 'dist/src/main.js is not built (npm run build, or ./build.sh test, makes it)';

const dataDir = await mkdtemp(join(tmpdir(), 'netprobe-dist-'));
after(() => rm(dataDir, { recursive: true, force: true }));

test('dist/src/main.js is one module: it imports npm packages and node, no file of dist/', { skip }, () => {
  const text = readFileSync(MAIN, 'utf8');
  const relative = [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*)["'](\.{1,2}\/[^"']+)["']/g)].map((m) => m[1]);
  assert.deepEqual(relative, [], 'relative imports left in the bundle');
  // The data files modules read beside themselves are in place beside where the bundle says those modules are.
  for (const f of ['modules/snmp/oids/oid-table.json', 'modules/v1sion/scan/oui-table.json']) {
    assert.ok(existsSync(join(ROOT, 'dist/src', f)), `dist/src/${f}`);
  }
});

test('dist/src/main.js is ASCII, so V8 keeps its source as a one-byte string (half the memory of a two-byte one)', { skip }, () => {
  const other = [...new Set(readFileSync(MAIN, 'utf8').match(/[^\t\n\r\x20-\x7e]/g) ?? [])];
  assert.deepEqual(other, [], 'characters scripts/bundle.mjs should have escaped');
});

test('the bundle serves: routes name their source files, the OID store reads its data file', { skip, timeout: 90_000 }, async () => {
  await writeFile(join(dataDir, 'config.yaml'), 'server:\n  host: 127.0.0.1\n');
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const p = spawnService({ NETPROBE_DATA_DIR: dataDir, NETPROBE_PORT: String(port) }, { entry: 'dist' });
  try {
    let up = false;
    for (let i = 0; i < 600 && !up; i++) {
      up = await fetch(`${url}/api/version`).then((r) => r.ok, () => false);
      if (!up) await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(up, `the service did not answer:\n${p.tail()}`);
    assert.match(p.output(), /listening on http:\/\/127\.0\.0\.1/);
    const boot = await fetch(`${url}/api/setup/bootstrap`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'alice', password: 'a long enough passphrase' }),
    });
    assert.equal(boot.status, 201, await boot.text());
    const login = await fetch(`${url}/api/auth/login`, {
      method: 'POST', headers: { 'content-type': 'application/json', origin: url },
      body: JSON.stringify({ username: 'alice', password: 'a long enough passphrase' }),
    });
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;

    const routes = await (await fetch(`${url}/api/developer/routes`, { headers: { cookie } })).json() as
      { items: { method: string; path: string; module: string; file: string }[] };
    assert.ok(routes.items.length > 140, `${routes.items.length} routes`);
    for (const r of routes.items) {
      assert.ok(existsSync(join(ROOT, r.file)) && r.file.startsWith('src/') && r.file !== 'src/main.ts', `${r.method} ${r.path}: ${r.file}`);
      assert.equal(r.module, /^src\/modules\/([^/]+)\//.exec(r.file)?.[1] ?? 'core', `${r.method} ${r.path}`);
    }
    const list = routes.items.find((r) => r.method === 'GET' && r.path === '/api/monitors');
    assert.deepEqual([list?.module, list?.file], ['monitors', 'src/modules/monitors/routes.ts']);

    const oids = await (await fetch(`${url}/api/snmp/store?prefix=sysDescr`, { headers: { cookie } })).json() as
      { items: { oid: string; name: string }[] };
    assert.ok(oids.items.some((o) => o.name === 'sysDescr' && o.oid.replace(/^\./, '') === '1.3.6.1.2.1.1.1'), JSON.stringify(oids).slice(0, 300));
  } finally {
    p.proc.kill('SIGTERM');
    const exit = await p.exited;
    assert.equal(exit.code, 0, `exit ${JSON.stringify(exit)}\n${p.tail()}`);
  }
});
