// The SNMP client against Debian's snmpd on loopback, checked against what Debian's own snmpwalk and
// snmpbulkwalk print for the same agent: walks of the system group, ifTable and all of MIB-2 over v1,
// v2c and every v3 user snmpd supports; every failure as its own error; truncation, abort, and that no
// socket outlives an operation. Also a silent UDP socket (timeout), a closed port (ICMP port
// unreachable) and a tiny misbehaving agent whose OIDs do not increase.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import { run } from '../../src/core/exec.js';
import { HttpError } from '../../src/core/errors.js';
import { createSnmpClient, desAvailable } from '../../src/modules/snmp/client.js';
import { bytesOf } from '../../src/modules/snmp/client/values.js';
import type { RawVarbind, SnmpTarget, V3Params, VarbindType } from '../../src/modules/snmp/contracts.js';
import { freeUdpPort } from '../helpers/net.js';
import { cliArgs, startSnmpd, type Snmpd, type SnmpdUserKey } from '../helpers/snmpd.js';

const client = createSnmpClient();
let agent: Snmpd;

before(async () => { agent = await startSnmpd(); });
after(async () => { await agent?.stop(); });

const SYSTEM = '1.3.6.1.2.1.1';
const IF_TABLE = '1.3.6.1.2.1.2.2';
const MIB2 = '1.3.6.1.2.1';

const v2c = (over: Partial<SnmpTarget> = {}): SnmpTarget =>
  ({ host: agent.host, port: agent.port, version: 'v2c', community: agent.community, ...over });
const v3 = (user: V3Params, over: Partial<SnmpTarget> = {}): SnmpTarget =>
  ({ host: agent.host, port: agent.port, version: 'v3', v3: user, ...over });
/** Quick failures: one attempt, short wait. */
const FAST = { timeout_ms: 400, retries: 0 };

async function rejectsWith(p: Promise<unknown>, status: number, code: string): Promise<HttpError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof HttpError, `expected an HttpError, got ${String(e)}`);
    assert.equal(e.code, code, e.message);
    assert.equal(e.status, status, e.message);
    return e;
  }
  assert.fail(`expected ${status} ${code}, got a result`);
}

// ---- snmpwalk as the reference ---------------------------------------------------------------------

interface CliVarbind { oid: string; type: VarbindType; value: string }

const CLI_TYPES: Record<string, VarbindType> = {
  'Hex-STRING': 'OctetString', STRING: 'OctetString', INTEGER: 'Integer', Counter32: 'Counter32', Counter64: 'Counter64',
  Gauge32: 'Gauge32', Timeticks: 'TimeTicks', IpAddress: 'IpAddress', OID: 'OID', Opaque: 'Opaque', NULL: 'Null',
};

/** `-On -Ox` output: ".1.3.6... = Hex-STRING: 4C 69 ..." with hex continued on following lines; "" for empty. */
function parseCli(out: string): CliVarbind[] {
  const vbs: CliVarbind[] = [];
  for (const line of out.split('\n')) {
    const m = /^\.(\d+(?:\.\d+)*) = (?:([A-Za-z0-9-]+): )?(.*)$/.exec(line);
    if (m) {
      const raw = m[3]!;
      const type = m[2] ? CLI_TYPES[m[2]] : raw === '""' ? 'OctetString' : undefined;
      assert.ok(type, `unknown snmpwalk output: ${line}`);
      vbs.push({ oid: m[1]!, type, value: raw });
    } else if (vbs.length && /^[0-9A-F ]+$/.test(line.trim()) && line.trim()) {
      vbs[vbs.length - 1]!.value += ` ${line.trim()}`;
    }
  }
  return vbs.map((vb) => ({ ...vb, value: cliValue(vb.type, vb.value) }));
}

