import { test } from 'node:test';
import { readFileSync, readdirSync } from 'node:fs';
import assert from 'node:assert/strict';
import { ManualClock } from '../../src/core/clock.js';
import { HttpError } from '../../src/core/errors.js';
import { run } from '../../src/core/exec.js';
import { JobManager, type JobEvent } from '../../src/core/jobs.js';
import { Logger } from '../../src/core/log.js';

const quiet = Logger.create({ write: () => {} });
const tick = () => new Promise((r) => setImmediate(r));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A promise with its resolve and reject exposed, to drive a job step by step. */
function deferred<T = void>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => { resolve = res; reject = rej; });
  return { promise, resolve, reject };
}

test('lifecycle: started, progress, custom events, completed with the result', async () => {
  const clock = new ManualClock();
  const jobs = new JobManager({ clock, log: quiet });
  const gate = deferred();
  const job = jobs.start('scan', async (ctl) => {
    ctl.progress(25, { found: 1 });
    ctl.emit('host', { ip: '10.0.0.1' });
    await gate.promise;
    ctl.progress(80);
    return { hosts: 3 };
  }, { meta: { subnet: '10.0.0.0/24' } });

  assert.equal(job.state, 'running');
  assert.equal(job.kind, 'scan');
  assert.match(job.id, /^[0-9a-f-]{36}$/);
  assert.equal(job.created_at, '2026-01-01T00:00:00.000Z');
  assert.equal(job.started_at, '2026-01-01T00:00:00.000Z');
  assert.equal(job.finished_at, null);
  assert.deepEqual(job.meta, { subnet: '10.0.0.0/24' });

  await tick();
  assert.equal(jobs.get(job.id)!.progress, 25);
  clock.advance(5000);
  gate.resolve();
  const done = await jobs.waitFor(job.id);
  assert.equal(done.state, 'completed');
  assert.equal(done.progress, 100);
  assert.equal(done.finished_at, '2026-01-01T00:00:05.000Z');
  assert.deepEqual(jobs.result(job.id), { hosts: 3 });

  const events = jobs.events(job.id);
  assert.deepEqual(events.map((e) => [e.id, e.type, e.progress]), [
    [1, 'started', 0], [2, 'progress', 25], [3, 'host', 25], [4, 'progress', 80], [5, 'completed', 100],
  ]);
  assert.equal(events[1]!.found, 1);
  assert.equal(events[2]!.ip, '10.0.0.1');
  assert.deepEqual(events[4]!.result, { hosts: 3 });
  for (const e of events) { assert.equal(typeof e.type, 'string'); assert.equal(typeof e.progress, 'number'); }
});

test('progress is clamped and job data cannot override id, type or progress', async () => {
  const jobs = new JobManager({ log: quiet });
  const job = jobs.start('k', async (ctl) => {
    ctl.progress(150);
    ctl.progress(-5, { type: 'evil', id: 99, progress: 7 });
    assert.throws(() => ctl.emit('completed'), TypeError);
  });
  await jobs.waitFor(job.id);
  const events = jobs.events(job.id);
  assert.deepEqual(events.map((e) => [e.id, e.type, e.progress]), [
    [1, 'started', 0], [2, 'progress', 100], [3, 'progress', 0], [4, 'completed', 100],
  ]);
});

test('a thrown error marks the job failed with its message', async () => {
  const jobs = new JobManager({ log: quiet });
  const job = jobs.start('k', async (ctl) => { ctl.progress(40); throw new Error('subnet unreachable'); });
  const done = await jobs.waitFor(job.id);
  assert.equal(done.state, 'failed');
  assert.equal(done.error, 'subnet unreachable');
  assert.equal(done.progress, 40);
  assert.equal(jobs.result(job.id), undefined);
  const last = jobs.events(job.id).at(-1)!;
  assert.deepEqual([last.type, last.progress, last.error], ['failed', 40, 'subnet unreachable']);
});

