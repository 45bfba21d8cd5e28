// The root update helper (scripts/updater.mjs) against a real git source with SSH-signed tags, on a stand-in
// appliance without systemd (test/helpers/update-appliance.ts: the service is a tiny release run by a
// supervisor on loopback). Install, already current, unsigned, signed by another key or with OpenPGP, no key
// pinned, a release that crashes after start (rolled back, database restored, log tail), downgrades with and
// without a schema change, pruning to current + 2; as root: a file:// source others could write, a link planted
// while the database is restored, and the disk filling up (a tmpfs as the release prefix).
// Every refusal and failure leaves the old release serving with its database as it was.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { chmod, chown, mkdir, mkdtemp, open, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { run } from '../../src/core/exec.js';
import { makeAppliance, type Appliance } from '../helpers/update-appliance.js';
import { makeUpdateRepo, type UpdateRepo } from '../helpers/update-repo.js';

let repo: UpdateRepo;
let a: Appliance;
const helper = (args: string[], o: { healthTimeout?: number; signers?: string } = {}) =>
  a.runHelper(['--url', repo.url, ...args], { signers: repo.signers, ...o });

before(async () => {
  repo = await makeUpdateRepo();
  a = await makeAppliance('1.0.0');
});
after(async () => { await a?.remove(); await repo?.remove(); });

test('without a pinned release key nothing is installed', async () => {
  await repo.publish('stable', { version: '1.1.0' });
  const r = await a.runHelper(['--url', repo.url, '--branch', 'stable']); // --signers points at no file
  assert.equal(r.code, 0, r.stderr);
  const s = await a.status();
  assert.equal(s.result, 'refused');
  assert.match(s.detail, /no release key pinned/);
  assert.equal(await a.version(), '1.0.0');
  assert.equal(await a.current(), 'releases/1.0.0');
});

test('a signed release installs: unpacked beside, database backed up, current switched, health-checked', async () => {
  const dbBefore = await a.db();
  const r = await helper(['--branch', 'stable']);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const s = await a.status();
  assert.equal(s.result, 'updated', s.detail);
  assert.equal(s.from, '1.0.0');
  assert.equal(s.to, '1.1.0');
  assert.equal(s.tag, 'v1.1.0');
  assert.equal(await a.current(), 'releases/1.1.0');
  assert.equal(await a.version(), '1.1.0');
  assert.equal(await readFile(join(a.prefix, 'backups/1.0.0/netprobe.db'), 'utf8'), dbBefore + '', 'the backup is the database as 1.0.0 left it');
  assert.ok(existsSync(join(a.prefix, 'releases/1.0.0/dist/src/main.js')), 'the previous release stays');
  const steps = (await a.progress()).map((p) => p.step);
  for (const step of ['fetch', 'verify', 'unpack', 'stop', 'backup', 'switch', 'start', 'health', 'done']) assert.ok(steps.includes(step), step);
  assert.deepEqual((await readdir(join(a.prefix, 'releases'))).filter((n) => n.startsWith('.tmp')), []);
  assert.match(r.stdout, /release notes of v1\.1\.0:\nnetprobe 1\.1\.0/);
});

