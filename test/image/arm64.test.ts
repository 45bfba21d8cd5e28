// The appliance image, short of flashing a card: a minimal Debian 13 (trixie) arm64 root file system
// (debootstrap, cached), then the pi-gen stage's own steps (image/stage-netprobe) install the release
// into it under qemu-user through binfmt_misc, exactly as the image build runs them. Then the installed
// service is started inside that root, as its unit would start it, and must answer on loopback; a
// second install must change nothing. The bundle has no native modules, so the same release answering
// here on arm64 is the proof that it runs there.
//
// Run by ./build.sh test-image (which installs debootstrap, qemu-user-static and binfmt-support and
// registers the arm64 interpreter). Needs root. Downloads from the Debian mirror this machine's apt uses;
// the debootstrap result and the downloaded packages are cached in $NETPROBE_IMAGE_CACHE
// (/var/cache/netprobe-test-image) so later runs fetch almost nothing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { appendFile, copyFile, mkdir, mkdtemp, open, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { run, type RunResult } from '../../src/core/exec.js';
import { freePort } from '../helpers/net.js';
import { exposure, installReport, releaseTree, REPO, VERSION } from '../appliance/release.js';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const STAGE = join(REPO, 'image/stage-netprobe/00-netprobe');
const CACHE = process.env.NETPROBE_IMAGE_CACHE || '/var/cache/netprobe-test-image';
const SUITE = 'trixie';
const ARCH = 'arm64';
/** On an arm64 machine the root runs natively; elsewhere through qemu-user. */
const NATIVE = process.arch === 'arm64';

let work = '';
let root = '';
let release = '';
const mounts: string[] = [];
const timings: [string, number][] = [];

async function timed<T>(what: string, fn: () => Promise<T>): Promise<T> {
  const t0 = performance.now();
  try { return await fn(); } finally { timings.push([what, (performance.now() - t0) / 1000]); }
}
async function must(program: string, args: string[], opts: { timeoutMs?: number; env?: Record<string, string>; input?: string } = {}): Promise<RunResult> {
  const r = await run(program, args, { timeoutMs: opts.timeoutMs ?? 120_000, env: opts.env, input: opts.input });
  if (r.code !== 0) throw new Error(`${program} ${args.join(' ')} exited ${r.code ?? r.signal}:\n${r.stdout}\n${r.stderr}`);
  return r;
}
async function mount(args: string[], target: string): Promise<void> {
  await mkdir(target, { recursive: true });
  await must('mount', [...args, target]);
  mounts.push(target);
}
/** A stage's chroot step, run the way pi-gen's on_chroot runs it: the script on bash's stdin. */
const onChroot = async (script: string, timeoutMs: number) =>
  must('capsh', ['--drop=cap_setfcap', `--chroot=${root}/`, '--', '-e'], { input: await readFile(script, 'utf8'), timeoutMs });
const inRoot = (args: string[], timeoutMs = 120_000) => must('chroot', [root, ...args], { timeoutMs });

