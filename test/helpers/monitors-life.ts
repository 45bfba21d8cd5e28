// One life of the real service on a data directory with a manual clock, for tests that stop and start
// it on the same files (monitors' storage and start-up image): the first life makes the admin, later
// ones log in with it. And what the monitors API shows, to compare two starts on the same files.
import assert from 'node:assert/strict';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../src/core/clock.js';
import type { AppContext } from '../../src/core/context.js';
import { GRACE_MS } from '../../src/modules/monitors/storage/hour-close.js';
import { HOUR_MS } from '../../src/modules/monitors/storage/hours.js';
import { monitorsServiceOf } from '../../src/modules/monitors/index.js';
import { MONITOR_SERIES } from '../../src/modules/monitors/service.js';
import { startTestApp, type TestApp } from './harness.js';

const IMAGE_FILE = MONITOR_SERIES.imageFile;

export interface Life { t: TestApp; clock: ManualClock; key: string; api: (method: string, path: string, body?: unknown) => Promise<any> }

export type Admin = { username: string; password: string };

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export async function life(dir: string, at: number, admin?: Admin): Promise<Life & { admin: Admin }> {
  const clock = new ManualClock(at);
  const t = await startTestApp({ dataDir: dir, clock });
  let key: string;
  let creds = admin;
  if (!creds) {
    const a = await t.admin();
    key = a.key;
    creds = { username: a.username, password: a.password };
  } else {
    const cookie = await t.login(creds.username, creds.password);
    key = (await t.request('POST', '/api/api-keys', { cookie, body: { name: `k${at}`, scopes: ['monitors:write'] } })).body.key;
  }
  const api = async (method: string, path: string, body?: unknown) => (await t.request(method, path, { key, body })).body;
  return { t, clock, key, api, admin: creds };
}

/**
 * Waits until the hour closer has written every hour that has closed by the app's clock. It writes a few
 * monitors a write and yields between writes, so after the clock jumps a day it is still at work when
 * the test goes on; retention keeps the raw results of the hours not yet written.
 */
export async function hoursWritten(app: AppContext): Promise<void> {
  const closer = monitorsServiceOf(app)!.storage.closer;
  for (let i = 0; i < 1000; i++) {
    if ((closer.watermark + 1) * HOUR_MS + GRACE_MS > app.clock.now()) return;
    await sleep(10);
  }
  throw new Error(`the hour closer is still at ${new Date(closer.watermark * HOUR_MS).toISOString()}`);
}

/** Moves the clock and waits until the monitor's results grew to `n`. */
export async function checked(l: Life, id: string, ms: number, n: number): Promise<void> {
  l.clock.advance(ms);
  for (let i = 0; i < 500; i++) {
    if ((await l.api('GET', `/api/monitors/${id}/results?limit=1`)).total >= n) return;
    await sleep(10);
  }
  throw new Error(`monitor ${id} did not reach ${n} results`);
}

export async function tempDir(name = 'monitors-storage'): Promise<string> {
  return mkdtemp(join(tmpdir(), `netprobe-${name}-`));
}

/** A local HTTP server that answers 'ok' (the target of up monitors). */
export async function okServer(): Promise<{ url: string; close(): void }> {
  const web = createServer((_req, res) => res.end('ok'));
  await new Promise<void>((r) => web.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(web.address() as AddressInfo).port}/`, close: () => web.close() };
}

export const svcOf = (l: Life) => monitorsServiceOf(l.t.service.app)!;

/** Everything the monitors API says that comes from memory: the list, the stats, each monitor and its results. */
export async function monitorsView(l: Life): Promise<unknown> {
  const list = (await l.api('GET', '/api/monitors')).monitors as { id: string }[];
  const out: Record<string, unknown> = { list, stats: await l.api('GET', '/api/monitors/stats'),
    timeline: await l.api('GET', '/api/monitors/timeline') };
  for (const m of list) {
    out[m.id] = { monitor: await l.api('GET', `/api/monitors/${m.id}`),
      results: await l.api('GET', `/api/monitors/${m.id}/results?limit=500`) };
  }
  return out;
}

/** A start on a copy of `dir` without its start-up image (warm-image.ts): the whole channel read, to compare with. */
export async function wholeRead(dir: string, at: number, admin: Admin): Promise<unknown> {
  const copy = await tempDir('whole-read');
  try {
    await cp(dir, copy, { recursive: true });
    await rm(join(copy, IMAGE_FILE), { force: true });
    const l = await life(copy, at, admin);
    try {
      assert.equal(svcOf(l).storage.startup.image, 'none');
      return await monitorsView(l);
    } finally {
      await l.t.close({ keepData: true });
    }
  } finally {
    await rm(copy, { recursive: true, force: true });
  }
}

