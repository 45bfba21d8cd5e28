// Identification: which vendor profile an agent matches and what it is (OS, model, serial, version,
// firmware, manufacturer). One GET of the system group decides the profile (a few rules need one more
// read), then the profile's identity sources are read in one more GET, the walks they need, and the
// ENTITY-MIB chassis row. Discovery calls this for every SNMP-answering address.
import type { SnmpReader, SnmpTarget } from './contracts.js';
import type { EnterpriseInfo, OidStore } from './oids/oid-store.js';
import { numberOf, SourceReader, textOf } from './sources.js';
import { identityOf, VENDOR_PROFILES } from './vendors/index.js';
import type { DeviceKind, IdentitySpec, MatchRule, VendorProfile, VendorVariant } from './vendors/types.js';

export interface SystemGroup {
  descr: string | null;
  object_id: string | null;
  name: string | null;
  uptime_ticks: number | null;
  contact: string | null;
  location: string | null;
}

export interface Identification {
  vendor_key: string;
  vendor: string;
  variant: string;
  kind: DeviceKind;
  os: string | null;
  model: string | null;
  serial: string | null;
  version: string | null;
  firmware: string | null;
  manufacturer: string | null;
  enterprise: EnterpriseInfo | null;
  sys: SystemGroup;
}

const SYS = {
  descr: '1.3.6.1.2.1.1.1.0', object_id: '1.3.6.1.2.1.1.2.0', uptime_ticks: '1.3.6.1.2.1.1.3.0',
  contact: '1.3.6.1.2.1.1.4.0', name: '1.3.6.1.2.1.1.5.0', location: '1.3.6.1.2.1.1.6.0',
} as const;

const FIELDS = ['os', 'model', 'serial', 'version', 'firmware'] as const;

/** Reads the system group of an agent (one GET) and keeps it in `sources` for what follows. */
export async function readSystem(reader: SnmpReader, target: SnmpTarget, sources: SourceReader, now: () => number): Promise<SystemGroup> {
  const oids: string[] = Object.values(SYS);
  const vbs = await reader.get(target, oids);
  sources.remember(vbs.map((vb, i) => ({ ...vb, oid: oids[i]! })), now());
  const at = (oid: string) => vbs[oids.indexOf(oid)];
  const text = (oid: string) => {
    const vb = at(oid);
    return vb ? textOf(vb) ?? null : null;
  };
  const objectId = at(SYS.object_id);
  return {
    descr: text(SYS.descr),
    object_id: objectId?.type === 'OID' ? String(objectId.value) : null,
    name: text(SYS.name),
    uptime_ticks: numberOf(at(SYS.uptime_ticks)) ?? null,
    contact: text(SYS.contact),
    location: text(SYS.location),
  };
}

function underOid(oid: string | null, prefix: string): boolean {
  return !!oid && (oid === prefix || oid.startsWith(prefix + '.'));
}

/** The rule without its probe: sysObjectID prefix and sysDescr pattern, each when given. */
function holds(rule: MatchRule, sys: SystemGroup, sources: SourceReader): boolean {
  if (rule.sys_object_id && !rule.sys_object_id.some((p) => underOid(sys.object_id, sources.oid(p)))) return false;
  if (rule.sys_descr && !rule.sys_descr.some((re) => re.test(sys.descr ?? ''))) return false;
  return true;
}

async function probeHolds(probe: NonNullable<MatchRule['probe']>, sources: SourceReader, store: OidStore): Promise<boolean> {
  const oid = sources.oid(probe.oid);
  const column = store.entry(oid)?.kind === 'column';
  const source = column ? { walk: probe.oid, pattern: probe.match } : { get: probe.oid, pattern: probe.match };
  await sources.fetch([source]);
  return sources.read(source) !== undefined;
}

async function variantMatches(v: VendorVariant, sys: SystemGroup, sources: SourceReader, store: OidStore): Promise<boolean> {
  if (v.exclude?.some((rule) => holds(rule, sys, sources))) return false;
  for (const rule of v.match) {
    if (!holds(rule, sys, sources)) continue;
    if (!rule.probe || await probeHolds(rule.probe, sources, store)) return true;
  }
  return false;
}

/** The first profile and variant (in match order) whose rules hold for this agent. */
export async function matchProfile(sys: SystemGroup, sources: SourceReader, store: OidStore,
  profiles: readonly VendorProfile[] = VENDOR_PROFILES): Promise<{ profile: VendorProfile; variant: VendorVariant } | undefined> {
  for (const profile of profiles) {
    for (const variant of profile.variants) {
      if (await variantMatches(variant, sys, sources, store)) return { profile, variant };
    }
  }
  return undefined;
}

/** Identifies the agent at `target`. Reader errors (timeout, wrong community...) are thrown as they come. */
export async function identify(reader: SnmpReader, target: SnmpTarget, store: OidStore,
  now: () => number = Date.now): Promise<Identification> {
  const sources = new SourceReader(reader, target, store, now);
  const sys = await readSystem(reader, target, sources, now);
  const matched = await matchProfile(sys, sources, store);
  if (!matched) throw new Error('no vendor profile matched, not even generic MIB-II');
  const { profile, variant } = matched;
  const identity: IdentitySpec = identityOf(profile, variant);
  const field = (f: (typeof FIELDS)[number]) => {
    const v = sources.first(identity[f] ?? []);
    return v === undefined ? null : String(v.value);
  };
  await sources.fetchWanted(FIELDS.map((f) => ({ alternatives: (identity[f] ?? []).map((s) => [s]), done: () => field(f) !== null })));
  const enterprise = store.enterprise(sys.object_id) ?? null;
  return {
    vendor_key: profile.key,
    vendor: profile.name,
    variant: variant.key,
    kind: variant.kind ?? profile.kind,
    os: field('os') ?? variant.os,
    model: field('model'),
    serial: field('serial'),
    version: field('version'),
    firmware: field('firmware'),
    manufacturer: profile.manufacturer ?? enterprise?.name ?? null,
    enterprise,
    sys,
  };
}
