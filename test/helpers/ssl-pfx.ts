// PFX/PKCS#12 files made at test time with Debian's openssl, in the encodings found in the field: a CA
// and a leaf (RSA 2048 or EC P-256) for localhost and 127.0.0.1, exported with the chain.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../../src/core/exec.js';

export const PFX_ENCODINGS = ['modern', 'legacy-rc2', '3des', 'aes-sha1mac', 'emptypass', 'nopass-nomac'] as const;
export type PfxEncoding = (typeof PFX_ENCODINGS)[number];
export type KeyKind = 'rsa' | 'ec';

export interface PkiSet {
  dir: string;
  caCert: string;
  leafCert: string;
  leafKey: string;
  /** A PFX of the leaf key, leaf and CA in the given encoding (password `pw` unless it has none). */
  pfx(encoding: PfxEncoding, pw?: string): Promise<Buffer>;
  /** A PFX of any PEM files of the set's directory, with a password. */
  pfxOf(keyFile: string, certFiles: string[], pw: string, extra?: string[]): Promise<Buffer>;
  close(): Promise<void>;
}

export async function openssl(args: string[], cwd: string, input?: string): Promise<string> {
  const r = await run('openssl', args, { cwd, timeoutMs: 30_000, input });
  if (r.code !== 0) throw new Error(`openssl ${args.join(' ')} failed (${r.code}): ${r.stderr.trim()}`);
  return r.stdout;
}

const keyArgs = (kind: KeyKind) => (kind === 'rsa' ? ['-newkey', 'rsa:2048'] : ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1']);

/** A CA and a leaf signed by it for `names` (DNS:..., IP:...), valid for `days`. */
export async function makePki(kind: KeyKind, opts: { cn?: string; san?: string; days?: number } = {}): Promise<PkiSet> {
  const dir = await mkdtemp(join(tmpdir(), 'netprobe-pfx-'));
  const san = opts.san ?? 'DNS:localhost,IP:127.0.0.1';
  await openssl(['req', '-x509', ...keyArgs(kind), '-nodes', '-days', '30', '-subj', `/CN=netprobe test CA ${kind}`,
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign',
    '-keyout', 'ca.key', '-out', 'ca.pem'], dir);
  await openssl(['req', '-new', ...keyArgs(kind), '-nodes', '-subj', `/CN=${opts.cn ?? 'localhost'}`, '-keyout', 'leaf.key', '-out', 'leaf.csr'], dir);
  await writeFile(join(dir, 'leaf.ext'), `subjectAltName=${san}\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n`);
  await openssl(['x509', '-req', '-in', 'leaf.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-days', String(opts.days ?? 30),
    '-extfile', 'leaf.ext', '-out', 'leaf.pem'], dir);
  const read = (f: string) => readFile(join(dir, f), 'utf8');
  const set: PkiSet = {
    dir,
    caCert: await read('ca.pem'),
    leafCert: await read('leaf.pem'),
    leafKey: await read('leaf.key'),
    async pfx(encoding, pw = 'pfx-secret') {
      const base = ['pkcs12', '-export', '-inkey', 'leaf.key', '-in', 'leaf.pem', '-certfile', 'ca.pem', '-name', 'netprobe'];
      const extra: Record<PfxEncoding, string[]> = {
        modern: ['-passout', `pass:${pw}`],
        'legacy-rc2': ['-legacy', '-passout', `pass:${pw}`],
        '3des': ['-certpbe', 'PBE-SHA1-3DES', '-keypbe', 'PBE-SHA1-3DES', '-macalg', 'sha1', '-passout', `pass:${pw}`],
        'aes-sha1mac': ['-macalg', 'sha1', '-passout', `pass:${pw}`],
        emptypass: ['-passout', 'pass:'],
        'nopass-nomac': ['-certpbe', 'NONE', '-keypbe', 'NONE', '-nomac', '-passout', 'pass:'],
      };
      const out = `out-${encoding}.pfx`;
      await openssl([...base, ...extra[encoding], '-out', out], dir);
      return readFile(join(dir, out));
    },
    async pfxOf(keyFile, certFiles, pw, extra = []) {
      const [first, ...rest] = certFiles;
      const out = `custom-${Math.random().toString(36).slice(2)}.pfx`;
      await openssl(['pkcs12', '-export', '-inkey', keyFile, '-in', first!, ...rest.flatMap((f) => ['-certfile', f]), ...extra,
        '-passout', `pass:${pw}`, '-out', out], dir);
      return readFile(join(dir, out));
    },
    close: () => rm(dir, { recursive: true, force: true }),
  };
  return set;
}
