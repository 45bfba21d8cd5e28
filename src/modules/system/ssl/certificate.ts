// Checks a key and its certificates before they may serve HTTPS (uploads and ACME orders alike), orders
// the chain leaf first, and describes a certificate for the status endpoint. node:crypto only.
import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { createSecureContext } from 'node:tls';
import { HttpError } from '../../../core/errors.js';

export interface CertificateInfo {
  subject: string;
  issuer: string;
  /** DNS names and IP addresses of the subjectAltName (the common name when there is none). */
  names: string[];
  valid_from: string;
  valid_to: string;
  days_left: number;
  fingerprint_sha256: string;
  serial: string;
  key_type: string;
  self_signed: boolean;
  chain_length: number;
}

/** A checked pair: PEM key, PEM chain (leaf first), and what the status shows. */
export interface CheckedCertificate {
  key: string;
  chain: string;
  info: CertificateInfo;
  /** Certificates that were in the input but are not part of the leaf's chain (left out). */
  ignored: number;
}

const bad = (code: string, detail: string) => new HttpError(400, code, detail);

/** The certificates of a PEM text, in order. */
export function splitPem(pem: string): X509Certificate[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  return blocks.map((b) => new X509Certificate(b));
}

export function namesOf(cert: X509Certificate): string[] {
  const san = cert.subjectAltName;
  if (san) {
    const out: string[] = [];
    // "DNS:a, DNS:b, IP Address:1.2.3.4"; IPv6 comes expanded with upper-case hex.
    for (const part of san.split(/,\s*/)) {
      const m = /^(DNS|IP Address):(.+)$/.exec(part.trim());
      if (m) out.push(m[1] === 'DNS' ? m[2]! : compactIp(m[2]!));
    }
    return out;
  }
  const cn = /(?:^|\n)CN=([^\n]+)/.exec(cert.subject)?.[1];
  return cn ? [cn] : [];
}

/** An address as people write it: node prints IPv6 SANs expanded (0:0:0:0:0:0:0:1 is ::1). */
function compactIp(ip: string): string {
  if (!ip.includes(':')) return ip;
  const groups = ip.toLowerCase().split(':').map((g) => g.replace(/^0+(?=.)/, ''));
  let best = { at: -1, len: 0 };
  for (let i = 0; i < groups.length;) {
    let j = i;
    while (j < groups.length && groups[j] === '0') j++;
    if (j - i > best.len) best = { at: i, len: j - i };
    i = j > i ? j : i + 1;
  }
  if (best.len < 2) return groups.join(':');
  return `${groups.slice(0, best.at).join(':')}::${groups.slice(best.at + best.len).join(':')}`;
}

const oneLine = (dn: string) => dn.split('\n').filter(Boolean).join(', ');

export function describe(chain: X509Certificate[], keyType: string, now: number): CertificateInfo {
  const leaf = chain[0]!;
  const to = Date.parse(leaf.validTo);
  return {
    subject: oneLine(leaf.subject),
    issuer: oneLine(leaf.issuer),
    names: namesOf(leaf),
    valid_from: new Date(Date.parse(leaf.validFrom)).toISOString(),
    valid_to: new Date(to).toISOString(),
    days_left: Math.floor((to - now) / 86_400_000),
    fingerprint_sha256: leaf.fingerprint256,
    serial: leaf.serialNumber,
    key_type: keyType,
    self_signed: leaf.issuer === leaf.subject && leaf.verify(leaf.publicKey),
    chain_length: chain.length,
  };
}

export function keyTypeOf(key: KeyObject): string {
  const d = key.asymmetricKeyDetails ?? {};
  const curves: Record<string, string> = { prime256v1: 'P-256', secp384r1: 'P-384', secp521r1: 'P-521' };
  if (key.asymmetricKeyType === 'ec') return `ECDSA ${curves[d.namedCurve ?? ''] ?? d.namedCurve ?? ''}`.trim();
  if (key.asymmetricKeyType === 'rsa') return `RSA ${d.modulusLength ?? ''}`.trim();
  return (key.asymmetricKeyType ?? 'unknown').toUpperCase();
}

/**
 * Checks a private key with its certificates: the leaf is the certificate whose public key matches the
 * key; the chain follows issuer to issuer from it (unrelated certificates are left out); the leaf must
 * be valid now, must not be a CA, and must carry names. Throws a 400 HttpError saying what is wrong.
 */
export function checkCertificate(keyInput: KeyObject | string, certs: X509Certificate[], now: number): CheckedCertificate {
  let key: KeyObject;
  try {
    key = typeof keyInput === 'string' ? createPrivateKey(keyInput) : keyInput;
  } catch {
    throw bad('tls_key_invalid', 'The private key cannot be read');
  }
  if (key.type !== 'private') throw bad('tls_key_invalid', 'The key is not a private key');
  if (!certs.length) throw bad('tls_no_certificate', 'The file contains no certificate');
  const leaf = certs.find((c) => { try { return c.checkPrivateKey(key); } catch { return false; } });
  if (!leaf) {
    const which = certs.length === 1 ? 'the certificate' : `any of the ${certs.length} certificates`;
    throw bad('tls_key_mismatch', `The private key does not belong to ${which} in the file`);
  }
  if (leaf.ca) {
    throw bad('tls_not_server_certificate',
      `The certificate for this key is a CA certificate (${oneLine(leaf.subject)}), not a server certificate`);
  }
  const from = Date.parse(leaf.validFrom), to = Date.parse(leaf.validTo);
  if (now < from) throw bad('tls_not_yet_valid', `The certificate is not valid before ${new Date(from).toISOString()}`);
  if (now > to) throw bad('tls_expired', `The certificate expired on ${new Date(to).toISOString()}`);
  if (!namesOf(leaf).length) throw bad('tls_no_names', 'The certificate names no host (no subjectAltName and no common name)');

  // Issuer to issuer from the leaf; a self-signed root ends the chain and is not sent (clients have it or not).
  const chain = [leaf];
  const rest = certs.filter((c) => c !== leaf);
  for (let cur = leaf; ;) {
    if (cur.checkIssued(cur) && cur.verify(cur.publicKey)) break;
    const i = rest.findIndex((c) => cur.checkIssued(c) && cur.verify(c.publicKey));
    if (i < 0) break;
    const issuer = rest.splice(i, 1)[0]!;
    if (issuer.checkIssued(issuer) && issuer.verify(issuer.publicKey)) break; // the root
    chain.push(issuer);
    cur = issuer;
  }
  const ignored = certs.length - chain.length;
  const keyPem = key.export({ type: 'pkcs8', format: 'pem' }) as string;
  const chainPem = chain.map((c) => c.toString()).join('');
  // What Node's TLS itself says about the pair (an unsupported key type, a weak key under the OpenSSL security level).
  try { createSecureContext({ key: keyPem, cert: chainPem }); } catch (e) {
    throw bad('tls_unusable', `The key and certificate cannot be used for TLS: ${(e as Error).message}`);
  }
  return { key: keyPem, chain: chainPem, info: describe(chain, keyTypeOf(key), now), ignored };
}

/** When a certificate should be renewed: a third of its lifetime before it ends (renewal.ts, acme.ts). */
export function renewalDue(info: Pick<CertificateInfo, 'valid_from' | 'valid_to'>): string {
  const from = Date.parse(info.valid_from), to = Date.parse(info.valid_to);
  return new Date(from + ((to - from) * 2) / 3).toISOString();
}
