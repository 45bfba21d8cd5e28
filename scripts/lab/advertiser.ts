// A small mDNS/DNS-SD and SSDP responder as a lab daemon: the lab's printer (`ip netns exec ... timeout
// ... node --import tsx scripts/lab/advertiser.ts <config.json>`). It advertises an IPP printer
// (`_ipp._tcp`, TXT ty/product/usb_MFG/usb_MDL/...) and its web page (`_http._tcp`), answers
// `M-SEARCH` as a UPnP Printer:1 root device, and serves the description document its LOCATION names
// over HTTP. It answers only; it never announces. Queries from a port other than 5353 get a legacy
// unicast answer (RFC 6762 §6.7: the query's ID and question echoed, TTLs of 10 s), others a multicast
// one. The `_ipp._tcp` answer carries SRV, TXT and A as additional records; the `_http._tcp` one does
// not, as some devices do, so a client must ask for them. Every query and search is logged with its
// source ("mdns query from 10.77.0.1:40000 ...", "ssdp search from ..."), which the lab tests read.
//   config.json: {"address": "10.77.0.63", "host": "npl0-printer", "instance": "Lab Printer NPL-P1", "http_port": 80, ...}
// It prints "ready" once every socket listens.
import { createSocket, type RemoteInfo } from 'node:dgram';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { decodeMessage, encodeResponse, TYPE, type DnsQuestion, type DnsRecord } from '../../src/modules/v1sion/scan/advertised/dns.js';

export interface AdvertiserConfig {
  /** Lab host name: the HTTP root's body says "netprobe lab <name>". */
  name: string;
  address: string;
  /** mDNS host name, without .local. */
  host: string;
  instance: string;
  http_port: number;
  /** The IPP TXT record, as key=value strings. */
  ipp_txt: string[];
  upnp: { uuid: string; friendly_name: string; manufacturer: string; model_name: string; model_number: string; serial: string };
}

const MDNS = { group: '224.0.0.251', port: 5353 };
const SSDP = { group: '239.255.255.250', port: 1900 };
const PRINTER = 'urn:schemas-upnp-org:device:Printer:1';

