// The systemd units, checked the way they will run: scripts/install.sh installs the release into a root
// file system (an overlay of this machine's own root, so nothing here changes), then systemd-analyze
// verifies the installed units against that root and rates their sandbox (printed; must stay <= 3.0).
// A second install into the same root must change nothing. Needs root (it mounts the overlay).
// Debian packages are not installed here (--no-apt: the host keeps its own); the image test
// (./build.sh test-image) runs the whole install, packages included, in a Debian 13 arm64 root.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readlink, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { run } from '../../src/core/exec.js';
import { exposure, installReport, VERSION } from './release.js';
import { installRoot, type InstallRoot } from './root.js';

let r: InstallRoot;
let root = '';
before(async () => { r = await installRoot(); root = r.path; });
after(() => r?.remove());

test('install.sh installs the release, the units and the appliance settings into the root', async () => {
  const out = (await r.install()).stdout;
  const { changes, summary } = installReport(out);
  console.log(out.trim().replace(/^/gm, '  first run | '));
  assert.match(summary, /^install\.sh: \d+ changes$/);
  for (const expected of [`release ${VERSION} in /opt/netprobe/releases/${VERSION}`, 'enabled netprobe.service', 'enabled netprobe-boot-password.path',
    'enabled netprobe-update.path', 'enabled netprobe-zerotier-token.path']) {
    assert.ok(changes.includes(expected), `expected "${expected}" in:\n${changes.join('\n')}`);
  }
  assert.equal(await readlink(join(root, 'opt/netprobe/current')), `releases/${VERSION}`);
  const passwd = await readFile(join(root, 'etc/passwd'), 'utf8');
  assert.match(passwd, /^netprobe:x:\d+:\d+:netprobe service:\/var\/lib\/netprobe:\/usr\/sbin\/nologin$/m);
  assert.equal((await stat(join(root, 'opt/netprobe/current/dist/src/main.js'))).uid, 0, 'the service cannot modify its own code');
  assert.match(await readFile(join(root, 'etc/avahi/services/netprobe.service'), 'utf8'), /<type>_http._tcp<\/type>\s*<port>8080<\/port>/);
  assert.match(await readFile(join(root, 'etc/systemd/journald.conf.d/netprobe.conf'), 'utf8'), /Storage=volatile/);
  assert.equal(await readlink(join(root, 'etc/systemd/system/multi-user.target.wants/netprobe.service')), '/etc/systemd/system/netprobe.service');
});

test('systemd-analyze verify accepts the installed units', async () => {
  const v = await run('systemd-analyze', ['verify', `--root=${root}`, 'netprobe.service', 'netprobe-boot-password.path', 'netprobe-boot-password.service',
    'netprobe-update.path', 'netprobe-update.service', 'netprobe-zerotier-token.path', 'netprobe-zerotier-token.service'], { timeoutMs: 60_000 });
  const ours = (v.stdout + v.stderr).split('\n').filter((l) => /netprobe/.test(l));
  assert.equal(v.code, 0, v.stdout + v.stderr);
  assert.deepEqual(ours, [], 'no warnings about our units');
});

test('systemd-analyze security: the exposure of every service (aim: 3.0 or lower)', async () => {
  for (const unit of ['netprobe.service', 'netprobe-boot-password.service', 'netprobe-update.service', 'netprobe-zerotier-token.service']) {
    const sec = await run('systemd-analyze', ['security', '--offline=true', `--root=${root}`, '--no-pager', unit], { timeoutMs: 60_000 });
    const level = exposure(sec.stdout);
    const version = (await run('systemd-analyze', ['--version'])).stdout.split('\n')[0];
    console.log(`  systemd-analyze security ${unit}: ${level} (${version})`);
    // The settings that cost points (✗ in a UTF-8 locale, "-" in the C locale exec.ts runs programs in).
    for (const line of sec.stdout.split('\n').filter((l) => /^(✗|-) /.test(l))) console.log(`    ${line.replace(/\s{2,}/g, '  ').trim()}`);
    assert.ok(level <= 3.0, `${unit}: exposure ${level} is above 3.0`);
  }
});

test('a second install into the same root changes nothing', async () => {
  const out = (await r.install()).stdout;
  const { changes, summary } = installReport(out);
  assert.deepEqual(changes, [], out);
  assert.equal(summary, 'install.sh: no changes');
});