/** [Service] settings of a unit file (multi-valued keys accumulate). */
function serviceSettings(text: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  let inService = false;
  for (const line of text.split('\n')) {
    if (/^\s*\[/.test(line)) { inService = line.trim() === '[Service]'; continue; }
    const m = /^([A-Za-z]+)=(.*)$/.exec(line);
    if (inService && m) out.set(m[1]!, [...(out.get(m[1]!) ?? []), m[2]!]);
  }
  return out;
}

before(async () => {
  assert.equal(process.getuid?.(), 0, 'the image test mounts and chroots: run it as root (./build.sh test-image)');
  const binfmt = '/proc/sys/fs/binfmt_misc/qemu-aarch64';
  assert.ok(NATIVE || (existsSync(binfmt) && readFileSync(binfmt, 'utf8').startsWith('enabled')),
    'arm64 binaries need qemu-user-static registered with binfmt_misc (./build.sh test-image sets it up)');
  release = await timed('bundle', releaseTree);
  const tarball = await timed('debootstrap (or its cache)', async () =>
    (await must(join(HERE, 'rootfs.sh'), [SUITE, ARCH], { timeoutMs: 1_800_000 })).stdout.trim());
  work = await mkdtemp('/var/tmp/netprobe-image-');
  root = join(work, 'root');
  await mkdir(root);
  await timed('unpack the root file system', () => must('tar', ['-C', root, '--numeric-owner', '-xf', tarball]));
  // What pi-gen's on_chroot mounts, plus the package caches.
  await mount(['-t', 'proc', 'proc'], join(root, 'proc'));
  await mount(['--bind', '/sys'], join(root, 'sys'));
  await mount(['--bind', '/dev'], join(root, 'dev'));
  await mount(['--bind', '/dev/pts'], join(root, 'dev/pts'));
  await mount(['-t', 'tmpfs', 'tmpfs'], join(root, 'run'));
  await mount(['-t', 'tmpfs', 'tmpfs'], join(root, 'tmp'));
  for (const [cached, inside] of [['archives', 'var/cache/apt/archives'], ['lists', 'var/lib/apt/lists']] as const) {
    const dir = join(CACHE, `apt-${SUITE}-${ARCH}`, cached);
    await mkdir(dir, { recursive: true });
    await mount(['--bind', dir], join(root, inside));
  }
  await copyFile('/etc/resolv.conf', join(root, 'etc/resolv.conf'));
  const proxy = (await run('apt-config', ['shell', 'P', 'Acquire::http::Proxy'])).stdout.match(/^P='(.*)'$/m)?.[1];
  if (proxy) await writeFile(join(root, 'etc/apt/apt.conf.d/01proxy'), `Acquire::http::Proxy "${proxy}";\n`);
  await must(join(STAGE, '00-run.sh'), [], { env: { ROOTFS_DIR: root, NETPROBE_RELEASE: release } });
});

after(async () => {
  for (const m of mounts.reverse()) {
    if ((await run('umount', [m])).code !== 0) await run('umount', ['-l', m]);
  }
  if (work) await rm(work, { recursive: true, force: true });
  console.log('  timings (s): ' + timings.map(([w, s]) => `${w} ${s.toFixed(1)}`).join(', '));
});

test('the release has no native modules, so one bundle serves amd64 and arm64', async () => {
  const r = await must('find', [join(release, 'node_modules'), '-name', '*.node']);
  assert.equal(r.stdout.trim(), '');
});

test("the image stage's install turns a Debian 13 arm64 root into a probe", async () => {
  const r = await timed('install.sh, first run', () => onChroot(join(STAGE, '01-run-chroot.sh'), 1_800_000));
  const { changes, summary } = installReport(r.stdout);
  console.log(r.stdout.trim().replace(/^/gm, '  first run | '));
  assert.match(summary, /^install\.sh: \d+ changes$/);
  assert.ok(changes.some((c) => c.startsWith('installed packages: ') && c.includes('nodejs') && c.includes('avahi-daemon')), changes.join('\n'));
  // The root is arm64 and its own Node.js (Debian's, 20 or newer) runs under emulation.
  const elf = await open(join(root, 'usr/bin/node'));
  const header = Buffer.alloc(20);
  await elf.read(header, 0, 20, 0);
  await elf.close();
  assert.equal(header.readUInt16LE(18), 183, 'usr/bin/node is an AArch64 executable');
  const node = (await inRoot(['node', '-p', 'process.arch + " " + process.versions.node'])).stdout.trim();
  console.log(`  node in the root: ${node}`);
  assert.match(node, /^arm64 (\d+)\./);
  assert.ok(Number(/^arm64 (\d+)/.exec(node)![1]) >= 20);
});

test("trixie's systemd-analyze verifies the installed units and rates the sandbox", async () => {
  const units = ['netprobe.service', 'netprobe-boot-password.path', 'netprobe-boot-password.service'].map((u) => `/etc/systemd/system/${u}`);
  const v = await run('chroot', [root, 'systemd-analyze', 'verify', ...units], { timeoutMs: 120_000 });
  assert.equal(v.code, 0, v.stdout + v.stderr);
  assert.equal((v.stdout + v.stderr).trim(), '', 'no warnings');
  const version = (await inRoot(['systemd-analyze', '--version'])).stdout.split('\n')[0];
  for (const unit of ['netprobe.service', 'netprobe-boot-password.service']) {
    const s = await inRoot(['systemd-analyze', 'security', '--offline=true', '--no-pager', `/etc/systemd/system/${unit}`]);
    const level = exposure(s.stdout);
    console.log(`  systemd-analyze security ${unit}: ${level} (${version}, arm64)`);
    assert.ok(level <= 3.0, `${unit}: exposure ${level} is above 3.0`);
  }
});

test('the installed service starts in the root under qemu and answers on loopback', async () => {
  const unit = serviceSettings(await readFile(join(root, 'etc/systemd/system/netprobe.service'), 'utf8'));
  const user = unit.get('User')![0]!, group = unit.get('Group')![0]!;
  const environment = unit.get('Environment')!.flatMap((e) => e.split(/\s+/));
  const execStart = unit.get('ExecStart')![0]!.split(/\s+/);
  // Loopback only: the operator's configuration file is where the address is set.
  await appendFile(join(root, 'etc/netprobe/config.yaml'), 'server:\n  host: 127.0.0.1\n');
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn('chroot', [`--userspec=${user}:${group}`, root, '/usr/bin/env', '-i',
    'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', 'HOME=/var/lib/netprobe',
    ...environment, `NETPROBE_PORT=${port}`, ...execStart], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout.on('data', (c: Buffer) => { log += c.toString(); });
  child.stderr.on('data', (c: Buffer) => { log += c.toString(); });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const guard = setTimeout(() => child.kill('SIGKILL'), 300_000);
  try {
    const version = await timed('service start to first answer', async () => {
      for (;;) {
        const r = await fetch(`${url}/api/version`).catch(() => null);
        if (r?.ok) return await r.json() as { name: string; version: string; node: string };
        assert.equal(child.exitCode, null, `the service exited:\n${log}`);
        await new Promise((res) => setTimeout(res, 250));
      }
    });
    assert.equal(version.name, 'netprobe');
    assert.equal(version.version, VERSION);
    const cmdline = (await readFile(`/proc/${child.pid}/cmdline`, 'utf8')).split('\0');
    console.log(`  answering: ${JSON.stringify(version)}; the process: ${cmdline.filter(Boolean).join(' ')}`);
    if (!NATIVE) assert.match(cmdline[0]!, /qemu|aarch64/, 'the kernel runs it through the arm64 interpreter');
    const needed = await (await fetch(`${url}/api/setup/bootstrap-needed`)).json() as { bootstrap_needed: boolean };
    assert.deepEqual(needed, { bootstrap_needed: true });
    const first = await fetch(`${url}/`, { redirect: 'manual' });
    assert.equal(first.status, 302);
    assert.equal(first.headers.get('location'), '/setup');

    // First boot: the one-time password is in the data directory, and the boot partition copy is made
    // by the command of netprobe-boot-password.service (run here as root, as systemd would).
    const password = (await readFile(join(root, 'var/lib/netprobe/initial-admin-password'), 'utf8')).trim();
    assert.match(password, /^[A-Za-z0-9]{24}$/);
    await mkdir(join(root, 'boot/firmware'), { recursive: true });
    const copy = serviceSettings(await readFile(join(root, 'etc/systemd/system/netprobe-boot-password.service'), 'utf8'));
    await inRoot(copy.get('ExecStart')![0]!.split(/\s+/));
    assert.match(await readFile(join(root, 'boot/firmware/netprobe-admin-password.txt'), 'utf8'), new RegExp(`password: ${password}\n`));
    await rm(join(root, 'boot/firmware'), { recursive: true });

    // SIGTERM (systemctl stop): the store is checkpointed and the process exits 0.
    child.kill('SIGTERM');
    assert.equal(await exited, 0, log);
    assert.match(log, /stopping \(SIGTERM\)[\s\S]*stopped; store checkpointed/);
    assert.ok((await stat(join(root, 'var/lib/netprobe/netprobe.db'))).size > 0);
  } finally {
    clearTimeout(guard);
    if (child.exitCode === null) child.kill('SIGKILL');
  }
});

test('a second run of the install changes nothing', async () => {
  const r = await timed('install.sh, second run', () => onChroot(join(STAGE, '01-run-chroot.sh'), 600_000));
  const { changes, summary } = installReport(r.stdout);
  assert.deepEqual(changes, [], r.stdout);
  assert.equal(summary, 'install.sh: no changes');
  await must(join(STAGE, '02-run.sh'), [], { env: { ROOTFS_DIR: root } });
  assert.ok(!existsSync(join(root, 'var/tmp/netprobe-release')), 'the staging copy is gone');
});
