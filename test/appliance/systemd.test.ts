// The unit under a real systemd: the root with the release installed (an overlay of this machine's own
// root, see root.ts) is booted in a container (systemd-nspawn, private network: only its own loopback),
// and systemd runs netprobe.service as installed, sandbox, capabilities, notify and watchdog included.
// One drop-in shortens the watchdog to 3 s so that the test sees it work in seconds.
//   - READY=1 through systemd-notify makes the start complete, with the service's status line;
//   - the process runs as netprobe with only CAP_NET_RAW and CAP_NET_BIND_SERVICE, no new privileges,
//     a system call filter; a ping check (fping) works in that sandbox;
//   - the one-time password reaches the boot partition and leaves it once setup is done;
//   - POST /api/restart: 202, a graceful stop, started again (status 75 is no failure); a hung process is killed by the watchdog
//     and started again; systemctl stop: SIGTERM, checkpoint, exit 0.
// Needs root and systemd-nspawn (Debian's systemd-container; ./build.sh test installs it).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Container } from './container.js';
import { installRoot, type InstallRoot } from './root.js';

let r: InstallRoot;
let c: Container;

/** A command in the container, an HTTP request from inside its network, a wait: container.ts. */
const inside = (args: string[], timeoutMs?: number) => c.inside(args, timeoutMs);
const http = (method: string, path: string, opts?: { body?: unknown; cookie?: string }) => c.http(method, path, opts);
const until = <T>(what: string, probe: () => Promise<T | undefined>, ms?: number) => c.until(what, probe, ms);

