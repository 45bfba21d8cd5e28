// Identification: which vendor profile an agent matches and what it is (OS, model, serial, version,
// firmware, manufacturer, kind), and which evidence decided each. One GET of the system group (with the
// bridging and LLDP scalars of kind-evidence.ts) decides the profile (a few rules need one more read),
// then the profile's identity sources are read in one more GET, the walks they need, and the ENTITY-MIB
// chassis row. Discovery calls this for every SNMP-answering address.
//
// Match order: every profile's product lines (a sysObjectID prefix and sysDescr patterns), then a
// maker's other products by the enterprise number it owns (never "generic" under a known maker's
// enterprise), then generic MIB-II. docs/snmp.md, "Identification".
import type { SnmpReader, SnmpTarget } from './contracts.js';
import type { EnterpriseInfo, OidStore } from './oids/oid-store.js';
import { KIND_OIDS, kindEvidence } from './kind-evidence.js';
import { numberOf, SourceReader, textOf } from './sources.js';
import { identityOf, VENDOR_PROFILES } from './vendors/index.js';
import type { DeviceKind, IdentitySpec, MatchRule, ValueSource, VendorProfile, VendorVariant } from './vendors/types.js';

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
  evidence: IdentificationEvidence;
}

/** Which facts decided: text for people, each naming the OIDs and values it rests on. */
export interface IdentificationEvidence {
  /** "enterprise 11863 (TP-Link) owns sysObjectID …", a sysDescr pattern, or null (no maker known). */
  manufacturer: string | null;
  /** What held of the variant's rule: sysObjectID prefix, sysDescr pattern, probe. */
  variant: string;
  /** The source the model was read from ("tpSysInfoHwVersion.0", "entPhysicalModelName (ENTITY-MIB chassis row)"), or null. */
  model: string | null;
  /** "BRIDGE-MIB answers (dot1dBaseNumPorts 9)", "LLDP system capabilities enabled: bridge", or the variant's product line. */
  kind: string;
}

const SYS = {
  descr: '1.3.6.1.2.1.1.1.0', object_id: '1.3.6.1.2.1.1.2.0', uptime_ticks: '1.3.6.1.2.1.1.3.0',
  contact: '1.3.6.1.2.1.1.4.0', name: '1.3.6.1.2.1.1.5.0', location: '1.3.6.1.2.1.1.6.0',
} as const;

const FIELDS = ['os', 'model', 'serial', 'version', 'firmware'] as const;

/**
 * Reads the system group of an agent, and the scalars that tell what it does (kind-evidence.ts), in one
 * GET, and keeps them in `sources` for what follows.
 */
