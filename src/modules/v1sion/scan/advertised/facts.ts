// From what a host answered over mDNS/DNS-SD and SSDP to the facts a person reads: its name, what it is
// (a category: printer, storage, camera...), maker and model, and the device kind that follows when no
// SNMP agent said otherwise. Pure. docs/discovery.md lists the rules.
import type { AdvertisedCategory, AdvertisedFacts, DeviceKind, UpnpFacts } from '../result.js';
import type { MdnsHostFacts } from './mdns.js';

/** Service types that say what a box is, most telling first (a printer also serves _http._tcp). */
const BY_SERVICE: [AdvertisedCategory, readonly string[]][] = [
  ['printer', ['_ipp._tcp', '_ipps._tcp', '_printer._tcp', '_pdl-datastream._tcp']],
  ['scanner', ['_uscan._tcp', '_uscans._tcp', '_scanner._tcp']],
  ['camera', ['_axis-video._tcp', '_onvif._tcp']],
  ['storage', ['_adisk._tcp', '_afpovertcp._tcp', '_nfs._tcp']],
  ['access_point', ['_airport._tcp']],
  ['media', ['_googlecast._tcp', '_airplay._tcp', '_raop._tcp', '_spotify-connect._tcp', '_amzn-wplay._tcp', '_sonos._tcp']],
  ['iot', ['_hap._tcp', '_hap._udp', '_matter._tcp', '_matterc._udp', '_hue._tcp', '_homekit._tcp']],
  ['computer', ['_workstation._tcp', '_ssh._tcp', '_sftp-ssh._tcp', '_smb._tcp', '_rfb._tcp', '_companion-link._tcp']],
];

/** UPnP device types (UDA's standard ones and common vendor ones) that say what a box is. */
const BY_DEVICE_TYPE: [AdvertisedCategory, RegExp][] = [
  ['printer', /^Printer\b/i],
  ['scanner', /^Scanner\b/i],
  ['camera', /^(DigitalSecurityCamera|Camera)\b/i],
  ['router', /^(InternetGatewayDevice|WANDevice|WANConnectionDevice)\b/i],
  ['access_point', /^WLANAccessPointDevice\b/i],
  ['storage', /^(MediaServer|NAS|Storage)\b/i],
  ['media', /^(MediaRenderer|dial|tvdevice|ZonePlayer)\b/i],
];

/** The device kind a category makes (DEVICE_KINDS has no printer: a printer stays a host, with its category). */
export function kindOfCategory(c: AdvertisedCategory | null): DeviceKind | null {
  if (c === 'router' || c === 'access_point') return c;
  if (c === 'storage') return 'server';
  return c ? 'host' : null;
}

export function categoryOf(types: readonly string[], upnpTypes: readonly string[]): AdvertisedCategory | null {
  const set = new Set(types.map((t) => t.toLowerCase()));
  for (const [c, ts] of BY_SERVICE) if (ts.some((t) => set.has(t))) return c;
  for (const [c, re] of BY_DEVICE_TYPE) if (upnpTypes.some((t) => re.test(t))) return c;
  return null;
}

const clean = (s: string | null | undefined) => {
  const v = (s ?? '').replace(/^\((.*)\)$/, '$1').trim();
  return v || null;
};

/** The facts of one host: `mdns` from its DNS-SD answers, `upnp` from its SSDP answers and description. */
export function advertisedFacts(mdns: MdnsHostFacts | null, upnp: UpnpFacts | null): AdvertisedFacts | null {
  if (!mdns && !upnp) return null;
  const types = [...new Set([...(mdns?.types ?? []), ...(mdns?.services ?? []).map((s) => s.type)])];
  const category = categoryOf(types, upnp?.device_types ?? []);
  // The service that says what the box is speaks for it first: a printer's _ipp._tcp over its _http._tcp.
  const telling = new Set(BY_SERVICE.find(([c]) => c === category)?.[1] ?? []);
  const services = [...(mdns?.services ?? [])].sort((a, b) => Number(telling.has(b.type)) - Number(telling.has(a.type)));
  const txt = (k: string) => services.map((s) => clean(s.txt[k])).find((v) => v) ?? null;
  return {
    name: txt('fn') ?? clean(upnp?.friendly_name) ?? services[0]?.instance ?? mdns?.host_name ?? null,
    host_name: mdns?.host_name ?? null,
    category,
    vendor: clean(upnp?.manufacturer) ?? txt('usb_mfg') ?? txt('manufacturer') ?? txt('mfg'),
    model: clean(upnp?.model_name) ?? txt('ty') ?? txt('usb_mdl') ?? txt('product') ?? txt('md') ?? txt('model'),
    services: services.map((s) => ({ type: s.type, instance: s.instance, port: s.port, txt: s.txt })),
    upnp,
  };
}
