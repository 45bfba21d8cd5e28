// MAC address → the organisation the IEEE registration authority assigned its prefix to. The table is
// compiled from the MA-L, MA-M, MA-S and IAB registries (Debian's ieee-data) by scripts/compile-oui.ts
// into oui-table.json beside this file; it is read on the first lookup, not at start-up, and kept.
// Prefixes stay in the fixed-width hex strings they are stored in and are binary-searched there, so
// the loaded table costs about as much heap as the names it holds (docs/discovery.md has the figures).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { normaliseMac } from '../../../core/ip.js';
import { packageRoot } from '../../../core/paths.js';

export type OuiBlock = 'MA-L' | 'MA-M' | 'MA-S' | 'IAB';

export interface OuiMatch {
  /** The organisation as the registry spells it (white space tidied); "Private" where it asked not to be listed. */
  vendor: string;
  /** The assigned prefix, lowercase hex in colon-separated pairs: `b8:27:eb` (MA-L), `f8:02:78:0` (MA-M), `70:b3:d5:f2:f` (MA-S, IAB). */
  prefix: string;
  block: OuiBlock;
}

/** The shape of oui-table.json (scripts/compile-oui.ts writes it). */
export interface OuiTableFile {
  format: 1;
  note: string;
  /** One per registry file: its date as shipped (UTC day) and how many rows it had. */
  sources: Array<{ registry: string; file: string; date: string; assignments: number }>;
  /** Distinct organisation names, sorted by code unit. */
  organisations: string[];
  /** Longest prefixes first: the lookup tries them in this order. */
  blocks: Array<{
    registry: string;
    bits: number;
    /** Sorted prefixes of bits/4 hex digits, concatenated. */
    prefixes: string;
    /** Hex digits per organisation index. */
    width: number;
    /** Each prefix's index in `organisations`, `width` hex digits each, concatenated in prefix order. */
    organisations: string;
  }>;
}

const BLOCKS: readonly OuiBlock[] = ['MA-L', 'MA-M', 'MA-S', 'IAB'];

let table: OuiTableFile | undefined;

/** The data file next to this module (src/ under tsx, dist/ once compiled), else the package's src/. */
function dataFile(): string {
  const beside = fileURLToPath(new URL('oui-table.json', import.meta.url));
  return existsSync(beside) ? beside : join(packageRoot(), 'src', 'modules', 'v1sion', 'scan', 'oui-table.json');
}

/** The table, read and checked on first use and kept for the life of the process. */
export function ouiTable(): OuiTableFile {
  if (table) return table;
  const t = JSON.parse(readFileSync(dataFile(), 'utf8')) as OuiTableFile;
  if (t.format !== 1) throw new Error('OUI table: unknown format');
  for (const b of t.blocks) {
    if (!BLOCKS.includes(b.registry as OuiBlock) || b.bits % 4 !== 0 || b.bits > 48
      || b.prefixes.length % (b.bits / 4) !== 0 || b.organisations.length !== (b.prefixes.length / (b.bits / 4)) * b.width) {
      throw new Error(`OUI table: block ${b.registry} is malformed`);
    }
  }
  return (table = t);
}

/**
 * The registry assignment a MAC address falls in, by longest prefix (MA-S and IAB, 36 bits, before
 * MA-M, 28, before MA-L, 24): 70:b3:d5 is the registration authority's own MA-L and the MA-S blocks
 * inside it belong to many others. Accepts `aa:bb:cc:dd:ee:ff`, `AA-BB-CC-DD-EE-FF`, `aabb.ccdd.eeff`
 * and bare hex, any case. Null for malformed input and for an address no assignment covers, which is
 * what a locally administered address (randomised phone and laptop Wi-Fi addresses, Docker's 02:42,
 * QEMU's 52:54:00) almost always is: its bits were chosen by whoever set it, so they name no maker, and
 * a placeholder vendor would be stored, searched and grouped as if it were one. `isLocallyAdministered`
 * tells the caller to say so. The registry is still asked first, because it does list a few pre-IEEE
 * 802 prefixes with that bit set (3Com's 02:60:8c, DEC's aa:00:04) that real, old hardware carries.
 */
export function ouiVendor(mac: string): OuiMatch | null {
  const canonical = typeof mac === 'string' ? normaliseMac(mac) : null;
  if (!canonical) return null;
  const hex = canonical.replace(/:/g, '');
  const t = ouiTable();
  for (const b of t.blocks) {
    const digits = b.bits / 4;
    const key = hexValue(hex, 0, digits);
    let lo = 0;
    let hi = b.prefixes.length / digits - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const v = hexValue(b.prefixes, mid * digits, digits);
      if (v < key) lo = mid + 1;
      else if (v > key) hi = mid - 1;
      else {
        return {
          vendor: t.organisations[hexValue(b.organisations, mid * b.width, b.width)]!,
          prefix: hex.slice(0, digits).replace(/(..)(?!$)/g, '$1:'),
          block: b.registry as OuiBlock,
        };
      }
    }
  }
  return null;
}

/**
 * Whether the address has the U/L bit set (the second-lowest bit of its first octet): assigned
 * locally, not from the IEEE registry. False for malformed input.
 */
export function isLocallyAdministered(mac: string): boolean {
  const canonical = typeof mac === 'string' ? normaliseMac(mac) : null;
  return canonical !== null && (parseInt(canonical.slice(0, 2), 16) & 2) !== 0;
}

/** The number in `digits` lowercase hex digits of `s` from `start` (at most 13 digits stay exact). */
function hexValue(s: string, start: number, digits: number): number {
  let v = 0;
  for (let i = start; i < start + digits; i++) {
    const c = s.charCodeAt(i);
    v = v * 16 + (c <= 57 ? c - 48 : c - 87);
  }
  return v;
}