test('jobs of a kind queue behind its concurrency limit; other kinds do not', async () => {
  const jobs = new JobManager({ log: quiet, maxConcurrent: { scan: 1 } });
  const gates = [deferred(), deferred()];
  const a = jobs.start('scan', () => gates[0]!.promise);
  const b = jobs.start('scan', () => gates[1]!.promise);
  const c = jobs.start('update', async () => 'ok');
  assert.equal(a.state, 'running');
  assert.equal(b.state, 'queued');
  assert.equal(b.started_at, null);
  assert.equal(c.state, 'running');
  assert.deepEqual(jobs.events(b.id), []); // nothing until it starts
  assert.deepEqual(jobs.list('scan').map((j) => j.state), ['running', 'queued']);
  assert.equal(jobs.list().length, 3);

  gates[0]!.resolve();
  await jobs.waitFor(a.id);
  await tick();
  assert.equal(jobs.get(b.id)!.state, 'running');
  assert.equal(jobs.events(b.id)[0]!.type, 'started');
  gates[1]!.resolve();
  assert.equal((await jobs.waitFor(b.id)).state, 'completed');
});

test('cancel finishes at once even when the run ignores its signal; its late result is discarded', async () => {
  const jobs = new JobManager({ log: quiet });
  let sawAbort = false;
  const job = jobs.start('k', async (ctl) => {
    ctl.signal.addEventListener('abort', () => { sawAbort = true; });
    await sleep(1500); // ignores the signal
    return 'late';
  });
  await tick();
  const t0 = Date.now();
  const finals: JobEvent[] = [];
  jobs.subscribe(job.id, (e) => { if (e.type === 'cancelled') finals.push(e); });
  assert.equal(jobs.cancel(job.id), true);
  const done = await jobs.waitFor(job.id);
  assert.ok(Date.now() - t0 < 1000);
  assert.equal(done.state, 'cancelled');
  assert.ok(done.finished_at);
  assert.equal(sawAbort, true);
  assert.equal(finals.length, 1);
  assert.equal(jobs.cancel(job.id), false);
  await sleep(1600);
  assert.equal(jobs.get(job.id)!.state, 'cancelled');
  assert.equal(jobs.result(job.id), undefined);
  assert.equal(jobs.events(job.id).filter((e) => ['completed', 'failed', 'cancelled'].includes(e.type)).length, 1);
});

test('a cancelled run that ignores its signal gives its slot back after the grace', async () => {
  const clock = new ManualClock();
  const jobs = new JobManager({ clock, log: quiet, maxConcurrent: { scan: 1 } });
  const a = jobs.start('scan', () => new Promise(() => {})); // never settles
  const b = jobs.start('scan', async () => 'b');
  await tick(); // a's run function is running now
  jobs.cancel(a.id);
  await tick();
  assert.equal(jobs.get(b.id)!.state, 'queued');
  clock.advance(1000);
  assert.equal(jobs.get(b.id)!.state, 'running');
  assert.equal((await jobs.waitFor(b.id)).state, 'completed');
});

test('cancelling a queued job never runs it', async () => {
  const jobs = new JobManager({ log: quiet, maxConcurrent: { scan: 1 } });
  const gate = deferred();
  const a = jobs.start('scan', () => gate.promise);
  let ran = false;
  const b = jobs.start('scan', async () => { ran = true; });
  assert.equal(jobs.cancel(b.id), true);
  assert.deepEqual(jobs.events(b.id).map((e) => e.type), ['cancelled']);
  gate.resolve();
  await jobs.waitFor(a.id);
  await tick();
  assert.equal(ran, false);
  assert.equal(jobs.get(b.id)!.state, 'cancelled');
});

test('the buffer drops the oldest events beyond its size and keeps the final one', async () => {
  const jobs = new JobManager({ log: quiet, bufferSize: 10 });
  const job = jobs.start('k', async (ctl) => { for (let i = 1; i <= 50; i++) ctl.progress(i); return 'done'; });
  await jobs.waitFor(job.id);
  const events = jobs.events(job.id);
  assert.equal(events.length, 10);
  assert.equal(events.at(-1)!.type, 'completed');
  assert.equal(events.at(-1)!.id, 52); // started + 50 progress + completed
  assert.deepEqual(events.map((e) => e.id), [43, 44, 45, 46, 47, 48, 49, 50, 51, 52]);
});