export async function readSystem(reader: SnmpReader, target: SnmpTarget, sources: SourceReader, now: () => number): Promise<SystemGroup> {
  const oids: string[] = [...Object.values(SYS), ...Object.values(KIND_OIDS)];
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

/** What held of a rule (its probe aside), as text; undefined when the rule does not hold. */
function holds(rule: MatchRule, sys: SystemGroup, sources: SourceReader): string[] | undefined {
  const why: string[] = [];
  if (rule.sys_object_id) {
    const prefix = rule.sys_object_id.find((p) => underOid(sys.object_id, sources.oid(p)));
    if (!prefix) return undefined;
    why.push(`sysObjectID ${sys.object_id} under ${prefix}${/^[\d.]+$/.test(prefix) ? '' : ` (${sources.oid(prefix)})`}`);
  }
  if (rule.sys_descr) {
    const re = rule.sys_descr.find((r) => r.test(sys.descr ?? ''));
    if (!re) return undefined;
    why.push(`sysDescr matches ${String(re)}`);
  }
  return why;
}

async function probeHolds(probe: NonNullable<MatchRule['probe']>, sources: SourceReader, store: OidStore): Promise<boolean> {
  const oid = sources.oid(probe.oid);
  const column = store.entry(oid)?.kind === 'column';
  const source = column ? { walk: probe.oid, pattern: probe.match } : { get: probe.oid, pattern: probe.match };
  await sources.fetch([source]);
  return sources.read(source) !== undefined;
}

/** What held of the variant's first rule that holds, or undefined. */
async function variantMatches(v: VendorVariant, sys: SystemGroup, sources: SourceReader, store: OidStore): Promise<string[] | undefined> {
  if (v.exclude?.some((rule) => holds(rule, sys, sources))) return undefined;
  for (const rule of v.match) {
    const why = holds(rule, sys, sources);
    if (!why) continue;
    if (!rule.probe) return why;
    if (await probeHolds(rule.probe, sources, store)) return [...why, `${rule.probe.oid} matches ${String(rule.probe.match)}`];
  }
  return undefined;
}

export interface ProfileMatch { profile: VendorProfile; variant: VendorVariant; why: string[] }

const PASSES = [undefined, 'enterprise', 'any'] as const;

/**
 * The profile and variant whose rules hold for this agent: every profile's product lines in profile
 * order first, then the makers' other products (by enterprise), then generic MIB-II.
 */
export async function matchProfile(sys: SystemGroup, sources: SourceReader, store: OidStore,
  profiles: readonly VendorProfile[] = VENDOR_PROFILES): Promise<ProfileMatch | undefined> {
  for (const pass of PASSES) {
    for (const profile of profiles) {
      for (const variant of profile.variants) {
        if (variant.fallback !== pass) continue;
        const why = await variantMatches(variant, sys, sources, store);
        if (why) return { profile, variant, why };
      }
    }
  }
  return undefined;
}

const enterpriseText = (e: EnterpriseInfo) => `enterprise ${e.number}${e.name ? ` (${e.name})` : ''}`;

/**
 * Why this maker: the enterprise it owns, the enterprise registry (generic MIB-II), or what else of the
 * rule held (a sysDescr pattern, a probe) where the sysObjectID is another company's. The decisive fact
 * comes first, the sysObjectID after it in parentheses.
 */
function manufacturerEvidence(m: ProfileMatch, sys: SystemGroup, enterprise: EnterpriseInfo | null, sources: SourceReader): string | null {
  const owned = enterprise && m.profile.enterprises?.some((p) => underOid(sys.object_id, sources.oid(p)));
  if (enterprise && (owned || !m.profile.manufacturer)) {
    const whose = owned ? `owned by ${m.profile.manufacturer}` : 'from IANA\'s registry';
    return `${enterpriseText(enterprise)}, ${whose} (sysObjectID ${sys.object_id})`;
  }
  if (!m.profile.manufacturer) return null;
  const decisive = m.why.filter((w) => !w.startsWith('sysObjectID '));
  const of = enterprise ? ` (sysObjectID ${sys.object_id} of ${enterpriseText(enterprise)})` : '';
  return `${(decisive.length ? decisive : m.why).join('; ')}${of}`;
}

function sourceText(s: ValueSource): string {
  const pattern = s.pattern ? ` ${String(s.pattern)}` : '';
  if ('get' in s) return `${s.get}${pattern}`;
  if ('entity' in s) return `${s.entity} (ENTITY-MIB chassis row)${pattern}`;
  return `${s.walk} (${s.reduce ?? 'first'} row)${pattern}`;
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
  const modelSource = (identity.model ?? []).find((s) => sources.read(s) !== undefined);

  // A product line says what the device is; a maker's other products and generic agents are told by
  // what they do (bridging, LLDP), their variant's kind only without that evidence.
  const lineKind = variant.kind ?? profile.kind;
  const seen = variant.kind_from_evidence ? kindEvidence((oid) => sources.value(oid)) : null;
  const kind = seen?.kind ?? lineKind;
  const kindWhy = seen?.why ?? (variant.kind_from_evidence
    ? `no bridging or LLDP evidence: ${lineKind}${variant.key === 'net-snmp' ? ' (a net-snmp host)' : ''} by default`
    : `${lineKind}: the ${variant.key} product line of ${profile.name}`);
  const other = variant.fallback === 'enterprise';
  return {
    vendor_key: profile.key,
    vendor: other ? profile.manufacturer ?? profile.name : profile.name,
    variant: variant.key,
    kind,
    os: field('os') ?? variant.os,
    model: field('model'),
    serial: field('serial'),
    version: field('version'),
    firmware: field('firmware'),
    manufacturer: profile.manufacturer ?? enterprise?.name ?? null,
    enterprise,
    sys,
    evidence: {
      manufacturer: manufacturerEvidence(matched, sys, enterprise, sources),
      variant: matched.why.length ? matched.why.join('; ') : 'no rule of a vendor profile holds',
      model: modelSource ? sourceText(modelSource) : null,
      kind: kindWhy,
    },
  };
}