function cliValue(type: VarbindType, raw: string): string {
  switch (type) {
    case 'OctetString': return raw === '""' ? '' : raw.replace(/\s+/g, '').toUpperCase();
    case 'TimeTicks': return /^\((\d+)\)/.exec(raw)![1]!;
    case 'OID': return raw.replace(/^\./, '');
    default: return raw.trim();
  }
}

/** The same normalisation for our values: octets as uppercase hex without spaces. */
function ourValue(vb: RawVarbind): string {
  return vb.type === 'OctetString' ? bytesOf(vb).toString('hex').toUpperCase() : String(vb.value);
}

async function cliWalk(t: SnmpTarget, root: string): Promise<CliVarbind[]> {
  // snmpwalk walks with GETNEXT, snmpbulkwalk with GETBULK: the same requests the client makes.
  const program = t.version === 'v1' ? 'snmpwalk' : 'snmpbulkwalk';
  const r = await run(program, [...cliArgs(t), '-On', '-Ox', '-t', '5', '-r', '1', `${t.host}:${t.port}`, root],
    { env: agent.cliEnv, timeoutMs: 60_000 });
  assert.equal(r.code, 0, `${program} failed: ${r.stderr}`);
  return parseCli(r.stdout);
}

// Parts of MIB-2 that change while the machine runs (connections, processes, memory, neighbours):
// rows there may come and go between two walks and their values are not compared.
const VOLATILE = [
  '1.3.6.1.2.1.4.22', '1.3.6.1.2.1.4.35', // ipNetToMediaTable, ipNetToPhysicalTable
  '1.3.6.1.2.1.6.13', '1.3.6.1.2.1.6.19', '1.3.6.1.2.1.6.20', // TCP connections and listeners
  '1.3.6.1.2.1.7.5', '1.3.6.1.2.1.7.7', // UDP endpoints (each walker's own socket is one)
  '1.3.6.1.2.1.25.1', '1.3.6.1.2.1.25.2', '1.3.6.1.2.1.25.3', '1.3.6.1.2.1.25.4', '1.3.6.1.2.1.25.5', // host resources
];
const volatile = (oid: string) => VOLATILE.some((p) => oid.startsWith(`${p}.`));
/** Types whose values move on their own (counters, gauges, uptimes): compared by type only. */
const MOVING = new Set<VarbindType>(['Counter32', 'Counter64', 'Gauge32', 'TimeTicks']);

const lexical = (a: string, b: string) => {
  const x = a.split('.').map(Number), y = b.split('.').map(Number);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
};

/**
 * Our walk, taken between two snmpwalk runs, must have: every OID both snmpwalk runs saw, in the same
 * order, with the same types; the same values wherever both snmpwalk runs agree on a value that does not
 * move on its own; and nothing neither run saw outside the volatile tables.
 */
