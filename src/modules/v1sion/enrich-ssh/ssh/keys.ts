// SSH keys: the OpenSSH-style fingerprint and type of a host key blob (for pinning and messages), and
// whether ssh2 can use a stored private key at all (checked before a login, with advice on converting it).
import { createHash } from 'node:crypto';
import { ssh2 } from './ssh2.js';

/** The OpenSSH-style fingerprint of a host key blob: `SHA256:` and unpadded base64. */
export function fingerprintOf(keyBlob: Buffer): string {
  return `SHA256:${createHash('sha256').update(keyBlob).digest('base64').replace(/=+$/, '')}`;
}

/** The key type named at the start of an SSH public key blob (`ssh-ed25519`, `rsa-sha2-512`, ...). */
export function keyTypeOf(keyBlob: Buffer): string {
  if (keyBlob.length < 4) return 'unknown';
  const len = keyBlob.readUInt32BE(0);
  if (len <= 0 || len > 64 || keyBlob.length < 4 + len) return 'unknown';
  return keyBlob.subarray(4, 4 + len).toString('latin1');
}

const PKCS8 = /-----BEGIN (ENCRYPTED )?PRIVATE KEY-----/;

/** Why ssh2 cannot use a private key (PKCS#8, unparseable, wrong passphrase), or null when it can. */
export async function keyProblem(privateKey: string, passphrase?: string): Promise<string | null> {
  if (PKCS8.test(privateKey)) {
    return 'the private key is in PKCS#8 format ("BEGIN PRIVATE KEY"), which the SSH library (ssh2) does not read. ' +
      'Convert it to the OpenSSH format with `ssh-keygen -p -f <keyfile>` (or to PEM with `ssh-keygen -p -m PEM -f <keyfile>` ' +
      'for RSA and ECDSA keys) and store the converted key in the credential';
  }
  const parsed = (await ssh2()).utils.parseKey(privateKey, passphrase);
  if (parsed instanceof Error) {
    const m = parsed.message;
    if (/passphrase/i.test(m)) return passphrase ? 'the key\'s passphrase is wrong' : 'the key is encrypted: store its passphrase in the credential';
    return `the SSH library cannot read the private key (${m}); use an OpenSSH-format key (ssh-keygen writes one)`;
  }
  return null;
}
