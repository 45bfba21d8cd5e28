// Search across every inventory type. Tiers, best first: an exact short ID; an exact name, IP, MAC,
// host name, serial, asset tag or CIDR (the brain_keys table); for an IP query, the subnets containing it
// (most specific first); then the FTS4 index ranked from matchinfo. At most 30 results.
import type { Store } from '../../core/store/types.js';
import { cidrContains, normaliseIp, normaliseMac, parseCidr, parseIp } from '../../core/ip.js';
import { parseData, parseShortId, shortIdOf, type ItemRow } from './items.js';
import { subnetCidr, type BrainType } from './types.js';

export const SEARCH_MAX = 30;
/** FTS candidates ranked per query; more would only cost memory for results nobody sees. */
const FTS_CANDIDATES = 1000;
/** Column weights: name, keys (short ID, addresses, serials), body. */
const WEIGHTS = [10, 5, 1];

export interface SearchHit { type: BrainType; id: string; short_id: string; name: string; snippet: string;
  match: 'short_id' | 'exact' | 'subnet' | 'text' }

/** The FTS4 query for free text: every word must match, the last token of each word as a prefix. */
export function ftsQuery(q: string): string | null {
  const words = q.split(/\s+/).filter(Boolean);
  const phrases: string[] = [];
  for (const w of words) {
    const tokens = w.toLowerCase().match(/[\p{L}\p{N}]+/gu);
    if (!tokens) continue;
    phrases.push(`"${tokens.join(' ')}*"`);
  }
  return phrases.length ? phrases.join(' ') : null;
}

/** A relevance score from matchinfo 'pcnx' (a small tf-idf over the three columns). */
export function score(info: Uint8Array): number {
  // matchinfo is an array of native (little-endian in wasm) unsigned 32-bit integers.
  const view = new DataView(info.buffer, info.byteOffset, info.byteLength);
  const count = Math.floor(info.byteLength / 4);
  const u = (i: number) => (i < count ? view.getUint32(i * 4, true) : 0);
  const p = u(0), c = u(1), n = Math.max(u(2), 1);
  let s = 0;
  for (let i = 0; i < p; i++) {
    for (let j = 0; j < c; j++) {
      const base = 3 + 3 * (i * c + j);
      const hits = u(base), docs = u(base + 2);
      if (!hits) continue;
      s += (WEIGHTS[j] ?? 1) * (hits / (hits + 1)) * Math.log(1 + n / Math.max(docs, 1));
    }
  }
  return s;
}

/** Searches the records of the given (registered) types. */
export function search(store: Store, q: string, registered: readonly BrainType[]): { items: SearchHit[]; total: number } {
  const types = new Set<string>(registered);
  const hits: SearchHit[] = [];
  const seen = new Set<number>();
  const rowOf = (pk: number) => store.get<ItemRow>(
    'SELECT pk, id, type, seq, name, data, created_at, updated_at FROM brain_items WHERE pk = ?', [pk]);
  const add = (r: ItemRow, snippet: string, match: SearchHit['match']) => {
    if (seen.has(r.pk) || hits.length >= SEARCH_MAX || !types.has(r.type)) return;
    seen.add(r.pk);
    hits.push({ type: r.type, id: r.id, short_id: shortIdOf(r.type, r.seq), name: r.name, snippet, match });
  };
  const text = q.trim();

  // 1. short ID
  const sid = parseShortId(text);
  if (sid) {
    const r = store.get<ItemRow>(
      'SELECT pk, id, type, seq, name, data, created_at, updated_at FROM brain_items WHERE type = ? AND seq = ?', [sid.type, sid.seq]);
    if (r) add(r, `short_id: ${shortIdOf(r.type, r.seq)}`, 'short_id');
  }

  // 2. exact keys: the text as typed (lowercased) and its canonical IP, MAC or CIDR forms
  const ip = parseIp(text);
  const forms = new Set([text.toLowerCase()]);
  const nip = normaliseIp(text); if (nip) forms.add(nip);
  const mac = normaliseMac(text); if (mac) forms.add(mac);
  const cidr = text.includes('/') ? parseCidr(text) : null; if (cidr?.ok) forms.add(cidr.text);
  for (const k of forms) {
    const rows = store.all<{ pk: number; f: string }>('SELECT pk, f FROM brain_keys WHERE k = ? ORDER BY pk LIMIT ?', [k, SEARCH_MAX]);
    for (const { pk, f } of rows) {
      const r = rowOf(pk);
      if (r) add(r, f === 'name' ? `name: ${r.name}` : `${f}: ${k}`, 'exact');
    }
  }

  // 3. subnets holding the address, longest prefix first
  if (ip) {
    const subs = store.all<ItemRow>("SELECT pk, id, type, seq, name, data, created_at, updated_at FROM brain_items WHERE type = 'subnets'")
      .map((r) => ({ r, c: subnetCidr(parseData(r.data)) }))
      .filter((x) => x.c && cidrContains(x.c, ip))
      .sort((a, b) => b.c!.prefix - a.c!.prefix || a.r.seq - b.r.seq);
    for (const { r } of subs) add(r, `${String(parseData(r.data).cidr)} contains ${nip}`, 'subnet');
  }

  // 4. full text
  const fq = ftsQuery(text);
  if (fq && hits.length < SEARCH_MAX) {
    const cands = store.all<{ docid: number; mi: Uint8Array }>(
      "SELECT docid, matchinfo(brain_fts, 'pcnx') AS mi FROM brain_fts WHERE brain_fts MATCH ? LIMIT ?", [fq, FTS_CANDIDATES]);
    const ranked = cands.filter((c) => !seen.has(c.docid)).map((c) => ({ docid: c.docid, s: score(c.mi) }))
      .sort((a, b) => b.s - a.s || a.docid - b.docid).slice(0, SEARCH_MAX - hits.length);
    for (const { docid } of ranked) {
      const r = rowOf(docid);
      if (!r) continue;
      const snip = store.get<{ s: string }>(
        "SELECT snippet(brain_fts, '[', ']', '…', -1, 12) AS s FROM brain_fts WHERE brain_fts MATCH ? AND docid = ?",
        [fq, docid])?.s ?? '';
      add(r, snip, 'text');
    }
  }
  return { items: hits, total: hits.length };
}
