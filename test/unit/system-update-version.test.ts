// Release versions and what the service reads from `git ls-remote`: semantic-version precedence with
// prereleases (semver.org's own example order), tags that name versions, the release at a branch tip
// (an annotated tag peeling to it; a lightweight tag cannot be signed), and source URLs and the credential's
// environment (never in a URL or argv).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseLsRemote } from '../../src/modules/system/update/git-remote.js';
import { UpdateService } from '../../src/modules/system/update/service.js';
import { authorizationValue, gitEnv, sourceUrlProblem } from '../../src/modules/system/update/source.js';
import { compareVersions, parseVersion, tagVersion } from '../../src/modules/system/update/version.js';

test('semantic-version precedence, prereleases included (semver.org §11)', () => {
  const order = ['1.0.0-alpha', '1.0.0-alpha.1', '1.0.0-alpha.beta', '1.0.0-beta', '1.0.0-beta.2', '1.0.0-beta.11', '1.0.0-rc.1', '1.0.0',
    '1.0.1', '1.1.0', '2.0.0-0', '2.0.0', '10.0.0'];
  const vs = order.map((v) => parseVersion(v)!);
  for (let i = 0; i < vs.length; i++) {
    for (let j = 0; j < vs.length; j++) assert.equal(Math.sign(compareVersions(vs[i]!, vs[j]!)), Math.sign(i - j), `${order[i]} vs ${order[j]}`);
  }
  assert.equal(compareVersions(parseVersion('1.0.0+build.1')!, parseVersion('1.0.0+build.2')!), 0, 'build metadata does not count');
  for (const bad of ['1.0', '01.0.0', '1.0.0-', 'v1.0.0', '1.0.0-01', '']) assert.equal(parseVersion(bad), null, bad);
  assert.equal(tagVersion('v0.2.0')?.raw, '0.2.0');
  assert.equal(tagVersion('0.2.0-beta.1')?.raw, '0.2.0-beta.1');
  assert.equal(tagVersion('release-1'), null);
});

test('ls-remote output: branches, tags and their peeled commits, HEAD, the filter capability', () => {
  const a = 'a'.repeat(40), b = 'b'.repeat(40), t1 = '1'.repeat(40), t2 = '2'.repeat(40);
  const refs = parseLsRemote([
    'ref: refs/heads/main\tHEAD', `${a}\tHEAD`, `${a}\trefs/heads/main`, `${b}\trefs/heads/stable`,
    `${t1}\trefs/tags/v1.0.0`, `${b}\trefs/tags/v1.0.0^{}`, `${t2}\trefs/tags/v0.9.0`, `${b}\trefs/tags/v0.9.0^{}`,
    `${a}\trefs/tags/v2.0.0`, `${b}\trefs/tags/not-a-version`, `${a}\trefs/pull/1/head`,
  ].join('\n'), '12:00 pkt-line.c:80 packet: ls-remote< fetch=shallow wait-for-done filter\n');
  assert.equal(refs.defaultBranch, 'main');
  assert.deepEqual([...refs.heads.keys()], ['main', 'stable']);
  assert.equal(refs.filter, true);
  // On stable: v1.0.0 and v0.9.0 both peel to the tip; the highest wins.
  assert.deepEqual(UpdateService.releaseAt(refs, b), { tag: 'v1.0.0', lightweight: null });
  // On main only a lightweight tag: nothing installable.
  assert.deepEqual(UpdateService.releaseAt(refs, a), { tag: null, lightweight: 'v2.0.0' });
  assert.equal(parseLsRemote('', 'ls-remote< fetch=shallow wait-for-done\n').filter, false);
});

test('source URLs: five transports, no credentials in them', () => {
  for (const ok of ['https://git.example.net/netprobe.git', 'http://127.0.0.1:3000/x.git', 'git://127.0.0.1/x.git',
    'ssh://git@git.example.net/netprobe.git', 'file:///srv/netprobe.git']) assert.equal(sourceUrlProblem(ok), null, ok);
  for (const bad of ['https://user:tok@git.example.net/x.git', 'https://user@git.example.net/x.git', 'ext::sh -c id',
    'ftp://h/x.git', 'file://host/x.git', 'https://h/x.git?token=1', '/srv/netprobe.git', 'https://h/a b']) {
    assert.notEqual(sourceUrlProblem(bad), null, bad);
  }
});

test('the credential reaches git only as an extraHeader from the environment, only for http(s)', () => {
  const env = gitEnv('https://git.example.net/netprobe.git', { username: 'probe', token: 's3cret' });
  assert.equal(env.GIT_CONFIG_COUNT, '1');
  assert.equal(env.GIT_CONFIG_KEY_0, 'http.https://git.example.net/netprobe.git.extraHeader');
  assert.equal(env.GIT_CONFIG_VALUE_0, `Authorization: Basic ${Buffer.from('probe:s3cret').toString('base64')}`);
  assert.equal(env.GIT_TERMINAL_PROMPT, '0');
  assert.equal(authorizationValue({ username: null, token: 's3cret' }), 'Bearer s3cret');
  assert.equal(gitEnv('ssh://git@h/x.git', { username: null, token: 's3cret' }).GIT_CONFIG_COUNT, '0');
  assert.equal(gitEnv('https://h/x.git', null).GIT_CONFIG_COUNT, '0');
});
