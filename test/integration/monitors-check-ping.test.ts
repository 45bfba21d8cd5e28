// The ping check through the real fping: loopback addresses, one fping process per batch, and a
// network namespace this test builds (a veth pair in 198.18.0.0/15, the benchmarking range) holding one
// address that answers, next to one that nobody holds. Every packet stays on this machine: the root
// end of the veth owns the small subnet, so the silent address is reached only over the veth.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, rm, rmdir, writeFile } from 'node:fs/promises';
import { run as execRun, type RunOptions } from '../../src/core/exec.js';
import { runCheck } from '../../src/modules/monitors/checks/index.js';
import { batchLimit, PingBatcher, runWith, type ExecFn, type PingSettings } from '../../src/modules/monitors/checks/ping.js';

const fast: PingSettings = { count: 2, packet_size: 56, per_packet_timeout_ms: 200 };
const ctx = { timeout: 10 };

/** A batcher whose exec delegates to the real one and records each fping it starts. */
function countingBatcher(wrap?: (program: string, args: string[]) => [string, string[]]) {
  const calls: { program: string; args: string[]; input: string }[] = [];
  const exec: ExecFn = (program: string, args: string[], opts?: RunOptions) => {
    calls.push({ program, args, input: String(opts?.input ?? '') });
    const [p, a] = wrap ? wrap(program, args) : [program, args];
    return execRun(p, a, opts);
  };
  return { batcher: new PingBatcher({ exec }), calls };
}

describe('ping check on loopback', () => {
  test('127.0.0.1 answers: up with loss and round-trip times', async () => {
    const r = await runCheck('ping', '127.0.0.1', fast, ctx);
    assert.equal(r.status, 'up', r.message);
    assert.equal(r.details.sent, 2);
    assert.equal(r.details.received, 2);
    assert.equal(r.details.loss_pct, 0);
    for (const k of ['rtt_min_ms', 'rtt_avg_ms', 'rtt_max_ms']) assert.equal(typeof r.details[k], 'number', k);
    assert.equal(r.response_time_ms, r.details.rtt_avg_ms);
    assert.equal(r.message, '2/2 replies, 0% loss');
  });

  test('the default settings: 3 packets', async () => {
    const r = await runCheck('ping', '127.0.0.1', {}, ctx);
    assert.equal(r.status, 'up', r.message);
    assert.equal(r.details.sent, 3);
  });

  test('other 127.x addresses, IPv6 loopback and localhost', async () => {
    for (const t of ['127.0.0.2', '127.1.2.3', '::1', 'localhost']) {
      const r = await runCheck('ping', t, fast, ctx);
      assert.equal(r.status, 'up', `${t}: ${r.message}`);
    }
  });

  test('concurrent checks share ONE fping process; duplicates each get a result', async () => {
    const { batcher, calls } = countingBatcher();
    const targets = ['127.0.0.1', '127.0.0.2', '127.0.0.3', '127.0.0.1', 'localhost', '127.0.0.1'];
    const results = await Promise.all(targets.map((t) => runWith(batcher, t, fast, ctx)));
    assert.equal(calls.length, 1, 'one fping for the whole batch');
    assert.equal(calls[0]!.program, 'fping');
    assert.deepEqual(calls[0]!.input.trim().split('\n').sort(), ['127.0.0.1', '127.0.0.2', '127.0.0.3', 'localhost']);
    for (const [i, r] of results.entries()) {
      assert.equal(r.status, 'up', `${targets[i]}: ${r.message}`);
      assert.equal(r.details.received, 2);
    }
  });

  test('a batch holds at most batchLimit checks: more start fping processes side by side', async () => {
    const { batcher, calls } = countingBatcher();
    assert.equal(batchLimit(fast), 10);
    const targets = Array.from({ length: 25 }, (_, i) => `127.0.1.${i + 1}`);
    const results = await Promise.all(targets.map((t) => runWith(batcher, t, fast, ctx)));
    assert.deepEqual(calls.map((c) => c.input.trim().split('\n').length), [10, 10, 5]);
    assert.deepEqual(calls.flatMap((c) => c.input.trim().split('\n')), targets);
    for (const r of results) assert.equal(r.status, 'up', r.message);
  });

  test('different packet settings make separate batches', async () => {
    const { batcher, calls } = countingBatcher();
    const big = { ...fast, packet_size: 1400 };
    const rs = await Promise.all([
      runWith(batcher, '127.0.0.1', fast, ctx), runWith(batcher, '127.0.0.2', big, ctx),
      runWith(batcher, '127.0.0.3', fast, ctx), runWith(batcher, '127.0.0.4', big, ctx),
    ]);
    assert.equal(calls.length, 2);
    assert.ok(calls.some((c) => c.args.join(' ').includes('-b 1400')));
    for (const r of rs) assert.equal(r.status, 'up', r.message);
  });

  test('a missing fping is a down result with the install hint, not a throw', async () => {
    const batcher = new PingBatcher({ program: 'fping-not-installed-here' });
    const r = await runWith(batcher, '127.0.0.1', fast, ctx);
    assert.equal(r.status, 'down');
    assert.equal(r.message, 'fping is not installed (apt-get install fping)');
    assert.equal(r.details.install_hint, 'apt-get install fping');
  });

  test('a check times out on its own deadline and aborts', async () => {
    const slow = { count: 3, packet_size: 56, per_packet_timeout_ms: 1000 };
    const r = await runCheck('ping', '127.0.0.1', slow, { timeout: 0.3 });
    assert.equal(r.status, 'down');
    assert.equal(r.message, 'timed out after 0.3 s waiting for ping replies');
    const ac = new AbortController();
    const p = runCheck('ping', '127.0.0.1', slow, { timeout: 10, signal: ac.signal });
    setTimeout(() => ac.abort(), 50);
    assert.equal((await p).message, 'check aborted');
  });

  test('fping is stopped once every check it serves has timed out or been aborted', async () => {
    const slow = { count: 3, packet_size: 56, per_packet_timeout_ms: 1000 };
    const ends: string[] = [];
    const exec: ExecFn = async (program, args, opts) => {
      try {
        return await execRun(program, args, opts); // rejects when the signal kills fping
      } finally {
        ends.push(opts?.signal?.aborted ? 'stopped' : 'finished');
      }
    };
    const batcher = new PingBatcher({ exec });
    const ac = new AbortController();
    const a = runWith(batcher, '127.0.0.1', slow, { timeout: 0.3 });
    const b = runWith(batcher, '127.0.0.2', slow, { timeout: 10, signal: ac.signal });
    assert.equal((await a).message, 'timed out after 0.3 s waiting for ping replies');
    assert.deepEqual(ends, [], 'the other check still waits for fping');
    ac.abort();
    assert.equal((await b).message, 'check aborted');
    while (!ends.length) await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(ends, ['stopped']);
  });
});

