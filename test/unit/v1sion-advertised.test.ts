// The mDNS/DNS-SD and SSDP parsers (scan/advertised/) on recorded and hand-made packets. The DNS-SD
// recordings (test/fixtures/advertised/avahi-*.hex) are avahi-daemon 0.8's real answers to the stage's
// own legacy unicast queries, taken between two network namespaces: the service enumeration, the
// instances of _ipp._tcp and _http._tcp (with SRV, TXT, A and AAAA as additional records, names
// compressed), and the SRV and TXT of one instance. minidlna-ssdp.json and minidlna-description.xml are
// MiniDLNA 1.3.0's real answers to the stage's M-SEARCH and its description document, recorded the same
// way. The printer's and router's SSDP answer and description are written by hand after UPnP Device
// Architecture 1.1 §1.3.3 and §2.3.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { decodeMessage, encodeQuery, labelsOf, TYPE } from '../../src/modules/v1sion/scan/advertised/dns.js';
import { advertisedFacts, categoryOf, kindOfCategory } from '../../src/modules/v1sion/scan/advertised/facts.js';
import { ENUMERATION, MdnsCollector, txtKeys } from '../../src/modules/v1sion/scan/advertised/mdns.js';
import { descriptionUrl, deviceTypeOf, mSearch, parseDescription, parseSsdpAnswer } from '../../src/modules/v1sion/scan/advertised/ssdp.js';
import { upnpOf } from '../../src/modules/v1sion/scan/advertised/ask.js';
import { AdvertisedFacts } from '../../src/modules/v1sion/scan/result.js';

const recorded = (name: string) => Buffer.from(readFileSync(new URL(`../fixtures/advertised/avahi-${name}.hex`, import.meta.url), 'utf8')
  .replace(/\s+/g, ''), 'hex');
const AVAHI = '10.77.250.10';
const INSTANCE = 'OfficeJet Pro 8020 [4A1B2C]';

test('a query is RFC 1035 bytes: the ID for legacy unicast, the QU bit in the class', () => {
  const q = encodeQuery(0x1234, [ENUMERATION]);
  assert.equal(q.toString('hex'), '123400000001000000000000'
    + '095f7365727669636573075f646e732d7364045f756470056c6f63616c00' + '000c8001');
  assert.deepEqual(decodeMessage(q), { id: 0x1234, response: false, records: [],
    questions: [{ name: '_services._dns-sd._udp.local', type: TYPE.PTR, unicastResponse: true }] });
});

test('avahi\'s recorded answers decode: echoed ID and question, compressed names, SRV, TXT, A, AAAA', () => {
  const e = decodeMessage(recorded('enumeration'));
  assert.equal(e.id, 0x1234);
  assert.equal(e.response, true);
  assert.deepEqual(e.questions.map((q) => q.name), ['_services._dns-sd._udp.local']);
  assert.deepEqual(e.records.map((r) => r.type === 'PTR' && r.target), ['_http._tcp.local', '_ipp._tcp.local']);
  const i = decodeMessage(recorded('instances'));
  assert.deepEqual(i.records.map((r) => r.type), ['PTR', 'TXT', 'SRV', 'AAAA', 'A', 'PTR', 'TXT', 'SRV']);
  const srv = i.records.find((r) => r.type === 'SRV' && r.port === 631);
  assert.deepEqual(srv, { name: `${INSTANCE}._ipp._tcp.local`, ttl: 10, type: 'SRV', priority: 0, weight: 0, port: 631, target: 'officejet-rec.local' });
  assert.deepEqual(i.records.find((r) => r.type === 'AAAA'), { name: 'officejet-rec.local', ttl: 10, type: 'AAAA', address: 'fe80::28e3:daff:fe1c:619b' });
  assert.deepEqual(i.records.find((r) => r.type === 'A'), { name: 'officejet-rec.local', ttl: 10, type: 'A', address: AVAHI });
});

