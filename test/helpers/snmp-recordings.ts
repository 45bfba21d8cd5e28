// The snmprec recordings the SNMP tests identify, and what each must be identified as: the shared corpus
// of real devices (../shared/fixtures/snmprec, see its MANIFEST.tsv; read in place, never copied) and
// this project's own small hand-made recordings (test/fixtures/snmprec). Expected values are the ones
// the recordings hold (chassis row of ENTITY-MIB, vendor scalars, sysDescr).
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Identification } from '../../src/modules/snmp/identify.js';

const here = dirname(fileURLToPath(import.meta.url));
export const CORPUS_DIR = resolve(here, '../../../shared/fixtures/snmprec');
export const FIXTURES_DIR = resolve(here, '../fixtures/snmprec');

export type Expected = Pick<Identification, 'vendor_key' | 'variant' | 'kind' | 'os' | 'model' | 'serial' | 'version' | 'firmware' | 'manufacturer'>;

export interface KnownRecording { file: string; corpus: boolean; expect: Expected }

const e = (vendor_key: string, variant: string, kind: Expected['kind'], os: string | null, manufacturer: string | null,
  model: string | null, serial: string | null, version: string | null, firmware: string | null): Expected =>
  ({ vendor_key, variant, kind, os, manufacturer, model, serial, version, firmware });

const CORPUS: Record<string, Expected> = {
  ios_c3560: e('cisco', 'ios', 'switch', 'IOS', 'Cisco', 'WS-C3560-48TS-S', 'CAT0912N0CU', '12.2(55)SE12', null),
  iosxe_ct5760: e('cisco', 'ios-xe', 'switch', 'IOS-XE', 'Cisco', 'AIR-CT5760-E', 'SN123456789', '03.07.03E', '0.1'),
  'nxos_n3k-3064pq': e('cisco', 'nx-os', 'switch', 'NX-OS', 'Cisco', 'N3K-C3064PQ-10GX', '<private>', '7.0(3)I7(8)', null),
  junos_rpm: e('juniper', 'junos', 'router', 'Junos', 'Juniper Networks', 'SRX240H', 'AG3213AK0210', '12.1X46-D86', null),
  'arubaos-cx': e('aruba', 'aos-cx', 'switch', 'ArubaOS-CX', 'HPE Aruba Networking', 'JL635A', 'DEVICESERL', 'GL.10.04.2000', 'GL.01.05.0002'),
  procurve_2520: e('aruba', 'procurve', 'switch', 'ArubaOS-Switch', 'HPE Aruba Networking', 'J9850A', null, 'KA.15.03.3004', 'KA.15.05'),
  routeros_rb750gr3: e('mikrotik', 'routeros', 'router', 'RouterOS', 'MikroTik', 'RB750Gr3', '6F3A071688EA', '7.20beta2', null),
  edgeswitch_10xp: e('ubiquiti', 'edgeswitch', 'switch', 'EdgeSwitch', 'Ubiquiti', 'ES-10X', null, '1.1.3', '1.0.3'),
  edgeos: e('ubiquiti', 'edgeos', 'router', 'EdgeOS', 'Ubiquiti', null, null, '1.8.0', '1.8.0.4853089.160219.1607'),
  'jetstream_jetstream-lldp': e('tplink', 'jetstream', 'switch', 'JetStream', 'TP-Link', 'T1600G-28TS', '2199797000740', '3.0.6', '3.0.6 Build 20200805 Rel.55968'),
  netgear_3: e('generic', 'mib-2', 'device', null, 'Netgear', null, null, null, null),
  fortigate_60f3g4g: e('fortinet', 'fortios', 'firewall', 'FortiOS', 'Fortinet', 'FGR_60F_3G4G', 'FR60Fxxxxxxxxxxx', '6.4.8', 'v6.4.8,build1914,211117 (GA)'),
  panos_440: e('generic', 'mib-2', 'device', null, 'Palo Alto Networks', 'PA-440', '1234567890', '10.1.14-h6', null),
  pfsense: e('generic', 'mib-2', 'device', null, 'Fraunhofer FOKUS (bsnmpd: FreeBSD, pfSense)', null, null, null, null),
  linux_icecast: e('generic', 'net-snmp', 'server', 'Linux', 'net-snmp', null, null, '4.18.0-147.8.1.el8_1.x86_64', null),
  'dell-os10': e('generic', 'mib-2', 'device', null, 'Dell', 'S4128F-ON', 'CN02NK09282988AT0259', null, null),
};

