// Journal format 1, as builds before the binary records wrote it: a record's payload is UTF-8 JSON
// {"l": lsn, "s": [[sql, params or null], ...]}, with tagged values for what JSON cannot carry:
// {"$b": base64} for a Uint8Array, {"$i": "123"} for a bigint, {"$f": "Infinity"} for a non-finite number.
// This build only reads it: a probe upgraded with such a journal replays it once, and the checkpoint that
// follows starts the file over in format 2 (store.ts, init).
import { frame, type JournalRecord, type JournalStatement } from './record.js';
import type { SqlParams, SqlValue } from './types.js';

function decodeValue(v: unknown): SqlValue | boolean {
  if (v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return v;
  if (typeof v === 'object' && !Array.isArray(v)) {
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o);
    if (keys.length === 1 && typeof o[keys[0]!] === 'string') {
      const s = o[keys[0]!] as string;
      if (keys[0] === '$b') return new Uint8Array(Buffer.from(s, 'base64'));
      if (keys[0] === '$i') return BigInt(s);
      if (keys[0] === '$f') return Number(s);
    }
  }
  throw new Error('malformed value in journal record');
}

function decodeParams(p: unknown): SqlParams | null {
  if (p === null) return null;
  if (Array.isArray(p)) return p.map(decodeValue) as SqlParams;
  if (typeof p === 'object') {
    const out: Record<string, SqlValue> = {};
    for (const [k, v] of Object.entries(p as Record<string, unknown>)) out[k] = decodeValue(v) as SqlValue;
    return out;
  }
  throw new Error('malformed params in journal record');
}

/** Parses a format-1 payload whose CRC already matched. Throws if it is not a well-formed record. */
export function decodeLegacyPayload(payload: Uint8Array): JournalRecord {
  const obj = JSON.parse(Buffer.from(payload.buffer, payload.byteOffset, payload.length).toString('utf8')) as { l?: unknown; s?: unknown };
  if (typeof obj !== 'object' || obj === null) throw new Error('record is not an object');
  const { l, s } = obj;
  if (typeof l !== 'number' || !Number.isSafeInteger(l) || l < 1) throw new Error('record has no valid LSN');
  if (!Array.isArray(s) || s.length === 0) throw new Error('record has no statements');
  const statements = s.map((st): JournalStatement => {
    if (!Array.isArray(st) || st.length !== 2 || typeof st[0] !== 'string') throw new Error('malformed statement');
    return [st[0], decodeParams(st[1])];
  });
  return { lsn: l, statements, emits: [] };
}

/** A format-1 record, as an earlier build wrote it (tests of the upgrade path build such journals). */
export function encodeLegacyRecord(lsn: number, statements: [sql: string, params: SqlParams | null][]): Buffer {
  const enc = (v: SqlValue): unknown => {
    if (v instanceof Uint8Array) return { $b: Buffer.from(v).toString('base64') };
    if (typeof v === 'bigint') return { $i: v.toString() };
    if (typeof v === 'number' && !Number.isFinite(v)) return { $f: String(v) };
    return v;
  };
  const s = statements.map(([sql, p]) => [sql, p == null ? null
    : Array.isArray(p) ? p.map(enc) : Object.fromEntries(Object.entries(p).map(([k, v]) => [k, enc(v)]))]);
  return frame(Buffer.from(JSON.stringify({ l: lsn, s }), 'utf8'));
}