/** The unit's properties, as systemctl show reports them. */
async function show(...props: string[]): Promise<Record<string, string>> {
  const out = (await inside(['systemctl', 'show', 'netprobe.service', ...props.map((p) => `--property=${p}`)])).stdout;
  return Object.fromEntries(out.trim().split('\n').map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
}

before(async () => {
  r = await installRoot();
  await r.install();
  const root = r.path;
  await mkdir(join(root, 'etc/systemd/system/netprobe.service.d'), { recursive: true });
  await writeFile(join(root, 'etc/systemd/system/netprobe.service.d/test-watchdog.conf'), '[Service]\nWatchdogSec=3s\n');
  await mkdir(join(root, 'boot/firmware'), { recursive: true });
  c = await Container.boot(root);
  // Its systemd answers once the container has come up far enough; the tests wait for netprobe itself.
  await until('systemd in the container', async () =>
    ((await c.tryInside(['systemctl', 'is-enabled', 'netprobe.service'])).code === 0 ? true : undefined));
});

after(async () => {
  await c?.poweroff();
  await r?.remove();
});

test('systemd starts it: ready through systemd-notify, with its status line and the watchdog armed', async () => {
  const s = await until('netprobe.service to be active', async () => {
    const p = await show('ActiveState', 'SubState', 'StatusText', 'WatchdogUSec', 'NRestarts', 'MainPID', 'Type', 'NotifyAccess');
    return p.ActiveState === 'active' ? p : undefined;
  });
  assert.equal(s.Type, 'notify');
  assert.equal(s.NotifyAccess, 'all');
  assert.equal(s.SubState, 'running');
  assert.equal(s.StatusText, 'listening on 0.0.0.0:8080');
  assert.equal(s.WatchdogUSec, '3s');
  assert.equal(s.NRestarts, '0');
});

test('it runs as netprobe with two capabilities, no new privileges and a system call filter', async () => {
  const { MainPID } = await show('MainPID');
  const status = (await inside(['cat', `/proc/${MainPID}/status`])).stdout;
  const field = (name: string) => new RegExp(`^${name}:\\s*(.*)$`, 'm').exec(status)?.[1];
  const uid = (await inside(['id', '-u', 'netprobe'])).stdout.trim();
  assert.equal(field('Uid')!.split(/\s+/)[0], uid);
  // CAP_NET_BIND_SERVICE is bit 10, CAP_NET_RAW bit 13.
  assert.equal(BigInt('0x' + field('CapEff')!), (1n << 10n) | (1n << 13n));
  assert.equal(BigInt('0x' + field('CapBnd')!), (1n << 10n) | (1n << 13n));
  assert.equal(field('NoNewPrivs'), '1');
  assert.equal(field('Seccomp'), '2');
});

test('it answers; a fresh probe sends the browser to the setup wizard; the password is on the boot partition', async () => {
  const v = await until('the API', () => http('GET', '/api/version'));
  assert.equal(v.status, 200);
  assert.equal(v.body.name, 'netprobe');
  assert.deepEqual((await http('GET', '/api/setup/bootstrap-needed')).body, { bootstrap_needed: true });
  const first = await http('GET', '/');
  assert.equal(first.status, 302);
  assert.equal(first.headers.location, '/setup');
  const password = (await inside(['cat', '/var/lib/netprobe/initial-admin-password'])).stdout.trim();
  const copy = await until('the boot partition copy', async () =>
    (await inside(['cat', '/boot/firmware/netprobe-admin-password.txt'])).stdout);
  assert.match(copy, new RegExp(`password: ${password}\n`));
});

let cookie = '';
test('a ping check works inside the sandbox (fping with the ambient CAP_NET_RAW)', async () => {
  // From the probe itself, the first administrator needs no setup code.
  const b = await http('POST', '/api/setup/bootstrap', { body: { username: 'alice', password: 'a long enough passphrase' } });
  assert.equal(b.status, 201, JSON.stringify(b.body));
  const login = await http('POST', '/api/auth/login', { body: { username: 'alice', password: 'a long enough passphrase' } });
  assert.equal(login.status, 200);
  cookie = login.headers['set-cookie']!.split(';')[0]!;
  const m = await http('POST', '/api/monitors', { cookie, body: { name: 'loopback', check_type: 'ping', target: '127.0.0.1', interval: 5, timeout: 4 } });
  assert.equal(m.status, 201, JSON.stringify(m.body));
  const checked = await until('the first ping check', async () => {
    const d = await http('GET', `/api/monitors/${m.body.id}`, { cookie });
    return d.body.status === 'unknown' ? undefined : d.body;
  });
  assert.equal(checked.status, 'up', JSON.stringify(checked));
});

test('once setup is done, the password leaves the boot partition', async () => {
  await until('the boot partition copy to go', async () =>
    ((await c.tryInside(['test', '-e', '/boot/firmware/netprobe-admin-password.txt'])).code === 1 ? true : undefined));
});

test('POST /api/restart answers 202, exits with 75 and systemd starts it again', async () => {
  const before = await show('MainPID', 'NRestarts');
  const res = await http('POST', '/api/restart', { cookie });
  assert.equal(res.status, 202);
  const after = await until('the restarted service', async () => {
    const p = await show('MainPID', 'NRestarts', 'ActiveState', 'StatusText');
    return p.NRestarts === String(Number(before.NRestarts) + 1) && p.ActiveState === 'active' && p.StatusText.startsWith('listening') ? p : undefined;
  });
  assert.notEqual(after.MainPID, before.MainPID);
  const journal = (await inside(['journalctl', '-u', 'netprobe.service', '--no-pager', '-o', 'cat'])).stdout;
  assert.match(journal, /stopping \(restart requested by alice\)[\s\S]*stopped; store checkpointed/);
  // Status 75 is a success (SuccessExitStatus=75): the restart is not recorded as a failure.
  assert.doesNotMatch(journal, /Failed with result/);
  assert.equal((await http('GET', '/api/setup/bootstrap-needed')).body.bootstrap_needed, false, 'the data survived');
});

test('a hung service is caught by the watchdog and started again', async () => {
  const before = await show('MainPID', 'NRestarts');
  await inside(['kill', '-STOP', before.MainPID]);
  const after = await until('the watchdog to restart it', async () => {
    const p = await show('MainPID', 'NRestarts', 'ActiveState');
    return p.NRestarts === String(Number(before.NRestarts) + 1) && p.ActiveState === 'active' ? p : undefined;
  });
  assert.notEqual(after.MainPID, before.MainPID);
  const journal = (await inside(['journalctl', '-u', 'netprobe.service', '--no-pager'])).stdout;
  assert.match(journal, /[Ww]atchdog timeout/);
});

test('systemctl stop: SIGTERM, the store is checkpointed, exit 0', async () => {
  await inside(['systemctl', 'stop', 'netprobe.service'], 90_000);
  const s = await show('ActiveState', 'Result', 'ExecMainStatus');
  assert.equal(s.ActiveState, 'inactive');
  assert.equal(s.Result, 'success');
  assert.equal(s.ExecMainStatus, '0');
  const journal = (await inside(['journalctl', '-u', 'netprobe.service', '--no-pager', '-o', 'cat'])).stdout;
  assert.match(journal, /stopping \(SIGTERM\)\n[\s\S]*stopped; store checkpointed\n[\s\S]*$/);
});
