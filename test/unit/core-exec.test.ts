import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { childStats, installHint, MAX_CHILDREN, run, which } from '../../src/core/exec.js';
import { HttpError } from '../../src/core/errors.js';

function readFileSafe(p: string): string {
  try { return readFileSync(p, 'utf8'); } catch { return ''; }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Live (non-zombie) processes as pid -> process group, from /proc. */
function processes(): Map<number, number> {
  const out = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // stat is "pid (comm) state ppid pgrp ..."; comm may hold spaces, so split after the last ')'.
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (state !== 'Z' && state !== 'X') out.set(Number(name), Number(pgrp));
    } catch { /* exited while we looked */ }
  }
  return out;
}
/** True while the process runs; a zombie (exited, not yet reaped by init) counts as gone. */
const alive = (pid: number) => processes().has(pid);
const groupAlive = (pgid: number) => [...processes().values()].includes(pgid);

async function waitGone(check: () => boolean, ms = 3000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (!check()) return true;
    await sleep(25);
  }
  return !check();
}

test('true exits 0 with empty output', async () => {
  const r = await run('true', []);
  assert.equal(r.code, 0);
  assert.equal(r.signal, null);
  assert.equal(r.stdout, '');
  assert.equal(r.stderr, '');
  assert.equal(r.timed_out, false);
  assert.equal(r.truncated, false);
  assert.ok(r.duration_ms >= 0);
});

test('a non-zero exit is a result, not an error', async () => {
  const r = await run('sh', ['-c', 'echo out; echo err >&2; exit 3']);
  assert.equal(r.code, 3);
  assert.equal(r.stdout, 'out\n');
  assert.equal(r.stderr, 'err\n');
});

test('shell metacharacters in arguments are passed literally', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'netprobe-exec-'));
  try {
    const marker = join(dir, 'pwned');
    const nasty = ['$(touch ' + marker + ')', '`touch ' + marker + '`', '; touch ' + marker, '| cat', '&& echo hi', '*', '$HOME', "'\"", 'a b'];
    const r = await run('printf', ['%s\\n', ...nasty]);
    assert.equal(r.code, 0);
    assert.deepEqual(r.stdout.split('\n').slice(0, -1), nasty);
    await assert.rejects(readFile(marker), { code: 'ENOENT' });
  } finally { await rm(dir, { recursive: true, force: true }); }
});

test('stdin input, env and cwd reach the program', async () => {
  const r = await run('sh', ['-c', 'cat; echo "$NETPROBE_X"; pwd'], { input: 'hello\n', env: { NETPROBE_X: 'y z' }, cwd: '/tmp' });
  assert.equal(r.stdout, 'hello\ny z\n/tmp\n');
  const c = await run('sh', ['-c', 'echo "$LC_ALL"']);
  assert.equal(c.stdout, 'C\n');
});

test('a sleep killed by the timeout leaves no orphan, not even a grandchild', async () => {
  // sh is the group leader; its background sleep is a grandchild in the same group.
  const r = await run('sh', ['-c', 'sleep 30 & echo $$ $!; wait'], { timeoutMs: 300 });
  assert.equal(r.timed_out, true);
  assert.equal(r.code, null);
  assert.equal(r.signal, 'SIGTERM');
  const [shPid, sleepPid] = r.stdout.trim().split(' ').map(Number);
  assert.ok(shPid && sleepPid, `pids: ${r.stdout}`);
  assert.ok(await waitGone(() => alive(sleepPid!)), 'grandchild sleep still alive');
  assert.ok(await waitGone(() => alive(shPid!)), 'sh still alive');
  assert.ok(await waitGone(() => groupAlive(shPid!)), 'process group still alive');
});

test('a plain sleep 30 is killed by the timeout', async () => {
  const before = new Set(processes().keys());
  const r = await run('sleep', ['30'], { timeoutMs: 200 });
  assert.equal(r.timed_out, true);
  assert.equal(r.signal, 'SIGTERM');
  // No new process leads its own group (as run's children do) and is still a sleep 30.
  const leftovers = () => [...processes()].filter(([pid, pgrp]) => pid === pgrp && !before.has(pid) &&
    readFileSafe(`/proc/${pid}/cmdline`) === 'sleep\0' + '30\0');
  assert.ok(await waitGone(() => leftovers().length > 0), 'a sleep 30 survived');
});