async function compareWithCli(t: SnmpTarget, root: string, minCount: number): Promise<void> {
  const before = await cliWalk(t, root);
  const ours = await client.walk(t, [root], { max_varbinds: 100_000 });
  const afterWalk = await cliWalk(t, root);
  assert.equal(ours.truncated, false);
  assert.ok(ours.varbinds.length >= minCount, `only ${ours.varbinds.length} varbinds under ${root}`);
  for (let i = 1; i < ours.varbinds.length; i++) {
    assert.ok(lexical(ours.varbinds[i - 1]!.oid, ours.varbinds[i]!.oid) < 0, `not increasing at ${ours.varbinds[i]!.oid}`);
  }
  const beforeMap = new Map(before.map((vb) => [vb.oid, vb]));
  const afterMap = new Map(afterWalk.map((vb) => [vb.oid, vb]));
  const oursMap = new Map(ours.varbinds.map((vb) => [vb.oid, vb]));
  const stable = before.filter((vb) => afterMap.has(vb.oid)).map((vb) => vb.oid);
  assert.ok(stable.length >= minCount, `snmpwalk saw only ${stable.length} stable OIDs under ${root}`);

  const missing = stable.filter((oid) => !oursMap.has(oid));
  assert.deepEqual(missing.slice(0, 10), [], `${missing.length} OIDs snmpwalk saw twice are missing from our walk`);
  const extra = ours.varbinds.filter((vb) => !beforeMap.has(vb.oid) && !afterMap.has(vb.oid) && !volatile(vb.oid)).map((vb) => vb.oid);
  assert.deepEqual(extra.slice(0, 10), [], `${extra.length} OIDs in our walk that snmpwalk never saw`);
  const stableSet = new Set(stable);
  assert.deepEqual(ours.varbinds.map((vb) => vb.oid).filter((oid) => stableSet.has(oid)), stable, 'order differs from snmpwalk');

  let compared = 0;
  for (const oid of stable) {
    const a = beforeMap.get(oid)!, b = afterMap.get(oid)!, o = oursMap.get(oid)!;
    assert.equal(o.type, a.type, `type of ${oid}`);
    if (MOVING.has(a.type) || volatile(oid) || a.value !== b.value) continue;
    assert.equal(ourValue(o), a.value, `value of ${oid} (${o.type})`);
    compared++;
  }
  // Most values are steady; comparing almost none would prove nothing.
  assert.ok(compared >= stable.length / 4, `only ${compared} of ${stable.length} values compared under ${root}`);
}

const MIN: Record<string, number> = { [SYSTEM]: 8, [IF_TABLE]: 2 * 20, [MIB2]: 1000 };

describe('walks match snmpwalk', () => {
  const credentials: [string, () => SnmpTarget][] = [
    ['v1', () => v2c({ version: 'v1' })],
    ['v2c', () => v2c()],
  ];
  const v3Users: SnmpdUserKey[] = ['noAuthNoPriv', 'authNoPriv', 'authPriv', 'sha256Aes256', 'sha1Aes256b', 'sha1Aes256r'];
  for (const key of v3Users) credentials.push([`v3 ${key}`, () => v3(agent.users[key]!)]);

  for (const [label, target] of credentials) {
    for (const [rootName, root] of [['system', SYSTEM], ['ifTable', IF_TABLE], ['MIB-2', MIB2]] as const) {
      test(`${label}: ${rootName}`, async (t) => {
        const key = label.startsWith('v3 ') ? label.slice(3) as SnmpdUserKey : undefined;
        if (key && !agent.users[key]) { t.skip(`this snmpd does not support it: ${agent.unsupported[key]}`); return; }
        await compareWithCli(target(), root, MIN[root]!);
      });
    }
  }

  test('v1 has no Counter64 values, v2c has (the same agent and subtree)', async () => {
    const one = await client.walk(v2c({ version: 'v1' }), ['1.3.6.1.2.1.31.1.1.1.6']);
    const two = await client.walk(v2c(), ['1.3.6.1.2.1.31.1.1.1.6']); // ifHCInOctets
    assert.equal(one.varbinds.length, 0);
    assert.ok(two.varbinds.length > 0 && two.varbinds.every((vb) => vb.type === 'Counter64' && /^\d+$/.test(String(vb.value))));
  });

  test('a walk of several roots keeps their order; an instance root is read with a GET', async () => {
    const r = await client.walk(v2c(), [IF_TABLE, SYSTEM, '1.3.6.1.2.1.1.5.0']);
    const firstSys = r.varbinds.findIndex((vb) => vb.oid.startsWith(`${SYSTEM}.`));
    assert.ok(firstSys > 0 && r.varbinds.slice(0, firstSys).every((vb) => vb.oid.startsWith(`${IF_TABLE}.`)));
    const last = r.varbinds.at(-1)!;
    assert.equal(last.oid, '1.3.6.1.2.1.1.5.0');
    assert.equal(last.type, 'OctetString');
  });
});

