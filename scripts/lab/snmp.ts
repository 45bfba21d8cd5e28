// SNMP agents and LLDP. Each SNMP host runs Debian's snmpd with its own identity (sysDescr,
// sysObjectID, sysServices, and an ENTITY-MIB chassis row through `override`, which snmpd does not
// serve on its own) and answers exactly one of the lab's credentials: the community, the second
// community, or the SNMPv3 user. A switch's snmpd is also an AgentX master on a socket in its directory,
// and `lldpd -x` feeds it LLDP-MIB (lldpd's AgentX serves LLDP-MIB only). lldpd's control socket is in
// the host's directory too, so lldpcli needs `-u <dir>/lldpd.sock` (see docs/lab.md).
// What snmpd does not serve for a Linux bridge comes from elsewhere: BRIDGE-MIB from the bridge's real
// forwarding table through a pass_persist program (bridge-mib.ts), CDP cache rows from `override`
// lines naming the real neighbour (its real address and port).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeTs, type DaemonSpec } from './daemons.js';
import { ip } from './run.js';
import { addressesOf, type HostPlan, type Plan } from './topology.js';

/** SNMPv3 credentials in the shape of src/modules/snmp/contracts.ts V3Params. */
export interface LabV3 {
  username: string;
  level: 'authPriv';
  auth_protocol: 'sha';
  auth_key: string;
  priv_protocol: 'aes';
  priv_key: string;
}

/** The lab's SNMP credentials, random per lab. */
export interface SnmpSecrets { community: string; community2: string; v3: LabV3 }

export const BRIDGE_MIB = '.1.3.6.1.2.1.17';
const CDP_CACHE = '.1.3.6.1.4.1.9.9.23.1.2.1.1';
/** CISCO-CDP-MIB cdpCacheCapabilities bits (the CDP capabilities TLV). */
const CDP_CAPS = { router: 0x01, switch: 0x08, host: 0x10 } as const;
const BRIDGE_MIB_PROGRAM = fileURLToPath(new URL('./bridge-mib.ts', import.meta.url));

const ENT = '.1.3.6.1.2.1.47.1.1.1.1';

function entityRows(h: HostPlan): string[] {
  const id = h.snmp!;
  const row = (col: number, type: string, value: string | number) => `override ${ENT}.${col}.1 ${type} ${value}`;
  return [
    row(2, 'octet_str', `"${id.descr}"`),
    row(3, 'object_id', id.objectId),
    row(4, 'integer', 0),
    row(5, 'integer', 3), // chassis
    row(7, 'octet_str', `"${h.name}"`),
    row(8, 'octet_str', '"1.0"'),
    row(10, 'octet_str', '"lab"'),
    row(11, 'octet_str', `"${id.serial}"`),
    row(12, 'octet_str', '"netprobe lab"'),
    row(13, 'octet_str', `"${id.model}"`),
  ];
}

/** Lines that give the agent exactly one credential. */
function accessLines(h: HostPlan, secrets: SnmpSecrets): string[] {
  switch (h.snmp!.credential ?? 'community') {
    case 'community': return [`rocommunity ${secrets.community}`];
    case 'community2': return [`rocommunity ${secrets.community2}`];
    case 'v3': {
      const v3 = secrets.v3;
      // No community at all: v1 and v2c requests get no answer, as on an agent configured for v3 only.
      return [`createUser ${v3.username} SHA "${v3.auth_key}" AES "${v3.priv_key}"`, `rouser ${v3.username} priv`];
    }
  }
}

const quoteSh = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * BRIDGE-MIB through snmpd's pass_persist: a small Node program answering from the bridge's real
 * forwarding table. snmpd splits the command line on spaces, so it runs a script in the host's directory.
 */
function bridgeMibLines(dir: string, guardSeconds: number): string[] {
  const script = join(dir, 'bridge-mib.sh');
  writeFileSync(script, [
    '#!/bin/sh',
    `exec timeout -k 5 ${guardSeconds} ${nodeTs(BRIDGE_MIB_PROGRAM, 'br0').map(quoteSh).join(' ')} 2>>${quoteSh(join(dir, 'bridge-mib.log'))}`,
  ].join('\n') + '\n', { mode: 0o700 });
  return [`pass_persist ${BRIDGE_MIB} /bin/sh ${script}`];
}

const hexBytes = (bytes: number[]) => `0x${bytes.map((n) => n.toString(16).padStart(2, '0')).join('')}`;