function main(): void {
  const file = process.argv[2];
  if (!file) throw new Error('usage: scripts/lab/advertiser.ts <config.json>');
  const c = JSON.parse(readFileSync(file, 'utf8')) as AdvertiserConfig;
  const host = `${c.host}.local`;
  const ipp = `${c.instance}._ipp._tcp.local`;
  const web = `${c.instance}._http._tcp.local`;
  const a: DnsRecord = { name: host, ttl: 120, type: 'A', address: c.address };
  const records = {
    types: ['_ipp._tcp.local', '_http._tcp.local'].map((t): DnsRecord => ({ name: '_services._dns-sd._udp.local', ttl: 4500, type: 'PTR', target: t })),
    ipp: { ptr: { name: '_ipp._tcp.local', ttl: 4500, type: 'PTR', target: ipp } as DnsRecord,
      srv: { name: ipp, ttl: 120, type: 'SRV', priority: 0, weight: 0, port: 631, target: host } as DnsRecord,
      txt: { name: ipp, ttl: 4500, type: 'TXT', strings: c.ipp_txt } as DnsRecord },
    web: { ptr: { name: '_http._tcp.local', ttl: 4500, type: 'PTR', target: web } as DnsRecord,
      srv: { name: web, ttl: 120, type: 'SRV', priority: 0, weight: 0, port: c.http_port, target: host } as DnsRecord,
      txt: { name: web, ttl: 4500, type: 'TXT', strings: ['path=/'] } as DnsRecord },
  };
  const same = (x: string, y: string) => x.toLowerCase() === y.toLowerCase();
  const answer = (q: DnsQuestion): { answers: DnsRecord[]; more: DnsRecord[] } => {
    const any = q.type === TYPE.ANY;
    if (same(q.name, '_services._dns-sd._udp.local') && (any || q.type === TYPE.PTR)) return { answers: records.types, more: [] };
    if (same(q.name, '_ipp._tcp.local') && (any || q.type === TYPE.PTR)) return { answers: [records.ipp.ptr], more: [records.ipp.srv, records.ipp.txt, a] };
    if (same(q.name, '_http._tcp.local') && (any || q.type === TYPE.PTR)) return { answers: [records.web.ptr], more: [] };
    for (const r of [records.ipp, records.web]) {
      if (!same(q.name, r.srv.name)) continue;
      if (q.type === TYPE.SRV) return { answers: [r.srv], more: [a] };
      if (q.type === TYPE.TXT) return { answers: [r.txt], more: [] };
      if (any) return { answers: [r.srv, r.txt], more: [a] };
    }
    if (same(q.name, host) && (any || q.type === TYPE.A)) return { answers: [a], more: [] };
    return { answers: [], more: [] };
  };

  const mdns = createSocket({ type: 'udp4', reuseAddr: true });
  mdns.on('message', (msg: Buffer, from: RemoteInfo) => {
    let q;
    try { q = decodeMessage(msg); } catch { return; }
    if (q.response) return;
    console.log(`mdns query from ${from.address}:${from.port} id ${q.id}: ${q.questions.map((x) => `${x.name}/${x.type}${x.unicastResponse ? '/QU' : ''}`).join(', ')}`);
    const legacy = from.port !== MDNS.port;
    const answers: DnsRecord[] = [];
    const more: DnsRecord[] = [];
    for (const x of q.questions) { const r = answer(x); answers.push(...r.answers); more.push(...r.more); }
    if (!answers.length) return;
    const ttl = (r: DnsRecord) => (legacy ? { ...r, ttl: Math.min(r.ttl, 10) } : r);
    const extra = more.filter((r) => !answers.includes(r)).filter((r, i, all) => all.indexOf(r) === i);
    const packet = encodeResponse(legacy ? q.id : 0, legacy ? q.questions : [], answers.map(ttl), extra.map(ttl));
    const unicast = legacy || q.questions.some((x) => x.unicastResponse);
    mdns.send(packet, unicast ? from.port : MDNS.port, unicast ? from.address : MDNS.group);
  });

  const ssdp = createSocket({ type: 'udp4', reuseAddr: true });
  const location = `http://${c.address}:${c.http_port}/description.xml`;
  ssdp.on('message', (msg: Buffer, from: RemoteInfo) => {
    const text = msg.toString('latin1');
    if (!text.startsWith('M-SEARCH * HTTP/1.1')) return;
    const st = /^ST:\s*(.*)$/im.exec(text)?.[1]?.trim() ?? '';
    const mx = Number(/^MX:\s*(\d+)/im.exec(text)?.[1] ?? 1);
    console.log(`ssdp search from ${from.address}:${from.port} st ${st} mx ${mx}`);
    const targets = st === 'ssdp:all' ? ['upnp:rootdevice', `uuid:${c.upnp.uuid}`, PRINTER]
      : ['upnp:rootdevice', `uuid:${c.upnp.uuid}`, PRINTER].filter((t) => t === st);
    for (const t of targets) {
      const usn = t.startsWith('uuid:') ? t : `uuid:${c.upnp.uuid}::${t}`;
      const reply = ['HTTP/1.1 200 OK', 'CACHE-CONTROL: max-age=1800', 'EXT:', `LOCATION: ${location}`,
        'SERVER: Linux/6.1 UPnP/1.1 netprobe-lab-printer/1.0', `ST: ${t}`, `USN: ${usn}`, '', ''].join('\r\n');
      // Within MX seconds, as UDA 1.1 asks, but no later than 0.3 s: the lab keeps scans fast.
      setTimeout(() => ssdp.send(Buffer.from(reply, 'latin1'), from.port, from.address), Math.random() * Math.min(mx, 0.3) * 1000);
    }
  });

  const description = `<?xml version="1.0"?>
<root xmlns="urn:schemas-upnp-org:device-1-0">
  <specVersion><major>1</major><minor>1</minor></specVersion>
  <device>
    <deviceType>${PRINTER}</deviceType>
    <friendlyName>${c.upnp.friendly_name}</friendlyName>
    <manufacturer>${c.upnp.manufacturer}</manufacturer>
    <modelName>${c.upnp.model_name}</modelName>
    <modelNumber>${c.upnp.model_number}</modelNumber>
    <serialNumber>${c.upnp.serial}</serialNumber>
    <UDN>uuid:${c.upnp.uuid}</UDN>
    <presentationURL>http://${c.address}:${c.http_port}/</presentationURL>
  </device>
</root>
`;
  const http = createServer((req, res) => {
    console.log(`http ${req.method} ${req.url} from ${req.socket.remoteAddress}`);
    if (req.url === '/description.xml') res.writeHead(200, { 'content-type': 'text/xml' }).end(description);
    else res.end(`netprobe lab ${c.name}\n`);
  });

  let pending = 3;
  const ready = () => { if (--pending === 0) console.log('ready'); };
  mdns.bind(MDNS.port, () => { mdns.addMembership(MDNS.group, c.address); ready(); });
  ssdp.bind(SSDP.port, () => { ssdp.addMembership(SSDP.group, c.address); ready(); });
  http.listen(c.http_port, c.address, () => { console.log(`listening on ${c.http_port}`); ready(); });
  const stop = () => { mdns.close(); ssdp.close(); http.close(); process.exit(0); };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

try {
  main();
} catch (e) {
  console.error(`advertiser: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
}
