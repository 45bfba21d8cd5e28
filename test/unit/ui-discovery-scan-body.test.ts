// The scan form's request (ui/pages/discovery/model.js, scanBody): what is typed in goes first, then
// credentials chosen from the vault, then the saved discovery list when it is wanted. Naming any
// credential replaces the saved list on the server, so the list is named too; no SNMP, no credentials.
import assert from 'node:assert/strict';
import { test } from 'node:test';
// @ts-expect-error plain browser JavaScript without type declarations
import { initialScanForm, scanBody } from '../../ui/pages/discovery/model.js';

const SAVED = ['11111111-1111-4111-8111-111111111111', '22222222-2222-4222-8222-222222222222'];
const VAULT = '33333333-3333-4333-8333-333333333333';

test('by default the saved list is left to the server, and a typed community goes along', () => {
  const v = { ...initialScanForm('10.0.0.0/24'), community: 'public' };
  assert.deepEqual(scanBody(v, SAVED), { subnet: '10.0.0.0/24', snmp_enabled: true, snmp_version: '2c', community: 'public' });
});

test('vault credentials are named first, then the saved list; without the saved list only them', () => {
  const v = { ...initialScanForm('10.0.0.0/24'), vault: [VAULT, SAVED[1]] };
  assert.deepEqual(scanBody(v, SAVED).credentials, [VAULT, SAVED[1], SAVED[0]]);
  assert.deepEqual(scanBody({ ...v, use_saved: false }, SAVED).credentials, [VAULT, SAVED[1]]);
});

test('no saved list and no vault choice: an empty list; SNMP off: no credentials at all', () => {
  assert.deepEqual(scanBody({ ...initialScanForm('10.0.0.0/24'), use_saved: false }, SAVED).credentials, []);
  assert.deepEqual(scanBody({ ...initialScanForm('10.0.0.0/24'), snmp_enabled: false, vault: [VAULT] }, SAVED),
    { subnet: '10.0.0.0/24', snmp_enabled: false });
});
