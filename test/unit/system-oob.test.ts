// Out-of-band access, piece by piece: the cut-off guard's address matching, reading `tailscale up --json`
// blocks, the errors made from each program's exact texts, install hints per OS and architecture, the
// token-copy script of netprobe-zerotier-token.service, and the fakes' fidelity to the real programs'
// bytes (streams, exit codes, indentation, trailing newlines).
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, test } from 'node:test';
import type { RunResult } from '../../src/core/exec.js';
import { guardCutOff, matchOverlay, parseRange, plainAddress, TAILSCALE_RANGES } from '../../src/modules/system/oob/overlay-guard.js';
import { jsonBlocks, tailscaleFailure } from '../../src/modules/system/oob/tailscale-cli.js';
import { zeroTierFailure } from '../../src/modules/system/oob/zerotier-cli.js';
import { installHintsFor, parseOsRelease } from '../../src/modules/system/oob/install-hints.js';
import { HttpError } from '../../src/core/errors.js';

const result = (code: number, stdout: string, stderr = ''): RunResult =>
  ({ code, signal: null, stdout, stderr, duration_ms: 1, timed_out: false, truncated: false });

describe('cut-off guard', () => {
  test('addresses: IPv4-mapped and zoned forms normalised, junk refused', () => {
    assert.equal(plainAddress('::ffff:10.147.17.9'), '10.147.17.9');
    assert.equal(plainAddress('fe80::1%zt0'), 'fe80::1');
    assert.equal(plainAddress('not-an-ip'), null);
    assert.deepEqual(parseRange('10.147.17.5/24'), { address: '10.147.17.5', prefix: 24, family: 'ipv4' });
    assert.equal(parseRange('10.0.0.1/33'), null);
    assert.equal(parseRange('10.0.0.1/24/1'), null);
    assert.equal(parseRange('100.101.102.103')?.prefix, 32);
  });

  test('an assigned address covers its whole subnet; Tailscale ranges cover CGNAT and its ULA', () => {
    assert.deepEqual(matchOverlay(['10.147.17.200'], ['10.147.17.5/24']), { address: '10.147.17.200', range: '10.147.17.5/24' });
    assert.equal(matchOverlay(['10.147.18.1'], ['10.147.17.5/24']), null);
    assert.ok(matchOverlay(['100.127.255.254'], TAILSCALE_RANGES));
    assert.equal(matchOverlay(['100.128.0.1'], TAILSCALE_RANGES), null);
    assert.ok(matchOverlay(['fd7a:115c:a1e0:ab12::1'], TAILSCALE_RANGES));
    assert.equal(matchOverlay(['fd7a:115c:a1e1::1'], TAILSCALE_RANGES), null);
    assert.equal(matchOverlay(['192.168.1.10'], ['garbage', '']), null);
  });

  test('409 would_cut_off unless confirmed', () => {
    assert.throws(() => guardCutOff({ what: 'Tailscale', addresses: ['100.64.0.7'], ranges: TAILSCALE_RANGES, confirm: undefined }),
      (e: unknown) => e instanceof HttpError && e.status === 409 && e.code === 'would_cut_off');
    guardCutOff({ what: 'Tailscale', addresses: ['100.64.0.7'], ranges: TAILSCALE_RANGES, confirm: true });
    guardCutOff({ what: 'Tailscale', addresses: ['192.168.1.7'], ranges: TAILSCALE_RANGES, confirm: undefined });
  });
});

describe('tailscale up --json output', () => {
  test('a tab-indented first block, then two-space ones, with a warning line between', () => {
    const out = '{\n\t"AuthURL": "https://login.tailscale.com/a/abc",\n\t"QR": "data:image/png;base64,iVBOR{}w==",\n' +
      '\t"BackendState": "NeedsLogin"\n}\nWarning: something "odd" {here\n{\n  "BackendState": "Running"\n}\n';
    const blocks = jsonBlocks(out);
    assert.equal(blocks.length, 2);
    assert.equal(blocks[0]!.AuthURL, 'https://login.tailscale.com/a/abc');
    assert.equal(blocks[1]!.BackendState, 'Running');
  });
});

