// Self-update, the whole cycle under a real systemd: the root with the release installed (root.ts) gets a
// pinned release key and a git source inside it (file:///srv/netprobe.git, a bare repository whose channel
// carries real release trees: this release's bundle with its version raised, and one whose main.js crashes),
// then boots in a container (systemd-nspawn, private network). POST /api/update/run writes the request;
// netprobe-update.path starts netprobe-update.service (root, sandboxed), which verifies the signed tag,
// unpacks, stops netprobe.service, backs up the database, switches /opt/netprobe/current, starts and
// health-checks it; the crashing release is rolled back with its journal lines as the log tail.
// Needs root and systemd-nspawn (Debian's systemd-container).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../../src/core/exec.js';
import { Container } from './container.js';
import { installRoot, must, STAGED, type InstallRoot } from './root.js';

const skip = process.getuid?.() !== 0 ? 'needs root (an overlay mount and a container)' : false;
let r: InstallRoot;
let c: Container;
let work = '';
const inside = (args: string[], timeoutMs?: number) => c.inside(args, timeoutMs);
const http = (method: string, path: string, opts?: { body?: unknown; cookie?: string }) => c.http(method, path, opts);
const until = <T>(what: string, probe: () => Promise<T | undefined>, ms = 120_000) => c.until(what, probe, ms, 500);

const git = (args: string[], env: Record<string, string> = {}) => run('git', args, {
  timeoutMs: 120_000, env: { GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_AUTHOR_NAME: 'release', GIT_AUTHOR_EMAIL: 'release@netprobe',
    GIT_COMMITTER_NAME: 'release', GIT_COMMITTER_EMAIL: 'release@netprobe', ...env },
});

/** Commits `tree` as the new tip of `stable` in the root's source and tags it v<version>, signed. */
async function publish(bare: string, tree: string, version: string, key: string): Promise<void> {
  const env = { GIT_DIR: bare, GIT_WORK_TREE: tree, GIT_INDEX_FILE: join(work, 'index') };
  const step = async (args: string[]) => {
    const res = await git(args, env);
    if (res.code !== 0) throw new Error(`git ${args.join(' ')}: ${res.stderr}`);
    return res.stdout.trim();
  };
  await rm(join(work, 'index'), { force: true });
  await step(['add', '-A', '-f', '.']);
  const treeId = await step(['write-tree']);
  const parent = (await git(['rev-parse', '--verify', '--quiet', 'refs/heads/stable'], { GIT_DIR: bare })).stdout.trim();
  const commit = await step(['commit-tree', treeId, ...(parent ? ['-p', parent] : []), '-m', `netprobe ${version}`]);
  await step(['update-ref', 'refs/heads/stable', commit]);
  await step(['-c', 'gpg.format=ssh', '-c', `user.signingkey=${key}`, 'tag', '-s', '-m', `netprobe ${version}\n\n- the appliance test's release`, `v${version}`, commit]);
}

/** This release's tree with another version (and, for `crash`, a main.js that fails at once). */
async function variant(version: string, crash = false): Promise<string> {
  const dir = join(work, version);
  await cp(join(r.path, STAGED), dir, { recursive: true, verbatimSymlinks: true });
  const pkg = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8'));
  await writeFile(join(dir, 'package.json'), JSON.stringify({ ...pkg, version }, null, 2) + '\n');
  await writeFile(join(dir, 'release.json'), JSON.stringify({ version, commit: null, schema: {} }) + '\n');
  if (crash) await writeFile(join(dir, 'dist/src/main.js'), `console.error('release ${version}: crashing on purpose'); process.exit(1);\n`);
  return dir;
}

let cookie = '';
let key = '';
let bare = '';