describe('get and getNext', () => {
  test('v2c: missing objects and instances come back typed as such', async () => {
    const r = await client.get(v2c(), ['1.3.6.1.2.1.1.5.0', '1.3.6.1.2.1.1.99.0', '1.3.6.1.2.1.1.5.1']);
    assert.deepEqual(r.map((vb) => vb.type), ['OctetString', 'NoSuchObject', 'NoSuchInstance']);
  });

  test('v1: a missing OID does not fail the others (noSuchName is retried without it)', async () => {
    const r = await client.get(v2c({ version: 'v1' }), ['1.3.6.1.2.1.1.5.0', '1.3.6.1.2.1.1.99.0', '1.3.6.1.2.1.1.6.0']);
    assert.deepEqual(r.map((vb) => [vb.oid, vb.type]), [
      ['1.3.6.1.2.1.1.5.0', 'OctetString'], ['1.3.6.1.2.1.1.99.0', 'NoSuchObject'], ['1.3.6.1.2.1.1.6.0', 'OctetString']]);
    assert.equal(r[2]!.value, 'netprobe test agent');
  });

  test('getNext over v2c and v3 authPriv', async () => {
    for (const t of [v2c(), v3(agent.users.authPriv)]) {
      const r = await client.getNext(t, ['1.3.6.1.2.1.1.1.0']);
      assert.deepEqual(r.map((vb) => [vb.oid, vb.type]), [['1.3.6.1.2.1.1.2.0', 'OID']]);
    }
  });

  test('many OIDs in one get are split into several requests', async () => {
    const oids = Array.from({ length: 70 }, (_, i) => `1.3.6.1.2.1.1.9.1.2.${i + 1}`);
    const r = await client.get(v2c(), oids);
    assert.equal(r.length, 70);
    assert.deepEqual(r.map((vb) => vb.oid), oids);
    assert.equal(r[0]!.type, 'OID');
    assert.equal(r[69]!.type, 'NoSuchInstance');
  });
});

