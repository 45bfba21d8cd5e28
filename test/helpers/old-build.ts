// An earlier build of netprobe from this repository's own history, checked out with `git worktree` beside
// the tests, to run as a program (upgrade tests: the old build writes a data directory, the current one
// must take it over). Dependencies: the current node_modules is symlinked in when package-lock.json is
// identical, or when the current one pins every package of the old one at the same place and version
// (packages were only added since); otherwise `npm ci` installs the old build's own.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, symlink, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { spawnService, type ServiceProgram, type SpawnOptions } from './service-process.js';

const run = promisify(execFile);
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface OldBuild {
  dir: string;
  /** The full commit hash. */
  rev: string;
  /** How node_modules was provided, for the test's diagnostics. */
  deps: string;
  /** Removes the worktree (and its registration in the repository); safe to call twice. */
  cleanup(): Promise<void>;
}

async function git(args: string[], cwd = ROOT): Promise<string> {
  const { stdout } = await run('git', args, { cwd, maxBuffer: 64 * 1024 * 1024 });
  return stdout.trim();
}

/** The commit `rev` names, or null when this clone cannot give it (no git, no repository, shallow). */
export async function resolveRev(rev: string): Promise<string | null> {
  try {
    return await git(['rev-parse', '--verify', '--quiet', `${rev}^{commit}`]);
  } catch {
    return null;
  }
}

/**
 * Why this clone cannot give `rev` (no git, not a checkout, a shallow clone without it): a reason to skip
 * with. null otherwise, also for a rev that a full history lacks: checkoutBuild() then fails, as a typo should.
 */
export async function historyMissing(rev: string): Promise<string | null> {
  try {
    await git(['--version']);
  } catch {
    return 'git is not installed';
  }
  const inside = await git(['rev-parse', '--is-inside-work-tree']).catch(() => 'false');
  if (inside !== 'true') return `${ROOT} is not a git checkout`;
  if (await resolveRev(rev)) return null;
  const shallow = await git(['rev-parse', '--is-shallow-repository']).catch(() => 'false');
  return shallow === 'true' ? `${rev} is not in this shallow clone (git fetch --unshallow gives the history)` : null;
}

/** The first commit that added `path` (e.g. a module's index.ts); null without git or in a shallow clone. */
export async function firstCommitAdding(path: string): Promise<string | null> {
  // A shallow clone's oldest commit seems to add every file: its answer would be wrong.
  if ((await git(['rev-parse', '--is-shallow-repository']).catch(() => 'true')) !== 'false') return null;
  const out = await git(['log', '--diff-filter=A', '--format=%H', '--', path]).catch(() => '');
  return out.split('\n').filter(Boolean).pop() ?? null;
}

/** Checks out `rev` in a temporary worktree with its dependencies in place. */
export async function checkoutBuild(rev: string): Promise<OldBuild> {
  const sha = await resolveRev(rev);
  if (!sha) throw new Error(`cannot check out ${rev}: ${(await historyMissing(rev)) ?? 'no such commit in this repository'}`);
  const parent = await mkdtemp(join(tmpdir(), `netprobe-build-${sha.slice(0, 10)}-`));
  const dir = join(parent, 'netprobe');
  let added = false;
  const cleanup = async () => {
    // Unlink the symlink first: nothing may ever delete through it into this checkout's node_modules.
    await unlink(join(dir, 'node_modules')).catch(() => undefined);
    if (added) await git(['worktree', 'remove', '--force', dir]).catch(() => undefined);
    added = false;
    await rm(parent, { recursive: true, force: true });
    await git(['worktree', 'prune']).catch(() => undefined);
  };
  try {
    await git(['worktree', 'add', '--detach', '--quiet', dir, sha]);
    added = true;
    const deps = await provideDeps(dir);
    return { dir, rev: sha, deps, cleanup };
  } catch (err) {
    await cleanup();
    throw err;
  }
}

async function provideDeps(dir: string): Promise<string> {
  const [oldLock, newLock] = await Promise.all([readFile(join(dir, 'package-lock.json'), 'utf8'),
    readFile(join(ROOT, 'package-lock.json'), 'utf8').catch(() => '')]);
  const why = !existsSync(join(ROOT, 'node_modules')) ? null
    : oldLock === newLock ? 'package-lock.json is identical' : pinsSubset(oldLock, newLock);
  if (why) {
    await symlink(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
    return `symlinked this checkout's node_modules (${why})`;
  }
  await run('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir, timeout: 600_000, maxBuffer: 64 * 1024 * 1024 });
  return 'ran npm ci (its package-lock.json pins packages this checkout does not have)';
}

/** A reason when the current lock pins every package of the old one at the same place and version. */
function pinsSubset(oldLock: string, newLock: string): string | null {
  type Lock = { packages?: Record<string, { version?: string; link?: boolean }> };
  let want: Lock['packages'], have: Lock['packages'];
  try {
    want = (JSON.parse(oldLock) as Lock).packages;
    have = (JSON.parse(newLock) as Lock).packages;
  } catch {
    return null;
  }
  if (!want || !have) return null;
  for (const [path, p] of Object.entries(want)) {
    if (path === '' || p.link) continue;
    if (have[path]?.version !== p.version) return null;
  }
  return 'package-lock.json differs, but only by packages added since';
}

/** Runs the build in `dir` as a program (node --import tsx src/main.ts), like spawnService. */
export function spawnBuild(dir: string, env: Record<string, string>, opts: Omit<SpawnOptions, 'root'> = {}): ServiceProgram {
  return spawnService(env, { ...opts, root: dir });
}