/** cdpCacheTable rows (index ifIndex.deviceIndex) describing each configured neighbour as it really is. */
function cdpLines(p: Plan, h: HostPlan): string[] {
  return (h.cdp ?? []).flatMap((c, k) => {
    const peer = p.hosts.find((x) => x.name === c.device);
    const iface = peer?.ifaces.find((f) => f.name === c.devicePort);
    if (!peer || !iface?.cidr) throw new Error(`CDP neighbour ${c.device} ${c.devicePort} of ${h.name} has no address`);
    const ifIndex = (JSON.parse(ip(h.ns, '-j', 'link', 'show', 'dev', c.localPort)) as { ifindex: number }[])[0]!.ifindex;
    const index = `${ifIndex}.${k + 1}`;
    const caps = peer.role === 'router' ? CDP_CAPS.router : peer.role === 'switch' ? CDP_CAPS.switch : CDP_CAPS.host;
    const row = (col: number, type: string, value: string | number) => `override ${CDP_CACHE}.${col}.${index} ${type} ${value}`;
    return [
      row(3, 'integer', 1), // ip
      row(4, 'octet_str', hexBytes(iface.cidr.split('/')[0]!.split('.').map(Number))),
      row(5, 'octet_str', `"${peer.snmp?.descr ?? `netprobe lab host ${peer.name}`}"`),
      row(6, 'octet_str', `"${peer.name}"`),
      row(7, 'octet_str', `"${c.devicePort}"`),
      row(8, 'octet_str', '"Linux"'),
      row(9, 'octet_str', hexBytes([0, 0, 0, caps])),
    ];
  });
}

export function snmpdSpec(p: Plan, h: HostPlan, dir: string, secrets: SnmpSecrets, guardSeconds: number): DaemonSpec {
  const id = h.snmp!;
  const conf = [
    `[snmp] persistentDir ${dir}/snmp`,
    'dontLogTCPWrappersConnects yes',
    ...accessLines(h, secrets),
    `sysName ${h.name}`,
    `sysDescr ${id.descr}`,
    `sysObjectID ${id.objectId}`,
    `sysServices ${id.services}`,
    `sysLocation netprobe lab, slot ${p.slot}`,
    'sysContact netprobe tests',
    ...(h.lldp ? ['master agentx', `agentXSocket unix:${dir}/agentx.sock`, 'agentXPerms 0777 0777'] : []),
    ...entityRows(h),
    ...(h.bridgeMib ? bridgeMibLines(dir, guardSeconds) : []),
    ...cdpLines(p, h),
  ];
  writeFileSync(join(dir, 'snmpd.conf'), conf.join('\n') + '\n', { mode: 0o600 });
  return {
    name: 'snmpd', phase: 1, env: { MIBS: '' },
    // -C -c: only this file; -f -Lo: foreground, log to stdout; -I -smux: no SMUX listener on TCP 199.
    argv: ['snmpd', '-C', '-c', join(dir, 'snmpd.conf'), '-f', '-Lo', '-I', '-smux', '-p', join(dir, 'snmpd.pid'), 'udp:161'],
    ready: [{ patterns: [/NET-SNMP version/] }],
  };
}

/** lldpcli commands lldpd runs at start (-O): names as a switch would send them. */
export function writeLldpConf(h: HostPlan, dir: string): string {
  const file = join(dir, 'lldpd.conf');
  const descr = h.snmp?.descr ?? `netprobe lab host ${h.name} (Debian)`;
  writeFileSync(file, [
    `configure system hostname ${h.name}`,
    `configure system description "${descr}"`,
    'configure lldp portidsubtype ifname',
    // Every 0.5 s, kept 20 s: a neighbour that started after us is seen within half a second (lldpd
    // sends once at start, then at this interval), and survives a busy test machine.
    'configure lldp tx-interval 500ms',
    'configure lldp tx-hold 40',
  ].join('\n') + '\n');
  return file;
}

export function lldpdSpec(h: HostPlan, dir: string): DaemonSpec {
  const conf = writeLldpConf(h, dir);
  const ports = h.ifaces.filter((f) => f.master).map((f) => f.name).join(',');
  return {
    name: 'lldpd', phase: 2,
    argv: ['lldpd', '-d', '-x', '-X', join(dir, 'agentx.sock'), '-u', join(dir, 'lldpd.sock'), '-O', conf,
      '-I', ports, '-m', addressesOf(h)[0]!],
    ready: [{ patterns: [/AgentX subagent connected/, /lldpd should resume operations/] }],
  };
}
