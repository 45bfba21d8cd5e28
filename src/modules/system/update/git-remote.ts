// What the service itself asks of the update source: `git ls-remote` (no local repository), and for the
// changes of a release its tag's message through a fetch of the tag and its commit only (a partial fetch,
// only when the server offers one). Everything runs through core/exec.ts with a timeout; the credential goes
// through the environment (source.ts), never argv.
import { mkdtemp, rm } from 'node:fs/promises';
import { writeFileAtomic } from '../../../core/files.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HttpError } from '../../../core/errors.js';
import { run, type RunResult } from '../../../core/exec.js';
import { gitEnv, localSourceConfig, redactUrl, type SourceCredentials } from './source.js';

export interface RemoteRefs {
  /** Branch name -> commit. */
  heads: Map<string, string>;
  /** Tag name -> the object the tag ref names (a tag object for an annotated tag, else the commit). */
  tags: Map<string, string>;
  /** Tag name -> the commit an annotated tag peels to (the ^{} lines). */
  peeled: Map<string, string>;
  /** The branch HEAD points at, when the server says. */
  defaultBranch: string | null;
  /** The server offers partial fetches (protocol v2 `fetch=... filter`). */
  filter: boolean;
}

export interface RemoteOptions {
  url: string;
  creds: SourceCredentials | null;
  timeoutMs: number;
  signal?: AbortSignal;
}

const GLOBAL_CONFIG = join(tmpdir(), 'netprobe-update.gitconfig');

/** The environment for git against the source (with its safe.directory file for a local source). */
async function envFor(o: RemoteOptions): Promise<Record<string, string>> {
  const local = localSourceConfig(o.url);
  if (local !== null) await writeFileAtomic(GLOBAL_CONFIG, local);
  return gitEnv(o.url, o.creds, local !== null ? GLOBAL_CONFIG : '/dev/null');
}

/** An unreachable or refusing source: 502 (the probe is fine, the upstream is not), with git's own words. */
function sourceFailed(what: string, r: RunResult): HttpError {
  const msg = redactUrl((r.stderr || r.stdout).trim()).split('\n').filter(Boolean).slice(-4).join(' | ').slice(0, 600);
  const detail = r.timed_out ? `${what}: the source did not answer in time` : `${what}: ${msg || `git exited with ${r.code ?? r.signal}`}`;
  return new HttpError(502, 'update_source_failed', detail);
}

export function parseLsRemote(stdout: string, trace = ''): RemoteRefs {
  const refs: RemoteRefs = { heads: new Map(), tags: new Map(), peeled: new Map(), defaultBranch: null, filter: false };
  for (const line of stdout.split('\n')) {
    const sym = /^ref: refs\/heads\/(\S+)\tHEAD$/.exec(line);
    if (sym) { refs.defaultBranch = sym[1]!; continue; }
    const m = /^([0-9a-f]{40,64})\t(\S+)$/.exec(line);
    if (!m) continue;
    const [, sha, ref] = m as unknown as [string, string, string];
    if (ref.startsWith('refs/heads/')) refs.heads.set(ref.slice(11), sha);
    else if (ref.startsWith('refs/tags/') && ref.endsWith('^{}')) refs.peeled.set(ref.slice(10, -3), sha);
    else if (ref.startsWith('refs/tags/')) refs.tags.set(ref.slice(10), sha);
  }
  // The capability advertisement of protocol v2, as GIT_TRACE_PACKET shows it: "ls-remote< fetch=shallow wait-for-done filter".
  refs.filter = /< fetch=[^\n]*\bfilter\b/.test(trace);
  return refs;
}

/** Every branch and tag of the source, with HEAD's target. */
export async function lsRemote(o: RemoteOptions): Promise<RemoteRefs> {
  const r = await run('git', ['-c', 'protocol.version=2', 'ls-remote', '--symref', '--', o.url], {
    env: { ...(await envFor(o)), GIT_TRACE_PACKET: '1' }, timeoutMs: o.timeoutMs, signal: o.signal, maxBytes: 16 * 1024 * 1024,
  });
  if (r.code !== 0) throw sourceFailed('The update source cannot be listed', r);
  return parseLsRemote(r.stdout, r.stderr);
}

/**
 * The message of an annotated tag without its signature block, fetched as the tag and its commit only
 * (`--depth=1 --filter=tree:0`: a few hundred bytes, not the release tree) into a throwaway repository in
 * the service's private temporary directory. null when the message cannot be had.
 */
export async function tagMessage(o: RemoteOptions, tag: string): Promise<string | null> {
  const dir = await mkdtemp(join(tmpdir(), 'netprobe-tag-'));
  try {
    const env = { ...(await envFor(o)), GIT_DIR: dir };
    const init = await run('git', ['init', '--bare', '--quiet', dir], { env, timeoutMs: o.timeoutMs });
    if (init.code !== 0) return null;
    const fetch = await run('git', ['fetch', '--quiet', '--no-tags', '--depth=1', '--filter=tree:0', '--no-write-fetch-head', '--', o.url,
      `+refs/tags/${tag}:refs/tags/${tag}`], { env, timeoutMs: o.timeoutMs, signal: o.signal });
    if (fetch.code !== 0) return null;
    const cat = await run('git', ['cat-file', 'tag', `refs/tags/${tag}`], { env, timeoutMs: o.timeoutMs });
    if (cat.code !== 0) return null;
    const body = cat.stdout.slice(cat.stdout.indexOf('\n\n') + 2);
    const sig = body.search(/-----BEGIN (SSH|PGP) SIGNATURE-----/);
    return (sig >= 0 ? body.slice(0, sig) : body).trim().slice(0, 16_000);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
