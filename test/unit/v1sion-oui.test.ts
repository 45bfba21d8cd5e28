// MAC vendor lookup from the compiled IEEE registries (src/modules/v1sion/scan/oui-table.json):
// longest-prefix matches across MA-L, MA-M, MA-S and IAB, the address formats, malformed input,
// locally administered addresses, and that the committed table is what scripts/compile-oui.ts makes of
// the installed ieee-data. Every expected name and count below was read from Debian's ieee-data
// 20220827.1; a table regenerated from a newer release updates the counts in 'counts agree...'.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isLocallyAdministered, ouiTable, ouiVendor } from '../../src/modules/v1sion/scan/oui.js';
import { cleanName, compileOui, parseCsv, REGISTRIES, serialise } from '../../scripts/compile-oui.js';

const TABLE_FILE = fileURLToPath(new URL('../../src/modules/v1sion/scan/oui-table.json', import.meta.url));
const IEEE_DATA = '/usr/share/ieee-data';

describe('ouiVendor: registry assignments', () => {
  const cases: Array<[string, string, string, string]> = [
    // [mac, vendor, prefix, block]
    ['00:00:0c:12:34:56', 'Cisco Systems, Inc', '00:00:0c', 'MA-L'],
    ['b8:27:eb:01:02:03', 'Raspberry Pi Foundation', 'b8:27:eb', 'MA-L'],
    ['dc:a6:32:aa:bb:cc', 'Raspberry Pi Trading Ltd', 'dc:a6:32', 'MA-L'],
    ['e4:5f:01:00:00:01', 'Raspberry Pi Trading Ltd', 'e4:5f:01', 'MA-L'],
    // MA-M: f8:02:78 is the registration authority's own MA-L; its MA-M blocks belong to others.
    ['f8:02:78:4a:bc:de', 'CLARUS Korea Co., Ltd', 'f8:02:78:4', 'MA-M'],
    ['f8:02:78:f0:00:01', 'Private', 'f8:02:78:f', 'MA-M'],
    // 00:69:67:f is the one MA-M block of that MA-L not assigned: the MA-L answers.
    ['00:69:67:f1:23:45', 'IEEE Registration Authority', '00:69:67', 'MA-L'],
    // MA-S inside 70:b3:d5 (the registration authority's MA-L), and one of its unassigned 36-bit blocks.
    ['70:b3:d5:f2:f1:23', 'TELEPLATFORMS', '70:b3:d5:f2:f', 'MA-S'],
    ['70:b3:d5:1e:c0:01', 'IEEE Registration Authority', '70:b3:d5', 'MA-L'],
    // IAB, in both of its MA-L.
    ['00:50:c2:7d:5f:ff', 'DEUTA-WERKE GmbH', '00:50:c2:7d:5', 'IAB'],
    ['40:d8:55:11:c0:00', 'DEUTA-WERKE GmbH', '40:d8:55:11:c', 'IAB'],
    // Listed three times by the registry (1980s assignments): every name, joined.
    ['08:00:30:00:00:01', 'CERN / NETWORK RESEARCH CORPORATION / ROYAL MELBOURNE INST OF TECH', '08:00:30', 'MA-L'],
  ];
  for (const [mac, vendor, prefix, block] of cases) {
    test(`${mac} -> ${vendor} (${block})`, () => {
      assert.deepEqual(ouiVendor(mac), { vendor, prefix, block });
    });
  }

  test('the first and last addresses of a prefix match it, the neighbours do not', () => {
    assert.equal(ouiVendor('70:b3:d5:f2:f0:00')?.vendor, 'TELEPLATFORMS');
    assert.equal(ouiVendor('70:b3:d5:f2:ff:ff')?.vendor, 'TELEPLATFORMS');
    assert.notEqual(ouiVendor('70:b3:d5:f2:e0:00')?.vendor, 'TELEPLATFORMS');
    assert.notEqual(ouiVendor('70:b3:d5:f3:00:00')?.vendor, 'TELEPLATFORMS');
    assert.equal(ouiVendor('00:00:0c:00:00:00')?.vendor, 'Cisco Systems, Inc');
    assert.equal(ouiVendor('00:00:0c:ff:ff:ff')?.vendor, 'Cisco Systems, Inc');
  });

  test('the first and last entries of every block are found (the binary search reaches both ends)', () => {
    for (const b of ouiTable().blocks) {
      const digits = b.bits / 4;
      for (const hex of [b.prefixes.slice(0, digits), b.prefixes.slice(-digits)]) {
        const mac = (hex + '0'.repeat(12 - digits)).replace(/(..)(?!$)/g, '$1:');
        const m = ouiVendor(mac);
        assert.equal(m?.block, b.registry, mac);
        assert.equal(m?.prefix.replace(/:/g, ''), hex, mac);
      }
    }
  });
});

