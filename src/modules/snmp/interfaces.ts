// A device's interface table from IF-MIB: ifTable and ifXTable read in one walk of the columns it needs,
// joined by ifIndex. 64-bit counters (ifHCInOctets…) are used when the agent has them, the 32-bit ones
// otherwise; speed from ifHighSpeed (Mbit/s) when ifSpeed saturates. Values stay raw numbers: the UI
// shows them with human units.
import type { RawVarbind, SnmpReader, SnmpTarget } from './contracts.js';
import type { OidStore } from './oids/oid-store.js';
import { numberOf } from './sources.js';

const IF = '1.3.6.1.2.1.2.2.1';
const IFX = '1.3.6.1.2.1.31.1.1.1';

/** The columns read, by the name the table uses. */
const COLUMNS = {
  descr: `${IF}.2`, type: `${IF}.3`, speed: `${IF}.5`, mac: `${IF}.6`, admin: `${IF}.7`, oper: `${IF}.8`,
  in_octets: `${IF}.10`, in_discards: `${IF}.13`, in_errors: `${IF}.14`, out_octets: `${IF}.16`, out_discards: `${IF}.19`,
  out_errors: `${IF}.20`,
  name: `${IFX}.1`, hc_in_octets: `${IFX}.6`, hc_out_octets: `${IFX}.10`, high_speed: `${IFX}.15`, alias: `${IFX}.18`,
} as const;
type Column = keyof typeof COLUMNS;

/** ifAdminStatus and ifOperStatus (RFC 2863). */
export const IF_STATUSES = ['up', 'down', 'testing', 'unknown', 'dormant', 'not_present', 'lower_layer_down'] as const;
export type IfStatus = (typeof IF_STATUSES)[number];

export interface InterfaceRow {
  index: number;
  name: string;
  description: string | null;
  alias: string | null;
  /** IANAifType label (ethernetCsmacd), or the number when the store does not know it. */
  type: string | null;
  mac: string | null;
  admin_status: IfStatus | null;
  oper_status: IfStatus | null;
  speed_bps: number | null;
  in_octets: number | null;
  out_octets: number | null;
  in_errors: number | null;
  out_errors: number | null;
  in_discards: number | null;
  out_discards: number | null;
  /** Whether the octet counters are the 64-bit ones. */
  hc: boolean;
}

export interface InterfaceTable { items: InterfaceRow[]; total: number; truncated: boolean; read_at: string }

const MAX_VARBINDS = 20_000;

function text(vb: RawVarbind | undefined): string | null {
  if (!vb || typeof vb.value !== 'string' || vb.value === '') return null;
  if (!vb.hex) return vb.value;
  try { return Buffer.from(vb.value, 'hex').toString('utf8').replace(/\0+$/, '') || null; } catch { return null; }
}

function mac(vb: RawVarbind | undefined): string | null {
  if (!vb || typeof vb.value !== 'string' || !vb.value) return null;
  const hex = vb.hex ? vb.value : Buffer.from(vb.value, 'latin1').toString('hex');
  return hex.length === 12 ? hex.match(/../g)!.join(':') : null;
}

const status = (vb: RawVarbind | undefined): IfStatus | null => {
  const n = numberOf(vb);
  return n !== undefined && n >= 1 && n <= IF_STATUSES.length ? IF_STATUSES[n - 1]! : null;
};

const num = (vb: RawVarbind | undefined): number | null => numberOf(vb) ?? null;

/** Reads the interface table of the agent at `target`. */
export async function readInterfaces(reader: SnmpReader, target: SnmpTarget, store: OidStore, now: () => number,
  signal?: AbortSignal): Promise<InterfaceTable> {
  const result = await reader.walk(target, Object.values(COLUMNS), { max_varbinds: MAX_VARBINDS, signal });
  const byIndex = new Map<number, Partial<Record<Column, RawVarbind>>>();
  const columns = Object.entries(COLUMNS) as [Column, string][];
  for (const vb of result.varbinds) {
    const col = columns.find(([, oid]) => vb.oid.startsWith(`${oid}.`));
    if (!col) continue;
    const index = Number(vb.oid.slice(col[1].length + 1));
    if (!Number.isInteger(index)) continue;
    const row = byIndex.get(index) ?? {};
    row[col[0]] = vb;
    byIndex.set(index, row);
  }
  const types = store.resolve(COLUMNS.type)?.entry.enums ?? {};
  const items = [...byIndex.entries()].sort((a, b) => a[0] - b[0]).map(([index, r]): InterfaceRow => {
    const hcIn = num(r.hc_in_octets), hcOut = num(r.hc_out_octets);
    const hc = hcIn !== null || hcOut !== null;
    const speed = num(r.speed), high = num(r.high_speed);
    const typeNo = num(r.type);
    const descr = text(r.descr);
    return {
      index, name: text(r.name) ?? descr ?? `#${index}`, description: descr, alias: text(r.alias),
      type: typeNo === null ? null : types[String(typeNo)] ?? String(typeNo),
      mac: mac(r.mac), admin_status: status(r.admin), oper_status: status(r.oper),
      // ifSpeed saturates at 4,294,967,295: ifHighSpeed (Mbit/s) tells the rest.
      speed_bps: high !== null && high > 0 && (speed === null || speed >= 4_294_967_295) ? high * 1_000_000 : speed,
      in_octets: hc ? hcIn : num(r.in_octets), out_octets: hc ? hcOut : num(r.out_octets),
      in_errors: num(r.in_errors), out_errors: num(r.out_errors), in_discards: num(r.in_discards), out_discards: num(r.out_discards),
      hc,
    };
  });
  return { items, total: items.length, truncated: result.truncated, read_at: new Date(now()).toISOString() };
}
