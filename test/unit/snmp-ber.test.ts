// The BER codec of the SNMP client (src/modules/snmp/client/ber.ts): the SNMPv3 engine-discovery request
// byte for byte, a Report written out by hand as an agent sends it, v1/v2c messages, the limits that keep
// hostile input cheap, and a fuzz run (random datagrams, every truncation and random corruptions of
// valid messages): decodeMessage never throws. Also engine ID formatting (engine-id.ts).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  BerError, decodeInt, decodeMessage, decodeOid, encodeCommunityMessage, encodeDiscoveryRequest, encodePdu, encodeUnsigned,
  encodeV3Message, MSG_FLAGS, readTlv, TAG, tlv, type CommunityMessage, type V3Message,
} from '../../src/modules/snmp/client/ber.js';
import { describeEngineId, normaliseEngineId } from '../../src/modules/snmp/client/engine-id.js';

const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ''), 'hex');

describe('the SNMPv3 engine-discovery request (RFC 3414 §4)', () => {
  test('is a noAuthNoPriv, reportable GET with empty engine ID and user, byte for byte', () => {
    const expected = hex(`
      30 3e
        02 01 03
        30 11  02 04 01 02 03 04   02 03 00 ff e3   04 01 04   02 01 03
        04 10  30 0e  04 00  02 01 00  02 01 00  04 00  04 00  04 00
        30 14  04 00  04 00
          a0 0e  02 04 01 02 03 04  02 01 00  02 01 00  30 00`);
    assert.deepEqual(encodeDiscoveryRequest(0x01020304), expected);
  });

  test('decodes back to what it says', () => {
    const m = decodeMessage(encodeDiscoveryRequest(0x7654321)) as V3Message;
    assert.equal(m.version, 3);
    assert.equal(m.msgId, 0x7654321);
    assert.equal(m.maxSize, 65507);
    assert.equal(m.flags, MSG_FLAGS.reportable);
    assert.equal(m.securityModel, 3);
    assert.equal(m.usm!.engineId.length, 0);
    assert.equal(m.usm!.userName.length, 0);
    assert.equal(m.usm!.engineBoots, 0);
    assert.equal(m.scoped!.pdu.tag, TAG.GetRequest);
    assert.equal(m.scoped!.pdu.requestId, 0x7654321);
    assert.deepEqual(m.scoped!.pdu.varbinds, []);
  });
});

