// What watches an inventory record. An endpoint is watched by every monitor whose target is one of its
// addresses (matched by address, as the topology map does: the monitors module says which address each
// monitor watches) and by the monitors linked to it by hand (for targets given as names or URLs); an
// application only by its links. An endpoint's record carries a summary (`watch`: the worst status of those
// monitors, with why when degraded, so failing below the threshold is told apart from slow; how many, how
// many are down, and when the probe last saw it alive: a discovery scan that found one of its addresses or
// MACs, or the latest check of a monitor that finds it answering). Monitors are read from the monitors
// module's memory, once per synchronous turn (a list of 500 endpoints reads them once).
import type { AppContext } from '../../core/context.js';
import { canonicalIp } from '../../core/ip.js';
import { monitorGlances, type MonitorGlance } from '../monitors/index.js';
import type { ItemData } from './types.js';
import { parseData, type ItemRow } from './items.js';
import type { Relation } from './links.js';
import type { SeenAddresses } from './seen.js';

type MonitorStatus = MonitorGlance['status'];
type DegradedReason = MonitorGlance['degraded_reason'];

/**
 * How bad a monitor's state is, higher is worse, in the order the monitor pages sort problems (ui
 * glance.js `severity`): down, failing (failed checks below its threshold: the target did not answer),
 * degraded (it answered, slowly or with loss), unknown, up, paused. Of two failing, the one fewer failed
 * checks from down is worse. One held by a maintenance window ranks just above up (the list sorts it
 * below): an endpoint whose other monitors are up says "Maintenance", not "Up", while one is held.
 */
function severity(m: Pick<MonitorGlance, 'status' | 'degraded_reason' | 'failing_streak' | 'failure_threshold' | 'maintenance'>): number {
  if (m.maintenance) return 1.5;
  if (m.status === 'degraded' && m.degraded_reason === 'failing') {
    const left = Math.max(0, m.failure_threshold - m.failing_streak); // failed checks still to come before down
    return 4 + 1 / (1 + left); // above 4, at most 5: between slow (3) and down (6)
  }
  return { down: 6, degraded: 3, unknown: 2, up: 1, paused: 0 }[m.status];
}

/** A monitor of a record, as its page lists it: the monitor, the address of the record it watches, its links. */
export interface RecordMonitor {
  id: string; name: string; target: string; check_type: string; status: MonitorStatus;
  /** Why it is degraded (slow, loss, failing), as GET /api/monitors says; null unless degraded. */
  degraded_reason: DegradedReason;
  failing_streak: number; failure_threshold: number;
  last_check: string | null; response_time: number | null;
  /** The maintenance window holding its alerts now ("Maintenance" on the page), or null. */
  maintenance: MonitorGlance['maintenance'];
  /** The record's address that the monitor's target is (matched without a link); null when only linked. */
  address: string | null;
  links: { id: string; relation: Relation }[];
}

/**
 * An endpoint's `watch` summary. The API adds it to the records it answers with (routes.ts), not the item
 * service: other modules reading endpoints (discovery's inventory bridge) do not pay for it.
 */
export interface WatchSummary {
  /** The worst status of its monitors; null when none watches it. */
  status: MonitorStatus | null;
  /** The worst monitor's reason when that status is degraded (failing ranks above slow and loss); else null. */
  degraded_reason: DegradedReason;
  /** When the worst is failing: its failed checks in a row, and how many make it down ("Failing 1 of 3"); else null. */
  failing_streak: number | null;
  failure_threshold: number | null;
  /** The worst monitor's maintenance window when it is held by one (the summary then reads "Maintenance"); else null. */
  maintenance: MonitorGlance['maintenance'];
  monitors: number;
  /** Down outside a maintenance window; those a window holds are counted in `in_maintenance`. */
  down: number;
  in_maintenance: number;
  /** When the probe last saw it alive, and how. */
  last_seen: string | null;
  seen_by: 'discovery' | 'monitor' | null;
}

interface Glances { byId: Map<string, MonitorGlance>; byAddress: Map<string, MonitorGlance[]> }
interface RecordLink { id: string; mid: string; relation: Relation }

/** Ids or addresses asked for in one statement. */
const CHUNK = 400;

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

export class Watch {
  private turn: Glances | null = null;

  constructor(private readonly app: AppContext, private readonly seen: SeenAddresses) {}

  /** The monitors, by id and by the address they watch; built once per synchronous turn. */
  private glances(): Glances {
    if (this.turn) return this.turn;
    const byId = new Map<string, MonitorGlance>(), byAddress = new Map<string, MonitorGlance[]>();
    for (const m of monitorGlances(this.app)) {
      byId.set(m.id, m);
      if (m.address) byAddress.set(m.address, [...(byAddress.get(m.address) ?? []), m]);
    }
    this.turn = { byId, byAddress };
    queueMicrotask(() => { this.turn = null; });
    return this.turn;
  }

