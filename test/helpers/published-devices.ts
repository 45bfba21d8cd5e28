// Facts of further models of the supported vendors, from recordings published in a public simulator
// data set: LibreNMS's tests/snmpsim (github.com/librenms/librenms, GPL-3.0). Only facts are taken
// (sysObjectID, sysDescr, whether BRIDGE-MIB answers), never a file: test/fixtures/snmprec/README.md.
// Each row becomes a tiny in-memory agent (the system group and the scalars identification asks).
//
// Two sets. DEVELOPMENT rows were read while the enterprise fallback was written, and tests may check
// them in detail. HELD_OUT rows were set apart before the rules were checked against them: no profile
// rule names anything of them, and their test checks only what the requirement says of any device of a
// supported vendor (its maker, never "generic"; a kind that is right or unknown), nothing tuned to them.
import { parseSnmprec, type Recording } from './snmprec.js';

export interface PublishedDevice {
  /** The file in librenms/librenms tests/snmpsim the facts come from. */
  source: string;
  sys_object_id: string;
  /** null: the recording has no sysDescr. */
  sys_descr: string | null;
  /** The recording holds dot1dBaseBridgeAddress (BRIDGE-MIB answers). */
  bridge_address?: string;
  /** The vendor profile the device's maker has (LibreNMS files it under that vendor). */
  maker: string;
  /** What the device is, as the product's documentation says. */
  kind: 'switch' | 'router' | 'firewall' | 'wireless' | 'device';
}

export const DEVELOPMENT: readonly PublishedDevice[] = [
  { source: 'tplink.snmprec', sys_object_id: '1.3.6.1.4.1.11863.1.1', sys_descr: null, maker: 'tplink', kind: 'device' },
  { source: 'ciscosb.snmprec', sys_object_id: '1.3.6.1.4.1.9.6.1.80', sys_descr: null, maker: 'cisco', kind: 'switch' },
  { source: 'fortiswitch.snmprec', sys_object_id: '1.3.6.1.4.1.12356.106.1.2482', sys_descr: null, maker: 'fortinet', kind: 'switch' },
];

export const HELD_OUT: readonly PublishedDevice[] = [
  { source: 'airos.snmprec', sys_object_id: '1.3.6.1.4.1.10002.1', sys_descr: 'Linux', maker: 'ubiquiti', kind: 'wireless' },
  { source: 'unifi.snmprec', sys_object_id: '1.3.6.1.4.1.10002.1', sys_descr: 'Linux 3.3.8 #1 Wed Jan 18 09:26:53 PST 2017 mips',
    maker: 'ubiquiti', kind: 'wireless' },
  { source: 'swos.snmprec', sys_object_id: '1.3.6.1.4.1.14988.2', sys_descr: 'RB260GS', bridge_address: '6C3B6BF624E6',
    maker: 'mikrotik', kind: 'switch' },
  { source: 'arubaos.snmprec', sys_object_id: '1.3.6.1.4.1.14823.1.1.9999', sys_descr: 'ArubaOS Version 6.4.4.4-4.2.3.1',
    maker: 'aruba', kind: 'wireless' },
  { source: 'junose.snmprec', sys_object_id: '1.3.6.1.4.1.4874.1.1.1.1.1', sys_descr: null, maker: 'juniper', kind: 'router' },
];

/** The device as an snmprec recording: its system group and, where it has one, its bridge address. */
export function recordingOf(d: PublishedDevice): Recording {
  const lines = [
    ...(d.sys_descr !== null ? [`1.3.6.1.2.1.1.1.0|4|${d.sys_descr}`] : []),
    `1.3.6.1.2.1.1.2.0|6|${d.sys_object_id}`,
    ...(d.bridge_address ? [`1.3.6.1.2.1.17.1.1.0|4x|${d.bridge_address}`] : []),
  ];
  return parseSnmprec(lines.join('\n') + '\n', d.source);
}
