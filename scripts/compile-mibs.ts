// Compiles the OID store (src/modules/snmp/oids/oid-table.json) and the enterprise-number table
// (src/modules/snmp/oids/enterprises.json) from MIB sources. Run by hand when the MIB list or the
// vendor profiles change; both outputs are committed, the MIB sources never are.
//
//   npx tsx scripts/compile-mibs.ts --iana <enterprise-numbers file> <mib dir> [<mib dir>...]
//
// MIB directories are searched recursively and in the order given (the first file defining a module
// wins), so put the most authoritative first. docs/snmp-vendors.md ("Regenerating") has the exact
// commands; the sources are:
//   - net-snmp's own mibs/ (IETF modules), from github:net-snmp/net-snmp;
//   - netdisco/netdisco-mibs: rfc/ and the vendor folders (cisco juniper hp hpe aruba ubnt edgeswitch
//     tplink fortinet mikrotik net-snmp);
//   - LibreNMS's TPLINK-SYSINFO-MIB (netdisco's copy predates tpSysInfoSerialNum), given first;
//   - the IANA private enterprise numbers: Debian's libwireshark-data ships them as
//     /usr/share/wireshark/enterprises.tsv ("<number>\t<name>"); IANA's own text file works too.
// Parsing uses net-snmp's ModuleStore; modules are loaded after the modules they import. A wanted
// module that does not load stops the run.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A module included whole, or only the subtrees under the named nodes (for large vendor MIBs). */
interface Wanted { module: string; only?: string[] }

// Order matters: where two modules define the same OID, the first one listed keeps it (SMIv2
// modules before RFC1213-MIB, which only contributes what nothing newer defines, e.g. ipRouteTable).
const WANTED: Wanted[] = [
  { module: 'SNMPv2-SMI' },
  { module: 'SNMPv2-MIB' },
  { module: 'SNMP-FRAMEWORK-MIB' },
  { module: 'IF-MIB' },
  { module: 'IP-MIB' },
  { module: 'IP-FORWARD-MIB' },
  { module: 'TCP-MIB' },
  { module: 'UDP-MIB' },
  { module: 'EtherLike-MIB' },
  { module: 'BRIDGE-MIB' },
  { module: 'Q-BRIDGE-MIB' },
  { module: 'LLDP-MIB' },
  { module: 'ENTITY-MIB' },
  { module: 'ENTITY-SENSOR-MIB' },
  { module: 'HOST-RESOURCES-MIB' },
  { module: 'HOST-RESOURCES-TYPES' },
  { module: 'UCD-SNMP-MIB' },
  { module: 'NET-SNMP-MIB' },
  { module: 'NET-SNMP-TC' },
  { module: 'RFC1213-MIB' },
  // Cisco
  { module: 'CISCO-SMI' },
  { module: 'CISCO-CDP-MIB' },
  { module: 'CISCO-PROCESS-MIB' },
  { module: 'CISCO-MEMORY-POOL-MIB' },
  { module: 'CISCO-ENVMON-MIB' },
  // Juniper
  { module: 'JUNIPER-SMI' },
  { module: 'JUNIPER-MIB', only: ['jnxBoxAnatomy'] },
  // HPE / Aruba (ProCurve / ArubaOS-Switch); ArubaOS-CX reads standard MIBs
  { module: 'HP-ICF-OID', only: ['netElement', 'hpSwitch'] },
  { module: 'SEMI-MIB', only: ['hpHttpMgSerialNumber'] },
  { module: 'ARUBAWIRED-NETWORKING-OID', only: ['wndDeviceIds'] },
  { module: 'HP-ICF-CHASSIS', only: ['hpicfSensorTable'] },
  { module: 'STATISTICS-MIB', only: ['hpSwitchCpuStat'] },
  { module: 'NETSWITCH-MIB', only: ['hpLocalMemTable', 'hpGlobalMemTable'] },
  // Ubiquiti
  { module: 'UBNT-MIB' },
  { module: 'UBNT-UniFi-MIB', only: ['unifiApSystem'] },
  { module: 'EdgeSwitch-SWITCHING-MIB', only: ['agentInventoryGroup', 'agentSwitchCpuProcessGroup'] },
  // TP-Link
  { module: 'TPLINK-MIB' },
  { module: 'TPLINK-SYSINFO-MIB' },
  { module: 'TPLINK-SYSMONITOR-MIB' },
  // Fortinet
  { module: 'FORTINET-CORE-MIB', only: ['fortinet', 'fnCoreMib'] },
  { module: 'FORTINET-FORTIGATE-MIB', only: ['fgModel', 'fgSystem', 'fgHwSensors', 'fgFirewall', 'fgIntf', 'fgVpn'] },
  // MikroTik
  { module: 'MIKROTIK-MIB', only: ['mikrotikExperimentalModule', 'mtXRouterOs'] },
];

