// Reads a PFX/PKCS#12 file into a private key and certificates with node-forge, loaded only when a file
// is uploaded. Node's own TLS refuses the legacy encodings (RC2-40, the OpenSSL 1.1 and old Windows
// default), forge reads them all. forge returns null for EC keys and EC certificates; the decrypted
// ASN.1 is still in the bag (`bag.asn1`), and node:crypto reads that DER.
import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { HttpError } from '../../../core/errors.js';

export interface PfxContents {
  keys: KeyObject[];
  certs: X509Certificate[];
}

const bad = (code: string, detail: string) => new HttpError(400, code, detail);

type Forge = typeof import('node-forge');
let forgePromise: Promise<Forge> | undefined;
async function loadForge(): Promise<Forge> {
  forgePromise ??= import('node-forge').then((m) => ((m as { default?: Forge }).default ?? m) as Forge);
  return forgePromise;
}

/** `password` undefined or '' both try the empty password and no password (PKCS#12 tells them apart). */
export async function readPfx(bytes: Buffer, password: string | undefined): Promise<PfxContents> {
  const forge = await loadForge();
  let asn1;
  try {
    asn1 = forge.asn1.fromDer(forge.util.createBuffer(bytes.toString('binary')), false);
  } catch {
    throw bad('tls_pfx_unreadable', 'The file is not a PFX/PKCS#12 file (it cannot be read as ASN.1 DER)');
  }
  const attempts = password ? [password] : ['', undefined];
  let p12: ReturnType<Forge['pkcs12']['pkcs12FromAsn1']> | undefined;
  let lastError = '';
  for (const pw of attempts) {
    try {
      p12 = pw === undefined ? forge.pkcs12.pkcs12FromAsn1(asn1, false) : forge.pkcs12.pkcs12FromAsn1(asn1, false, pw);
      break;
    } catch (e) { lastError = (e as Error).message; }
  }
  if (!p12) {
    if (/MAC could not be verified|Invalid password|wrong password|decrypt/i.test(lastError)) {
      throw bad('tls_pfx_password', password ? 'The password is wrong for this PFX file'
        : 'This PFX file needs a password (send it as X-PFX-Password or the form field "password")');
    }
    throw bad('tls_pfx_unreadable', `The file is not a PFX/PKCS#12 file this probe can read (${lastError.slice(0, 200)})`);
  }

  const der = (a: unknown) => Buffer.from(forge.asn1.toDer(a as Parameters<Forge['asn1']['toDer']>[0]).getBytes(), 'binary');
  const keys: KeyObject[] = [];
  const certs: X509Certificate[] = [];
  try {
    for (const type of [forge.pki.oids.pkcs8ShroudedKeyBag!, forge.pki.oids.keyBag!]) {
      for (const bag of p12.getBags({ bagType: type })[type] ?? []) {
        const info = bag.key
          ? forge.pki.wrapRsaPrivateKey(forge.pki.privateKeyToAsn1(bag.key)) // RSA: forge's own key object
          : (bag as { asn1?: unknown }).asn1; // EC and others: the decrypted PrivateKeyInfo
        if (info) keys.push(createPrivateKey({ key: der(info), format: 'der', type: 'pkcs8' }));
      }
    }
    const certType = forge.pki.oids.certBag!;
    for (const bag of p12.getBags({ bagType: certType })[certType] ?? []) {
      const a = bag.cert ? forge.pki.certificateToAsn1(bag.cert) : (bag as { asn1?: unknown }).asn1;
      if (a) certs.push(new X509Certificate(der(a)));
    }
  } catch (e) {
    if (e instanceof HttpError) throw e;
    throw bad('tls_pfx_unreadable', `A key or certificate in the PFX file cannot be read: ${(e as Error).message.slice(0, 200)}`);
  }
  if (!keys.length) throw bad('tls_no_key', 'The PFX file contains no private key (export it with its private key)');
  if (keys.length > 1) {
    throw bad('tls_many_keys', `The PFX file contains ${keys.length} private keys; upload one key with its certificate chain`);
  }
  return { keys, certs };
}