describe('ouiVendor: input', () => {
  test('colon, hyphen, Cisco dotted and bare hex, any case, surrounding space', () => {
    for (const mac of ['b8:27:eb:01:02:03', 'B8:27:EB:01:02:03', 'b8-27-eb-01-02-03', 'B8-27-EB-01-02-03',
      'b827.eb01.0203', 'B827.EB01.0203', 'b827eb010203', ' b8:27:eb:01:02:03\n']) {
      assert.deepEqual(ouiVendor(mac), { vendor: 'Raspberry Pi Foundation', prefix: 'b8:27:eb', block: 'MA-L' }, JSON.stringify(mac));
    }
  });

  test('malformed input is null', () => {
    for (const bad of ['', 'b8:27:eb', 'b8:27:eb:01:02', 'b8:27:eb:01:02:03:04', 'b8:27-eb:01:02:03', 'g8:27:eb:01:02:03',
      'b8:27:eb:1:2:3', 'b827.eb01.020', 'b827eb01020', 'b827eb0102033', '0xb827eb010203', 'b8 27 eb 01 02 03', 'not a mac']) {
      assert.equal(ouiVendor(bad), null, JSON.stringify(bad));
    }
    assert.equal(ouiVendor(null as unknown as string), null);
    assert.equal(ouiVendor(42 as unknown as string), null);
  });
});

describe('locally administered addresses', () => {
  test('no registry assignment: null, and isLocallyAdministered says why', () => {
    // Docker's bridge addresses, QEMU's default, a randomised phone Wi-Fi address.
    for (const mac of ['02:42:ac:11:00:02', '52:54:00:12:34:56', 'da:a1:19:5e:2b:07', '06:00:00:00:00:01']) {
      assert.equal(ouiVendor(mac), null, mac);
      assert.equal(isLocallyAdministered(mac), true, mac);
    }
  });

  test('pre-IEEE 802 prefixes the registry lists with the U/L bit set still answer', () => {
    assert.deepEqual(ouiVendor('02:60:8c:12:34:56'), { vendor: '3COM', prefix: '02:60:8c', block: 'MA-L' });
    assert.deepEqual(ouiVendor('aa:00:04:00:0c:04'), { vendor: 'DIGITAL EQUIPMENT CORPORATION', prefix: 'aa:00:04', block: 'MA-L' });
    assert.equal(isLocallyAdministered('aa:00:04:00:0c:04'), true);
  });

  test('universal addresses and malformed input are not locally administered', () => {
    assert.equal(isLocallyAdministered('b8:27:eb:01:02:03'), false);
    assert.equal(isLocallyAdministered('01:00:5e:00:00:01'), false, 'a group address, universally administered');
    assert.equal(isLocallyAdministered('nonsense'), false);
  });

  test('a universal address no one has been assigned is null too', () => {
    assert.equal(ouiVendor('01:00:5e:00:00:01'), null, 'IPv4 multicast: no assignment has the group bit');
  });
});