// Textual conventions whose name already tells a renderer what it needs; other TCs are reduced to
// their base syntax (keeping enumerations), or to DisplayString/PhysAddress by their DISPLAY-HINT.
const KEEP_TC = new Set([
  'DisplayString', 'SnmpAdminString', 'PhysAddress', 'MacAddress', 'DateAndTime', 'TruthValue', 'TimeStamp',
  'TimeInterval', 'RowStatus', 'StorageType', 'AutonomousType', 'InetAddress', 'InetAddressType',
  'InetAddressIPv4', 'InetAddressIPv6', 'Ipv6Address', 'BridgeId', 'KBytes', 'Float32TC',
]);
// Text conventions declared without a DISPLAY-HINT.
const TEXT_TC = new Set(['InternationalDisplayString', 'LongUtf8String', 'Utf8String']);
const KINDS = ['scalar', 'table', 'row', 'column', 'node', 'notification'] as const;
type Kind = (typeof KINDS)[number];

interface MibDef {
  ObjectName: string;
  ModuleName: string;
  MACRO?: string;
  SYNTAX?: string | Record<string, unknown>;
  DESCRIPTION?: string;
  UNITS?: string;
  INDEX?: string[];
  AUGMENTS?: string[];
  OID?: string;
}
interface ModuleStore { loadFromFile(file: string): void; getModule(name: string): Record<string, MibDef> | undefined }

const require = createRequire(import.meta.url);
const snmp = require('net-snmp') as { createModuleStore(): ModuleStore };

function die(msg: string): never {
  process.stderr.write(msg + '\n');
  process.exit(1);
}

function parseArgs(argv: string[]): { iana: string; dirs: string[] } {
  let iana = '';
  const dirs: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--iana') iana = argv[++i] ?? '';
    else dirs.push(argv[i]!);
  }
  if (!iana || dirs.length === 0) die('usage: compile-mibs.ts --iana <enterprise-numbers file> <mib dir>...');
  return { iana, dirs };
}

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    const st = statSync(p);
    if (st.isDirectory()) out.push(...filesUnder(p));
    else if (st.size < 8 * 1024 * 1024) out.push(p);
  }
  return out;
}

interface SourceModule { file: string; imports: string[]; hints: Map<string, string> }

/** Module name -> the file defining it, what it imports, and its TCs' DISPLAY-HINTs. */
function indexModules(dirs: string[]): Map<string, SourceModule> {
  const index = new Map<string, SourceModule>();
  for (const dir of dirs) {
    for (const file of filesUnder(dir)) {
      const text = readFileSync(file, 'latin1').replace(/--[^\n]*/g, '');
      const heads = [...text.matchAll(/^\s*([A-Za-z][\w-]*)\s+DEFINITIONS\s*(?:IMPLICIT\s+TAGS\s*)?::=\s*BEGIN/gm)];
      heads.forEach((h, i) => {
        const name = h[1]!;
        if (index.has(name)) return;
        const body = text.slice(h.index, heads[i + 1]?.index ?? text.length);
        const importsText = /\bIMPORTS\b([\s\S]*?);/.exec(body)?.[1] ?? '';
        const imports = [...importsText.matchAll(/\bFROM\s+([A-Za-z][\w-]*)/g)].map((m) => m[1]!);
        const hints = new Map<string, string>();
        for (const m of body.matchAll(/([A-Za-z][\w-]*)\s*::=\s*TEXTUAL-CONVENTION[\s\S]*?(?:DISPLAY-HINT\s*"([^"]*)"[\s\S]*?)?\bSYNTAX\b/g)) {
          if (m[2] !== undefined) hints.set(m[1]!, m[2]);
        }
        index.set(name, { file, imports, hints });
      });
    }
  }
  return index;
}

const BASE = new Set(['RFC1155-SMI', 'RFC1158-MIB', 'RFC-1212', 'RFC1213-MIB', 'RFC-1215', 'SNMPv2-SMI', 'SNMPv2-CONF', 'SNMPv2-TC', 'SNMPv2-MIB']);