test('subscribe replays after an id, then follows live until the final event', async () => {
  const jobs = new JobManager({ log: quiet });
  const gate = deferred();
  const job = jobs.start('k', async (ctl) => {
    ctl.progress(10);
    ctl.progress(20);
    await gate.promise;
    ctl.progress(90);
    return 1;
  });
  await tick();
  const seen: number[] = [];
  const types: string[] = [];
  jobs.subscribe(job.id, (e) => { seen.push(e.id); types.push(e.type); }, 1);
  assert.deepEqual(seen, [2, 3]); // replayed synchronously
  const other: number[] = [];
  const off = jobs.subscribe(job.id, (e) => other.push(e.id));
  off();
  gate.resolve();
  await jobs.waitFor(job.id);
  assert.deepEqual(seen, [2, 3, 4, 5]);
  assert.deepEqual(types, ['progress', 'progress', 'progress', 'completed']);
  assert.deepEqual(other, [1, 2, 3]);

  // after the end: replay only, nothing to follow
  const late: number[] = [];
  jobs.subscribe(job.id, (e) => late.push(e.id), 3);
  assert.deepEqual(late, [4, 5]);
});

test('unknown ids: get undefined, cancel false, subscribe and waitFor 404', async () => {
  const jobs = new JobManager({ log: quiet });
  assert.equal(jobs.get('nope'), undefined);
  assert.equal(jobs.cancel('nope'), false);
  assert.throws(() => jobs.subscribe('nope', () => {}), (e: unknown) => e instanceof HttpError && e.status === 404);
  await assert.rejects(jobs.waitFor('nope'), (e: unknown) => e instanceof HttpError && e.status === 404);
});

test('only keepFinished finished jobs are kept', async () => {
  const jobs = new JobManager({ log: quiet, keepFinished: 2 });
  const ids: string[] = [];
  for (let i = 0; i < 4; i++) {
    const j = jobs.start('k', async () => i);
    ids.push(j.id);
    await jobs.waitFor(j.id);
  }
  assert.equal(jobs.get(ids[0]!), undefined);
  assert.equal(jobs.get(ids[1]!), undefined);
  assert.equal(jobs.result(ids[3]!), 3);
  assert.equal(jobs.list().length, 2);
});

test('shutdown cancels everything and refuses new jobs', async () => {
  const jobs = new JobManager({ log: quiet, maxConcurrent: { k: 1 } });
  const a = jobs.start('k', (ctl) => new Promise((_r, reject) => ctl.signal.addEventListener('abort', () => reject(new Error('aborted')))));
  const b = jobs.start('k', async () => 'b');
  await jobs.shutdown();
  assert.equal(jobs.get(a.id)!.state, 'cancelled');
  assert.equal(jobs.get(b.id)!.state, 'cancelled');
  assert.throws(() => jobs.start('k', async () => 1), (e: unknown) => e instanceof HttpError && e.status === 503);
});

test('a failing subscriber does not break the job or other subscribers', async () => {
  const jobs = new JobManager({ log: quiet });
  const gate = deferred();
  const job = jobs.start('k', async (ctl) => { await gate.promise; ctl.progress(50); });
  const seen: string[] = [];
  jobs.subscribe(job.id, () => { throw new Error('boom'); });
  jobs.subscribe(job.id, (e) => seen.push(e.type));
  gate.resolve();
  assert.equal((await jobs.waitFor(job.id)).state, 'completed');
  assert.deepEqual(seen, ['started', 'progress', 'completed']);
});

test('cancelling a job that runs a program kills the program within a second', async () => {
  const jobs = new JobManager({ log: quiet });
  let pid = 0;
  // A shell waiting on a long sleep; the abort must take down both.
  const job = jobs.start('k', (ctl) => run('sh', ['-c', 'echo $$ > /dev/stderr; sleep 30'], { signal: ctl.signal }));
  // Find the shell: the newest process that leads its own group and runs our command line.
  const started = Date.now();
  while (!pid && Date.now() - started < 3000) {
    await sleep(20);
    for (const name of readdirSync('/proc')) {
      if (!/^\d+$/.test(name)) continue;
      try {
        if (readFileSync(`/proc/${name}/cmdline`, 'utf8') === 'sh\0-c\0echo $$ > /dev/stderr; sleep 30\0') pid = Number(name);
      } catch { /* gone */ }
    }
  }
  assert.ok(pid, 'program did not start');
  const t0 = Date.now();
  jobs.cancel(job.id);
  const done = await jobs.waitFor(job.id);
  assert.equal(done.state, 'cancelled');
  const gone = () => {
    try { return /^\S+ \(.*\) [ZX]/.test(readFileSync(`/proc/${pid}/stat`, 'utf8')); } catch { return true; }
  };
  while (!gone() && Date.now() - t0 < 1000) await sleep(20);
  assert.ok(gone(), 'program still running a second after cancel');
});
