// What DNS-SD (RFC 6763) answers say, per answering address: the service types it enumerates
// (`_services._dns-sd._udp.local`), its service instances with their SRV port and TXT keys, and its mDNS
// host name; and which questions are still worth asking (instances of a type just learned, SRV and TXT of
// an instance that came without them). Pure: the sockets are ask.ts's.
import { labelsOf, TYPE, type DnsMessage, type DnsQuestion } from './dns.js';

export const SERVICES_NAME = '_services._dns-sd._udp.local';
/** Keys of a service's TXT record kept, and the longest value kept: a TXT can be large, a result must not. */
const MAX_TXT_KEYS = 32;
const MAX_TXT_VALUE = 200;
/** Services kept per address (a responder can advertise dozens; the first ones found are kept). */
const MAX_SERVICES = 24;

export interface MdnsService {
  /** `_ipp._tcp` */
  type: string;
  /** The instance's own label: "Lab Printer NPL-P1". */
  instance: string;
  port: number | null;
  /** The SRV target host (`printer.local`). */
  target: string | null;
  txt: Record<string, string>;
  /** Which of SRV and TXT came. */
  has: { srv: boolean; txt: boolean };
}

export interface MdnsHostFacts {
  host_name: string | null;
  types: string[];
  services: MdnsService[];
}

/** `_ipp._tcp.local` -> `_ipp._tcp`; anything else (a subtype, a host name) -> null. */
function serviceTypeOf(name: string): string | null {
  const l = labelsOf(name.toLowerCase());
  if (l.length !== 3 || l[2] !== 'local' || !/^_[a-z0-9-]{1,15}$/.test(l[0]!) || (l[1] !== '_tcp' && l[1] !== '_udp')) return null;
  return `${l[0]}.${l[1]}`;
}

/** The instance label and type of `<instance>.<_type>.<_tcp>.local`, or null. */
function instanceOf(name: string): { instance: string; type: string } | null {
  const l = labelsOf(name);
  if (l.length !== 4) return null;
  const type = serviceTypeOf(l.slice(1).map((x) => x.replace(/\./g, '\\.')).join('.'));
  return type ? { instance: l[0]!, type } : null;
}

/** TXT strings to keys (lower case, first one wins, RFC 6763 §6.4) and values (a bare key: ""). */
export function txtKeys(strings: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const s of strings) {
    const eq = s.indexOf('=');
    const key = (eq < 0 ? s : s.slice(0, eq)).trim().toLowerCase();
    if (!key || key in out || !/^[\x20-\x7e]+$/.test(key)) continue;
    if (Object.keys(out).length >= MAX_TXT_KEYS) break;
    // eslint-disable-next-line no-control-regex
    out[key] = eq < 0 ? '' : s.slice(eq + 1).replace(/[\x00-\x1f\x7f]/g, ' ').slice(0, MAX_TXT_VALUE);
  }
  return out;
}

const stripLocal = (n: string) => n.replace(/\.local\.?$/i, '');

interface Seen {
  types: Set<string>;
  /** By full instance name, lower case. */
  services: Map<string, MdnsService>;
  /** Host names and the addresses their A/AAAA records give. */
  hosts: Map<string, Set<string>>;
}

/** Answers gathered from each address; `questions()` says what to ask next. */
export class MdnsCollector {
  private readonly seen = new Map<string, Seen>();

  /** One response that came from `from`; queries and unsolicited packets of no interest are ignored. */
  add(from: string, msg: DnsMessage): void {
    if (!msg.response) return;
    const s = this.seen.get(from) ?? { types: new Set(), services: new Map(), hosts: new Map() };
    const service = (full: string): MdnsService | undefined => {
      const key = full.toLowerCase();
      let svc = s.services.get(key);
      const at = instanceOf(full);
      if (!svc && at && s.services.size < MAX_SERVICES) {
        svc = { type: at.type, instance: at.instance, port: null, target: null, txt: {}, has: { srv: false, txt: false } };
        s.services.set(key, svc);
        s.types.add(at.type);
      }
      return svc;
    };
    for (const r of msg.records) {
      if (r.type === 'PTR' && r.name.toLowerCase() === SERVICES_NAME) {
        const type = serviceTypeOf(r.target);
        if (type) s.types.add(type);
      } else if (r.type === 'PTR' && serviceTypeOf(r.name)) {
        service(r.target);
      } else if (r.type === 'SRV') {
        const svc = service(r.name);
        if (svc) { svc.port = r.port; svc.target = r.target; svc.has.srv = true; }
      } else if (r.type === 'TXT') {
        const svc = service(r.name);
        if (svc && !svc.has.txt) { svc.txt = txtKeys(r.strings); svc.has.txt = true; }
      } else if (r.type === 'A' || r.type === 'AAAA') {
        const key = r.name.toLowerCase();
        (s.hosts.get(key) ?? s.hosts.set(key, new Set()).get(key)!).add(r.address);
      }
    }
    if (s.types.size || s.services.size || s.hosts.size) this.seen.set(from, s);
  }

  /** The addresses that answered with anything. */
  addresses(): string[] {
    return [...this.seen.keys()];
  }

  /** What one address advertised; its host name is the SRV target (or A record) that names its own address. */
  facts(address: string): MdnsHostFacts | null {
    const s = this.seen.get(address);
    if (!s || (!s.types.size && !s.services.size)) return null;
    const services = [...s.services.values()];
    const named = [...s.hosts].filter(([, addrs]) => addrs.has(address)).map(([n]) => n);
    const target = services.map((x) => x.target).find((t) => t && (named.includes(t.toLowerCase()) || !named.length));
    const host = target ?? named[0] ?? null;
    return { host_name: host ? stripLocal(host) : null, types: [...s.types].sort(), services };
  }

  /**
   * The questions not yet in `asked` (which this adds them to): the instances of each type learned, then
   * the SRV and TXT of each instance that came without them.
   */
  questions(asked: Set<string>): DnsQuestion[] {
    const out: DnsQuestion[] = [];
    const ask = (name: string, type: number) => {
      const key = `${type}:${name.toLowerCase()}`;
      if (asked.has(key)) return;
      asked.add(key);
      out.push({ name, type, unicastResponse: true });
    };
    for (const s of this.seen.values()) {
      for (const t of s.types) ask(`${t}.local`, TYPE.PTR);
      for (const svc of s.services.values()) {
        const full = `${svc.instance.replace(/\\/g, '\\\\').replace(/\./g, '\\.')}.${svc.type}.local`;
        if (!svc.has.srv) ask(full, TYPE.SRV);
        if (!svc.has.txt) ask(full, TYPE.TXT);
      }
    }
    return out;
  }
}

/** The first question of every discovery: which service types are there (RFC 6763 §9), answer to my port. */
export const ENUMERATION: DnsQuestion = { name: SERVICES_NAME, type: TYPE.PTR, unicastResponse: true };
