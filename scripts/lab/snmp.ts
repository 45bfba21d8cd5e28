// SNMP agents and LLDP. Each SNMP host runs Debian's snmpd with its own identity (sysDescr,
// sysObjectID, sysServices, and an ENTITY-MIB chassis row through `override`, which snmpd does not
// serve on its own). A switch's snmpd is also an AgentX master on a socket in its directory, and
// `lldpd -x` feeds it LLDP-MIB (lldpd's AgentX serves LLDP-MIB only). lldpd's control socket is in the
// host's directory too, so lldpcli needs `-u <dir>/lldpd.sock` (see docs/lab.md).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DaemonSpec } from './daemons.js';
import { addressesOf, type HostPlan, type Plan } from './topology.js';

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

export function snmpdSpec(p: Plan, h: HostPlan, dir: string, community: string): DaemonSpec {
  const id = h.snmp!;
  const conf = [
    `[snmp] persistentDir ${dir}/snmp`,
    'dontLogTCPWrappersConnects yes',
    `rocommunity ${community}`,
    `sysName ${h.name}`,
    `sysDescr ${id.descr}`,
    `sysObjectID ${id.objectId}`,
    `sysServices ${id.services}`,
    `sysLocation netprobe lab, slot ${p.slot}`,
    'sysContact netprobe tests',
    ...(h.lldp ? ['master agentx', `agentXSocket unix:${dir}/agentx.sock`, 'agentXPerms 0777 0777'] : []),
    ...entityRows(h),
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
