// Asking the probe's own links what is advertised there: one DNS-SD enumeration to 224.0.0.251:5353 (or
// ff02::fb) and one `M-SEARCH ssdp:all` to 239.255.255.250:1900 (or ff02::c) per link, each sent twice,
// then the questions the answers raise (the instances of each type, an instance's SRV and TXT), until the
// link has been quiet for a while. Sockets are bound to the link's own address on an ephemeral port:
// avahi owns 5353 on the appliance, and a query from another port is a legacy unicast query (RFC 6762
// §6.7), answered to that port. Multicast leaves by the link's interface only (IP_MULTICAST_IF), with
// TTL 1 for SSDP (mDNS's group is link-local by definition; RFC 6762 §11 wants 255 there); nothing is
// sent to any other address, and answers from outside the scanned subnet are dropped.
import { createSocket, type Socket } from 'node:dgram';
import { request } from 'node:http';
import type { LocalLink } from '../ranges.js';
import { decodeMessage, encodeQuery, type DnsQuestion } from './dns.js';
import { ENUMERATION, MdnsCollector } from './mdns.js';
import { deviceTypeOf, DESCRIPTION_MAX_BYTES, mSearch, parseDescription, parseSsdpAnswer, SSDP_PORT, SSDP_V4, SSDP_V6,
  type SsdpAnswer, type UpnpDescription } from './ssdp.js';

export const MDNS_PORT = 5353;
export const MDNS_V4 = '224.0.0.251';
export const MDNS_V6 = 'ff02::fb';
/** Seconds a device may wait before answering the search; the ask lasts at least this long. */
const SSDP_MX = 1;
const QUESTIONS_PER_PACKET = 8;

export interface AskTiming {
  /** The ask lasts at least this long (the SSDP answers' window), */
  minMs: number;
  /** then ends once nothing has come or gone for this long, */
  quietMs: number;
  /** and at the latest here. */
  maxMs: number;
  /** The second copy of each first query (a datagram can be lost). */
  repeatMs: number;
}
export const ASK_TIMING: AskTiming = { minMs: SSDP_MX * 1000 + 200, quietMs: 400, maxMs: 3000, repeatMs: 250 };

export interface LinkAnswers {
  /** DNS-SD answers by the address they came from. */
  mdns: MdnsCollector;
  /** SSDP answers by the address they came from. */
  ssdp: Map<string, SsdpAnswer[]>;
  /** What could not be sent (a link without multicast, an address gone): for the result's warnings. */
  errors: string[];
}

export interface AskOptions {
  /** Whether an answer from this address is kept (the scanned subnet). */
  accept: (address: string) => boolean;
  signal: AbortSignal;
  timing?: AskTiming;
  progress?: (fraction: number) => void;
  /** Every datagram as it is sent (tests): the link's interface, destination and port. */
  onSend?: (iface: string, address: string, port: number) => void;
}

const bare = (a: string) => a.replace(/%.*$/, '').replace(/^::ffff:/, '');

async function openOn(link: LocalLink, ttl: number): Promise<Socket> {
  const v6 = link.cidr.family === 6;
  const sock = createSocket({ type: v6 ? 'udp6' : 'udp4' });
  const scoped = v6 && /^fe80:/i.test(link.address) ? `${link.address}%${link.iface}` : link.address;
  await new Promise<void>((resolve, reject) => {
    sock.once('error', reject);
    sock.bind({ address: scoped, port: 0, exclusive: true }, () => { sock.off('error', reject); resolve(); });
  });
  sock.setMulticastInterface(v6 ? `::%${link.iface}` : link.address);
  sock.setMulticastLoopback(false);
  sock.setMulticastTTL(ttl);
  return sock;
}