describe('a Report, written out by hand as Net-SNMP sends it', () => {
  // msgID 0x01020304, msgMaxSize 65507, flags 0 (a Report is not reportable), USM;
  // engine 80 00 1f 88 80 + 8 octets (Net-SNMP's random format), boots 3, time 1234;
  // Report PDU (0xa8) with usmStatsUnknownEngineIDs.0 = Counter32 7.
  const report = hex(`
    30 6a
      02 01 03
      30 11  02 04 01 02 03 04  02 03 00 ff e3  04 01 00  02 01 03
      04 1e  30 1c
               04 0d  80 00 1f 88 80 11 22 33 44 55 66 77 88
               02 01 03
               02 02 04 d2
               04 00  04 00  04 00
      30 32
        04 0d  80 00 1f 88 80 11 22 33 44 55 66 77 88
        04 00
        a8 1f  02 04 01 02 03 04  02 01 00  02 01 00
               30 11  30 0f  06 0a 2b 06 01 06 03 0f 01 01 04 00  41 01 07`);

  test('yields the engine ID, boots and time, and the Report PDU', () => {
    const m = decodeMessage(report) as V3Message;
    assert.ok(m, 'decodes');
    assert.equal(m.version, 3);
    assert.equal(m.msgId, 0x01020304);
    assert.equal(m.flags, 0);
    assert.equal(m.usm!.engineId.toString('hex'), '80001f88801122334455667788');
    assert.equal(m.usm!.engineBoots, 3);
    assert.equal(m.usm!.engineTime, 1234);
    assert.equal(m.scoped!.contextEngineId.toString('hex'), '80001f88801122334455667788');
    const pdu = m.scoped!.pdu;
    assert.equal(pdu.tag, TAG.Report);
    assert.equal(pdu.requestId, 0x01020304);
    assert.equal(pdu.varbinds.length, 1);
    assert.equal(pdu.varbinds[0]!.oid, '1.3.6.1.6.3.15.1.1.4.0');
    assert.equal(pdu.varbinds[0]!.tag, TAG.Counter32);
    assert.equal(decodeInt(pdu.varbinds[0]!.value), 7n);
  });

  test('our encoder writes the same bytes', () => {
    const engineId = hex('80 00 1f 88 80 11 22 33 44 55 66 77 88');
    const built = encodeV3Message({
      msgId: 0x01020304, flags: 0, usm: { engineId, engineBoots: 3, engineTime: 1234 }, contextEngineId: engineId,
      pdu: encodePdu({ tag: TAG.Report, requestId: 0x01020304, varbinds: [
        { oid: '1.3.6.1.6.3.15.1.1.4.0', value: tlv(TAG.Counter32, encodeUnsigned(7n)) },
      ] }),
    });
    assert.deepEqual(built, report);
  });

  test('an encrypted scopedPDU (msgData as an OCTET STRING) decodes without it', () => {
    const m = decodeMessage(hex(`30 3a 02 01 03 30 11 02 04 01 02 03 04 02 03 00 ff e3 04 01 03 02 01 03
      04 1e 30 1c 04 0d 80 00 1f 88 80 11 22 33 44 55 66 77 88 02 01 03 02 02 04 d2 04 00 04 00 04 00
      04 02 de ad`)) as V3Message;
    assert.ok(m);
    assert.equal(m.scoped, undefined);
    assert.equal(m.usm!.engineBoots, 3);
  });
});

describe('v1/v2c messages', () => {
  test('a v2c GET round-trips; trailing bytes or a second PDU make it undecodable', () => {
    const msg = encodeCommunityMessage(1, 's3cret', encodePdu({ tag: TAG.GetRequest, requestId: 42, varbinds: [{ oid: '1.3.6.1.2.1.1.1.0' }] }));
    const m = decodeMessage(msg) as CommunityMessage;
    assert.equal(m.version, 1);
    assert.equal(m.community.toString(), 's3cret');
    assert.equal(m.pdu.requestId, 42);
    assert.deepEqual(m.pdu.varbinds, [{ oid: '1.3.6.1.2.1.1.1.0', tag: TAG.Null, value: Buffer.alloc(0) }]);
    assert.equal(decodeMessage(Buffer.concat([msg, Buffer.from([0])])), undefined);
    assert.equal(decodeMessage(msg.subarray(0, msg.length - 1)), undefined);
  });

  test('versions other than 0, 1 and 3 and a v1 Trap are not answers', () => {
    const pdu = encodePdu({ tag: TAG.Response, requestId: 1, varbinds: [] });
    assert.equal(decodeMessage(encodeCommunityMessage(2 as 1, 'x', pdu)), undefined);
    const trap = tlv(TAG.TrapV1, hex('06 03 2b 06 01 40 04 7f 00 00 01 02 01 00 02 01 00 43 01 00 30 00'));
    assert.equal(decodeMessage(encodeCommunityMessage(0, 'x', trap)), undefined);
  });
});

