// The certificates on disk, under <data>/tls/ (0700): each installed key and chain is a set of its own,
// sets/<id>/{key.pem,chain.pem,meta.json} (files 0600), and `current` is a symlink to the one in use.
// A new set is written completely and fsynced under a temporary name, renamed into place, and only then
// is `current` swapped by renaming a new symlink over it: a crash at any point leaves the old certificate
// or the new one, never half of either. The previous set is kept; older ones are removed.
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';

export type TlsMode = 'self-signed' | 'uploaded' | 'acme';

export interface CertSet {
  id: string;
  key: string;
  chain: string;
  meta: { mode: TlsMode; installed_at: string };
}

export const TLS_DIR = 'tls';
const KEEP = 2;

async function syncDir(dir: string): Promise<void> {
  const d = await fs.open(dir, 'r');
  try { await d.sync(); } finally { await d.close(); }
}

async function writeSecret(file: string, data: string): Promise<void> {
  const fh = await fs.open(file, 'wx', 0o600);
  try {
    await fh.chmod(0o600);
    await fh.writeFile(data);
    await fh.sync();
  } finally { await fh.close(); }
}

export class CertFiles {
  readonly dir: string;
  private readonly sets: string;

  constructor(dataDir: string) {
    this.dir = path.join(dataDir, TLS_DIR);
    this.sets = path.join(this.dir, 'sets');
  }

  private async ensureDirs(): Promise<void> {
    await fs.mkdir(this.sets, { recursive: true, mode: 0o700 });
    await fs.chmod(this.dir, 0o700);
    await fs.chmod(this.sets, 0o700);
  }

  /** The set `current` points to; null when there is none yet or it cannot be read. */
  async current(): Promise<CertSet | null> {
    let target: string;
    try { target = await fs.readlink(path.join(this.dir, 'current')); } catch { return null; }
    const id = path.basename(target);
    if (!/^[A-Za-z0-9-]+$/.test(id)) return null;
    try {
      const base = path.join(this.sets, id);
      const [key, chain, meta] = await Promise.all([
        fs.readFile(path.join(base, 'key.pem'), 'utf8'),
        fs.readFile(path.join(base, 'chain.pem'), 'utf8'),
        fs.readFile(path.join(base, 'meta.json'), 'utf8').then((t) => JSON.parse(t) as CertSet['meta']),
      ]);
      return { id, key, chain, meta };
    } catch { return null; }
  }

  /** Writes a set and makes it current (atomically); resolves once it is durable. */
  async install(key: string, chain: string, meta: CertSet['meta']): Promise<CertSet> {
    await this.ensureDirs();
    const id = `${meta.installed_at.replace(/[^0-9]/g, '').slice(0, 14)}-${randomBytes(4).toString('hex')}`;
    const tmp = path.join(this.sets, `.${id}.tmp`);
    const final = path.join(this.sets, id);
    await fs.mkdir(tmp, { mode: 0o700 });
    try {
      await writeSecret(path.join(tmp, 'key.pem'), key);
      await writeSecret(path.join(tmp, 'chain.pem'), chain);
      await writeSecret(path.join(tmp, 'meta.json'), JSON.stringify(meta) + '\n');
      await syncDir(tmp);
      await fs.rename(tmp, final);
      await syncDir(this.sets);
    } catch (e) {
      await fs.rm(tmp, { recursive: true, force: true }).catch(() => undefined);
      throw e;
    }
    const link = path.join(this.dir, `.current.${randomBytes(4).toString('hex')}.tmp`);
    try {
      await fs.symlink(path.join('sets', id), link);
      await fs.rename(link, path.join(this.dir, 'current'));
      await syncDir(this.dir);
    } catch (e) {
      await fs.rm(link, { force: true }).catch(() => undefined);
      await fs.rm(final, { recursive: true, force: true }).catch(() => undefined);
      throw e;
    }
    await this.prune(id).catch(() => undefined);
    return { id, key, chain, meta };
  }

  /** Removes sets other than the current one and the newest KEEP - 1 before it, and leftovers of crashes. */
  private async prune(currentId: string): Promise<void> {
    const names = (await fs.readdir(this.sets)).sort().reverse();
    let kept = 0;
    for (const n of names) {
      const keep = n === currentId || (!n.startsWith('.') && ++kept < KEEP);
      if (!keep) await fs.rm(path.join(this.sets, n), { recursive: true, force: true });
    }
  }

  /** A file of the TLS directory read as text; null when missing. */
  async readFile(name: string): Promise<string | null> {
    return fs.readFile(path.join(this.dir, name), 'utf8').catch(() => null);
  }

  /** Writes a secret file of the TLS directory atomically (0600). */
  async writeFile(name: string, data: string): Promise<void> {
    await this.ensureDirs();
    const target = path.join(this.dir, name);
    const tmp = path.join(this.dir, `.${name}.${randomBytes(4).toString('hex')}.tmp`);
    try {
      await writeSecret(tmp, data);
      await fs.rename(tmp, target);
      await syncDir(this.dir);
    } catch (e) {
      await fs.rm(tmp, { force: true }).catch(() => undefined);
      throw e;
    }
  }
}
