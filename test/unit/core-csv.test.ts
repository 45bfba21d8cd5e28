// The one CSV writer and reader (src/core/csv.ts): RFC 4180 quoting, formula cells neutralised on the way
// out and restored on the way in (uncell), numbers left as numbers, and the parser's lines and refusals.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { csvCell, csvLine, parseCsv, uncell } from '../../src/core/csv.js';

test('a text a spreadsheet would run is written with a quote and read back as it was', () => {
  for (const s of ['=SUM(A1)', '+41 44 000 00 00', '-1', '@cmd', '\tx', '\r=1']) {
    const cell = parseCsv(csvLine([s]))[0]!.cells[0]!;
    assert.equal(cell, `'${s}`, s);
    assert.equal(uncell(cell), s, s);
  }
  assert.equal(csvCell(-33.86), '-33.86', 'a number is a number');
  assert.equal(csvCell('-33.86'), "'-33.86", 'a text that looks like one is still neutralised');
  // Only the quote csvCell adds comes off: a text that starts with a quote of its own keeps it.
  assert.equal(uncell("'plain"), "'plain");
  assert.equal(uncell("'"), "'");
  assert.equal(uncell('a=b'), 'a=b');
});

test('the parser reads quoted cells across lines, doubled quotes and a byte order mark, and says where rows start', () => {
  const text = '\uFEFFname,notes\r\n"a, b","two\nlines ""quoted"""\r\nc,\r\n';
  assert.deepEqual(parseCsv(text), [
    { line: 1, cells: ['name', 'notes'] },
    { line: 2, cells: ['a, b', 'two\nlines "quoted"'] },
    { line: 4, cells: ['c', ''] },
  ]);
  assert.deepEqual(parseCsv(csvLine(['x', null, { a: 1 }, 'q"'])), [{ line: 1, cells: ['x', '', '{"a":1}', 'q"'] }]);
  assert.throws(() => parseCsv('a,"open\r\n'), /unterminated quoted cell/);
});