describe('errors', () => {
  test('wrong community (v2c and v1): snmpd stays silent, the v3 probe shows it is there', async () => {
    await rejectsWith(client.walk(v2c({ community: 'not-the-community', ...FAST }), [SYSTEM]), 422, 'snmp_bad_community');
    await rejectsWith(client.get(v2c({ version: 'v1', community: 'not-the-community', ...FAST }), ['1.3.6.1.2.1.1.5.0']),
      422, 'snmp_bad_community');
  });

  test('wrong auth key and wrong auth protocol', async () => {
    const u = agent.users.authPriv;
    await rejectsWith(client.walk(v3({ ...u, auth_key: 'not-the-auth-key' }, FAST), [SYSTEM]), 422, 'snmp_wrong_key');
    await rejectsWith(client.walk(v3({ ...u, auth_protocol: 'md5' }, FAST), [SYSTEM]), 422, 'snmp_wrong_key');
    const a = agent.users.authNoPriv;
    await rejectsWith(client.walk(v3({ ...a, auth_key: 'not-the-auth-key' }, FAST), [SYSTEM]), 422, 'snmp_wrong_key');
  });

  test('wrong privacy key: snmpd drops what it cannot decrypt, the authNoPriv probe shows why', async () => {
    const u = agent.users.authPriv;
    const e = await rejectsWith(client.walk(v3({ ...u, priv_key: 'not-the-priv-key' }, FAST), [SYSTEM]), 422, 'snmp_decryption_failed');
    assert.match(e.message, /privacy key/);
  });

  test('AES-256 with the other key localization (Blumenthal vs Reeder) is a privacy mismatch', async (t) => {
    const r = agent.users.sha1Aes256r;
    const b = agent.users.sha1Aes256b;
    if (!r || !b) { t.skip('this snmpd has no AES-256'); return; }
    await rejectsWith(client.walk(v3({ ...r, priv_protocol: 'aes256b' }, FAST), [SYSTEM]), 422, 'snmp_decryption_failed');
    await rejectsWith(client.walk(v3({ ...b, priv_protocol: 'aes256r' }, FAST), [SYSTEM]), 422, 'snmp_decryption_failed');
  });

  test('unknown user', async () => {
    await rejectsWith(client.walk(v3({ username: 'nobody-here', level: 'noAuthNoPriv' }, FAST), [SYSTEM]), 422, 'snmp_unknown_user');
    await rejectsWith(client.walk(v3({ ...agent.users.authPriv, username: 'nobody-here' }, FAST), [SYSTEM]), 422, 'snmp_unknown_user');
  });

  test('a level the user does not have', async () => {
    const a = agent.users.authNoPriv;
    await rejectsWith(client.walk(v3({ ...a, level: 'authPriv', priv_protocol: 'aes', priv_key: 'some-priv-key' }, FAST), [SYSTEM]),
      422, 'snmp_unsupported_level');
  });

  test('below the level the agent grants: its error-status, named', async () => {
    const u = agent.users.authPriv;
    const e = await rejectsWith(client.walk(v3({ ...u, level: 'authNoPriv' }, FAST), [SYSTEM]), 502, 'snmp_error');
    assert.equal(e.extra?.error_status, 'authorizationError');
  });

  test('a closed UDP port: ICMP port unreachable, at once', async () => {
    const port = await freeUdpPort();
    await rejectsWith(client.walk(v2c({ port, timeout_ms: 5000 }), [SYSTEM]), 502, 'snmp_unreachable');
    await rejectsWith(client.walk(v3(agent.users.authPriv, { port, timeout_ms: 5000 }), [SYSTEM]), 502, 'snmp_unreachable');
  });

  test('an agent that never answers: 504 after the retries, and the v2c probe was tried', async () => {
    const silent = dgram.createSocket('udp4');
    const versions: number[] = [];
    // The SNMP version is the first INTEGER of the message.
    silent.on('message', (m) => versions.push(m[readTlv(m, readTlv(m, 0).start).start]!));
    await new Promise<void>((r) => silent.bind(0, '127.0.0.1', r));
    try {
      const port = silent.address().port;
      await rejectsWith(client.walk(v2c({ port, timeout_ms: 200, retries: 1 }), [SYSTEM]), 504, 'snmp_timeout');
      assert.deepEqual(versions, [1, 1, 3], 'two v2c attempts, then one v3 discovery probe');
      versions.length = 0;
      await rejectsWith(client.walk(v3(agent.users.authNoPriv, { port, timeout_ms: 200, retries: 0 }), [SYSTEM]), 504, 'snmp_timeout');
      assert.deepEqual(versions, [3]);
    } finally {
      silent.close();
    }
  });

  test('an agent whose OIDs do not increase cannot make the walk loop', async () => {
    const fake = await fakeAgent('1.3.6.1.2.1.1.1.0');
    try {
      const e = await rejectsWith(client.walk(v2c({ port: fake.port, ...FAST }), [SYSTEM]), 502, 'snmp_bad_response');
      assert.match(e.message, /not increasing/);
      assert.equal(fake.requests(), 2);
      await rejectsWith(client.walk(v2c({ version: 'v1', port: fake.port, ...FAST }), [SYSTEM]), 502, 'snmp_bad_response');
    } finally {
      await fake.close();
    }
  });

  test('bad parameters are 400s naming the field, before anything is sent', async () => {
    const cases: [SnmpTarget, string][] = [
      [v2c({ community: '' }), 'community'],
      [v2c({ port: 0 }), 'port'],
      [v2c({ timeout_ms: 0 }), 'timeout'],
      [v2c({ retries: 9 }), 'retries'],
      [v3({ ...agent.users.authPriv, auth_key: 'short' }), 'v3.auth_key'],
      [v3({ ...agent.users.authPriv, priv_key: 'short' }), 'v3.priv_key'],
      [v3({ ...agent.users.authPriv, priv_protocol: undefined }), 'v3.priv_protocol'],
      [v3({ username: '', level: 'noAuthNoPriv' }), 'v3.username'],
      [{ host: '127.0.0.1', version: 'v3' }, 'v3'],
    ];
    if (!desAvailable()) cases.push([v3({ ...agent.users.authPriv, priv_protocol: 'des' }), 'v3.priv_protocol']);
    for (const [target, field] of cases) {
      const e = await rejectsWith(client.walk(target, [SYSTEM]), 400, 'validation_failed');
      assert.ok(e.errors?.some((f) => f.path === field), `${field}: ${JSON.stringify(e.errors)}`);
    }
    const e = await rejectsWith(client.walk(v2c(), ['sysDescr', '1.3.6.1.2.1.1']), 400, 'validation_failed');
    assert.deepEqual(e.errors?.map((f) => f.path), ['oids.0']);
    const m = await rejectsWith(client.walk(v2c(), [SYSTEM], { max_varbinds: 0 }), 400, 'validation_failed');
    assert.deepEqual(m.errors?.map((f) => f.path), ['max_varbinds']);
  });
});