describe('errors from the programs\' own texts', () => {
  const s = { home: '', tokenHome: '/var/lib/netprobe', timeoutMs: 15_000 };
  const zt = (r: RunResult) => zeroTierFailure('join', r, s);
  test('zerotier-cli', () => {
    assert.equal(zt(result(2, '', 'zerotier-cli: authtoken.secret not found or readable in /var/lib/zerotier-one (try again as root)\n')).code,
      'zerotier_token_missing');
    assert.equal(zt(result(2, '', 'zerotier-cli: missing port and zerotier-one.port not found in /var/lib/zerotier-one\n')).code,
      'zerotier_service_down');
    assert.equal(zt(result(1, 'Error connecting to the ZeroTier service: connection failed\n\nPlease check that the service is running ' +
      'and that TCP port 9993 can be contacted via 127.0.0.1.\n')).code, 'zerotier_service_down');
    assert.equal(zt(result(1, '0 join connection failed\n')).code, 'zerotier_service_down');
    assert.equal(zt(result(1, '401 join {}\n')).code, 'zerotier_token_rejected');
    assert.equal(zt(result(2, 'invalid network id\n')).status, 400);
    assert.equal(zt(result(1, '404 join \n')).code, 'zerotier_error');
    assert.equal(zt({ ...result(-1, ''), timed_out: true }).status, 504);
  });
  test('tailscale, with the key never in the detail', () => {
    const ts = (r: RunResult, redact: string[] = []) => tailscaleFailure('up', r, 60_000, redact);
    assert.equal(ts(result(1, '', "failed to connect to local tailscaled; it doesn't appear to be running (sudo systemctl start tailscaled ?)\n"))
      .code, 'tailscale_daemon_down');
    assert.equal(ts(result(1, '', 'error fetching current status: Failed to connect to local Tailscale daemon for /localapi/v0/status; ' +
      'not running? Error: dial unix /var/run/tailscale/tailscaled.sock: connect: no such file or directory\n')).code, 'tailscale_daemon_down');
    assert.equal(ts(result(1, '', 'Access denied: prefs write access denied\n')).code, 'tailscale_access_denied');
    assert.equal(ts(result(1, '', "Error: changing settings via 'tailscale up' requires mentioning all\n...")).code, 'tailscale_settings_conflict');
    assert.equal(ts(result(1, '', 'timeout waiting for Tailscale service to enter a Running state; check health with "tailscale status"\n'))
      .code, 'tailscale_up_timeout');
    const e = ts(result(1, '', 'backend error: invalid key: tskey-auth-SECRET is not valid\n'), ['tskey-auth-SECRET']);
    assert.equal(e.code, 'invalid_auth_key');
    assert.ok(!e.message.includes('SECRET'));
  });
});

describe('install hints', () => {
  test('Debian 13 on a 64-bit Pi, 32-bit Raspberry Pi OS, and an OS without vendor packages', () => {
    const trixie = parseOsRelease('PRETTY_NAME="Debian GNU/Linux 13 (trixie)"\nID=debian\nVERSION_CODENAME=trixie\n');
    const ts = installHintsFor('tailscale', trixie, 'arm64');
    assert.ok(ts.supported);
    assert.ok(ts.commands.some((c) => c.includes('https://pkgs.tailscale.com/stable/debian/trixie.noarmor.gpg')));
    assert.ok(ts.after.includes('sudo tailscale set --operator=netprobe'));
    assert.match(installHintsFor('zerotier', trixie, 'arm64').summary, /arm64/);

    const raspbian = parseOsRelease('ID=raspbian\nID_LIKE=debian\nVERSION_CODENAME=bookworm\nPRETTY_NAME="Raspbian GNU/Linux 12 (bookworm)"\n');
    assert.ok(installHintsFor('tailscale', raspbian, 'arm').commands.some((c) => c.includes('/stable/raspbian/bookworm.')));

    const alpine = parseOsRelease('ID=alpine\nPRETTY_NAME="Alpine Linux v3.20"\n');
    assert.equal(installHintsFor('tailscale', alpine, 'x64').supported, false);
    assert.equal(installHintsFor('zerotier', alpine, 'x64').supported, false);
    assert.deepEqual(installHintsFor('zerotier', alpine, 'x64').commands, []);
  });
});

describe('scripts/zerotier-token.sh', () => {
  test('copies the token byte for byte, 0600, replacing an older copy; refuses something that is not a token', () => {
    const dir = mkdtempSync(join(tmpdir(), 'netprobe-zt-token-'));
    const src = join(dir, 'cred'), dst = join(dir, '.zeroTierOneAuthToken');
    writeFileSync(src, 'p8yqzt0xwuq6fblv3kh2rm1n');
    writeFileSync(dst, 'old', { mode: 0o644 });
    execFileSync('sh', ['scripts/zerotier-token.sh', src, dst]);
    assert.equal(readFileSync(dst, 'utf8'), 'p8yqzt0xwuq6fblv3kh2rm1n');
    assert.equal(statSync(dst).mode & 0o777, 0o600);
    const again = execFileSync('sh', ['scripts/zerotier-token.sh', src, dst], { encoding: 'utf8' });
    assert.equal(again, '', 'unchanged: nothing written');
    writeFileSync(src, 'x'.repeat(1000));
    assert.notEqual(spawnSync('sh', ['scripts/zerotier-token.sh', src, dst]).status, 0);
    assert.equal(readFileSync(dst, 'utf8'), 'p8yqzt0xwuq6fblv3kh2rm1n');
  });
});

