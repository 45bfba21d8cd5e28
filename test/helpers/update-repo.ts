// An update source made in the test: a bare repository whose release branches carry tiny release trees (a
// dist/src/main.js that serves GET /api/version with its version, and writes its mark into the data
// directory's netprobe.db as a migration would, or crashes after that on purpose), each commit tagged
// v<version> and signed with an SSH key made here (or another key, an OpenPGP key made here, or not at all).
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../../src/core/exec.js';

export interface ReleaseSpec {
  version: string;
  /** crash: exits with an error right after writing its mark into netprobe.db. */
  mode?: 'ok' | 'crash';
  /** openpgp: by a key made in `gnupgHome` (ultimately trusted there), which git would verify with gpg. */
  sign?: 'release' | 'other' | 'openpgp' | 'none';
  /** Per-module schema versions written to release.json. */
  schema?: Record<string, number>;
  /** Extra small files, to make the tree take many file system blocks. */
  padFiles?: number;
  /** Bytes of one extra file. */
  bigFileBytes?: number;
  message?: string;
}

export interface UpdateRepo {
  dir: string;
  bare: string;
  url: string;
  /** The allowed-signers file pinning the release key. */
  signers: string;
  /** The GnuPG home holding the OpenPGP key (made by the first release signed with it). */
  gnupgHome: string;
  /** Commits `spec` as the new tip of `branch` and tags it; returns the commit. */
  publish(branch: string, spec: ReleaseSpec): Promise<string>;
  /** Moves `branch` of the source to the commit of an existing tag. */
  branchAt(branch: string, tag: string): Promise<void>;
  remove(): Promise<void>;
}