describe('bounds', () => {
  test('max_varbinds cuts a walk and says so; the kept part is the start of the full walk', async () => {
    const full = await client.walk(v2c(), [MIB2], { max_varbinds: 100_000 });
    for (const max of [1, 7, 100]) {
      const cut = await client.walk(v2c(), [MIB2], { max_varbinds: max, max_repetitions: 20 });
      assert.equal(cut.truncated, true);
      assert.deepEqual(cut.varbinds.map((vb) => vb.oid), full.varbinds.slice(0, max).map((vb) => vb.oid));
    }
    const v1cut = await client.walk(v2c({ version: 'v1' }), [MIB2], { max_varbinds: 5 });
    assert.equal(v1cut.truncated, true);
    assert.equal(v1cut.varbinds.length, 5);
  });

  test('the limit counts over all roots; exactly enough is not truncated', async () => {
    const sys = await client.walk(v2c(), [SYSTEM]);
    const n = sys.varbinds.length;
    const cut = await client.walk(v2c(), [SYSTEM, IF_TABLE], { max_varbinds: n });
    assert.equal(cut.truncated, true, 'ifTable had more');
    assert.equal(cut.varbinds.length, n);
    const exact = await client.walk(v2c(), [SYSTEM], { max_varbinds: n });
    assert.equal(exact.truncated, false);
    assert.equal(exact.varbinds.length, n);
  });

  test('abort: before the start, and in the middle of a walk', async () => {
    const pre = new AbortController();
    pre.abort();
    await assert.rejects(client.walk(v2c(), [MIB2], { signal: pre.signal }), { name: 'AbortError' });
    const mid = new AbortController();
    // max_repetitions 1 makes a MIB-2 walk thousands of round trips: the abort lands inside it.
    const walking = client.walk(v3(agent.users.authPriv), [MIB2], { max_repetitions: 1, signal: mid.signal });
    setTimeout(() => mid.abort(), 20);
    await assert.rejects(walking, { name: 'AbortError' });
    // Against an agent that never answers, the abort ends the wait.
    const silent = dgram.createSocket('udp4');
    await new Promise<void>((r) => silent.bind(0, '127.0.0.1', r));
    try {
      const ac = new AbortController();
      const waiting = client.walk(v2c({ port: silent.address().port, timeout_ms: 30_000 }), [SYSTEM], { signal: ac.signal });
      setTimeout(() => ac.abort(new Error('stopped by the caller')), 50);
      await assert.rejects(waiting, { message: 'stopped by the caller' });
    } finally {
      silent.close();
    }
  });

  test('no socket outlives an operation, whatever its outcome', async () => {
    const udp = () => process.getActiveResourcesInfo().filter((r) => r === 'UDPWrap').length;
    // A closed socket's handle goes away on a later turn of the event loop (earlier tests' too).
    const settle = async (n: number) => { for (let i = 0; i < 100 && udp() !== n; i++) await new Promise((r) => setTimeout(r, 10)); };
    await settle(0);
    const before = udp();
    const closed = await freeUdpPort();
    const outcomes = await Promise.allSettled([
      client.walk(v2c(), [SYSTEM]),
      client.walk(v3(agent.users.authPriv), [IF_TABLE]),
      client.get(v2c({ version: 'v1' }), ['1.3.6.1.2.1.1.99.0']),
      client.walk(v2c({ community: 'wrong-one', ...FAST }), [SYSTEM]),
      client.walk(v3({ ...agent.users.authPriv, priv_key: 'wrong-priv-key' }, FAST), [SYSTEM]),
      client.walk(v3({ ...agent.users.authPriv, username: 'nobody-here' }, FAST), [SYSTEM]),
      client.walk(v2c({ port: closed }), [SYSTEM]),
    ]);
    assert.deepEqual(outcomes.map((o) => o.status), ['fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'rejected', 'rejected', 'rejected']);
    await settle(before);
    assert.equal(udp(), before);
  });
});

// ---- a misbehaving agent ---------------------------------------------------------------------------

/** BER: tag, definite length, content. */
function tlv(tag: number, content: Buffer): Buffer {
  const n = content.length;
  const len = n < 0x80 ? Buffer.from([n]) : n < 0x100 ? Buffer.from([0x81, n]) : Buffer.from([0x82, n >> 8, n & 0xff]);
  return Buffer.concat([Buffer.from([tag]), len, content]);
}
/** One TLV at `at`: its tag, where its content starts and where it ends. */
function readTlv(b: Buffer, at: number): { tag: number; start: number; end: number } {
  const first = b[at + 1]!;
  const lenBytes = first & 0x80 ? first & 0x7f : 0;
  let len = first;
  if (lenBytes) { len = 0; for (let i = 0; i < lenBytes; i++) len = len * 256 + b[at + 2 + i]!; }
  const start = at + 2 + lenBytes;
  return { tag: b[at]!, start, end: start + len };
}
function encodeOid(oid: string): Buffer {
  const arcs = oid.split('.').map(Number);
  const out = [arcs[0]! * 40 + arcs[1]!];
  for (const a of arcs.slice(2)) {
    const bytes = [a & 0x7f];
    for (let v = a >> 7; v; v >>= 7) bytes.unshift((v & 0x7f) | 0x80);
    out.push(...bytes);
  }
  return tlv(0x06, Buffer.from(out));
}

/** A v1/v2c "agent" that answers every request with the same variable: its OIDs never increase. */
async function fakeAgent(oid: string): Promise<{ port: number; requests(): number; close(): Promise<void> }> {
  const sock = dgram.createSocket('udp4');
  let count = 0;
  sock.on('message', (m, rinfo) => {
    const msg = readTlv(m, 0);
    const version = readTlv(m, msg.start);
    if (m[version.start] === 3) return; // not for v3
    count++;
    const community = readTlv(m, version.end);
    const pdu = readTlv(m, community.end);
    const reqId = readTlv(m, pdu.start);
    const varbind = tlv(0x30, Buffer.concat([encodeOid(oid), tlv(0x02, Buffer.from([5]))]));
    const response = tlv(0xa2, Buffer.concat([m.subarray(pdu.start, reqId.end), tlv(0x02, Buffer.from([0])),
      tlv(0x02, Buffer.from([0])), tlv(0x30, varbind)]));
    const reply = tlv(0x30, Buffer.concat([m.subarray(msg.start, community.end), response]));
    sock.send(reply, rinfo.port, rinfo.address);
  });
  await new Promise<void>((r) => sock.bind(0, '127.0.0.1', r));
  return {
    port: sock.address().port,
    requests: () => count,
    close: () => new Promise<void>((r) => sock.close(() => r())),
  };
}
