// The read-only token (and optional user name) of a private update source. Write-only through the API. It is
// kept in <data dir>/update-credentials.json, mode 0600, rather than sealed with the machine key: the root
// helper fetches with it too (scripts/updater.mjs reads the file through an opened descriptor that must be
// a regular file of the service user's). It applies to the source URL it was set for only: when the source
// changes, it is not sent to the new one.
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../../../core/files.js';
import type { SourceCredentials } from './source.js';

export const CREDENTIALS_FILE = 'update-credentials.json';

export interface StoredCredentials extends SourceCredentials {
  /** The source URL they were set for. */
  url: string;
  set_at: string;
}

export class CredentialStore {
  constructor(private readonly dataDir: string) {}

  private get file(): string { return join(this.dataDir, CREDENTIALS_FILE); }

  async get(): Promise<StoredCredentials | null> {
    try {
      const v = JSON.parse(await readFile(this.file, 'utf8')) as Partial<StoredCredentials>;
      if (typeof v.token !== 'string' || !v.token || typeof v.url !== 'string') return null;
      return { url: v.url, token: v.token, username: typeof v.username === 'string' && v.username ? v.username : null,
        set_at: typeof v.set_at === 'string' ? v.set_at : '' };
    } catch {
      return null;
    }
  }

  /** The credentials for `url`, or null when none are set or they were set for another source. */
  async forUrl(url: string): Promise<SourceCredentials | null> {
    const c = await this.get();
    return c && c.url === url ? { username: c.username, token: c.token } : null;
  }

  async set(c: StoredCredentials): Promise<void> {
    await writeFileAtomic(this.file, JSON.stringify(c) + '\n');
  }

  async clear(): Promise<boolean> {
    const had = (await this.get()) !== null;
    await rm(this.file, { force: true });
    return had;
  }
}