describe('the fakes reproduce the real programs\' bytes', () => {
  const run = (prog: string, args: string[], env: Record<string, string>) => {
    const r = spawnSync(resolve('test/fakes/oob', prog), args, { env: { ...process.env, ...env }, encoding: 'utf8' });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  };
  test('zerotier-cli: streams, exit codes, dump(1) with sorted keys and a newline, compact join', () => {
    const dir = mkdtempSync(join(tmpdir(), 'netprobe-fake-zt-'));
    const home = join(dir, 'home');
    mkdirSync(home);
    writeFileSync(join(home, 'zerotier-one.port'), '9993');
    const state = join(dir, 'zt.json');
    writeFileSync(state, JSON.stringify({ running: true, authtoken: 'tok' }));
    const env = { FAKE_ZT_STATE: state, FAKE_ZT_HOME: home, HOME: dir };
    let r = run('zerotier-cli', ['info'], env);
    assert.equal(r.code, 2);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /authtoken\.secret not found or readable in .* \(try again as root\)\n$/);
    writeFileSync(join(dir, '.zeroTierOneAuthToken'), 'tok');
    assert.equal(run('zerotier-cli', ['join', 'abc'], env).stdout, 'invalid network id\n');
    assert.equal(run('zerotier-cli', ['join', 'abc'], env).code, 2);
    r = run('zerotier-cli', ['join', 'zzzzzzzzzzzzzzzz'], env);
    assert.deepEqual([r.code, r.stdout], [1, '404 join \n']);
    r = run('zerotier-cli', ['-j', 'join', '8056c2e21c000001'], env);
    assert.equal(r.code, 0);
    assert.ok(r.stdout.startsWith('{"allowDNS":false,'), r.stdout);
    assert.ok(!r.stdout.endsWith('\n'));
    r = run('zerotier-cli', ['-j', 'listnetworks'], env);
    assert.ok(r.stdout.startsWith('[\n {\n  "allowDNS": false,\n  "allowDefault": false,'), r.stdout);
    assert.ok(r.stdout.endsWith('\n]\n'));
    assert.equal(run('zerotier-cli', ['leave', 'ffffffffffffff01'], env).stdout, '200 leave OK\n');
    assert.equal(run('zerotier-cli', ['-j', 'leave', 'ffffffffffffff01'], env).stdout, '{}');
    assert.equal(run('zerotier-cli', ['-j', 'leave', '8056c2e21c000001'], env).stdout, '{"result":true}');
    writeFileSync(state, JSON.stringify({ running: false, authtoken: 'tok' }));
    r = run('zerotier-cli', ['info'], env);
    assert.deepEqual([r.code, r.stderr], [1, '']);
    assert.match(r.stdout, /^Error connecting to the ZeroTier service: connection failed\n\nPlease check/);
    assert.equal(run('zerotier-cli', ['join', '8056c2e21c000001'], env).stdout, '0 join connection failed\n');
  });

  test('tailscale: status --json without a newline, up blocks in their indentation, "already stopped"', () => {
    const dir = mkdtempSync(join(tmpdir(), 'netprobe-fake-ts-'));
    const state = join(dir, 'ts.json');
    writeFileSync(state, JSON.stringify({ daemon: true, backend_state: 'NeedsLogin', valid_auth_keys: ['tskey-auth-x1'], ips: ['100.64.1.2'] }));
    const env = { FAKE_TS_STATE: state };
    let r = run('tailscale', ['status', '--json'], env);
    assert.equal(r.code, 0);
    assert.ok(r.stdout.startsWith('{\n  "Version": '));
    assert.ok(r.stdout.endsWith('}'), 'no trailing newline');
    assert.deepEqual(Object.keys(JSON.parse(r.stdout)).slice(0, 6), ['Version', 'TUN', 'BackendState', 'AuthURL', 'TailscaleIPs', 'Self']);
    r = run('tailscale', ['up', '--json', '--timeout=200ms'], env);
    assert.equal(r.code, 1);
    assert.match(r.stdout, /^\{\n\t"AuthURL": "https:\/\/login\.tailscale\.com\/a\/[0-9a-f]+",\n\t"QR": "data:image\/png;base64,/);
    assert.equal(r.stderr, 'timeout waiting for Tailscale service to enter a Running state; check health with "tailscale status"\n');
    const keyFile = join(dir, 'key');
    writeFileSync(keyFile, 'tskey-auth-x1\n');
    r = run('tailscale', ['up', '--json', '--auth-key', `file:${keyFile}`], env);
    assert.deepEqual([r.code, r.stdout, r.stderr], [0, '{\n  "BackendState": "Running"\n}\n', '']);
    assert.deepEqual(run('tailscale', ['down'], env), { code: 0, stdout: '', stderr: '' });
    assert.deepEqual(run('tailscale', ['down'], env), { code: 0, stdout: '', stderr: 'Tailscale was already stopped.\n' });
    r = run('tailscale', ['status'], env);
    assert.deepEqual([r.code, r.stdout], [1, 'Tailscale is stopped.\n']);
    writeFileSync(state, JSON.stringify({ daemon: false }));
    r = run('tailscale', ['status', '--json'], env);
    assert.deepEqual([r.code, r.stdout], [1, '']);
    assert.match(r.stderr, /^failed to connect to local tailscaled; it doesn't appear to be running/);
  });
});
