// The SSH enrichment platforms, and how `auto` tells them apart: the server's SSH ident first (Cisco IOS
// says `SSH-2.0-Cisco-1.25`, RouterOS `SSH-2.0-ROSSSH`), then what a harmless command answers (`uname -s`
// says Linux; a network CLI's `show version` names its OS).
import type { PlatformName } from '../facts.js';
import { arubaosCx } from './arubaos_cx.js';
import { ciscoIos } from './cisco_ios.js';
import { ciscoNxos } from './cisco_nxos.js';
import { fortios } from './fortios.js';
import { junos } from './junos.js';
import { linux } from './linux.js';
import { routeros } from './routeros.js';
import type { Platform } from './types.js';

export type { Platform, PlatformCommand, Section, Sections, Transport } from './types.js';

export const PLATFORM_DEFS: Record<PlatformName, Platform> = {
  linux, cisco_ios: ciscoIos, cisco_nxos: ciscoNxos, junos, routeros, arubaos_cx: arubaosCx, fortios,
};

/** The platform an SSH ident names for certain, else null (OpenSSH and dropbear run on many systems). */
export function platformFromBanner(ident: string | null): PlatformName | null {
  if (!ident) return null;
  if (/^SSH-[\d.]+-Cisco-/i.test(ident)) return 'cisco_ios';
  if (/^SSH-[\d.]+-ROSSSH/i.test(ident)) return 'routeros';
  return null;
}

/** The platform a `show version` (or FortiOS `get system status`) output names, else null. */
export function platformFromVersion(text: string): PlatformName | null {
  if (/Cisco Nexus Operating System|NX-OS/i.test(text)) return 'cisco_nxos';
  if (/Cisco IOS|Cisco Internetwork Operating System/i.test(text)) return 'cisco_ios';
  if (/JUNOS|^Junos:/im.test(text)) return 'junos';
  if (/ArubaOS-CX|AOS-CX/i.test(text)) return 'arubaos_cx';
  if (/^Version:\s*Forti/im.test(text)) return 'fortios';
  return null;
}
