// The certificate HTTPS starts with: self-signed, ECDSA P-256, for the probe's names (host name,
// <host>.local, localhost) and addresses, made in-process with node:crypto (key, signature) and the
// small DER encoder beside this file. A person verifies it by its SHA-256 fingerprint (log line at start,
// GET /api/ssl/status).
import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { isIP } from 'node:net';
import os from 'node:os';
import { bits, bool, explicit, implicit, octets, oid, seq, set, smallInt, time, uint, utf8 } from './der.js';

/** 825 days: the longest validity Apple platforms accept for a TLS server certificate. */
export const SELF_SIGNED_DAYS = 825;

const ECDSA_SHA256 = seq(oid('1.2.840.10045.4.3.2'));

/** The names a self-signed certificate of this host carries. */
export function hostNames(): { dns: string[]; ips: string[] } {
  const host = os.hostname().toLowerCase().replace(/\.$/, '');
  const dns = new Set<string>();
  if (/^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/.test(host)) {
    dns.add(host);
    const short = host.split('.')[0]!;
    dns.add(`${short}.local`);
  }
  dns.add('localhost');
  const ips = new Set<string>(['127.0.0.1', '::1']);
  for (const list of Object.values(os.networkInterfaces())) {
    for (const a of list ?? []) {
      // Link-local IPv6 needs a zone to be usable in a URL; a certificate cannot name it.
      if (a.family === 'IPv6' && /^fe80:/i.test(a.address)) continue;
      ips.add(a.address);
    }
  }
  return { dns: [...dns], ips: [...ips] };
}

function ipBytes(ip: string): Buffer {
  if (isIP(ip) === 4) return Buffer.from(ip.split('.').map(Number));
  // Expand "::" and pack eight 16-bit groups.
  const [head, tail = ''] = ip.split('::');
  const h = head ? head.split(':') : [], t = tail ? tail.split(':') : [];
  const groups = ip.includes('::') ? [...h, ...Array(8 - h.length - t.length).fill('0'), ...t] : h;
  return Buffer.concat(groups.map((g) => { const b = Buffer.alloc(2); b.writeUInt16BE(parseInt(g || '0', 16)); return b; }));
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return critical ? seq(oid(id), bool(true), octets(value)) : seq(oid(id), octets(value));
}

/** Makes a new key and a self-signed certificate for `names`, valid from now (minus an hour of clock skew). */
export function makeSelfSigned(names: { dns: string[]; ips: string[] }, now = Date.now(),
  days = SELF_SIGNED_DAYS): { key: string; cert: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  const cn = names.dns[0] ?? names.ips[0] ?? 'netprobe';
  const name = seq(set(seq(oid('2.5.4.10'), utf8('netprobe'))), set(seq(oid('2.5.4.3'), utf8(cn))));
  const san = seq(
    ...names.dns.map((d) => implicit(2, Buffer.from(d, 'ascii'))),
    ...names.ips.filter((ip) => isIP(ip)).map((ip) => implicit(7, ipBytes(ip))),
  );
  // The key identifier: SHA-1 of the public key bits (RFC 5280 4.2.1.2, method 1); the last 65 bytes of a P-256 SPKI.
  const keyId = createHash('sha1').update(spki.subarray(spki.length - 65)).digest();
  const extensions = seq(
    extension('2.5.29.19', true, seq()), // basicConstraints: not a CA
    extension('2.5.29.15', true, bits(Buffer.from([0x80]))), // keyUsage: digitalSignature
    extension('2.5.29.37', false, seq(oid('1.3.6.1.5.5.7.3.1'))), // extKeyUsage: serverAuth
    extension('2.5.29.17', false, san),
    extension('2.5.29.14', false, octets(keyId)),
  );
  const serial = randomBytes(16);
  serial[0]! &= 0x7f;
  const tbs = seq(
    explicit(0, smallInt(2)), // v3
    uint(serial),
    ECDSA_SHA256,
    name,
    seq(time(now - 3600_000), time(now + days * 86_400_000)),
    name,
    spki,
    explicit(3, extensions),
  );
  const signature = sign('sha256', tbs, privateKey); // DER-encoded ECDSA signature
  const der = seq(tbs, ECDSA_SHA256, bits(signature));
  const b64 = der.toString('base64').replace(/(.{64})/g, '$1\n').replace(/\n$/, '');
  return {
    key: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    cert: `-----BEGIN CERTIFICATE-----\n${b64}\n-----END CERTIFICATE-----\n`,
  };
}