async function git(args: string[], cwd?: string, env: Record<string, string> = {}): Promise<string> {
  const r = await run('git', args, { cwd, timeoutMs: 60_000, env: { GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', ...env } });
  if (r.code !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
}

export const TINY_MAIN = (mode: 'ok' | 'crash') => `// A tiny netprobe release for the update tests.
import http from 'node:http';
import fs from 'node:fs';
const version = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version;
fs.appendFileSync(process.env.NETPROBE_DATA_DIR + '/netprobe.db', 'opened by ' + version + '\\n');
${mode === 'crash' ? "console.error('release ' + version + ': migration 999 failed on purpose'); process.exit(3);" : ''}
const server = http.createServer((req, res) => {
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ name: 'netprobe', version }));
});
server.listen(Number(process.env.NETPROBE_PORT), '127.0.0.1', () => console.log('release ' + version + ' listening'));
process.on('SIGTERM', () => { console.log('release ' + version + ' stopping'); process.exit(0); });
`;

export async function makeUpdateRepo(opts: { allowFilter?: boolean } = {}): Promise<UpdateRepo> {
  const dir = await mkdtemp(join(tmpdir(), 'netprobe-update-repo-'));
  const bare = join(dir, 'srv', 'netprobe.git');
  const work = join(dir, 'work');
  for (const k of ['release', 'other']) {
    const r = await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', `${k}@test`, '-f', join(dir, `${k}-key`)]);
    if (r.code !== 0) throw new Error(`ssh-keygen: ${r.stderr}`);
  }
  const pub = (await readFile(join(dir, 'release-key.pub'), 'utf8')).trim();
  const signers = join(dir, 'allowed_signers');
  await writeFile(signers, `release@netprobe namespaces="git" ${pub}\n`, { mode: 0o644 });
  await mkdir(join(dir, 'srv'));
  await git(['init', '--bare', '--quiet', bare]);
  if (opts.allowFilter) await git(['config', 'uploadpack.allowFilter', 'true'], bare);
  await git(['init', '--quiet', work]);
  const gnupgHome = join(dir, 'gnupg');
  let openpgpKey: string | null = null;
  const gpg = async (args: string[]) => {
    const r = await run('gpg', ['--batch', '--pinentry-mode', 'loopback', '--passphrase', '', ...args], { env: { GNUPGHOME: gnupgHome }, timeoutMs: 60_000 });
    if (r.code !== 0) throw new Error(`gpg ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  const id = { GIT_AUTHOR_NAME: 'release', GIT_AUTHOR_EMAIL: 'release@netprobe', GIT_COMMITTER_NAME: 'release', GIT_COMMITTER_EMAIL: 'release@netprobe' };
  return {
    dir, bare, url: `file://${bare}`, signers, gnupgHome,
    async publish(branch, spec) {
      // Each release is its own tree on top of the branch's previous tip (or a new branch).
      const known = await run('git', ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`], { cwd: work });
      if (known.code === 0) await git(['checkout', '--quiet', branch], work);
      else await git(['checkout', '--quiet', '--orphan', branch], work);
      await git(['rm', '-r', '-q', '--cached', '--ignore-unmatch', '.'], work);
      for (const d of ['dist', 'pad', 'big']) await rm(join(work, d), { recursive: true, force: true });
      await mkdir(join(work, 'dist/src'), { recursive: true });
      await writeFile(join(work, 'package.json'), JSON.stringify({ name: 'netprobe', version: spec.version, type: 'module' }) + '\n');
      await writeFile(join(work, 'release.json'), JSON.stringify({ version: spec.version, schema: spec.schema ?? { core: 1 } }) + '\n');
      await writeFile(join(work, 'dist/src/main.js'), TINY_MAIN(spec.mode ?? 'ok'));
      if (spec.padFiles) {
        await mkdir(join(work, 'pad'));
        for (let i = 0; i < spec.padFiles; i++) await writeFile(join(work, 'pad', `f${i}.txt`), `pad ${spec.version} ${i}\n`);
      }
      if (spec.bigFileBytes) {
        await mkdir(join(work, 'big'));
        await writeFile(join(work, 'big', 'blob.bin'), Buffer.alloc(spec.bigFileBytes, 7));
      }
      await git(['add', '-A', '-f', '.'], work);
      await git(['commit', '--quiet', '--allow-empty', '-m', `netprobe ${spec.version}`], work, id);
      const commit = await git(['rev-parse', 'HEAD'], work);
      const tag = `v${spec.version}`;
      const msg = spec.message ?? `netprobe ${spec.version}\n\n- changes of ${spec.version}`;
      const sign = spec.sign ?? 'release';
      if (sign === 'none') await git(['tag', '-a', '-m', msg, tag, commit], work, id);
      else if (sign === 'openpgp') {
        if (!openpgpKey) {
          await mkdir(gnupgHome, { mode: 0o700 });
          await gpg(['--quick-gen-key', 'release <release@netprobe>', 'ed25519', 'sign', 'never']);
          openpgpKey = /^fpr:+([0-9A-F]{40}):/m.exec(await gpg(['--with-colons', '--list-secret-keys']))![1]!;
        }
        await git(['-c', 'gpg.format=openpgp', '-c', `user.signingkey=${openpgpKey}`, 'tag', '-s', '-m', msg, tag, commit], work, { ...id, GNUPGHOME: gnupgHome });
      } else {
        await git(['-c', 'gpg.format=ssh', '-c', `user.signingkey=${join(dir, `${sign}-key`)}`, 'tag', '-s', '-m', msg, tag, commit], work, id);
      }
      await git(['push', '--quiet', '--force', bare, `HEAD:refs/heads/${branch}`, `refs/tags/${tag}`], work);
      return commit;
    },
    async branchAt(branch, tag) {
      await git(['update-ref', `refs/heads/${branch}`, `${tag}^{commit}`], bare);
    },
    async remove() {
      if (openpgpKey) await run('gpgconf', ['--kill', 'gpg-agent'], { env: { GNUPGHOME: gnupgHome } });
      await rm(dir, { recursive: true, force: true });
    },
  };
}