test('the same release again is up to date and touches nothing', async () => {
  const r = await helper(['--branch', 'stable']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal((await a.status()).result, 'up_to_date');
  assert.equal(await a.version(), '1.1.0');
});

test('an unsigned release is refused', async () => {
  await repo.publish('stable', { version: '1.2.0', sign: 'none' });
  await helper(['--branch', 'stable']);
  const s = await a.status();
  assert.equal(s.result, 'refused');
  assert.match(s.detail, /v1\.2\.0 is not signed by a pinned release key/);
  assert.equal(await a.version(), '1.1.0');
  assert.ok(!existsSync(join(a.prefix, 'releases/1.2.0')), 'nothing unpacked');
});

test('a release signed by another key is refused, although git prints "Good signature" for it', async () => {
  await repo.publish('stable', { version: '1.2.1', sign: 'other' });
  const r = await helper(['--branch', 'stable']);
  const s = await a.status();
  assert.equal(s.result, 'refused', s.detail);
  assert.match(s.detail, /not signed by a pinned release key/);
  assert.match(s.detail + r.stdout + r.stderr, /Good "git" signature|No principal matched/);
  assert.equal(await a.version(), '1.1.0');
});

test('a release signed with OpenPGP is refused, even by a key that the keyring gpg would use trusts', async () => {
  await repo.publish('stable', { version: '1.2.2', sign: 'openpgp' });
  const env = { GNUPGHOME: repo.gnupgHome };
  // The signature is good for gpg: git alone would accept the tag.
  const plain = await run('git', ['--git-dir', repo.bare, 'verify-tag', 'v1.2.2'], { env });
  assert.equal(plain.code, 0, plain.stderr);
  await a.runHelper(['--url', repo.url, '--branch', 'stable'], { signers: repo.signers, env });
  const s = await a.status();
  assert.equal(s.result, 'refused', s.detail);
  assert.match(s.detail, /v1\.2\.2 is not signed by a pinned release key \(its signature is OpenPGP; releases are signed with an SSH key\)/);
  assert.equal(await a.version(), '1.1.0');
  assert.ok(!existsSync(join(a.prefix, 'releases/1.2.2')), 'nothing unpacked');
});

test('a release that crashes after start is rolled back: old release, database restored, the new log tail', async () => {
  await repo.publish('stable', { version: '1.3.0', mode: 'crash' });
  const dbBefore = await a.db();
  const r = await helper(['--branch', 'stable'], { healthTimeout: 5 });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const s = await a.status();
  assert.equal(s.result, 'rolled_back', s.detail);
  assert.equal(s.to, '1.3.0');
  assert.ok(s.log_tail.some((l: string) => /release 1\.3\.0: migration 999 failed on purpose/.test(l)), s.log_tail.join('\n'));
  assert.equal(await a.current(), 'releases/1.1.0');
  assert.equal(await a.version(), '1.1.0');
  // The crashing release wrote into the database before it died; the backup replaced that, and 1.1.0's own start appended its mark.
  const db = await a.db();
  assert.ok(db.startsWith(dbBefore), 'the database is the one from before the update');
  assert.doesNotMatch(db, /opened by 1\.3\.0/);
});

test('an older release is refused unless a downgrade is asked for', async () => {
  await repo.publish('old', { version: '1.0.5' });
  await helper(['--branch', 'old']);
  assert.equal((await a.status()).result, 'refused');
  assert.match((await a.status()).detail, /older than the running 1\.1\.0/);
  await helper(['--branch', 'old', '--allow-downgrade']);
  assert.equal((await a.status()).result, 'updated', (await a.status()).detail);
  assert.equal(await a.version(), '1.0.5');
});

test('a downgrade across a schema change needs the backup taken when that release was left', async () => {
  await repo.publish('next', { version: '2.0.0', schema: { core: 2 } });
  await helper(['--branch', 'next']);
  assert.equal((await a.status()).result, 'updated');
  const db200 = await a.db();
  await repo.publish('old', { version: '1.0.6', schema: { core: 1 } });
  await helper(['--branch', 'old', '--allow-downgrade']);
  let s = await a.status();
  assert.equal(s.result, 'refused');
  assert.match(s.detail, /older database schema/);
  assert.equal(await a.version(), '2.0.0');
  // 1.0.6 was never left, so there is no backup of its database.
  await helper(['--branch', 'old', '--allow-downgrade', '--restore-backup']);
  s = await a.status();
  assert.equal(s.result, 'refused');
  assert.match(s.detail, /no database backup of 1\.0\.6/);
  // Back to 1.0.5, which was left when 2.0.0 was installed: its database comes back.
  await repo.branchAt('old', 'v1.0.5');
  const backup105 = await readFile(join(a.prefix, 'backups/1.0.5/netprobe.db'), 'utf8');
  await helper(['--branch', 'old', '--allow-downgrade', '--restore-backup']);
  s = await a.status();
  assert.equal(s.result, 'updated', s.detail);
  assert.equal(await a.version(), '1.0.5');
  const db = await a.db();
  assert.ok(db.startsWith(backup105) && !db.startsWith(db200));
});

test('only the running release and the two before it are kept', async () => {
  const releases = (await readdir(join(a.prefix, 'releases'))).filter((n) => !n.startsWith('.')).sort();
  assert.ok(releases.length <= 3, releases.join(', '));
  assert.ok(releases.includes('1.0.5') && releases.includes('2.0.0'), releases.join(', '));
  for (const b of await readdir(join(a.prefix, 'backups'))) assert.ok(releases.includes(b) || b === '1.0.5', `backup ${b} of a pruned release`);
});

test('a second helper while one runs is turned away by the lock', async () => {
  const lock = run('flock', [join(a.cache, 'update.lock'), 'sleep', '3'], { timeoutMs: 10_000 });
  await new Promise((r) => setTimeout(r, 300));
  const r = await helper(['--branch', 'stable']);
  assert.equal(r.code, 75, r.stdout + r.stderr);
  assert.match(r.stderr, /another update is running/);
  await lock;
});

const asRoot = { skip: process.getuid?.() !== 0 ? 'changing owners needs root' : false };

describe('a file:// source must be root\'s alone, above it and in it (root only)', asRoot, () => {
  let base: string;
  before(async () => {
    base = await mkdtemp(join(tmpdir(), 'netprobe-local-source-'));
    await repo.publish('local', { version: '4.0.0' });
  });
  after(() => rm(base, { recursive: true, force: true }));

  test('a source under a directory of another user, a group-writable one, or holding another user\'s file is refused unfetched', async () => {
    const copy = async (dir: string) => {
      await mkdir(dir, { recursive: true });
      const r = await run('git', ['clone', '--quiet', '--mirror', repo.bare, join(dir, 'netprobe.git')]);
      assert.equal(r.code, 0, r.stderr);
      return join(dir, 'netprobe.git');
    };
    const nobody = await copy(join(base, 'nobody'));
    await chown(join(base, 'nobody'), 65534, 65534);
    const groupWritable = await copy(join(base, 'group'));
    await chmod(join(base, 'group'), 0o775);
    const inside = await copy(join(base, 'inside'));
    await chown(join(inside, 'refs'), 65534, 65534);
    for (const [src, why] of [[nobody, `${base}/nobody \\(above the source\\)`], [groupWritable, `${base}/group \\(above the source\\)`],
      [inside, `${inside}/refs \\(in the source\\)`]] as const) {
      await a.runHelper(['--url', `file://${src}`, '--branch', 'local'], { signers: repo.signers });
      const s = await a.status();
      assert.equal(s.result, 'refused', `${src}: ${s.detail}`);
      assert.match(s.detail, new RegExp(`the local source is refused: ${why} is not root's or is writable by others`));
      assert.ok(!(await a.progress()).some((p) => p.step === 'fetch'), 'nothing fetched');
      assert.equal(await a.version(), '1.0.5');
    }
  });
});

describe('restoring the database goes through its descriptor (root only)', asRoot, () => {
  let b: Appliance;
  before(async () => {
    b = await makeAppliance('1.0.0');
    // The data directory is the service user's, as on the appliance, so a chown to it would show.
    for (const p of [b.data, join(b.data, 'netprobe.db')]) await chown(p, 65534, 65534);
  });
  after(() => b?.remove());

  test('a link planted at the temporary file while the backup is copied is not followed, and the restore fails', async () => {
    await repo.publish('older', { version: '0.9.0', schema: { core: 0 } });
    const backup = join(b.prefix, 'backups', '0.9.0');
    await mkdir(backup, { recursive: true });
    await writeFile(join(backup, 'backup.json'), JSON.stringify({ version: '0.9.0', files: [{ name: 'netprobe.db', mode: 0o600 }] }));
    // A FIFO as the backed-up database holds the helper in the copy, after it made the temporary file.
    assert.equal((await run('mkfifo', [join(backup, 'netprobe.db')])).code, 0);
    const victim = join(b.dir, 'victim');
    await writeFile(victim, "root's own file\n", { mode: 0o644 });
    const helperRun = b.runHelper(['--url', repo.url, '--branch', 'older', '--allow-downgrade', '--restore-backup'], { signers: repo.signers });
    const writer = await open(join(backup, 'netprobe.db'), 'w'); // opens once the helper reads it
    const tmp = join(b.data, '.netprobe.db.restore.tmp');
    for (const end = Date.now() + 20_000; !existsSync(tmp); await new Promise((r) => setTimeout(r, 10))) assert.ok(Date.now() < end, 'no temporary file');
    await rm(tmp);
    await symlink(victim, tmp);
    await writer.write('database of 0.9.0\n');
    await writer.close();
    const r = await helperRun;
    const st = await stat(victim);
    assert.deepEqual([st.uid, st.mode & 0o777], [0, 0o644], 'the file behind the link kept its owner and mode');
    assert.equal(await readFile(victim, 'utf8'), "root's own file\n");
    const s = await b.status();
    assert.equal(s.result, 'failed', s.detail + r.stdout + r.stderr);
    assert.match(s.detail, /was replaced while the backup was copied into it/);
    // Started again as the helper gave up; it may take a moment to listen.
    for (const end = Date.now() + 20_000; (await b.version()) !== '1.0.0'; await new Promise((r) => setTimeout(r, 50))) {
      assert.ok(Date.now() < end, `1.0.0 is not serving again: ${await b.log()}`);
    }
  });
});

describe('the disk filling up (a small tmpfs as the release prefix; root only)', { skip: process.getuid?.() !== 0 ? 'mounting a tmpfs needs root' : false }, () => {
  let small: Appliance;
  let mnt: string;
  before(async () => {
    mnt = await mkdtemp(join(tmpdir(), 'netprobe-full-'));
    const m = await run('mount', ['-t', 'tmpfs', '-o', 'size=3m', 'tmpfs', mnt]);
    if (m.code !== 0) throw new Error(`mount: ${m.stderr}`);
    await mkdir(join(mnt, 'x'));
    small = await makeAppliance('1.0.0', { dir: join(mnt, 'x') });
  });
  after(async () => {
    await small?.stop();
    await run('umount', [mnt]);
    await rm(mnt, { recursive: true, force: true });
  });

  test('a release larger than the free space is refused before anything is written', async () => {
    await repo.publish('big', { version: '3.0.0', bigFileBytes: 8 * 1024 * 1024 });
    await small.runHelper(['--url', repo.url, '--branch', 'big', '--min-free-mb', '0'], { signers: repo.signers });
    const s = await small.status();
    assert.equal(s.result, 'refused');
    assert.match(s.detail, /not enough free space/);
    assert.equal(await small.version(), '1.0.0');
  });

  test('the disk full while unpacking (many small files, more blocks than bytes): failed, nothing half-installed, old release serving', async () => {
    await repo.publish('many', { version: '3.1.0', padFiles: 1500 });
    const dbBefore = await small.db();
    await small.runHelper(['--url', repo.url, '--branch', 'many', '--min-free-mb', '0'], { signers: repo.signers });
    const s = await small.status();
    assert.equal(s.result, 'failed', s.detail);
    assert.match(s.detail, /No space left on device/);
    assert.equal(await small.version(), '1.0.0');
    assert.equal(await small.current(), 'releases/1.0.0');
    assert.equal(await small.db(), dbBefore);
    const left = await readdir(join(small.prefix, 'releases'));
    assert.deepEqual(left, ['1.0.0'], 'no partial release and no temporary directory');
  });
});