describe('the committed table', () => {
  const table = ouiTable();

  test('counts agree with the registries it was compiled from', () => {
    const expected = { 'MA-S': [5029, 5029], IAB: [4575, 4575], 'MA-M': [4390, 4390], 'MA-L': [32530, 32527] };
    assert.deepEqual(table.blocks.map((b) => b.registry), ['MA-S', 'IAB', 'MA-M', 'MA-L'], 'longest prefixes first');
    for (const b of table.blocks) {
      const src = table.sources.find((s) => s.registry === b.registry)!;
      const count = b.prefixes.length / (b.bits / 4);
      // ieee-data 20220827.1: MA-L lists 00:01:c8 twice and 08:00:30 three times; every other prefix once.
      assert.deepEqual([src.assignments, count], expected[b.registry as keyof typeof expected], b.registry);
      assert.equal(b.organisations.length, count * b.width, `${b.registry}: one organisation per prefix`);
      const prefixes = b.prefixes.match(new RegExp(`.{${b.bits / 4}}`, 'g'))!;
      assert.deepEqual(prefixes, [...prefixes].sort(), `${b.registry}: sorted`);
      assert.equal(new Set(prefixes).size, prefixes.length, `${b.registry}: no repeats`);
    }
    assert.equal(table.organisations.length, 29568);
    assert.ok(table.organisations.every((n) => n === cleanName(n) && n !== ''), 'names are clean');
    assert.equal(new Set(table.organisations).size, table.organisations.length, 'names are distinct');
  });

  test('it is what scripts/compile-oui.ts makes of the installed ieee-data', (t) => {
    if (!existsSync(IEEE_DATA)) {
      t.skip(`${IEEE_DATA} is not here (apt-get install ieee-data to compare; the counts above still hold)`);
      return;
    }
    const missing = REGISTRIES.filter((r) => !existsSync(join(IEEE_DATA, r.file))).map((r) => r.file);
    if (missing.length) { t.skip(`${IEEE_DATA} lacks ${missing.join(', ')}`); return; }
    const installed = REGISTRIES.map((r) => statSync(join(IEEE_DATA, r.file)).mtime.toISOString().slice(0, 10));
    const compiled = REGISTRIES.map((r) => table.sources.find((s) => s.file === r.file)?.date);
    if (installed.join() !== compiled.join()) {
      t.skip(`the installed ieee-data is of ${installed.join(', ')}, the table of ${compiled.join(', ')}: ` +
        'a different release (npx tsx scripts/compile-oui.ts regenerates the table from it)');
      return;
    }
    assert.equal(serialise(compileOui(IEEE_DATA)), readFileSync(TABLE_FILE, 'utf8'), 'stale: run npx tsx scripts/compile-oui.ts');
  });
});

describe('compile-oui parsing', () => {
  test('CSV: quoted commas, doubled quotes, line breaks inside quotes, CRLF', () => {
    const text = 'Registry,Assignment,Organization Name,Organization Address\r\n'
      + 'MA-L,F4BD9E,"Cisco Systems, Inc",80 West Tasman Drive\r\n'
      + 'MA-S,70B3D5000,"Private Enterprise ""X""","line one\nline two"\n'
      + 'MA-L,000000,XEROX CORPORATION,';
    assert.deepEqual(parseCsv(text), [
      ['Registry', 'Assignment', 'Organization Name', 'Organization Address'],
      ['MA-L', 'F4BD9E', 'Cisco Systems, Inc', '80 West Tasman Drive'],
      ['MA-S', '70B3D5000', 'Private Enterprise "X"', 'line one\nline two'],
      ['MA-L', '000000', 'XEROX CORPORATION', ''],
    ]);
  });

  test('names: spaces collapsed and trimmed, invisible characters dropped, spelling kept', () => {
    assert.equal(cleanName('  Acme   Widgets\tCo., Ltd  '), 'Acme Widgets Co., Ltd');
    assert.equal(cleanName('\u200bASUNG TECHNO CO.,Ltd'), 'ASUNG TECHNO CO.,Ltd');
    assert.equal(cleanName('Gilbarco Veeder-Root \u200e'), 'Gilbarco Veeder-Root');
    assert.equal(cleanName('上海尧它科技有限公司'), '上海尧它科技有限公司');
  });
});
