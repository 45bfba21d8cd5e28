// The mqtt library (about 18 MiB resident once loaded, ~30 MiB with a TLS connection) is loaded only
// when the probe connects to a controller: an unpaired probe, and every pairing code refused before
// connecting, never load it. mqtt.js is CommonJS, so once imported (even through import()) its files are
// in the CommonJS loader's cache. This file must not import the broker helper (which loads mqtt itself).
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { after, before, test } from 'node:test';
import { encodePairingCode } from '../../src/modules/system/hivemind/pairing-code.js';
import { assertProblem, startTestApp, type TestApp } from '../helpers/harness.js';
import { selfSigned } from '../helpers/certs.js';
import { freePort } from '../helpers/net.js';

const require = createRequire(import.meta.url);
const mqttLoaded = () => Object.keys(require.cache).some((k) => k.includes('/node_modules/mqtt/'));

let t: TestApp;
let key: string;
before(async () => { t = await startTestApp(); key = (await t.admin()).key; });
after(async () => { await t?.close(); });

test('an unpaired probe does not load the mqtt library, nor does a refused pairing code', async () => {
  assert.equal(mqttLoaded(), false, 'mqtt is loaded before the service started');
  assert.equal((await t.request('GET', '/api/hivemind/status', { key })).body.paired, false);
  assertProblem(await t.request('POST', '/api/hivemind/pair', { key, body: { code: 'junk' } }), 400, 'code');
  assertProblem(await t.request('POST', '/api/hivemind/unpair', { key, body: {} }), 409);
  assert.equal(mqttLoaded(), false, 'mqtt was loaded by an unpaired probe');

  // Positive control: a well-formed code for a port where nothing listens loads it (and fails with 502).
  const ca = (await selfSigned()).cert;
  const code = encodePairingCode({ url: `mqtts://127.0.0.1:${await freePort()}`, id: 'lazy-probe', secret: 'x-secret', ca });
  assertProblem(await t.request('POST', '/api/hivemind/pair', { key, body: { code } }), 502);
  assert.equal(mqttLoaded(), true);
  assert.equal((await t.request('GET', '/api/hivemind/status', { key })).body.paired, false);
});
