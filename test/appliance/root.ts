// A root file system with the release installed by scripts/install.sh, for the appliance tests: an
// overlay of this machine's own root (writes land in a tmpfs and vanish afterwards), so the host is
// never changed. Packages are left alone (--no-apt): the host's Node.js, fping and systemd serve.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run, type RunResult } from '../../src/core/exec.js';
import { releaseTree } from './release.js';

export const STAGED = '/var/tmp/netprobe-release';

export async function must(program: string, args: string[], timeoutMs = 120_000): Promise<RunResult> {
  const r = await run(program, args, { timeoutMs });
  if (r.code !== 0) throw new Error(`${program} ${args.join(' ')} exited ${r.code ?? r.signal}:\n${r.stdout}\n${r.stderr}`);
  return r;
}

export interface InstallRoot {
  path: string;
  /** Runs install.sh --no-apt from the staged release inside the root (a chroot). */
  install(): Promise<RunResult>;
  /** Unmounts and removes everything. */
  remove(): Promise<void>;
}

export async function installRoot(): Promise<InstallRoot> {
  if (process.getuid?.() !== 0) throw new Error('the appliance tests mount an overlay of / and chroot into it: run them as root (./build.sh test does)');
  const release = await releaseTree();
  const work = await mkdtemp(join(tmpdir(), 'netprobe-root-'));
  const root = join(work, 'root');
  const mounts: string[] = [];
  const mount = async (args: string[], target: string) => { await must('mount', [...args, target]); mounts.push(target); };
  const remove = async () => {
    for (const m of mounts.reverse()) if ((await run('umount', [m])).code !== 0) await run('umount', ['-l', m]);
    await rm(work, { recursive: true, force: true });
  };
  try {
    await mount(['-t', 'tmpfs', 'tmpfs'], work);
    for (const d of ['upper', 'work', 'root']) await mkdir(join(work, d));
    await mount(['-t', 'overlay', 'overlay', '-o', `lowerdir=/,upperdir=${work}/upper,workdir=${work}/work`], root);
    await mkdir(join(root, STAGED), { recursive: true });
    await must('cp', ['-a', `${release}/.`, join(root, STAGED)]);
  } catch (e) {
    await remove();
    throw e;
  }
  return {
    path: root,
    async install() {
      // For the install only, what an image build's chroot has: /proc, /dev, and a fresh /run (so no
      // systemd appears to be running in there).
      const extra: string[] = [];
      try {
        for (const [args, dir] of [[['-t', 'proc', 'proc'], 'proc'], [['--bind', '/dev'], 'dev'], [['-t', 'tmpfs', 'tmpfs'], 'run']] as const) {
          await must('mount', [...args, join(root, dir)]);
          extra.push(join(root, dir));
        }
        return await must('chroot', [root, `${STAGED}/scripts/install.sh`, '--no-apt', '--release', STAGED], 300_000);
      } finally {
        for (const m of extra.reverse()) await run('umount', [m]);
      }
    },
    remove,
  };
}
