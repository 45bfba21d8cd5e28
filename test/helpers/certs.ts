// Test certificates made with Debian's openssl at test time (P-256 keys, CN=localhost, SANs localhost
// and 127.0.0.1). Dated certificates (an expired one) go through `openssl ca -selfsign`, which takes
// explicit -startdate/-enddate: OpenSSL 3.0's `x509`/`req` have no -not_before/-not_after (3.4+).

import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../../src/core/exec.js';

export interface TestCert { key: string; cert: string }

const SUBJ = '/CN=localhost';
const SAN = 'subjectAltName=DNS:localhost,IP:127.0.0.1';

async function openssl(args: string[], cwd: string): Promise<void> {
  const r = await run('openssl', args, { cwd, timeoutMs: 20_000 });
  if (r.code !== 0) throw new Error(`openssl ${args[0]} failed (${r.code}): ${r.stderr.trim()}`);
}

async function inTempDir<T>(f: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'netprobe-certs-'));
  try { return await f(dir); } finally { await rm(dir, { recursive: true, force: true }); }
}

/** A self-signed certificate valid from now for `days` days. */
export function selfSigned(days = 30): Promise<TestCert> {
  return inTempDir(async (dir) => {
    await openssl(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
      '-days', String(days), '-subj', SUBJ, '-addext', SAN, '-keyout', 'key.pem', '-out', 'cert.pem'], dir);
    return { key: await readFile(join(dir, 'key.pem'), 'utf8'), cert: await readFile(join(dir, 'cert.pem'), 'utf8') };
  });
}

/** A self-signed certificate valid between two UTC times given as YYYYMMDDHHMMSSZ. */
export function datedSelfSigned(notBefore: string, notAfter: string): Promise<TestCert> {
  return inTempDir(async (dir) => {
    await writeFile(join(dir, 'index.txt'), '');
    await writeFile(join(dir, 'serial'), '01\n');
    await writeFile(join(dir, 'ca.cnf'), [
      '[ca]', 'default_ca = d',
      '[d]', 'database = index.txt', 'new_certs_dir = .', 'serial = serial', 'default_md = sha256',
      'policy = p', 'copy_extensions = copy', 'unique_subject = no',
      '[p]', 'commonName = supplied', '',
    ].join('\n'));
    await openssl(['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
      '-subj', SUBJ, '-addext', SAN, '-keyout', 'key.pem', '-out', 'req.csr'], dir);
    await openssl(['ca', '-batch', '-config', 'ca.cnf', '-selfsign', '-keyfile', 'key.pem', '-in', 'req.csr',
      '-startdate', notBefore, '-enddate', notAfter, '-notext', '-out', 'cert.pem'], dir);
    return { key: await readFile(join(dir, 'key.pem'), 'utf8'), cert: await readFile(join(dir, 'cert.pem'), 'utf8') };
  });
}

/** Expired on 2020-02-01. */
export const expiredSelfSigned = () => datedSelfSigned('20200101000000Z', '20200201000000Z');
