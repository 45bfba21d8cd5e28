// Vendor profiles and cards as the API shows them: JSON only (patterns as "/source/flags" text), every
// OID name beside its numeric OID from the OID store. Also lists every OID name a profile uses.
import type { OidLookup } from '../contracts.js';
import { cardsFor } from './index.js';
import type { Card, CardItem, IdentitySpec, MatchRule, RowFilter, RowsSpec, ValueSource, VendorProfile } from './types.js';

export interface NamedOid { name: string; oid: string | null }

const named = (name: string, store: OidLookup): NamedOid => ({ name, oid: store.oidOf(name) ?? null });
const text = (re: RegExp | undefined) => (re ? String(re) : undefined);

function filterJson(f: RowFilter | undefined, store: OidLookup) {
  if (!f) return undefined;
  return {
    ...(f.column ? { column: named(f.column, store) } : {}),
    ...(f.equals !== undefined ? { equals: f.equals } : {}),
    ...(f.match ? { match: text(f.match) } : {}),
    ...(f.not ? { not: true } : {}),
  };
}

function sourceJson(s: ValueSource, store: OidLookup) {
  const pattern = s.pattern ? { pattern: text(s.pattern) } : {};
  if ('get' in s) return { get: named(s.get, store), ...pattern };
  if ('entity' in s) return { entity: named(s.entity, store), ...pattern };
  return { walk: named(s.walk, store), reduce: s.reduce ?? 'first', ...(s.where ? { where: filterJson(s.where, store) } : {}), ...pattern };
}

function rowsJson(r: RowsSpec, store: OidLookup) {
  return {
    label: named(r.label, store),
    value: named(r.value, store),
    ...(r.where ? { where: filterJson(r.where, store) } : {}),
    ...(r.unit_column ? { unit_column: named(r.unit_column, store), units: r.units } : {}),
    ...(r.precision_column ? { precision_column: named(r.precision_column, store) } : {}),
  };
}

const asList = <T>(x: T | T[] | undefined): T[] => (x === undefined ? [] : Array.isArray(x) ? x : [x]);

function itemJson(item: CardItem, store: OidLookup) {
  return {
    key: item.key,
    label: item.label,
    unit: item.unit ?? null,
    ...(item.scale !== undefined ? { scale: item.scale } : {}),
    ...(item.value ? { value: asList(item.value).map((s) => sourceJson(s, store)) } : {}),
    ...(item.percent ? {
      percent: asList(item.percent).map((p) =>
        Object.fromEntries(Object.entries(p).map(([k, s]) => [k, sourceJson(s as ValueSource, store)]))),
    } : {}),
    ...(item.rows ? { rows: rowsJson(item.rows, store) } : {}),
  };
}

export function describeCards(cards: Card[], store: OidLookup) {
  return cards.map((c) => ({ key: c.key, title: c.title, items: c.items.map((i) => itemJson(i, store)) }));
}

function ruleJson(r: MatchRule, store: OidLookup) {
  return {
    ...(r.sys_object_id ? { sys_object_id: r.sys_object_id.map((n) => named(n, store)) } : {}),
    ...(r.sys_descr ? { sys_descr: r.sys_descr.map((re) => String(re)) } : {}),
    ...(r.probe ? { probe: { oid: named(r.probe.oid, store), match: String(r.probe.match) } } : {}),
  };
}

function identityJson(id: IdentitySpec, store: OidLookup) {
  return Object.fromEntries(Object.entries(id).map(([field, sources]) =>
    [field, (sources as ValueSource[]).map((s) => sourceJson(s, store))]));
}

/** A profile for GET /api/snmp/vendors: match rules, identity sources and, per variant, its cards. */
export function describeProfile(profile: VendorProfile, store: OidLookup) {
  return {
    key: profile.key,
    name: profile.name,
    kind: profile.kind,
    manufacturer: profile.manufacturer ?? null,
    enterprises: (profile.enterprises ?? []).map((n) => named(n, store)),
    description: profile.description,
    identity: identityJson(profile.identity, store),
    variants: profile.variants.map((v) => ({
      key: v.key,
      os: v.os,
      kind: v.kind ?? profile.kind,
      fallback: v.fallback ?? null,
      kind_from_evidence: v.kind_from_evidence ?? false,
      match: v.match.map((r) => ruleJson(r, store)),
      exclude: (v.exclude ?? []).map((r) => ruleJson(r, store)),
      ...(v.identity ? { identity: identityJson(v.identity, store) } : {}),
      cards: cardsFor(profile, v.key).map((c) => c.key),
    })),
  };
}

function sourceNames(s: ValueSource): string[] {
  const own = 'get' in s ? s.get : 'entity' in s ? s.entity : s.walk;
  return 'walk' in s && s.where?.column ? [own, s.where.column] : [own];
}

function itemNames(item: CardItem): string[] {
  const out = asList(item.value).flatMap(sourceNames);
  for (const p of asList(item.percent)) for (const s of [p.used, p.free, p.total]) if (s) out.push(...sourceNames(s));
  if (item.rows) {
    const r = item.rows;
    out.push(r.label, r.value, ...[r.where?.column, r.unit_column, r.precision_column].filter((x): x is string => !!x));
  }
  return out;
}

/** Every OID name the profile writes (match rules, identity, every variant's cards), deduplicated. */
export function profileOidNames(profile: VendorProfile): string[] {
  const names = new Set<string>();
  const idNames = (id: IdentitySpec | undefined) => Object.values(id ?? {}).flatMap((l) => (l as ValueSource[]).flatMap(sourceNames));
  idNames(profile.identity).forEach((n) => names.add(n));
  profile.enterprises?.forEach((n) => names.add(n));
  for (const v of profile.variants) {
    for (const r of [...v.match, ...(v.exclude ?? [])]) {
      r.sys_object_id?.forEach((n) => names.add(n));
      if (r.probe) names.add(r.probe.oid);
    }
    idNames(v.identity).forEach((n) => names.add(n));
    for (const c of cardsFor(profile, v.key)) for (const i of c.items) itemNames(i).forEach((n) => names.add(n));
  }
  return [...names];
}
