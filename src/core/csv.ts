// CSV (RFC 4180) written and read the one way the service does it: every export (the monitor event log, the
// inventory's lists) writes cells with csvCell, which neutralises cells a spreadsheet would run as a formula;
// every import reads with parseCsv, and takes that neutralising quote off again with uncell. A leaf: it
// imports only the error type.
import { badRequest } from './errors.js';

/** Characters that make a spreadsheet treat a cell as a formula (or that hide one: tab, CR). */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * One CSV cell: a cell that a spreadsheet would run as a formula gets a leading single quote, then the
 * cell is quoted (RFC 4180) when it holds a comma, a double quote, CR or LF. A number is written as it is
 * (-5 is a number to a spreadsheet, not a formula).
 */
export function csvCell(value: unknown): string {
  if (value == null) return '';
  let s = typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (typeof value !== 'number' && FORMULA_START.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** A record terminated by CRLF (RFC 4180). */
export function csvLine(cells: readonly unknown[]): string {
  return cells.map(csvCell).join(',') + '\r\n';
}

/** A cell as csvCell wrote it, read back: the quote it put before a formula-like text comes off. */
export function uncell(cell: string): string {
  return cell.length > 1 && cell[0] === "'" && FORMULA_START.test(cell.slice(1)) ? cell.slice(1) : cell;
}

/** RFC 4180 rows with the line each starts on (quoted cells may span lines); a byte order mark is skipped. */
export function parseCsv(text: string): { line: number; cells: string[] }[] {
  const rows: { line: number; cells: string[] }[] = [];
  let i = 0, line = 1;
  const src = text.replace(/^\uFEFF/, '');
  while (i < src.length) {
    const start = line;
    const cells: string[] = [];
    for (;;) {
      let cell = '';
      if (src[i] === '"') {
        i++;
        for (;;) {
          if (i >= src.length) {
            throw badRequest('The CSV has an unterminated quoted cell', [{ path: '', message: `Unterminated quote (line ${start})` }]);
          }
          const c = src[i]!;
          if (c === '"') {
            if (src[i + 1] === '"') { cell += '"'; i += 2; continue; }
            i++; break;
          }
          if (c === '\n') line++;
          cell += c; i++;
        }
      } else {
        while (i < src.length && src[i] !== ',' && src[i] !== '\n' && src[i] !== '\r') cell += src[i++];
      }
      cells.push(cell);
      if (src[i] === ',') { i++; continue; }
      if (src[i] === '\r') i++;
      if (src[i] === '\n') { i++; line++; }
      break;
    }
    rows.push({ line: start, cells });
  }
  return rows;
}