/** Asks every link at once; resolves when each has been quiet long enough, at the latest `maxMs`, or on cancel. */
export async function askLinks(links: readonly LocalLink[], opts: AskOptions): Promise<LinkAnswers> {
  const out: LinkAnswers = { mdns: new MdnsCollector(), ssdp: new Map(), errors: [] };
  if (!links.length || opts.signal.aborted) return out;
  const timing = opts.timing ?? ASK_TIMING;
  const started = Date.now();
  let lastActivity = started;
  const sockets: Socket[] = [];
  const timers: NodeJS.Timeout[] = [];
  const asked = new Set<string>();
  let nextId = 1 + Math.floor(Math.random() * 0xfffe);

  const send = (sock: Socket, link: LocalLink, buf: Buffer, group: string, port: number) => {
    const dest = link.cidr.family === 6 ? `${group}%${link.iface}` : group;
    opts.onSend?.(link.iface, group, port);
    lastActivity = Date.now();
    sock.send(buf, port, dest, (e) => {
      if (e && !opts.signal.aborted) out.errors.push(`${link.iface} ${group}:${port}: ${e.message}`);
    });
  };
  const sendQuestions = (sock: Socket, link: LocalLink, qs: DnsQuestion[]) => {
    const group = link.cidr.family === 6 ? MDNS_V6 : MDNS_V4;
    for (let i = 0; i < qs.length; i += QUESTIONS_PER_PACKET) {
      nextId = (nextId % 0xffff) + 1;
      send(sock, link, encodeQuery(nextId, qs.slice(i, i + QUESTIONS_PER_PACKET)), group, MDNS_PORT);
    }
  };

  const opened: { link: LocalLink; mdns: Socket; ssdp: Socket }[] = [];
  for (const link of links) {
    try {
      const mdns = await openOn(link, 255);
      sockets.push(mdns);
      const ssdp = await openOn(link, 1);
      sockets.push(ssdp);
      opened.push({ link, mdns, ssdp });
    } catch (e) {
      out.errors.push(`${link.iface}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  await new Promise<void>((resolve) => {
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      for (const t of timers) clearTimeout(t);
      opts.signal.removeEventListener('abort', finish);
      resolve();
    };
    opts.signal.addEventListener('abort', finish, { once: true });
    for (const { link, mdns, ssdp } of opened) {
      const ssdpGroup = link.cidr.family === 6 ? SSDP_V6 : SSDP_V4;
      const first = () => {
        sendQuestions(mdns, link, [ENUMERATION]);
        send(ssdp, link, mSearch(link.cidr.family === 6 ? `[${SSDP_V6}]` : SSDP_V4, SSDP_MX), ssdpGroup, SSDP_PORT);
      };
      mdns.on('message', (msg, rinfo) => {
        const from = bare(rinfo.address);
        if (finished || !opts.accept(from)) return;
        lastActivity = Date.now();
        try { out.mdns.add(from, decodeMessage(msg)); } catch { return; /* not DNS: ignored */ }
        const more = out.mdns.questions(asked);
        if (more.length) sendQuestions(mdns, link, more);
      });
      ssdp.on('message', (msg, rinfo) => {
        const from = bare(rinfo.address);
        if (finished || !opts.accept(from)) return;
        lastActivity = Date.now();
        const a = parseSsdpAnswer(msg);
        if (a) (out.ssdp.get(from) ?? out.ssdp.set(from, []).get(from)!).push(a);
      });
      for (const s of [mdns, ssdp]) s.on('error', (e) => { if (!finished) out.errors.push(`${link.iface}: ${e.message}`); });
      first();
      timers.push(setTimeout(first, timing.repeatMs));
    }
    const tick = () => {
      const now = Date.now();
      opts.progress?.(Math.min(1, (now - started) / timing.minMs));
      if (now - started >= timing.maxMs || (now - started >= timing.minMs && now - lastActivity >= timing.quietMs)) finish();
      else timers.push(setTimeout(tick, 50));
    };
    tick();
  });
  for (const s of sockets) s.close();
  return out;
}

/** The UPnP facts of one host's SSDP answers: SERVER, the first LOCATION, the device types searched for. */
export function upnpOf(answers: readonly SsdpAnswer[]): { server: string | null; location: string | null; device_types: string[] } {
  const types = new Set<string>();
  for (const a of answers) {
    for (const t of [deviceTypeOf(a.st), deviceTypeOf(a.usn?.replace(/^.*::/, '') ?? null)]) if (t) types.add(t);
  }
  return {
    server: answers.find((a) => a.server)?.server ?? null,
    location: answers.find((a) => a.location)?.location ?? null,
    device_types: [...types].sort(),
  };
}

/**
 * GET of a description document: no redirect followed, `timeoutMs` at most, the first
 * DESCRIPTION_MAX_BYTES read and the rest left; null when it fails or is not a device description.
 */
export function fetchDescription(url: URL, signal: AbortSignal, timeoutMs = 1500): Promise<UpnpDescription | null> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const end = (v: UpnpDescription | null) => { if (!done) { done = true; resolve(v); } };
    const req = request(url, { method: 'GET', signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
      headers: { 'user-agent': 'netprobe discovery', accept: 'text/xml, application/xml' } }, (res) => {
      if (res.statusCode !== 200) { res.resume(); req.destroy(); end(null); return; }
      res.on('data', (c: Buffer) => {
        const room = DESCRIPTION_MAX_BYTES - size;
        chunks.push(c.subarray(0, room));
        size += Math.min(room, c.length);
        if (size >= DESCRIPTION_MAX_BYTES) { req.destroy(); end(parseDescription(Buffer.concat(chunks).toString('utf8'))); }
      });
      res.on('end', () => end(parseDescription(Buffer.concat(chunks).toString('utf8'))));
      res.on('error', () => end(null));
    });
    req.on('error', () => end(null));
    req.end();
  });
}
