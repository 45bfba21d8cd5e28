// The shape of a vendor profile: how a device is recognised from its system group, how its model,
// serial, OS version and firmware are read, and which OID cards it shows. OIDs are written by name
// ("jnxBoxSerialNo.0", "IF-MIB::ifOperStatus", "enterprises.4413") and resolved through the OID store;
// test/unit/snmp-oid-store.test.ts checks that every one of them is known.

export type DeviceKind = 'switch' | 'router' | 'firewall' | 'wireless' | 'server' | 'device';

/** The text of a value, or the first capture group of `pattern` in it (no match: no value). */
interface Extract { pattern?: RegExp }

/** Rows of a table: a column walked, kept where a column of the same row (default: itself) passes. */
export interface RowFilter {
  column?: string;
  /** Equal to this number, text, or OID (an OID may be given by name, e.g. "hrStorageRam"). */
  equals?: number | string;
  match?: RegExp;
  /** Keep the rows that fail the test instead. */
  not?: boolean;
}

export type Reduce = 'first' | 'sum' | 'avg' | 'max' | 'min' | 'count';

/**
 * Where a value comes from:
 * - `get`: one instance ("sysDescr.0", "jnxOperatingCPU.9.1.0.0");
 * - `walk`: a column, filtered by `where` and reduced (default `first`: the first row with a value;
 *   `count` counts the rows that pass `where`);
 * - `entity`: a column of ENTITY-MIB's entPhysicalTable at the chassis row (entPhysicalClass
 *   chassis(3)), or, on agents without entPhysicalClass, the column's first non-empty value.
 */
export type ValueSource =
  | ({ get: string } & Extract)
  | ({ walk: string; where?: RowFilter; reduce?: Reduce } & Extract)
  | ({ entity: string } & Extract);

/** used / total, used / (used + free), or (total - free) / total, as a percentage. */
export interface PercentSpec { used?: ValueSource; free?: ValueSource; total?: ValueSource }

/** A table shown row by row: a label column and a value column sharing the row index. */
export interface RowsSpec {
  label: string;
  value: string;
  where?: RowFilter;
  /** A column whose enumeration label names each row's unit (MIKROTIK-MIB mtxrGaugeUnit). */
  unit_column?: string;
  /** Per unit label: the unit to show and the factor to apply (dV: {unit: 'V', scale: 0.1}). */
  units?: Record<string, { unit: string; scale?: number }>;
  /** A column holding each row's decimal places (ENTITY-SENSOR-MIB entPhySensorPrecision). */
  precision_column?: string;
}

/** One line of a card: exactly one of `value` (first source with a value wins), `percent` or `rows`. */
export interface CardItem {
  key: string;
  label: string;
  value?: ValueSource | ValueSource[];
  percent?: PercentSpec | PercentSpec[];
  rows?: RowsSpec;
  /** Shown after the number; replaces the MIB's UNITS when given. */
  unit?: string;
  /** Factor applied to a numeric value (0.1 for deci-units). */
  scale?: number;
}

export interface Card { key: string; title: string; items: CardItem[] }

/** Sources tried in order for each identity field; the first with a value wins. */
export interface IdentitySpec {
  os?: ValueSource[];
  model?: ValueSource[];
  serial?: ValueSource[];
  version?: ValueSource[];
  firmware?: ValueSource[];
}

/**
 * Holds when the sysObjectID starts with one of `sys_object_id` (at an arc boundary) and the
 * sysDescr matches one of `sys_descr` (each only when given; an empty rule holds for every agent).
 * `probe` is read only when the rest holds: some value of that instance or column must match.
 */
export interface MatchRule {
  sys_object_id?: string[];
  sys_descr?: RegExp[];
  probe?: { oid: string; match: RegExp };
}

export interface VendorVariant {
  key: string;
  /** The operating system's name, e.g. "IOS-XE" (null: unknown); the identity's `os` sources may refine it. */
  os: string | null;
  kind?: DeviceKind;
  /** Any rule holding selects the variant... */
  match: MatchRule[];
  /** ...unless one of these holds (probes are not allowed here). */
  exclude?: MatchRule[];
  /** Replaces the profile's sources field by field. */
  identity?: IdentitySpec;
  /** Replaces the profile's card with the same key; others are added after the profile's. */
  cards?: Card[];
  /**
   * When the variant is tried: a product line's own rules first, across every profile (absent); then
   * 'enterprise', a maker's other products, recognised by the enterprise number it owns alone; last
   * 'any', generic MIB-II's rule that holds for every agent.
   */
  fallback?: 'enterprise' | 'any';
  /**
   * The variant says nothing of what the device does (a maker's other products, generic agents): its
   * `kind` is only the default, and bridging or LLDP evidence read with the system group decides.
   */
  kind_from_evidence?: true;
}

export interface VendorProfile {
  key: string;
  name: string;
  kind: DeviceKind;
  /** Who makes it; absent for generic MIB-II, which names the maker from the enterprise number. */
  manufacturer?: string;
  /**
   * The private enterprise arcs this maker owns (IANA's registry names the maker for each): a
   * sysObjectID under one is this maker's product even when no product line's rule holds. Its variant
   * `other` (otherProducts() in common.ts) matches them.
   */
  enterprises?: string[];
  description: string;
  /** Tried in order; the first variant that matches wins, and with it this profile. */
  variants: VendorVariant[];
  identity: IdentitySpec;
  cards: Card[];
}