  /** Links between records and monitors, either direction, by record id (in chunks: a list asks for hundreds). */
  private linksOf(ids: readonly string[]): Map<string, RecordLink[]> {
    const out = new Map<string, RecordLink[]>();
    for (let i = 0; i < ids.length; i += CHUNK) {
      const part = ids.slice(i, i + CHUNK);
      const marks = part.map(() => '?').join(', ');
      const rows = this.app.store.all<RecordLink & { rid: string }>(
        `SELECT from_id AS rid, id, to_id AS mid, relation FROM brain_links WHERE to_type = 'monitors' AND from_id IN (${marks})
         UNION ALL SELECT to_id AS rid, id, from_id AS mid, relation FROM brain_links WHERE from_type = 'monitors' AND to_id IN (${marks})
         ORDER BY 3, 2`, [...part, ...part]);
      for (const { rid, ...l } of rows) out.set(rid, [...(out.get(rid) ?? []), l]);
    }
    return out;
  }

  /** A record's monitors: those on its addresses (endpoints) and those linked to it, each once, by name. */
  monitorsOf(row: ItemRow): RecordMonitor[] {
    const addresses = row.type === 'endpoints' ? this.addressesOf(parseData(row.data)) : [];
    return this.monitorsFor(addresses, this.linksOf([row.id]).get(row.id) ?? []);
  }

  private monitorsFor(addresses: readonly string[], links: readonly RecordLink[]): RecordMonitor[] {
    const g = this.glances();
    const out = new Map<string, RecordMonitor>();
    const entry = (m: MonitorGlance): RecordMonitor => {
      let e = out.get(m.id);
      if (!e) {
        e = { id: m.id, name: m.name, target: m.target, check_type: m.check_type, status: m.status, degraded_reason: m.degraded_reason,
          failing_streak: m.failing_streak, failure_threshold: m.failure_threshold, last_check: m.last_check,
          response_time: m.response_time, maintenance: m.maintenance, address: null, links: [] };
        out.set(m.id, e);
      }
      return e;
    };
    for (const a of addresses) for (const m of g.byAddress.get(a) ?? []) entry(m).address ??= a;
    for (const l of links) {
      const m = g.byId.get(l.mid);
      if (m) entry(m).links.push({ id: l.id, relation: l.relation }); // a deleted monitor's links go on monitor.deleted
    }
    return [...out.values()].sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
  }

  private addressesOf(data: ItemData): string[] {
    return [...new Set(strings(data.ip_addresses).map((a) => canonicalIp(a)).filter((a): a is string => a !== null))];
  }

  /** A record as the API shows it: an endpoint with its `watch`, any other as it is. */
  shown(item: ItemData): ItemData {
    return this.shownAll([item])[0]!;
  }

  /** Records as the API shows them; the endpoints' links and discovery times are read once for all of them. */
  shownAll(items: readonly ItemData[]): ItemData[] {
    const endpoints = items.filter((i) => i.type === 'endpoints');
    if (!endpoints.length) return [...items];
    const addresses = new Map(endpoints.map((i) => [String(i.id), this.addressesOf(i)]));
    const links = this.linksOf([...addresses.keys()]);
    const macs = [...new Set(endpoints.flatMap((i) => strings(i.mac_addresses)))];
    const seen = this.seen.times([...new Set([...addresses.values()].flat())], macs);
    return items.map((i) => {
      if (i.type !== 'endpoints') return i;
      const mine = addresses.get(String(i.id))!;
      const times = [...mine.map((a) => seen.byAddress.get(a)), ...strings(i.mac_addresses).map((m) => seen.byMac.get(m))];
      const scanned = times.reduce<number | null>((t, x) => (x !== undefined && (t === null || x > t) ? x : t), null);
      return { ...i, watch: summarise(this.monitorsFor(mine, links.get(String(i.id)) ?? []), scanned) };
    });
  }
}

/** The `watch` of an endpoint from its monitors and the last time discovery found it alive (epoch ms). */
function summarise(monitors: readonly RecordMonitor[], scanned: number | null): WatchSummary {
  let worst: RecordMonitor | null = null;
  let fromMonitor: string | null = null;
  for (const m of monitors) {
    if (worst === null || severity(m) > severity(worst)) worst = m;
    // A failing monitor's last check failed: it did not see the endpoint alive.
    const alive = m.status === 'up' || (m.status === 'degraded' && m.degraded_reason !== 'failing');
    if (alive && m.last_check && (!fromMonitor || m.last_check > fromMonitor)) fromMonitor = m.last_check;
  }
  const failing = worst?.degraded_reason === 'failing';
  const fromScan = scanned === null ? null : new Date(scanned).toISOString();
  const last = [fromScan, fromMonitor].filter((t): t is string => t !== null).sort().pop() ?? null;
  return {
    status: worst?.status ?? null, degraded_reason: worst?.degraded_reason ?? null, maintenance: worst?.maintenance ?? null,
    failing_streak: failing ? worst!.failing_streak : null, failure_threshold: failing ? worst!.failure_threshold : null,
    monitors: monitors.length, down: monitors.filter((m) => m.status === 'down' && !m.maintenance).length,
    in_maintenance: monitors.filter((m) => m.maintenance).length,
    last_seen: last, seen_by: last === null ? null : last === fromScan ? 'discovery' : 'monitor',
  };
}