describe('ping check inside a network namespace', () => {
  const ns = `np-ping-${process.pid}`;
  const rootIf = `npr${process.pid}`.slice(0, 15);
  const nsIf = `npn${process.pid}`.slice(0, 15);
  const x = process.pid % 250; // 198.18.<x>.0/29: .1 root end, .2 namespace end, .3 nobody
  const net = `198.18.${x}`;
  const etcNs = `/etc/netns/${ns}`;
  let skip: string | null = null;
  let created = false;

  const ip = async (...args: string[]) => {
    const r = await execRun('ip', args, { timeoutMs: 10_000 });
    if (r.code !== 0) throw new Error(`ip ${args.join(' ')}: ${r.stderr.trim()}`);
  };

  before(async () => {
    const r = await execRun('ip', ['netns', 'add', ns], { timeoutMs: 10_000 });
    if (r.code !== 0) { skip = `cannot create a network namespace here (ip netns add: ${r.stderr.trim()})`; return; }
    created = true;
    await ip('link', 'add', rootIf, 'type', 'veth', 'peer', 'name', nsIf);
    await ip('link', 'set', nsIf, 'netns', ns);
    await ip('addr', 'add', `${net}.1/29`, 'dev', rootIf);
    await ip('link', 'set', rootIf, 'up');
    await ip('-n', ns, 'addr', 'add', `${net}.2/29`, 'dev', nsIf);
    await ip('-n', ns, 'link', 'set', nsIf, 'up');
    await ip('-n', ns, 'link', 'set', 'lo', 'up');
    // `ip netns exec` bind-mounts this over /etc/resolv.conf: name lookups inside stay on the
    // namespace's own loopback, where nothing answers.
    await mkdir(etcNs, { recursive: true });
    await writeFile(`${etcNs}/resolv.conf`, 'nameserver 127.0.0.1\n');
  });

  after(async () => {
    if (!created) return;
    await execRun('ip', ['link', 'del', rootIf], { timeoutMs: 10_000 }).catch(() => undefined);
    await execRun('ip', ['netns', 'del', ns], { timeoutMs: 10_000 }).catch(() => undefined);
    await rm(etcNs, { recursive: true, force: true });
    await rmdir('/etc/netns').catch(() => undefined); // only when empty: others may use it
  });

  test('reachable and silent addresses in one batch', async (t) => {
    if (skip) { t.skip(skip); return; }
    const { batcher, calls } = countingBatcher();
    const [a, b, c] = await Promise.all([
      runWith(batcher, `${net}.2`, fast, ctx),
      runWith(batcher, `${net}.3`, fast, ctx),
      runWith(batcher, '127.0.0.1', fast, ctx),
    ]);
    assert.equal(calls.length, 1);
    assert.equal(a.status, 'up', a.message);
    assert.equal(b.status, 'down');
    assert.match(b.message, /^no reply \(0\/2 received, 100% loss\)/);
    assert.equal(b.details.loss_pct, 100);
    assert.equal(b.details.received, 0);
    assert.equal(b.details.rtt_avg_ms, null);
    assert.equal(b.response_time_ms, null);
    assert.equal(c.status, 'up', c.message);
  });

  test('the silent address through runCheck (the process-wide batcher)', async (t) => {
    if (skip) { t.skip(skip); return; }
    const r = await runCheck('ping', `${net}.3`, { count: 1, per_packet_timeout_ms: 200 }, ctx);
    assert.equal(r.status, 'down');
    assert.equal(r.details.sent, 1);
  });

  test('an unresolvable name (fping run inside the namespace, where DNS cannot leave)', async (t) => {
    if (skip) { t.skip(skip); return; }
    const { batcher } = countingBatcher((p, args) => ['ip', ['netns', 'exec', ns, p, ...args]]);
    const [bad, good] = await Promise.all([
      runWith(batcher, 'nosuch.invalid', fast, ctx),
      runWith(batcher, `${net}.2`, fast, ctx),
    ]);
    assert.equal(bad.status, 'down');
    assert.match(bad.message, /^cannot ping nosuch\.invalid: .*(resolution|not known)/);
    assert.equal(good.status, 'up', good.message);
  });
});