test('a program ignoring SIGTERM is SIGKILLed after the grace', async () => {
  const r = await run('sh', ['-c', "trap '' TERM; echo $$; while :; do sleep 0.05; done"], { timeoutMs: 200, killGraceMs: 300 });
  assert.equal(r.timed_out, true);
  assert.equal(r.signal, 'SIGKILL');
  const pid = Number(r.stdout.trim());
  assert.ok(await waitGone(() => groupAlive(pid)), 'group still alive');
});

test('abort kills the group and rejects with the reason', async () => {
  const ac = new AbortController();
  const p = run('sh', ['-c', 'echo $$; sleep 30'], { signal: ac.signal });
  await sleep(200);
  ac.abort(new Error('cancelled by test'));
  await assert.rejects(p, /cancelled by test/);

  const pre = new AbortController();
  pre.abort();
  await assert.rejects(run('true', [], { signal: pre.signal }), { name: 'AbortError' });
});

test('helpers left behind after a normal exit are cleaned up', async () => {
  // The background sleep closes its output so run() returns while it still lives.
  const r = await run('sh', ['-c', 'sleep 30 >/dev/null 2>&1 & echo $!']);
  assert.equal(r.code, 0);
  const pid = Number(r.stdout.trim());
  assert.ok(await waitGone(() => alive(pid)), 'leftover sleep still alive');
});

test('a missing program is a 503 with an install hint', async () => {
  await assert.rejects(run('netprobe-no-such-program', ['x']), (e: unknown) => {
    assert.ok(e instanceof HttpError);
    assert.equal(e.status, 503);
    assert.equal(e.code, 'program_missing');
    assert.match(e.message, /netprobe-no-such-program/);
    assert.equal(typeof e.extra?.install_hint, 'string');
    return true;
  });
  // A known program on an empty PATH: the hint names its package.
  await assert.rejects(run('fping', ['127.0.0.1'], { env: { PATH: '/nonexistent' } }), (e: unknown) => {
    assert.ok(e instanceof HttpError);
    assert.equal(e.status, 503);
    assert.equal(e.extra?.install_hint, 'apt-get install fping');
    assert.match(e.message, /fping/);
    assert.match(e.message, /apt-get install fping/);
    const p = e.toProblem();
    assert.equal(p.install_hint, 'apt-get install fping');
    return true;
  });
  assert.equal(installHint('snmpwalk'), 'apt-get install snmp');
  assert.equal(installHint('/usr/bin/dig'), 'apt-get install bind9-dnsutils');
  assert.equal(installHint('ip'), 'apt-get install iproute2');
  assert.match(installHint('zerotier-cli'), /zerotier\.com/);
});

test('output beyond maxBytes is discarded and flagged', async () => {
  const r = await run('sh', ['-c', 'head -c 100000 /dev/zero | tr "\\0" a; echo done >&2'], { maxBytes: 1000 });
  assert.equal(r.code, 0);
  assert.equal(r.truncated, true);
  assert.equal(r.stdout.length + r.stderr.length, 1000);
  assert.equal(r.stdout, 'a'.repeat(1000));
});

test('which() searches PATH without a shell', async () => {
  const sh = await which('sh');
  assert.ok(sh && sh.endsWith('/sh'));
  assert.equal(await which('netprobe-no-such-program'), null);
  assert.equal(await which('sh', { PATH: '/nonexistent' }), null);
  assert.equal(await which(sh!), sh);
  assert.equal(await which('/etc/passwd'), null); // not executable
  assert.equal(await which('/tmp'), null); // a directory
});

test('at most MAX_CHILDREN programs run at once; the rest wait their turn, and one aborted while waiting leaves', async () => {
  const n = MAX_CHILDREN + 6;
  let most = 0;
  const watch = setInterval(() => {
    const kids = readFileSafe(`/proc/${process.pid}/task/${process.pid}/children`).trim().split(/\s+/).filter(Boolean);
    most = Math.max(most, kids.length);
  }, 5);
  const ac = new AbortController();
  const runs = Array.from({ length: n }, () => run('sleep', ['0.3']));
  const waiter = run('sleep', ['0.3'], { signal: ac.signal });
  await sleep(50);
  assert.deepEqual(childStats(), { running: MAX_CHILDREN, waiting: n - MAX_CHILDREN + 1 });
  ac.abort(new Error('no longer wanted'));
  await assert.rejects(waiter, /no longer wanted/);
  assert.equal(childStats().waiting, n - MAX_CHILDREN);
  const results = await Promise.all(runs);
  clearInterval(watch);
  assert.ok(results.every((r) => r.code === 0));
  assert.ok(most <= MAX_CHILDREN, `${most} children at once`);
  assert.deepEqual(childStats(), { running: 0, waiting: 0 });
});