const OWN: Record<string, Expected> = {
  'cisco-ios-c2960x': e('cisco', 'ios', 'switch', 'IOS', 'Cisco', 'WS-C2960X-48TS-L', 'FOC1911X0AB', '15.2(7)E4', null),
  'cisco-iosxe-c9300': e('cisco', 'ios-xe', 'switch', 'IOS-XE', 'Cisco', 'C9300-48P', 'FCW2233G0XY', '17.9.4a', '17.9.1r[FC2]'),
  'cisco-nxos-n9k': e('cisco', 'nx-os', 'switch', 'NX-OS', 'Cisco', 'N9K-C93180YC-FX', 'FDO22230ABC', '9.3(10)', null),
  // IOS XR is no product line of the Cisco profile: Cisco's other products, by its enterprise number.
  'cisco-iosxr-asr9k': e('cisco', 'other', 'device', null, 'Cisco', 'ASR-9006-AC-V2', 'FOX1234ABCD', '6.5.3[Default]', null),
  'juniper-ex2300': e('juniper', 'junos', 'router', 'Junos', 'Juniper Networks', 'EX2300-24T', 'JW3619AB0CD', '21.4R3-S4.9', 'REV 17'),
  'aruba-cx-6300m': e('aruba', 'aos-cx', 'switch', 'ArubaOS-CX', 'HPE Aruba Networking', 'JL659A', 'SG12KMA0AB', 'CL.10.10.1040', 'FL.01.09.0003'),
  'aruba-procurve-2930f': e('aruba', 'procurve', 'switch', 'ArubaOS-Switch', 'HPE Aruba Networking', 'JL253A', 'CN12HPX0AB', 'WC.16.11.0015', 'WC.16.01'),
  'hpe-officeconnect-1820': e('generic', 'mib-2', 'device', null, 'HP', null, null, null, null),
  'ubnt-edgerouter-x': e('ubiquiti', 'edgeos', 'router', 'EdgeOS', 'Ubiquiti', null, null, '2.0.9', '2.0.9-hotfix.7.5622731.230615.0857'),
  'ubnt-unifi-uap-ac-pro': e('ubiquiti', 'unifi-ap', 'wireless', 'UniFi', 'Ubiquiti', 'UAP-AC-Pro', null, '6.5.62.14788', null),
  'ubnt-unifi-usw-24-poe': e('ubiquiti', 'unifi-switch', 'switch', 'UniFi', 'Ubiquiti', 'USW-24-PoE', 'F09FC2A0B1C2', '6.6.55.15189', null),
  'ubnt-edgeswitch-24-lite': e('ubiquiti', 'edgeswitch', 'switch', 'EdgeSwitch', 'Ubiquiti', 'ES-24-Lite', '802AA8D1E2F3', '1.9.3.5371658', null),
  'realtek-rtl8380-switch': e('generic', 'mib-2', 'device', null, 'Realtek Semiconductor', 'GS1900-10HP', 'S202L12345678', 'V2.70(AAZI.2)', 'V2.70'),
  'tplink-t2600g-28sq': e('tplink', 'jetstream', 'switch', 'JetStream', 'TP-Link', 'T2600G-28SQ', '2203591000123', '1.0.2', '1.0.2 Build 20210406 Rel.39580'),
  // An access point: not JetStream, but TP-Link's by its enterprise number; its model is nowhere to read.
  'tplink-eap245': e('tplink', 'other', 'device', null, 'TP-Link', null, null, null, null),
  'fortinet-fortigate-60f': e('fortinet', 'fortios', 'firewall', 'FortiOS', 'Fortinet', 'FGT_60F', 'FGT60FTK2109AB12', '7.2.8', 'v7.2.8,build1639,240313 (GA.M)'),
  'mikrotik-ccr2004': e('mikrotik', 'routeros', 'router', 'RouterOS', 'MikroTik', 'CCR2004-16G-2S+', 'HE408XYZ1AB', '7.15.3', '7.15.3'),
  'linux-netsnmp-debian': e('generic', 'net-snmp', 'server', 'Linux', 'net-snmp', null, null, '6.6.31+rpt-rpi-v8', null),
  'arista-eos-7050sx3': e('generic', 'mib-2', 'device', null, 'Arista Networks', 'DCS-7050SX3-48YC8', 'JPE20380ABC', '4.30.2F', '1.25.0'),
};

/**
 * Why the tests of the shared corpus skip, or false when it is there. It lives beside this workspace only
 * (../shared/fixtures/snmprec); a clone anywhere else runs on this project's own recordings, which cover
 * every vendor profile, and reports the corpus tests as skipped with this reason. CI has the corpus.
 */
export const CORPUS_SKIP: string | false = existsSync(CORPUS_DIR) ? false
  : `the shared snmprec corpus of real devices is not at ${CORPUS_DIR} (it exists only beside the project's workspace)`;

/** All recordings with their expectations: the shared corpus when it is there, and this project's own. */
export function knownRecordings(): KnownRecording[] {
  return [
    ...(CORPUS_SKIP ? [] : Object.entries(CORPUS).map(([name, expect]) => ({ file: join(CORPUS_DIR, `${name}.snmprec`), corpus: true, expect }))),
    ...Object.entries(OWN).map(([name, expect]) => ({ file: join(FIXTURES_DIR, `${name}.snmprec`), corpus: false, expect })),
  ];
}

export const recordingName = (file: string) => file.replace(/^.*\//, '').replace(/\.snmprec$/, '');