before(async () => {
  if (skip) return;
  const nspawnOk = (await run('sh', ['-c', 'command -v systemd-nspawn'])).code === 0;
  if (!nspawnOk) throw new Error('systemd-nspawn is missing: apt-get install systemd-container');
  r = await installRoot();
  await r.install();
  const root = r.path;
  work = await mkdtemp(join(tmpdir(), 'netprobe-update-cycle-'));
  key = join(work, 'release-key');
  await must('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'release@netprobe', '-f', key]);
  // What install.sh --release-key puts there.
  await mkdir(join(root, 'etc/netprobe-update'), { recursive: true });
  await writeFile(join(root, 'etc/netprobe-update/allowed_signers'),
    `release@netprobe namespaces="git" ${(await readFile(`${key}.pub`, 'utf8')).trim()}\n`, { mode: 0o644 });
  bare = join(root, 'srv/netprobe.git');
  await mkdir(join(root, 'srv'), { recursive: true });
  await must('git', ['init', '--bare', '--quiet', bare]);
  await publish(bare, await variant('0.9.1-test'), '0.9.1-test', key);
  await writeFile(join(root, 'etc/netprobe/config.yaml'),
    'update:\n  source_url: file:///srv/netprobe.git\n  channel: stable\n  health_timeout_seconds: 45\n  min_free_mb: 10\n');
  c = await Container.boot(root);
  await until('netprobe to answer', async () => ((await http('GET', '/api/version')).status === 200 ? true : undefined));
  const b = await http('POST', '/api/setup/bootstrap', { body: { username: 'alice', password: 'a long enough passphrase' } });
  assert.equal(b.status, 201, JSON.stringify(b.body));
  const login = await http('POST', '/api/auth/login', { body: { username: 'alice', password: 'a long enough passphrase' } });
  cookie = login.headers['set-cookie']!.split(';')[0]!;
});

after(async () => {
  await c?.poweroff();
  await r?.remove();
  if (work) await rm(work, { recursive: true, force: true });
});

test('the update units are installed, verified by systemd-analyze and the path unit is watching', { skip }, async () => {
  const v = await inside(['systemd-analyze', 'verify', 'netprobe-update.path', 'netprobe-update.service']).catch((e: Error) => ({ code: 1, stdout: '', stderr: e.message }));
  assert.equal(v.code, 0, v.stdout + v.stderr);
  assert.equal((await inside(['systemctl', 'is-active', 'netprobe-update.path'])).stdout.trim(), 'active');
  const sec = await run('systemd-analyze', ['security', '--offline=true', `--root=${r.path}`, '--no-pager', 'netprobe-update.service']);
  console.log(`  systemd-analyze security netprobe-update.service: ${/Overall exposure level for \S+: ([\d.]+)/.exec(sec.stdout)?.[1]}`);
});

test('check sees the signed release; run installs it through the root helper, and the service comes back on it', { skip }, async () => {
  const c = await http('GET', '/api/update/check', { cookie });
  assert.equal(c.status, 200, JSON.stringify(c.body));
  assert.equal(c.body.version, '0.9.1-test');
  assert.equal(c.body.update_available, true);
  const runRes = await http('POST', '/api/update/run', { cookie, body: {} });
  assert.equal(runRes.status, 202, JSON.stringify(runRes.body));
  const s = await until('the update outcome', async () => {
    const st = await http('GET', '/api/update/status', { cookie });
    return st.status === 200 && st.body.last_run?.request_id === runRes.body.request_id && st.body.last_run.result ? st.body : undefined;
  }, 300_000);
  assert.equal(s.last_run.result, 'updated', JSON.stringify(s.last_run));
  assert.equal(s.running.version, '0.9.1-test');
  assert.equal((await inside(['readlink', '/opt/netprobe/current'])).stdout.trim(), 'releases/0.9.1-test');
  assert.equal((await http('GET', '/api/setup/bootstrap-needed')).body.bootstrap_needed, false, 'the data came along');
  const journal = (await inside(['journalctl', '-u', 'netprobe-update.service', '--no-pager', '-o', 'cat'])).stdout;
  assert.match(journal, /\[verify\] verifying the signature of v0\.9\.1-test/);
});

test('a release that crashes is rolled back under systemd, with its journal lines as the log tail', { skip }, async () => {
  await publish(bare, await variant('0.9.2-test', true), '0.9.2-test', key);
  const runRes = await http('POST', '/api/update/run', { cookie, body: {} });
  assert.equal(runRes.status, 202, JSON.stringify(runRes.body));
  const s = await until('the rollback', async () => {
    const st = await http('GET', '/api/update/status', { cookie });
    return st.status === 200 && st.body.last_run?.request_id === runRes.body.request_id && st.body.last_run.result ? st.body : undefined;
  }, 300_000);
  assert.equal(s.last_run.result, 'rolled_back', JSON.stringify(s.last_run));
  assert.ok(s.last_run.log_tail.some((l: string) => /release 0\.9\.2-test: crashing on purpose/.test(l)), s.last_run.log_tail.join('\n'));
  assert.equal(s.running.version, '0.9.1-test');
  assert.equal((await inside(['readlink', '/opt/netprobe/current'])).stdout.trim(), 'releases/0.9.1-test');
  assert.equal((await http('GET', '/api/setup/bootstrap-needed')).body.bootstrap_needed, false, 'the database came back');
});
