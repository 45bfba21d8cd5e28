// The controller link's event queue survives a crash while the broker is away (issue 34 §5), against
// Debian's mosquitto on loopback (test/helpers/hivemind-broker.ts plays the controller) and the service as
// a real program (test/helpers/service-process.ts): the broker goes down, a monitor changes state several
// times, the service is SIGKILLed and started again, the broker comes back, and the controller gets every
// event at least once, in order, each with the id it had before the kill. Then the bound: more events than
// hivemind.queue_limit while the broker is away drops the oldest, counted in GET /api/hivemind/status,
// also across a kill. Skips with the reason when mosquitto is not installed.
import assert from 'node:assert/strict';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { openStore } from '../../src/core/store/index.js';
import { MIGRATIONS } from '../../src/main.js';
import { startTestApp } from '../helpers/harness.js';
import { brokerMissing, startHivemindBroker, type HivemindBroker, type ProbeAccount } from '../helpers/hivemind-broker.js';
import { freePort } from '../helpers/net.js';
import { httpApi, type Api } from '../helpers/probe-data.js';
import { spawnService, type ServiceProgram } from '../helpers/service-process.js';

const missing = await brokerMissing();
const LIMIT = 10;
const CONFIG = [
  'server:',
  '  host: 127.0.0.1',
  'hivemind:',
  '  reconnect_max_seconds: 1',
  '  connect_timeout_seconds: 5',
  `  queue_limit: ${LIMIT}`,
  '',
].join('\n');

interface Event { id: string; seq: number; type: string; probe_id: string; monitor: { id: string }; status: string }

