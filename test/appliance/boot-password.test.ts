// scripts/boot-password.sh, which netprobe-boot-password.service runs as root whenever the service
// creates or removes its one-time password file: the copy on the boot partition follows the file, and
// nothing but a password file of the service user's is ever copied.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { run } from '../../src/core/exec.js';

const SCRIPT = fileURLToPath(new URL('../../scripts/boot-password.sh', import.meta.url));
const me = userInfo().username;
let dir: string, src: string, boot: string, dst: string;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'netprobe-bootpw-'));
  src = join(dir, 'data', 'initial-admin-password');
  boot = join(dir, 'boot', 'firmware');
  dst = join(boot, 'netprobe-admin-password.txt');
  await mkdir(join(dir, 'data'));
  await mkdir(boot, { recursive: true });
});
after(() => rm(dir, { recursive: true, force: true }));

const sync = (owner = me, target = dst) => run('sh', [SCRIPT, src, target, owner], { timeoutMs: 10_000 });

test('the password is copied to the boot partition, once', async () => {
  await writeFile(src, 'zSJWRti5dgmDD4NvsNE3eNkk\n', { mode: 0o600 });
  const r = await sync();
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /wrote/);
  const text = await readFile(dst, 'utf8');
  assert.match(text, /password: zSJWRti5dgmDD4NvsNE3eNkk\n/);
  assert.match(text, /user: +admin/);
  assert.match(text, /netprobe\.local:8080/);
  const mtime = (await stat(dst)).mtimeMs;
  const again = await sync();
  assert.equal(again.code, 0);
  assert.equal(again.stdout, '', 'unchanged: not rewritten');
  assert.equal((await stat(dst)).mtimeMs, mtime);
});

test('once setup has removed the password file, the copy goes too', async () => {
  await rm(src);
  const r = await sync();
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /removed/);
  await assert.rejects(stat(dst));
  assert.equal((await sync()).stdout, '', 'nothing left to do');
});

test('without the boot partition directory nothing happens', async () => {
  await writeFile(src, 'zSJWRti5dgmDD4NvsNE3eNkk\n');
  const r = await sync(me, join(dir, 'no-such-boot', 'pw.txt'));
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /nothing to do/);
});

test('refuses anything but a password file owned by the service user', async () => {
  // Owned by someone else (the script is told the service user is "nobody").
  let r = await sync('nobody');
  assert.equal(r.code, 1);
  assert.match(r.stderr, /owned by/);
  // A link to another file (the service user could point it at /etc/shadow).
  await rm(src);
  await writeFile(join(dir, 'secret'), 'root:$y$j9T$abc:19000:0:99999:7:::\n');
  await symlink(join(dir, 'secret'), src);
  r = await sync();
  assert.equal(r.code, 1);
  assert.match(r.stderr, /not a regular file/);
  // Content that is not a one-time password.
  await rm(src);
  await writeFile(src, 'root:$y$j9T$abc:19000:0:99999:7:::\n');
  r = await sync();
  assert.equal(r.code, 1);
  assert.match(r.stderr, /not a one-time password/);
  // A FIFO must not hang it.
  await rm(src);
  execFileSync('mkfifo', [src]);
  r = await sync();
  assert.equal(r.code, 1);
  assert.match(r.stderr, /not a regular file/);
  await assert.rejects(stat(dst), 'nothing was copied');
});