/** Loads each wanted module after everything it imports. */
function loadAll(store: ModuleStore, index: Map<string, SourceModule>, wanted: string[]): void {
  const done = new Set<string>(BASE);
  const visiting = new Set<string>();
  const load = (name: string): void => {
    if (done.has(name) || visiting.has(name)) return;
    const src = index.get(name);
    if (!src) {
      process.stderr.write(`warning: module ${name} not found in the MIB directories\n`);
      done.add(name);
      return;
    }
    visiting.add(name);
    for (const dep of src.imports) load(dep);
    visiting.delete(name);
    try {
      store.loadFromFile(src.file);
    } catch (e) {
      process.stderr.write(`warning: ${name} (${src.file}) failed to parse: ${(e as Error).message}\n`);
    }
    done.add(name);
  };
  for (const name of wanted) load(name);
}

interface TcInfo { base: string; enums?: Record<string, string>; hint?: string }

/** Every textual convention of the loaded modules, by name. */
function collectTcs(store: ModuleStore, index: Map<string, SourceModule>): Map<string, TcInfo> {
  const tcs = new Map<string, TcInfo>();
  for (const [moduleName, src] of index) {
    const mod = store.getModule(moduleName);
    if (!mod) continue;
    for (const def of Object.values(mod)) {
      const isTc = def.MACRO === 'TEXTUAL-CONVENTION' || (!def.OID && !def.MACRO && def.SYNTAX !== undefined);
      if (!isTc || tcs.has(def.ObjectName) || def.SYNTAX === undefined) continue;
      const { name, enums } = syntaxParts(def.SYNTAX);
      tcs.set(def.ObjectName, { base: name, enums, hint: src.hints.get(def.ObjectName) });
    }
  }
  return tcs;
}

function syntaxParts(syntax: string | Record<string, unknown>): { name: string; enums?: Record<string, string> } {
  if (typeof syntax === 'string') return { name: syntax };
  const name = Object.keys(syntax)[0] ?? '';
  const detail = syntax[name] as Record<string, unknown> | undefined;
  if (detail && !('sizes' in detail) && !('ranges' in detail)) {
    const enums: Record<string, string> = {};
    for (const [k, v] of Object.entries(detail)) if (/^-?\d+$/.test(k) && typeof v === 'string') enums[k] = v;
    if (Object.keys(enums).length) return { name, enums };
  }
  return { name };
}

/** The type name a renderer needs: a known TC, a TC's base by its hint, or the base syntax. */
function resolveType(syntax: string | Record<string, unknown>, tcs: Map<string, TcInfo>): { type: string; enums?: Record<string, string> } {
  let { name, enums } = syntaxParts(syntax);
  for (let depth = 0; depth < 8; depth++) {
    const tc = tcs.get(name);
    enums ??= tc?.enums;
    if (KEEP_TC.has(name)) break;
    if (TEXT_TC.has(name)) { name = 'DisplayString'; break; }
    if (!tc) break;
    if (tc.hint && /^\d*[at]$/.test(tc.hint)) { name = 'DisplayString'; break; }
    if (tc.hint && /^1x[:-]$/.test(tc.hint)) { name = 'PhysAddress'; break; }
    name = tc.base;
  }
  if (name === 'Integer32' && enums) name = 'INTEGER';
  return { type: name, enums: enums && Object.keys(enums).length ? enums : undefined };
}

function firstSentence(text: string | undefined): string | undefined {
  if (!text) return undefined;
  const flat = text.replace(/\s+/g, ' ').trim();
  if (!flat) return undefined;
  const m = /^(.*?[.!?])(?:\s|$)/.exec(flat);
  let s = m ? m[1]! : flat;
  if (s.length > 200) s = s.slice(0, 197).replace(/\s+\S*$/, '') + '...';
  return s;
}

function oidCompare(a: string, b: string): number {
  const x = a.split('.').map(Number);
  const y = b.split('.').map(Number);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}

const SKIP_MACROS = new Set(['OBJECT-GROUP', 'NOTIFICATION-GROUP', 'MODULE-COMPLIANCE', 'AGENT-CAPABILITIES', 'TEXTUAL-CONVENTION', 'TRAP-TYPE']);

interface Row { oid: string; name: string; module: string; kind: Kind; type?: string; enums?: Record<string, string>; units?: string; description?: string }

function compile(store: ModuleStore, index: Map<string, SourceModule>): Row[] {
  const tcs = collectTcs(store, index);
  const rows = new Map<string, Row>();
  for (const want of WANTED) {
    const mod = store.getModule(want.module);
    if (!mod) die(`module ${want.module} did not load; add a directory that has it`);
    const defs = Object.values(mod).filter((d) => d.OID && !SKIP_MACROS.has(d.MACRO ?? ''));
    const byName = new Map(defs.map((d) => [d.ObjectName, d]));
    const roots = want.only?.map((n) => {
      const d = byName.get(n);
      if (!d?.OID) die(`${want.module}: no node named ${n}`);
      return d.OID;
    });
    for (const d of defs) {
      const oid = d.OID!;
      if (roots && !roots.some((r) => oid === r || oid.startsWith(r + '.'))) continue;
      if (rows.has(oid)) continue;
      rows.set(oid, toRow(d, byName, tcs));
    }
  }
  return [...rows.values()].sort((a, b) => oidCompare(a.oid, b.oid));
}

