// Identification and cards over UDP: every recording (the shared corpus of real devices and this
// project's own) served by the snmprec simulator on loopback, read by the real SNMP client, v2c and v1,
// all devices at once. The simulator itself is checked against the in-process reading of a recording.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createSocket } from 'node:dgram';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { HttpError } from '../../src/core/errors.js';
import { createSnmpClient } from '../../src/modules/snmp/client.js';
import type { SnmpTarget, SnmpVersion } from '../../src/modules/snmp/contracts.js';
import { readCards, type CardReading } from '../../src/modules/snmp/cards.js';
import { identify } from '../../src/modules/snmp/identify.js';
import { OidStore } from '../../src/modules/snmp/oids/oid-store.js';
import { cardsFor, profileByKey } from '../../src/modules/snmp/vendors/index.js';
import { startSimulator, type SimDevice, type Simulator } from '../helpers/snmp-sim.js';
import { CORPUS_SKIP, FIXTURES_DIR, knownRecordings, recordingName, type KnownRecording } from '../helpers/snmp-recordings.js';
import { loadSnmprec, recordingReader } from '../helpers/snmprec.js';

const store = OidStore.load();
const client = createSnmpClient();
const recordings = knownRecordings();
const NOW = Date.parse('2025-03-04T05:06:07.000Z');
const now = () => NOW;

let sim: Simulator;
const deviceOf = new Map<KnownRecording, SimDevice>();

const targetOf = (d: SimDevice, version: SnmpVersion = 'v2c'): SnmpTarget =>
  ({ host: d.host, port: d.port, version, community: d.community, timeout_ms: 2000, retries: 1 });

before(async () => {
  sim = await startSimulator(recordings.map((r, i) => ({ file: r.file, community: `community-${i}` })));
  recordings.forEach((r, i) => deviceOf.set(r, sim.devices[i]!));
});

after(async () => {
  await sim?.stop();
});

const expectedOf = (id: Awaited<ReturnType<typeof identify>>) => {
  const { vendor_key, variant, kind, os, model, serial, version, firmware, manufacturer } = id;
  return { vendor_key, variant, kind, os, model, serial, version, firmware, manufacturer };
};

describe('identification over UDP', () => {
  for (const version of ['v2c', 'v1'] as const) {
    test(`${version}: every recording at once, each as its profile and variant`, async () => {
      const results = await Promise.all(recordings.map((r) => identify(client, targetOf(deviceOf.get(r)!, version), store, now)));
      results.forEach((id, i) => {
        const rec = recordings[i]!;
        assert.deepEqual(expectedOf(id), rec.expect, `${recordingName(rec.file)} over ${version}`);
      });
      assert.ok(recordings.some((r) => !r.corpus), 'own fixtures');
      assert.equal(recordings.some((r) => r.corpus), !CORPUS_SKIP, 'the shared corpus whenever it is there');
    });
  }

  test('the system group as the agent sent it (a corpus recording)', { skip: CORPUS_SKIP }, async () => {
    const rec = recordings.find((r) => recordingName(r.file) === 'panos_440')!;
    const id = await identify(client, targetOf(deviceOf.get(rec)!), store, now);
    assert.deepEqual(id.sys, {
      descr: 'Palo Alto Networks PA-400 series firewall', object_id: '1.3.6.1.4.1.25461.2.3.54', name: 'PA-440 Device',
      uptime_ticks: 316286966, contact: '<private contact>', location: '<private location>',
    });
    assert.deepEqual(id.enterprise, { number: 25461, name: 'Palo Alto Networks' });
    assert.equal(id.vendor_key, 'generic');
  });

  test('an address where nothing answers: identify rejects, cards carry the reason', async () => {
    const sock = createSocket('udp4');
    sock.bind(0, '127.0.0.1');
    await once(sock, 'listening');
    const { port } = sock.address() as AddressInfo;
    await new Promise<void>((resolve) => sock.close(() => resolve()));
    const target: SnmpTarget = { host: '127.0.0.1', port, version: 'v2c', community: 'public', timeout_ms: 400, retries: 0 };
    await assert.rejects(identify(client, target, store, now), (e: unknown) => e instanceof HttpError && (e.status === 502 || e.status === 504));
    const cards = await readCards(client, target, cardsFor(profileByKey('generic')!), store, now);
    assert.ok(cards.every((c) => c.error && c.error_code && c.items.every((i) => i.value === null && i.read_at === null)));
  });
});

describe('cards over UDP', () => {
  test('every recording: the same readings as in-process, model, serial and version as recorded', async () => {
    await Promise.all(recordings.map(async (rec) => {
      const udp = await readCardsFor(rec, client, targetOf(deviceOf.get(rec)!));
      const local = recordingReader(loadSnmprec(rec.file));
      const inProcess = await readCardsFor(rec, local, targetOf(deviceOf.get(rec)!));
      assert.deepEqual(udp, inProcess, recordingName(rec.file));
      const hw = udp.find((c) => c.key === 'hardware')!;
      for (const field of ['model', 'serial', 'version'] as const) {
        assert.equal(hw.items.find((i) => i.key === field)?.value ?? null, rec.expect[field], `${recordingName(rec.file)} ${field}`);
      }
    }));
  });
});

async function readCardsFor(rec: KnownRecording, reader: Parameters<typeof readCards>[0], target: SnmpTarget): Promise<CardReading[]> {
  const profile = profileByKey(rec.expect.vendor_key)!;
  return readCards(reader, target, cardsFor(profile, rec.expect.variant), store, now);
}

describe('the simulator', () => {
  const file = `${FIXTURES_DIR}/linux-netsnmp-debian.snmprec`;

  test('a whole-tree walk reads back every recorded variable and type (v2c), all but Counter64 (v1)', async () => {
    const s = await startSimulator([{ file }], { maxResponseBytes: 600 });
    try {
      const d = s.devices[0]!;
      const expected = (await recordingReader(d.recording).walk(targetOf(d), ['1.3'])).varbinds;
      assert.ok(new Set(expected.map((v) => v.type)).size >= 10, 'the recording carries every snmprec type');
      const v2 = await client.walk(targetOf(d), ['1.3'], { max_repetitions: 25 });
      assert.deepEqual(v2.varbinds, expected);
      assert.equal(v2.truncated, false);
      const v1 = await client.walk(targetOf(d, 'v1'), ['1.3']);
      assert.deepEqual(v1.varbinds, expected.filter((v) => v.type !== 'Counter64'));
      const got = await client.get(targetOf(d), ['1.3.6.1.2.1.1.5.0', '1.3.6.1.2.1.1.5.1', '1.3.6.1.2.1.99.1.0']);
      assert.deepEqual(got.map((v) => v.type), ['OctetString', 'NoSuchInstance', 'NoSuchObject']);
    } finally {
      await s.stop();
    }
  });

  test('each device answers only its own community', async () => {
    const d = sim.devices[0]!;
    const before = d.requests;
    await assert.rejects(client.get({ ...targetOf(d), community: 'not-it', timeout_ms: 300, retries: 0 }, ['1.3.6.1.2.1.1.1.0']), HttpError);
    assert.equal(d.requests, before, 'nothing answered');
  });
});
