// The "identified by" line the discovery pages show under a host's SNMP identification (issue 35 §4):
// the decisive fact for the maker and the kind without the OIDs behind them, all of it in the title.
import assert from 'node:assert/strict';
import { test } from 'node:test';
// @ts-expect-error plain browser JavaScript without type declarations
import { identifiedBy, identifiedByLines } from '../../ui/pages/discovery/model.js';

test('identified by: the enterprise or the sysDescr pattern that named the maker, and why this kind', () => {
  const evidence = {
    manufacturer: 'enterprise 11863 (TP-Link), owned by TP-Link (sysObjectID 1.3.6.1.4.1.11863.1.1.3)',
    variant: 'sysObjectID 1.3.6.1.4.1.11863.1.1.3 under tplink (1.3.6.1.4.1.11863)',
    model: null,
    kind: 'BRIDGE-MIB answers (dot1dBaseNumPorts 9)',
  };
  assert.equal(identifiedBy({ evidence }), 'enterprise 11863 (TP-Link); BRIDGE-MIB answers');
  assert.deepEqual(identifiedByLines({ evidence }), [
    'Maker: enterprise 11863 (TP-Link), owned by TP-Link (sysObjectID 1.3.6.1.4.1.11863.1.1.3)',
    'Profile: sysObjectID 1.3.6.1.4.1.11863.1.1.3 under tplink (1.3.6.1.4.1.11863)',
    'Kind: BRIDGE-MIB answers (dot1dBaseNumPorts 9)',
  ]);
  const usw = { ...evidence, manufacturer: 'sysDescr matches /^\\W*(?:USW|US-\\d|UBNT US)/i (sysObjectID 1.3.6.1.4.1.4413 of enterprise 4413 (Broadcom))',
    kind: 'switch: the unifi-switch product line of Ubiquiti' };
  assert.equal(identifiedBy({ evidence: usw }), 'sysDescr matches /^\\W*(?:USW|US-\\d|UBNT US)/i; switch: the unifi-switch product line of Ubiquiti');
  assert.equal(identifiedBy({ evidence: { ...evidence, manufacturer: null, kind: 'no bridging or LLDP evidence: device by default' } }),
    'no bridging or LLDP evidence: device by default');
  assert.equal(identifiedBy({}), null, 'results kept before evidence existed');
  assert.equal(identifiedBy(null), null);
  assert.deepEqual(identifiedByLines({ evidence: null }), []);
});