test('malformed packets throw instead of looping or reading past the end', () => {
  // A record whose name is a pointer to itself.
  const loop = Buffer.from('000084000000000100000000' + 'c00c' + '000c0001000000000000', 'hex');
  assert.throws(() => decodeMessage(loop), /pointer|truncated/);
  const good = recorded('instances');
  for (const cut of [5, 30, 100, good.length - 3]) assert.throws(() => decodeMessage(good.subarray(0, cut)), /truncated|overruns|SRV/, `cut at ${cut}`);
  assert.throws(() => decodeMessage(Buffer.from('junk')), /truncated/);
});

test('the collector follows the recorded conversation to each instance\'s port, TXT and host name', () => {
  const c = new MdnsCollector();
  const asked = new Set<string>();
  c.add(AVAHI, decodeMessage(recorded('enumeration')));
  // What to ask next: the instances of each type enumerated.
  assert.deepEqual(c.questions(asked).map((q) => [q.name, q.type]), [['_http._tcp.local', TYPE.PTR], ['_ipp._tcp.local', TYPE.PTR]]);
  c.add(AVAHI, decodeMessage(recorded('instances')));
  // SRV and TXT came with the instances: nothing more to ask.
  assert.deepEqual(c.questions(asked), []);
  const f = c.facts(AVAHI)!;
  assert.equal(f.host_name, 'officejet-rec');
  assert.deepEqual(f.types, ['_http._tcp', '_ipp._tcp']);
  const ipp = f.services.find((s) => s.type === '_ipp._tcp')!;
  assert.equal(ipp.instance, INSTANCE);
  assert.equal(ipp.port, 631);
  assert.equal(ipp.txt.ty, 'HP OfficeJet Pro 8020 series');
  assert.equal(ipp.txt.usb_mdl, 'OfficeJet Pro 8020 series');
  assert.equal(ipp.txt.note, 'Office 2.14');
  assert.equal(c.facts('10.77.250.99'), null);
});

test('an instance that came without SRV and TXT is asked for them, once', () => {
  const c = new MdnsCollector();
  const asked = new Set<string>();
  const i = decodeMessage(recorded('instances'));
  // Only the PTR of _http._tcp, as a responder that leaves out additional records sends it.
  c.add(AVAHI, { ...i, records: i.records.slice(0, 1) });
  const qs = c.questions(asked);
  assert.deepEqual(qs.map((q) => [q.name, q.type]), [['_http._tcp.local', TYPE.PTR],
    [`${INSTANCE}._http._tcp.local`, TYPE.SRV], [`${INSTANCE}._http._tcp.local`, TYPE.TXT]]);
  assert.ok(qs.every((q) => q.unicastResponse));
  assert.deepEqual(c.questions(asked), [], 'never twice');
  c.add(AVAHI, decodeMessage(recorded('srv-txt')));
  const http = c.facts(AVAHI)!.services[0]!;
  assert.deepEqual({ port: http.port, txt: http.txt, has: http.has }, { port: 80, txt: { path: '/' }, has: { srv: true, txt: true } });
});

test('names: a dot inside an instance label survives, queries are ignored, TXT keys follow RFC 6763 §6.4', () => {
  assert.deepEqual(labelsOf('Printer v1\\.2._ipp._tcp.local'), ['Printer v1.2', '_ipp', '_tcp', 'local']);
  const c = new MdnsCollector();
  c.add(AVAHI, { ...decodeMessage(recorded('instances')), response: false });
  assert.deepEqual(c.addresses(), []);
  assert.deepEqual(txtKeys(['Color=T', 'color=F', 'bare', '=novalue', 'k=a=b', 'ctl=x\u0001y']), { color: 'T', bare: '', k: 'a=b', ctl: 'x y' });
  assert.equal(Object.keys(txtKeys(Array.from({ length: 50 }, (_, n) => `k${n}=v`))).length, 32);
});

// UDA 1.1 §1.3.3: the answer to a search, unicast to the searcher's port.
const SSDP_ANSWER = ['HTTP/1.1 200 OK', 'CACHE-CONTROL: max-age=1800', 'DATE: Mon, 01 Jan 2024 00:00:00 GMT', 'EXT:',
  'LOCATION: http://10.77.0.63:80/description.xml', 'SERVER: Linux/6.1 UPnP/1.1 HP-Printer/1.0',
  'ST: urn:schemas-upnp-org:device:Printer:1', 'USN: uuid:4e504c00-0000-1000-8000-024e50000503::urn:schemas-upnp-org:device:Printer:1',
  'BOOTID.UPNP.ORG: 1', '', ''].join('\r\n');