describe('limits', () => {
  test('lengths past the buffer, indefinite lengths and multi-byte tags throw BerError', () => {
    assert.throws(() => readTlv(hex('04 05 00'), 0), BerError);
    assert.throws(() => readTlv(hex('30 80 00 00'), 0), BerError);
    assert.throws(() => readTlv(hex('30 85 00 00 00 00 01 00'), 0), BerError);
    assert.throws(() => readTlv(hex('1f 81 01 00'), 0), BerError);
    assert.throws(() => readTlv(hex('30'), 0), BerError);
  });

  test('OIDs: an arc cut short, too many arcs, an arc past 2^32-1', () => {
    assert.deepEqual(decodeOid(hex('2b 06 01 82 37')), [1, 3, 6, 1, 311]);
    assert.throws(() => decodeOid(hex('2b 06 81')), BerError);
    assert.throws(() => decodeOid(Buffer.alloc(0)), BerError);
    assert.throws(() => decodeOid(Buffer.alloc(200, 1)), BerError);
    assert.throws(() => decodeOid(hex('2b 90 80 80 80 00')), BerError);
    assert.deepEqual(decodeOid(hex('2b 8f ff ff ff 7f')), [1, 3, 0xffffffff]);
  });

  test('an INTEGER longer than 16 octets throws instead of costing quadratic BigInt work', () => {
    assert.equal(decodeInt(hex('00 ff ff ff ff ff ff ff ff')), 2n ** 64n - 1n);
    assert.throws(() => decodeInt(Buffer.alloc(17, 1)), BerError);
    // A request-id as long as a datagram: the message is simply not decodable.
    const big = encodeCommunityMessage(1, 'x', tlv(TAG.Response, Buffer.concat([tlv(TAG.Integer, Buffer.alloc(60_000, 0x11)),
      hex('02 01 00 02 01 00 30 00')])));
    assert.equal(decodeMessage(big), undefined);
  });
});

