// Fortinet FortiOS: an interactive shell with `get` commands only. FortiOS turns paging off through its
// configuration (`config system console`), which a read-only collector must not touch, so its `--More--`
// prompts are answered by the shell transport (a space) instead. LLDP is left out: FortiOS shows it only
// through `diagnose` commands.
import { emptyFacts, type ParsedFacts } from '../facts.js';
import { routesOf } from './cisco_ios.js';
import { cidrOf, ip, keyValues, linesOf, mac, str, textOf } from './text.js';
import type { Platform, Sections } from './types.js';

export const fortios: Platform = {
  name: 'fortios',
  label: 'Fortinet FortiOS',
  transport: 'shell',
  commands: [
    { name: 'status', command: 'get system status' },
    { name: 'interfaces', command: 'get system interface physical' },
    { name: 'routes', command: 'get router info routing-table all', optional: true },
    { name: 'arp', command: 'get system arp', optional: true },
  ],
  parse: parseFortios,
};

export function parseFortios(s: Sections): ParsedFacts {
  const f = emptyFacts();
  f.vendor = 'Fortinet';
  const status = keyValues(textOf(s, 'status'));
  // "Version: FortiGate-60F v7.2.5,build1517,230606 (GA.F)"
  const version = /^(\S+)\s+v(\S+?),(build\d+)/.exec(status.get('version') ?? '');
  f.os = status.size ? 'FortiOS' : null;
  f.model = str(version?.[1]);
  f.os_version = version ? `${version[2]} ${version[3]}` : null;
  f.serial = str(status.get('serial-number'));
  f.hostname = str(status.get('hostname'));

  // `get system interface physical`: `==[name]` headers, then `key: value` lines.
  let cur: ParsedFacts['interfaces'][number] | null = null;
  for (const line of linesOf(textOf(s, 'interfaces'))) {
    const head = /^\s*==\s*\[\s*([^\]]+?)\s*\]/.exec(line);
    if (head) {
      if (head[1] === 'onboard') { cur = null; continue; }
      cur = { name: head[1]!, description: null, mac: null, state: null, mtu: null, addresses: [], master: null };
      f.interfaces.push(cur);
      continue;
    }
    if (!cur) continue;
    const ipm = /^\s*ip:\s*(\S+)\s+(\S+)/.exec(line);
    if (ipm && ipm[1] !== '0.0.0.0') { const c = cidrOf(ipm[1]!, ipm[2]); if (c) cur.addresses.push(c); }
    const st = /^\s*status:\s*(\S+)/.exec(line);
    if (st) cur.state = st[1]!.toLowerCase();
  }
  f.routes = routesOf(textOf(s, 'routes'));
  for (const line of linesOf(textOf(s, 'arp'))) {
    const m = /^(\d[\d.]+)\s+\S+\s+([0-9a-f:]{17})\s+(\S+)/i.exec(line.trim());
    const address = m ? ip(m[1]) : null;
    const hw = m ? mac(m[2]) : null;
    if (address && hw) f.neighbours.push({ address, mac: hw, interface: m![3]!, state: null });
  }
  return f;
}