function toRow(d: MibDef, byName: Map<string, MibDef>, tcs: Map<string, TcInfo>): Row {
  const row: Row = { oid: d.OID!, name: d.ObjectName, module: d.ModuleName, kind: 'node', description: firstSentence(d.DESCRIPTION) };
  if (d.MACRO === 'NOTIFICATION-TYPE') row.kind = 'notification';
  else if (d.MACRO === 'OBJECT-TYPE' && d.SYNTAX !== undefined) {
    const syntax = d.SYNTAX;
    if (typeof syntax === 'string' && /^SEQUENCE\s+OF\b/.test(syntax)) row.kind = 'table';
    else if (d.INDEX || d.AUGMENTS) row.kind = 'row';
    else {
      const parentOid = d.OID!.slice(0, d.OID!.lastIndexOf('.'));
      const parent = [...byName.values()].find((p) => p.OID === parentOid);
      row.kind = parent && (parent.INDEX || parent.AUGMENTS) ? 'column' : 'scalar';
      const t = resolveType(syntax, tcs);
      row.type = t.type;
      row.enums = t.enums;
      if (d.UNITS) row.units = d.UNITS;
    }
  }
  return row;
}

/** "<number>\t<name>" (Wireshark's enterprises.tsv) or IANA's own four-line records. */
function parseEnterprises(text: string): Map<number, string> {
  const out = new Map<number, string>();
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    // Wireshark's copy appends notes after a tab and "#" ("# formerly 'Arastra, Inc.'").
    const line = lines[i]!.replace(/\s+#.*$/, '');
    const tsv = /^(\d+)\s+(\S.*)$/.exec(line);
    if (tsv && !/^\d+$/.test(line.trim())) { out.set(Number(tsv[1]), tsv[2]!.trim()); continue; }
    if (/^\d+$/.test(line.trim()) && lines[i + 1] !== undefined) out.set(Number(line.trim()), lines[i + 1]!.trim());
  }
  return out;
}

// Private enterprise numbers of network, server, storage, security, printing and power vendors whose
// devices answer SNMP on the networks this probe documents. Names are IANA's, tidied (legal suffixes
// and "previously" notes dropped) or replaced by the trade name where IANA keeps a historic spelling.
const ENTERPRISES = [
  2, 9, 11, 18, 23, 35, 36, 42, 43, 45, 52, 63, 77, 89, 94, 111, 116, 119, 171, 193, 207, 211, 232, 244, 253, 259,
  311, 318, 332, 343, 367, 368, 429, 476, 529, 534, 562, 637, 641, 664, 674, 705, 714, 731, 789, 800, 850, 890,
  935, 1139, 1182, 1230, 1248, 1271, 1347, 1588, 1602, 1718, 1751, 1872, 1916, 1991, 2011, 2021, 2076, 2254,
  2272, 2281, 2312, 2334, 2352, 2356, 2435, 2509, 2544, 2604, 2606, 2620, 2623, 2636, 3076, 3097, 3181, 3224,
  3375, 3417, 3607, 3808, 3822, 3833, 3845, 3902, 3955, 4115, 4413, 4458, 4491, 4526, 4779, 4843, 4874, 4881,
  5003, 5454, 5491, 5528, 5567, 5597, 5624, 5651, 5771, 5951, 6027, 6141, 6296, 6302, 6321, 6486, 6527, 6574,
  6876, 6889, 7244, 7262, 7367, 7779, 8072, 8691, 8741, 8744, 8886, 9148, 9694, 9967, 10002, 10418,
  10456, 10704, 10734, 10876, 11096, 11129, 11256, 11408, 11610, 11863, 12124, 12148, 12276, 12325, 12356,
  12394, 12532, 12740, 13191, 13315, 13644, 13742, 13858, 13885, 14125, 14179, 14501, 14525, 14823, 14988,
  15004, 15497, 15983, 16177, 16885, 17163, 17713, 18334, 19046, 19379, 19536, 20408, 20632, 20916, 20992,
  21013, 21239, 21296, 21839, 22610, 23695, 23867, 24681, 25049, 25053, 25461, 25506, 26543, 26866, 26928,
  27282, 28557, 28866, 28978, 29671, 30065, 30155, 30803, 31322, 31926, 33049, 35047, 35098, 35265, 36859,
  37072, 37459, 39165, 40310, 41112, 41263, 42397, 43356, 43721, 44227, 44641, 46262, 47196, 47565, 48690,
  52587, 52694, 60099,
];
const TRADE_NAMES: Record<number, string> = {
  2: 'IBM', 9: 'Cisco', 11: 'HP', 63: 'Apple', 89: 'Radware (RND)', 318: 'APC (Schneider Electric)', 789: 'NetApp',
  1991: 'Brocade (Foundry Networks)', 2011: 'Huawei', 2021: 'UCD-SNMP (net-snmp)', 3076: 'Cisco (Altiga)',
  3224: 'Juniper (NetScreen)', 3375: 'F5', 3417: 'Blue Coat (CacheFlow)', 3607: 'Cisco (Cerent)', 3902: 'ZTE',
  4413: 'Broadcom', 4874: 'Juniper (Unisphere)', 5951: 'Citrix NetScaler', 6027: 'Dell (Force10)', 10876: 'Supermicro',
  11863: 'TP-Link', 12276: 'F5', 12325: 'Fraunhofer FOKUS (bsnmpd: FreeBSD, pfSense)', 14179: 'Cisco (Airespace)',
  14823: 'Aruba (HPE)', 25461: 'Palo Alto Networks', 29671: 'Cisco Meraki', 41112: 'Ubiquiti', 47196: 'HPE Aruba Networking',
};

