// Which known interface each row of a new poll is, when ifIndex may change: some platforms renumber
// after a reboot, and net-snmp gives a re-created interface a new ifIndex while it keeps the deleted
// one's row (same ifName and ifDescr, down, frozen counters) for 5 minutes (interface_fadeout). An
// interface is known by ifName, or ifDescr when the agent has no ifName; the same ifIndex with the same
// name is the same interface, the same name at another ifIndex is the same interface renumbered, and a
// name several live rows share (cheap switches call every port "Ethernet Interface") matches by ifIndex only.
import type { IfSample } from './types.js';

/** An interface the history already has: its stable key and where and what it was at the last poll. */
export interface KnownIf {
  key: string;
  index: number;
  name: string | null;
  descr: string | null;
}

export interface MatchResult {
  /** Every sampled interface that is a known one (renumbered ones too), by its ifIndex in this sample. */
  matched: { key: string; index: number }[];
  /** Known interfaces found at another ifIndex. */
  renumbered: { key: string; from: number; to: number }[];
  /** ifIndexes of sampled interfaces no known one matched: new interfaces. */
  added: number[];
  /** Known keys not in the sample. */
  gone: string[];
  /** ifIndexes of rows left out as a deleted interface's leftover (a duplicate ifName that is not the live row). */
  stale: number[];
}

const label = (i: { name: string | null; descr: string | null }) => i.name || i.descr || null;

/**
 * Of rows sharing one ifName, the live one is up, or else has the higher ifIndex (the agent numbers a
 * re-created interface above the old one); the rest are leftovers. Only ifName duplicates count: ifName
 * is unique per interface where the agent has it, ifDescr often is not.
 */
function staleRows(rows: IfSample[]): Set<number> {
  const byName = new Map<string, IfSample[]>();
  for (const r of rows) if (r.name) byName.set(r.name, [...(byName.get(r.name) ?? []), r]);
  const stale = new Set<number>();
  for (const same of byName.values()) {
    if (same.length < 2) continue;
    const live = same.reduce((a, b) => ((b.oper === 1) !== (a.oper === 1) ? (b.oper === 1 ? b : a) : b.index > a.index ? b : a));
    for (const r of same) if (r !== live) stale.add(r.index);
  }
  return stale;
}

export function matchInterfaces(known: readonly KnownIf[], sample: readonly IfSample[]): MatchResult {
  const stale = staleRows([...sample]);
  const live = sample.filter((r) => !stale.has(r.index));
  const byIndex = new Map(live.map((r) => [r.index, r]));
  const byLabel = new Map<string, IfSample[]>();
  for (const r of live) {
    const l = label(r);
    if (l !== null) byLabel.set(l, [...(byLabel.get(l) ?? []), r]);
  }
  const taken = new Set<number>();
  const matched: MatchResult['matched'] = [];
  const renumbered: MatchResult['renumbered'] = [];
  const unmatched: KnownIf[] = [];

  // Same ifIndex, same name first, so a renumbered interface cannot take a row that is itself unchanged.
  for (const k of known) {
    const r = byIndex.get(k.index);
    if (r && !taken.has(r.index) && label(r) === label(k)) {
      taken.add(r.index);
      matched.push({ key: k.key, index: r.index });
    } else {
      unmatched.push(k);
    }
  }
  const gone: string[] = [];
  for (const k of unmatched) {
    const l = label(k);
    const rows = l === null ? [] : byLabel.get(l) ?? [];
    const r = rows.length === 1 ? rows[0]! : undefined;
    if (r && !taken.has(r.index)) {
      taken.add(r.index);
      matched.push({ key: k.key, index: r.index });
      renumbered.push({ key: k.key, from: k.index, to: r.index });
    } else {
      gone.push(k.key);
    }
  }
  const added = live.filter((r) => !taken.has(r.index)).map((r) => r.index);
  return { matched, renumbered, added, gone, stale: [...stale].sort((a, b) => a - b) };
}