async function until<T>(f: () => Promise<T>, pred: (v: T) => boolean, what: string, timeoutMs = 30_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: T | undefined;
  for (;;) {
    last = await f().catch(() => undefined);
    if (last !== undefined && pred(last)) return last;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A TCP port that accepts (up) or refuses (down) connections, on demand. */
class Target {
  private server: Server | null = null;
  constructor(readonly port: number) {}
  async up(): Promise<void> {
    const s = createServer((c) => c.end());
    await new Promise<void>((r) => s.listen(this.port, '127.0.0.1', r));
    this.server = s;
  }
  async down(): Promise<void> {
    const s = this.server;
    this.server = null;
    if (s) await new Promise<void>((r) => s.close(() => r()));
  }
}

describe('the controller event queue across a crash (a real service, a real mosquitto)', { skip: missing ?? false, timeout: 240_000 }, () => {
  let broker: HivemindBroker;
  let dataDir: string;
  let key: string;
  let probe: ProbeAccount;
  let target: Target;
  let monitorId: string;
  let port: number;
  let svc: ServiceProgram | null = null;
  let api: Api;
  const status = async () => (await api('GET', '/api/hivemind/status')).body as { state: string; queued: number; dropped: number; paired: boolean };
  const events = (from: number): Event[] => broker.received.slice(from)
    .filter((m) => m.topic === `netprobe/${probe.id}/events`).map((m) => JSON.parse(m.payload) as Event);

  async function start(): Promise<void> {
    svc = spawnService({ NETPROBE_DATA_DIR: dataDir, NETPROBE_PORT: String(port) }, { maxLifeMs: 180_000 });
    const s = svc;
    await until(async () => (await fetch(`http://127.0.0.1:${port}/api/version`)).status, (c) => c === 200, 'the service to answer', 60_000)
      .catch((e: Error) => { throw new Error(`${e.message}\n${s.tail()}`); });
  }

  async function kill(): Promise<void> {
    const s = svc!;
    svc = null;
    s.proc.kill('SIGKILL');
    assert.equal((await s.exited).signal, 'SIGKILL');
  }

  /** Checks the monitor now (after its target was switched): one state change, one event. */
  async function check(expect: 'up' | 'down'): Promise<void> {
    if (expect === 'up') await target.up(); else await target.down();
    const r = await api('POST', `/api/monitors/${monitorId}/check`);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.monitor.status, expect);
  }

  /**
   * Waits until the events up to `seq` are in the data directory's files (group durability: they are written
   * with the next group commit); a kill before that loses them, as a power cut loses a check result.
   */
  async function onDisk(seqs: number[]): Promise<void> {
    const missing = async () => {
      const text = (await Promise.all(['netprobe.journal', 'netprobe.db'].map((f) => readFile(join(dataDir, f), 'latin1').catch(() => '')))).join('');
      return seqs.filter((n) => !text.includes(`"seq":${n}}`));
    };
    await until(missing, (m) => m.length === 0, `events ${seqs.join(', ')} on disk (the missing ones last)`);
  }

  /** The payloads queued in the files as they are now (a copy opened in this process), by seq. */
  async function queuedOnDisk(): Promise<Map<number, Event>> {
    const copy = await mkdtemp(join(tmpdir(), 'netprobe-queue-copy-'));
    try {
      await cp(dataDir, copy, { recursive: true });
      const store = await openStore({ dir: copy, migrations: MIGRATIONS, log: () => {} });
      try {
        const rows = store.all<{ seq: number; payload: Uint8Array }>('SELECT seq, payload FROM hivemind_outbox ORDER BY seq');
        return new Map(rows.map((r) => [r.seq, JSON.parse(Buffer.from(r.payload).toString()) as Event]));
      } finally {
        await store.close();
      }
    } finally {
      await rm(copy, { recursive: true, force: true });
    }
  }

  /** Event seqs in the order the controller first saw them; every repeat carries its first copy's id. */
  function delivered(from: number): Event[] {
    const firstOf = new Map<number, Event>();
    for (const e of events(from)) {
      const seen = firstOf.get(e.seq);
      if (seen) assert.equal(e.id, seen.id, `a repeat of seq ${e.seq} with another id`);
      else firstOf.set(e.seq, e);
    }
    return [...firstOf.values()];
  }

  before(async () => {
    broker = await startHivemindBroker();
    dataDir = await mkdtemp(join(tmpdir(), 'netprobe-hivemind-queue-'));
    await writeFile(join(dataDir, 'config.yaml'), CONFIG);
    target = new Target(await freePort());
    await target.up();
    // Set up in process (admin key, monitor, pairing), then run the service as a program on the same directory.
    const t = await startTestApp({ dataDir });
    try {
      key = (await t.admin()).key;
      const m = await t.request('POST', '/api/monitors', {
        key, body: { name: 'loopback tcp', check_type: 'tcp', target: `127.0.0.1:${target.port}`, interval: 3600, timeout: 5, failure_threshold: 1 },
      });
      assert.equal(m.status, 201, m.text);
      monitorId = m.body.id;
      assert.equal((await t.request('POST', `/api/monitors/${monitorId}/check`, { key })).body.monitor.status, 'up');
      probe = await broker.addProbe();
      assert.equal((await t.request('POST', '/api/hivemind/pair', { key, body: { code: probe.code } })).status, 200);
    } finally {
      await t.close({ keepData: true });
    }
    port = await freePort();
    api = httpApi(`http://127.0.0.1:${port}`, { 'x-api-key': key });
  });

  after(async () => {
    if (svc) await kill().catch(() => {});
    await target?.down();
    await broker?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  test('broker down, state changes, SIGKILL, restart, broker back: every event arrives, in order, with its id', async () => {
    await broker.stop();
    await start();
    const s0 = await until(status, (x) => x.paired && x.state !== 'connected' && x.queued === 0, 'paired, the broker away');
    assert.equal(s0.dropped, 0);
    const mark = broker.received.length;
    const expected = ['down', 'up', 'down', 'up', 'down'] as const;
    for (const st of expected) await check(st);
    assert.equal((await status()).queued, expected.length);
    await onDisk([1, 2, 3, 4, 5]);
    const stored = await queuedOnDisk();
    assert.deepEqual([...stored.keys()], [1, 2, 3, 4, 5]);

    await kill();
    await start();
    const s1 = await status();
    assert.deepEqual([s1.queued, s1.dropped], [expected.length, 0], 'the queue after the kill');
    assert.notEqual(s1.state, 'connected');

    await broker.start();
    await until(status, (x) => x.state === 'connected' && x.queued === 0, 'connected with the queue sent');
    await until(async () => delivered(mark).length, (n) => n >= expected.length, 'every event at the controller');
    const got = delivered(mark);
    assert.deepEqual(got.map((e) => e.seq), [1, 2, 3, 4, 5], 'in order, none missing');
    assert.deepEqual(got.map((e) => e.type), expected.map((st) => `monitor.${st}`));
    assert.deepEqual(got.map((e) => e.id), [...stored.values()].map((e) => e.id), 'the ids they had before the kill');
    for (const e of got) {
      assert.match(e.id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      assert.deepEqual([e.probe_id, e.monitor.id], [probe.id, monitorId]);
    }
    // Sent in order means received in order: the first copy of each came before any later event.
    const firstSeen = events(mark).map((e) => e.seq).filter((n, i, all) => all.indexOf(n) === i);
    assert.deepEqual(firstSeen, [1, 2, 3, 4, 5]);
  });

  test('more events than queue_limit while the broker is away: the oldest are dropped and counted, across a kill', async () => {
    await broker.stop();
    await until(status, (x) => x.state !== 'connected', 'the broker away');
    const mark = broker.received.length;
    const n = LIMIT + 3;
    for (let i = 0; i < n; i++) await check(i % 2 === 0 ? 'up' : 'down');
    const s0 = await status();
    assert.deepEqual([s0.queued, s0.dropped], [LIMIT, 3]);
    const last = 5 + n;
    const kept = Array.from({ length: LIMIT }, (_, i) => last - LIMIT + 1 + i);
    await onDisk(kept);
    assert.deepEqual([...(await queuedOnDisk()).keys()], kept);

    await kill();
    await start();
    const s1 = await status();
    assert.deepEqual([s1.queued, s1.dropped], [LIMIT, 3], 'the queue and its drop count after the kill');

    await broker.start();
    const s2 = await until(status, (x) => x.state === 'connected' && x.queued === 0, 'connected with the queue sent');
    assert.equal(s2.dropped, 3, 'the count stays until the pairing changes');
    await until(async () => delivered(mark).length, (c) => c >= LIMIT, 'the kept events at the controller');
    const got = delivered(mark);
    assert.deepEqual(got.map((e) => e.seq), kept, 'the newest, in order; the gap before them shows the dropped ones');
    await kill();
  });
});