function tidy(name: string): string {
  let s = name.replace(/\s*\((?:previous|https?:)[^)]*\)/gi, '').trim();
  for (;;) {
    const t = s.replace(/,?\s+(?:Inc\.?|Incorporated|Corp\.?|Corporation|Co\.,\s*Ltd\.?|Ltd\.?|LTD|LLC|GmbH(?: & Co\.\s*KG)?|AG|AB|AS|ASA|S\.A\.|Plc|Limited|Pvt\.?|Co\.|s\.c\.)$/i, '').trim();
    if (t === s) return s;
    s = t;
  }
}

function compileEnterprises(iana: Map<number, string>): Array<[number, string]> {
  return [...new Set(ENTERPRISES)].sort((a, b) => a - b).map((n) => {
    const official = iana.get(n);
    if (!official) die(`enterprise ${n} is not in the IANA list`);
    return [n, TRADE_NAMES[n] ?? tidy(official)];
  });
}

function main(): void {
  const { iana, dirs } = parseArgs(process.argv.slice(2));
  const index = indexModules(dirs);
  const store = snmp.createModuleStore();
  loadAll(store, index, WANTED.map((w) => w.module));
  const rows = compile(store, index);

  const modules = [...new Set(rows.map((r) => r.module))];
  const types = [...new Set(rows.map((r) => r.type).filter((t): t is string => !!t))].sort();
  // Enumerations are shared (TruthValue, RowStatus, IANAifType... recur), so each is stored once.
  const enumKeys = [...new Set(rows.filter((r) => r.enums).map((r) => JSON.stringify(r.enums)))];
  const table = {
    format: 1,
    note: 'Generated by scripts/compile-mibs.ts; do not edit. entries: [oid, name, module#, kind#, type# or -1, enums# or -1, units or 0, description or 0]',
    modules,
    kinds: KINDS,
    types,
    enums: enumKeys.map((k) => JSON.parse(k) as Record<string, string>),
    entries: rows.map((r) => [
      r.oid, r.name, modules.indexOf(r.module), KINDS.indexOf(r.kind), r.type ? types.indexOf(r.type) : -1,
      r.enums ? enumKeys.indexOf(JSON.stringify(r.enums)) : -1, r.units ?? 0, r.description ?? 0,
    ]),
  };
  const outDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'modules', 'snmp', 'oids');
  writeFileSync(join(outDir, 'oid-table.json'), JSON.stringify(table).replace(/\],\[/g, '],\n[') + '\n');

  const enterprises = compileEnterprises(parseEnterprises(readFileSync(iana, 'utf8')));
  writeFileSync(join(outDir, 'enterprises.json'), JSON.stringify({
    format: 1,
    note: 'Generated by scripts/compile-mibs.ts from the IANA private enterprise numbers; do not edit. [number, manufacturer]',
    enterprises,
  }).replace(/\],\[/g, '],\n[') + '\n');
  process.stdout.write(`${rows.length} OIDs from ${modules.length} modules, ${enterprises.length} enterprises\n`);
}

main();
