// SIGKILL of the real service (a child process) while it writes its start-up image, aimed at the write
// (a kill a few ms after the debug line that starts it: between the id's write, its flush, the temp file
// and the rename), over rounds on the same data directory. After each kill the directory must start, and a
// start from whatever image it holds must show what a start reading the whole channel shows.
import assert from 'node:assert/strict';
import { cp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { freePort } from '../helpers/net.js';
import { life, monitorsView, okServer, svcOf, tempDir, wholeRead } from '../helpers/monitors-life.js';
import { spawnService } from '../helpers/service-process.js';

const ROUNDS = 8;
const CONFIG = `server:
  host: 127.0.0.1
log:
  level: debug
monitors:
  startup_image_hours: 0.0003   # about every second
`;

test('a kill while the start-up image is written never leaves an image that shows other than the files', { timeout: 300_000 }, async (t) => {
  const web = await okServer();
  const url = web.url;
  const dir = await tempDir('startup-image-crash');
  t.after(async () => { web.close(); await rm(dir, { recursive: true, force: true }); });
  await writeFile(join(dir, 'config.yaml'), CONFIG);

  const a = await life(dir, Date.now());
  for (let i = 0; i < 10; i++) {
    await a.api('POST', '/api/monitors', { name: `up-${i}`, check_type: 'http', target: url, interval: 5, timeout: 2 });
    await a.api('POST', '/api/monitors', { name: `down-${i}`, check_type: 'tcp', target: '127.0.0.1:9', interval: 5, timeout: 2 });
  }
  const admin = a.admin;
  await a.t.close({ keepData: true });

  const port = await freePort();
  const said: string[] = [];
  let used = 0, results = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const writesBeforeKill = 1 + (round % 3);
    const delayMs = Math.floor(Math.random() * 25);
    let writes = 0;
    const prog = spawnService({ NETPROBE_DATA_DIR: dir, NETPROBE_PORT: String(port) }, {
      maxLifeMs: 60_000,
      onLine: (line) => {
        const loaded = /monitors loaded .*"startup_image":"([^"]*)"/.exec(line);
        if (loaded) said.push(loaded[1]!);
        if (line.includes('writing the start-up image') && ++writes === writesBeforeKill) {
          setTimeout(() => prog.proc.kill('SIGKILL'), delayMs);
        }
      },
    });
    const exit = await prog.exited;
    assert.equal(exit.signal, 'SIGKILL', `round ${round}: the service ended on its own:\n${prog.tail(30)}`);

    // The crashed directory, as the next start-up finds it: from its image (if it still fits) and whole.
    const copy = await tempDir('startup-image-crash');
    try {
      await cp(dir, copy, { recursive: true });
      const at = Date.now() + 1000;
      const l = await life(copy, at, admin);
      let got: unknown;
      try {
        if (/^used/.test(svcOf(l).storage.startup.image)) used++;
        got = await monitorsView(l);
        results = Object.values(got as Record<string, { results?: { total: number } }>).reduce((n, v) => n + (v.results?.total ?? 0), 0);
      } finally {
        await l.t.close({ keepData: true });
      }
      assert.deepEqual(got, await wholeRead(copy, at, admin), `round ${round} (kill ${delayMs} ms into write ${writesBeforeKill})`);
    } finally {
      await rm(copy, { recursive: true, force: true });
    }
  }
  t.diagnostic(`${ROUNDS} kills; the image served ${used} of the starts after them (${results} results in the last); ` +
    `the service said at start-up: ${said.join(' | ')}`);
  assert.ok(said.slice(1).some((s) => s.startsWith('used')), 'the service started from an image at least once');
  assert.ok(results > 0, 'the last directory held check results');
});