describe('fuzz: decodeMessage never throws', () => {
  // A small seeded PRNG (mulberry32) so a failure can be replayed.
  function prng(seed: number): () => number {
    let a = seed >>> 0;
    return () => {
      a = (a + 0x6d2b79f5) >>> 0;
      let t = a;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }
  const rnd = prng(0x5eed);
  const bytes = (n: number) => Buffer.from(Array.from({ length: n }, () => Math.floor(rnd() * 256)));
  const response = encodeCommunityMessage(1, 'public', encodePdu({ tag: TAG.Response, requestId: 0x12345678, varbinds: [
    { oid: '1.3.6.1.2.1.1.1.0', value: tlv(TAG.OctetString, Buffer.from('Linux sw1 6.1.0')) },
    { oid: '1.3.6.1.2.1.1.2.0', value: tlv(TAG.OID, hex('2b 06 01 04 01 bf 08 03 02 0a')) },
    { oid: '1.3.6.1.2.1.1.3.0', value: tlv(TAG.TimeTicks, encodeUnsigned(123456n)) },
    { oid: '1.3.6.1.2.1.1.7.0', value: tlv(TAG.NoSuchInstance, Buffer.alloc(0)) },
  ] }));
  const valid = [encodeDiscoveryRequest(0x01020304), response, encodeV3Message({
    msgId: 99, flags: 0, usm: { engineId: hex('80001f8880aabbccdd'), engineBoots: 1, engineTime: 5 },
    pdu: encodePdu({ tag: TAG.Report, requestId: 99, varbinds: [{ oid: '1.3.6.1.6.3.15.1.1.4.0', value: tlv(TAG.Counter32, hex('01')) }] }),
  })];
  const noThrow = (b: Buffer) => assert.doesNotThrow(() => decodeMessage(b), `input ${b.toString('hex')}`);

  test('random datagrams, and random bytes behind a plausible SEQUENCE header', () => {
    for (let i = 0; i < 3000; i++) noThrow(bytes(Math.floor(rnd() * 300)));
    for (let i = 0; i < 3000; i++) {
      const body = bytes(Math.floor(rnd() * 120));
      noThrow(Buffer.concat([Buffer.from([0x30, body.length]), body]));
      noThrow(Buffer.concat([hex('30'), Buffer.from([body.length + 3]), hex('02 01 03'), body]));
    }
  });

  test('every truncation of valid messages is undecodable, not an exception', () => {
    for (const m of valid) {
      assert.ok(decodeMessage(m), 'the untouched message decodes');
      for (let n = 0; n < m.length; n++) {
        noThrow(m.subarray(0, n));
        assert.equal(decodeMessage(m.subarray(0, n)), undefined);
      }
    }
  });

  test('random corruptions of valid messages (byte flips, inserted and deleted bytes)', () => {
    for (let i = 0; i < 6000; i++) {
      const m = Buffer.from(valid[i % valid.length]!);
      const pos = Math.floor(rnd() * m.length);
      let out: Buffer;
      switch (i % 3) {
        case 0:
          for (let k = 0; k < 1 + Math.floor(rnd() * 3); k++) m[Math.floor(rnd() * m.length)] = Math.floor(rnd() * 256);
          out = m;
          break;
        case 1:
          out = Buffer.concat([m.subarray(0, pos), bytes(1 + Math.floor(rnd() * 4)), m.subarray(pos)]);
          break;
        default:
          out = Buffer.concat([m.subarray(0, pos), m.subarray(pos + 1 + Math.floor(rnd() * 4))]);
      }
      noThrow(out);
    }
  });
});

describe('engine IDs (RFC 3411 SnmpEngineID)', () => {
  const names = (n: number) => ({ 8072: 'net-snmp', 9: 'Cisco' } as Record<number, string>)[n];

  test('Net-SNMP random, text, MAC, IPv4, IPv6, octets, enterprise formats', () => {
    const random = describeEngineId('80001f8880431d3718b94d086b00000000', names);
    assert.equal(random.enterprise, 8072);
    assert.equal(random.format, 'enterprise');
    assert.equal(random.label, 'net-snmp (8072) random 0x431d3718b94d086b00000000');
    assert.equal(describeEngineId(hex('80001f8804 6e65747072'), names).label, 'net-snmp (8072) text netpr');
    const mac = describeEngineId('800000090300 1a2b 3c4d 5e'.replace(/ /g, ''), names);
    assert.equal(mac.format, 'mac');
    assert.equal(mac.value, '00:1a:2b:3c:4d:5e');
    assert.equal(mac.label, 'Cisco (9) MAC 00:1a:2b:3c:4d:5e');
    assert.equal(describeEngineId('8000000901c0000201').label, 'enterprise 9 IPv4 192.0.2.1');
    assert.equal(describeEngineId('800000090220010db8000000000000000000000001').value, '2001:db8::1');
    assert.equal(describeEngineId('8000000905abcdef').label, 'enterprise 9 octets 0xabcdef');
    assert.equal(describeEngineId('8000000981abcdef').label, 'enterprise 9 format 129 0xabcdef');
    assert.equal(describeEngineId('8000000907abcdef').format, 'reserved');
  });

  test('a wrong length for the format shows hex; the RFC 1910 form; too short or long', () => {
    assert.equal(describeEngineId('8000000903001a2b').label, 'enterprise 9 MAC 0x001a2b');
    assert.equal(describeEngineId('80001f8804 01 02'.replace(/ /g, ''), names).label, 'net-snmp (8072) text 0x0102');
    const legacy = describeEngineId('000000090000000a0b0c0d0e', names);
    assert.equal(legacy.format, 'legacy');
    assert.equal(legacy.label, 'Cisco (9) legacy 0x0000000a0b0c0d0e');
    assert.equal(describeEngineId('80001f88').format, 'unknown');
    assert.equal(describeEngineId(Buffer.alloc(33, 0x80)).format, 'unknown');
  });

  test('normaliseEngineId reads what tools print', () => {
    assert.equal(normaliseEngineId('0x80001F8880431D37'), '80001f8880431d37');
    assert.equal(normaliseEngineId('80 00 1F 88 80 43 1D 37'), '80001f8880431d37');
    assert.equal(normaliseEngineId('80:00:1f:88:80'), '80001f8880');
    assert.equal(normaliseEngineId('80:00:1f:88'), null);
    assert.equal(normaliseEngineId('not hex'), null);
    assert.equal(normaliseEngineId('800'), null);
  });
});