test('SSDP: the search is ssdp:all with MX; answers give LOCATION, SERVER and the device type; other packets are not answers', () => {
  assert.equal(mSearch('239.255.255.250', 1).toString(),
    'M-SEARCH * HTTP/1.1\r\nHOST: 239.255.255.250:1900\r\nMAN: "ssdp:discover"\r\nMX: 1\r\nST: ssdp:all\r\nUSER-AGENT: Linux UPnP/1.1 netprobe/1\r\n\r\n');
  const a = parseSsdpAnswer(Buffer.from(SSDP_ANSWER, 'latin1'))!;
  assert.equal(a.location, 'http://10.77.0.63:80/description.xml');
  assert.equal(a.server, 'Linux/6.1 UPnP/1.1 HP-Printer/1.0');
  assert.equal(deviceTypeOf(a.st), 'Printer:1');
  assert.equal(parseSsdpAnswer('NOTIFY * HTTP/1.1\r\nNT: upnp:rootdevice\r\n\r\n'), null);
  assert.equal(parseSsdpAnswer('M-SEARCH * HTTP/1.1\r\n\r\n'), null);
  const root = parseSsdpAnswer(SSDP_ANSWER.replace(/ST: .*\r\n/, 'ST: upnp:rootdevice\r\n').replace(/USN: .*\r\n/, 'USN: uuid:x::upnp:rootdevice\r\n'))!;
  assert.deepEqual(upnpOf([root, a]), { server: 'Linux/6.1 UPnP/1.1 HP-Printer/1.0', location: 'http://10.77.0.63:80/description.xml', device_types: ['Printer:1'] });
});

test('MiniDLNA\'s recorded answers and description: a media server, which makes the box storage', () => {
  const answers = (JSON.parse(readFileSync(new URL('../fixtures/advertised/minidlna-ssdp.json', import.meta.url), 'utf8')) as string[])
    .map((p) => parseSsdpAnswer(Buffer.from(p, 'latin1'))!);
  assert.equal(answers.length, 6);
  const u = upnpOf(answers);
  assert.deepEqual(u, { server: 'Debian DLNADOC/1.50 UPnP/1.0 MiniDLNA/1.3.0', location: 'http://10.77.250.10:8200/rootDesc.xml',
    device_types: ['MediaServer:1'] });
  assert.equal(descriptionUrl(u.location, '10.77.250.10')?.pathname, '/rootDesc.xml');
  const d = parseDescription(readFileSync(new URL('../fixtures/advertised/minidlna-description.xml', import.meta.url), 'utf8'))!;
  assert.deepEqual(d, { device_type: 'MediaServer:1', friendly_name: 'Office NAS', manufacturer: 'Justin Maggard',
    model_name: 'Windows Media Connect compatible (MiniDLNA)', model_number: '1', serial: '12345678' });
  const f = advertisedFacts(null, { ...u, ...d, device_types: u.device_types })!;
  assert.deepEqual([f.name, f.category, f.vendor, f.model], ['Office NAS', 'storage', 'Justin Maggard', 'Windows Media Connect compatible (MiniDLNA)']);
});

test('a description is fetched only over plain HTTP from the address that answered', () => {
  assert.equal(descriptionUrl('http://10.77.0.63:80/description.xml', '10.77.0.63')?.href, 'http://10.77.0.63/description.xml');
  for (const bad of ['http://10.77.0.64/d.xml', 'https://10.77.0.63/d.xml', 'http://printer.local/d.xml', 'http://u:p@10.77.0.63/',
    'file:///etc/passwd', 'not a url', null]) assert.equal(descriptionUrl(bad, '10.77.0.63'), null, String(bad));
  assert.equal(descriptionUrl('http://[fe80::1]:49152/rootDesc.xml', 'fe80::1')?.port, '49152');
});

