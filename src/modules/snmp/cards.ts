// Reading OID cards from a device: every value the cards need is read in one pass (sources.ts), then
// each item gets its value, a display text and the time it was read. A device that cannot be read gives
// the cards back without values and with the reason, never a throw.
import type { RawVarbind, SnmpReader, SnmpTarget } from './contracts.js';
import { HttpError } from '../../core/errors.js';
import { displayValue } from './display.js';
import type { OidStore } from './oids/oid-store.js';
import { itemAlternatives, numberOf, SourceReader, type SourceValue } from './sources.js';
import type { Card, CardItem } from './vendors/types.js';

export interface RowReading {
  index: string;
  label: string;
  value: number | string | null;
  display: string;
}

export interface ItemReading {
  key: string;
  label: string;
  unit: string | null;
  /** The variable the value is (numeric OID and name), when it is one variable's own value. */
  oid: string | null;
  name: string | null;
  value: number | string | RowReading[] | null;
  display: string | null;
  /** ISO 8601 time the value was read; null when it was not. */
  read_at: string | null;
}

export interface CardReading {
  key: string;
  title: string;
  items: ItemReading[];
  /** Why the card has no values (the device could not be read), and the error's code when it has one. */
  error?: string;
  error_code?: string;
}

/** A number as people write it: at most two decimals, no trailing zeros. */
export function formatNumber(n: number): string {
  return String(Math.round(n * 100) / 100);
}

const withUnit = (text: string, unit: string | undefined) => (unit ? `${text} ${unit}` : text);

/** displayValue with the item's unit in place of the MIB's UNITS. */
function describe(vb: RawVarbind, unit: string | undefined, store: OidStore): string {
  const found = store.resolve(vb.oid)?.entry;
  const entry = found && (found.kind === 'scalar' || found.kind === 'column') ? found : undefined;
  if (!unit) return displayValue(vb, entry);
  return displayValue(vb, { ...(entry ?? { oid: vb.oid, name: vb.oid, module: '', kind: 'scalar' }), units: unit });
}

function single(item: CardItem, v: SourceValue, store: OidStore): Pick<ItemReading, 'oid' | 'name' | 'value' | 'display'> {
  const variable = v.vb ? { oid: v.vb.oid, name: store.nameOf(v.vb.oid) } : { oid: null, name: null };
  if (typeof v.value !== 'number') return { ...variable, value: v.value, display: v.vb ? describe(v.vb, item.unit, store) : v.value };
  if (v.vb && item.scale === undefined) return { ...variable, value: v.value, display: describe(v.vb, item.unit, store) };
  const value = Math.round(v.value * (item.scale ?? 1) * 1000) / 1000;
  return { ...variable, value, display: withUnit(formatNumber(value), item.unit) };
}

function readItem(item: CardItem, sources: SourceReader, store: OidStore): ItemReading {
  const base = { key: item.key, label: item.label, unit: item.unit ?? null };
  const empty: ItemReading = { ...base, oid: null, name: null, value: null, display: null, read_at: null };
  if (item.rows) {
    const rows = sources.rows(item.rows);
    if (!rows) return empty;
    const readings = rows.map((r): RowReading => {
      const unit = r.unit !== undefined ? item.rows!.units?.[r.unit] : undefined;
      const n = numberOf(r.vb);
      if (n === undefined)
        return { index: r.index, label: r.label, value: null, display: displayValue(r.vb, store.resolve(r.vb.oid)?.entry) };
      const scale = (unit?.scale ?? item.scale ?? 1) / 10 ** (r.precision ?? 0);
      const value = Math.round(n * scale * 1000) / 1000;
      const unitText = unit ? unit.unit : item.unit;
      const entry = store.resolve(r.vb.oid)?.entry;
      const enumLabel = entry?.enums?.[String(r.vb.value)];
      return { index: r.index, label: r.label, value,
        display: enumLabel ? `${enumLabel}(${r.vb.value})` : withUnit(formatNumber(value), unitText || undefined) };
    });
    const at = sources.readTime(sources.oid(item.rows.value));
    return { ...base, oid: null, name: null, value: readings, display: `${readings.length} rows`,
      read_at: at ? new Date(at).toISOString() : null };
  }
  const v = item.percent
    ? sources.percent(Array.isArray(item.percent) ? item.percent : [item.percent])
    : sources.first(item.value ? (Array.isArray(item.value) ? item.value : [item.value]) : []);
  if (!v) return empty;
  return { ...base, ...single(item, v, store), read_at: new Date(v.readAt).toISOString() };
}

/** A card as configured, without values (not read, or the device could not be read). */
export function unreadCard(card: Card): CardReading {
  return {
    key: card.key, title: card.title,
    items: card.items.map((i) => ({ key: i.key, label: i.label, unit: i.unit ?? null,
      oid: null, name: null, value: null, display: null, read_at: null })),
  };
}

/**
 * Reads the cards' values from the agent at `target`. `now` gives epoch milliseconds (the app clock),
 * stamped on every value as it arrives.
 */
export async function readCards(reader: SnmpReader, target: SnmpTarget, cards: Card[], store: OidStore,
  now: () => number): Promise<CardReading[]> {
  const sources = new SourceReader(reader, target, store, now);
  let error: { error: string; error_code?: string } | undefined;
  try {
    await sources.fetchWanted(cards.flatMap((c) => c.items.map((item) => ({
      alternatives: itemAlternatives(item),
      done: () => item.rows !== undefined || readItem(item, sources, store).value !== null,
    }))));
  } catch (e) {
    error = { error: e instanceof Error ? e.message : String(e), ...(e instanceof HttpError ? { error_code: e.code } : {}) };
  }
  return cards.map((card) => (error !== undefined
    ? { ...unreadCard(card), ...error }
    : { key: card.key, title: card.title, items: card.items.map((i) => readItem(i, sources, store)) }));
}