test('a description\'s root device speaks for the box, not its embedded devices; entities and namespaces are read', () => {
  // A router's description (UDA 1.1 §2.3, shaped as an InternetGatewayDevice sends it): the WAN device inside is not the box.
  const igd = `<?xml version="1.0"?>
<root xmlns="urn:schemas-upnp-org:device-1-0"><specVersion><major>1</major><minor>0</minor></specVersion>
<device><deviceType>urn:schemas-upnp-org:device:InternetGatewayDevice:1</deviceType>
<friendlyName>Fritz!Box 7590 &amp; Co</friendlyName><manufacturer>AVM Berlin</manufacturer>
<modelName><![CDATA[FRITZ!Box 7590]]></modelName><modelNumber>avm</modelNumber>
<deviceList><device><deviceType>urn:schemas-upnp-org:device:WANDevice:1</deviceType><friendlyName>WANDevice - FRITZ!Box 7590</friendlyName>
<manufacturer>inner</manufacturer></device></deviceList></device></root>`;
  assert.deepEqual(parseDescription(igd), { device_type: 'InternetGatewayDevice:1', friendly_name: 'Fritz!Box 7590 & Co',
    manufacturer: 'AVM Berlin', model_name: 'FRITZ!Box 7590', model_number: 'avm', serial: null });
  const prefixed = '<r:root xmlns:r="urn:schemas-upnp-org:device-1-0"><r:device><r:friendlyName>TV &#x4C;ounge</r:friendlyName></r:device></r:root>';
  assert.equal(parseDescription(prefixed)?.friendly_name, 'TV Lounge');
  assert.equal(parseDescription('<html>not a device</html>'), null);
});

test('facts: the printer is named and placed by its telling service; kinds stay within DEVICE_KINDS', () => {
  const c = new MdnsCollector();
  c.add(AVAHI, decodeMessage(recorded('enumeration')));
  c.add(AVAHI, decodeMessage(recorded('instances')));
  const f = advertisedFacts(c.facts(AVAHI), null)!;
  assert.equal(AdvertisedFacts.safeParse(f).success, true);
  assert.equal(f.category, 'printer');
  assert.equal(f.name, INSTANCE);
  assert.equal(f.vendor, 'HP');
  assert.equal(f.model, 'HP OfficeJet Pro 8020 series');
  assert.equal(f.services[0]!.type, '_ipp._tcp', 'the printing service first');
  const upnp = { server: 'x', location: null, device_types: ['InternetGatewayDevice:1'], friendly_name: 'Gateway', manufacturer: 'AVM',
    model_name: 'FRITZ!Box 7590', model_number: null, serial: null };
  const r = advertisedFacts(null, upnp)!;
  assert.deepEqual([r.name, r.category, r.vendor, r.model], ['Gateway', 'router', 'AVM', 'FRITZ!Box 7590']);
  assert.equal(categoryOf(['_googlecast._tcp'], []), 'media');
  assert.equal(categoryOf(['_smb._tcp', '_adisk._tcp'], []), 'storage');
  assert.equal(categoryOf(['_http._tcp'], []), null);
  assert.deepEqual(['printer', 'storage', 'router', 'access_point', 'media'].map((x) => kindOfCategory(x as never)),
    ['host', 'server', 'router', 'access_point', 'host']);
  assert.equal(advertisedFacts(null, null), null);
});

test('the scan page names a host by what it advertises when DNS and SNMP give no name, and filters on it', async () => {
  // @ts-expect-error plain browser JavaScript without type declarations
  const { hostName, hostText } = await import('../../ui/pages/discovery/model.js');
  const advertised = { name: 'Lab Printer', host_name: 'npl0-printer', category: 'printer', vendor: 'NPL', model: 'LaserJet 400',
    services: [{ type: '_ipp._tcp', instance: 'Lab Printer', port: 631, txt: {} }], upnp: null };
  const h = { ip: '10.77.0.63', hostname: null, mac: null, mac_vendor: null, open_ports: [], snmp: null, advertised };
  assert.equal(hostName(h), 'Lab Printer');
  assert.equal(hostName({ ...h, hostname: 'printer.lab.test' }), 'printer.lab.test');
  assert.match(hostText(h), /printer.*npl laserjet 400.*_ipp\._tcp/);
});
