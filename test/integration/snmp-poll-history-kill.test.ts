// SIGKILL of a process writing the interface history (a child: 2,400 interfaces polled on a fast test clock)
// at random moments: in an append, in a day's compaction, between them. After each kill the directory opens,
// every step the child had reported durable reads back with its values, no temp file is left, a cut-short
// compaction is done again and the year's file holds each day once.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ManualClock } from '../../src/core/clock.js';
import { Logger } from '../../src/core/log.js';
import { blockBytes, readHeader } from '../../src/modules/snmp/polling/history/blocks.js';
import { InterfaceHistory } from '../../src/modules/snmp/polling/history/index.js';
import { CHILD_INTERFACES, inRate, keyOf } from './helpers/snmp-history-child.js';

const CHILD = join(dirname(fileURLToPath(import.meta.url)), 'helpers', 'snmp-history-child.ts');
const ROUNDS = 6;
const DAY = 86_400_000;
const START = Date.parse('2026-04-01T21:00:00Z');

/** Runs the child from `start` and kills it `killMs` after it is ready; the last time it said durable. */
function runAndKill(dir: string, start: number, killMs: number): Promise<{ durable: number; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, dir, String(start)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let stderr = '';
    let durable = -1;
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString();
      const lines = out.split('\n');
      out = lines.pop()!;
      for (const l of lines) {
        if (l === 'ready') setTimeout(() => child.kill('SIGKILL'), killMs);
        else if (l.startsWith('durable ')) durable = Number(l.slice(8));
      }
    });
    child.stderr.on('data', (b: Buffer) => { stderr += b.toString(); });
    child.on('error', reject);
    child.on('exit', () => resolve({ durable, stderr }));
  });
}

test('a kill at any moment of the history\'s writes loses no step reported durable and breaks no start', { timeout: 240_000 }, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'netprobe-ifhist-kill-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const lines: string[] = [];
  const log = Logger.create({ write: (l) => lines.push(l) });
  const seen = { torn: 0, compaction_cut: 0 };
  const sample = [keyOf(0), keyOf(1234), keyOf(CHILD_INTERFACES - 1)];
  const spans: [number, number][] = []; // [first step, end of the last durable step] of each round
  let start = START;
  let seed = 7;
  for (let round = 0; round < ROUNDS; round++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    const killMs = 150 + (seed % 1800);
    const { durable, stderr } = await runAndKill(dir, start, killMs);
    assert.equal(stderr, '', `round ${round}: the child said nothing wrong`);
    if (durable > start) spans.push([start, durable]);
    // The next round starts after whatever the dead child may have reached (its late points are dropped).
    const next = Math.max(durable, start) + 30 * 60_000;

    // What the kill left: a torn append (cut at open), a compaction cut short (a past day's steps file), a temp file.
    const left = await readdir(dir);
    // A compaction under way: its cols temp file, or a past day's steps file besides today's.
    if (left.some((n) => n.endsWith('.tmp')) || left.filter((n) => n.startsWith('steps-')).length > 1) seen.compaction_cut++;
    const before = lines.length;
    const h = new InterfaceHistory({ dir, clock: new ManualClock(next), log });
    await h.open();
    await h.flush(); // a compaction the kill cut short is done again
    if (lines.slice(before).some((l) => l.includes('torn tail cut'))) seen.torn++;
    const names = await readdir(dir);
    assert.deepEqual(names.filter((n) => n.endsWith('.tmp')), [], `round ${round}: no temp file left`);
    for (const [from, to] of spans) {
      for (const key of sample) {
        for (let day = Math.floor(from / DAY); day * DAY < to; day++) {
          const view = await h.series(key, 'day', Math.min(to, (day + 1) * DAY));
          for (const p of view.points) {
            if (p.t < from || p.t + 300_000 > to) continue;
            assert.equal(p.samples, 5, `round ${round}, key ${key}, ${new Date(p.t).toISOString()}: 5 polls`);
            assert.equal(p.in_avg, inRate(key, p.t), `round ${round}, key ${key}, ${new Date(p.t).toISOString()}`);
          }
        }
      }
    }
    // Each day whose steps file is gone is in a cols file and once in the year's file.
    const days = names.filter((n) => n.startsWith('days-'));
    for (const f of days) {
      const buf = await readFile(join(dir, f));
      const starts: number[] = [];
      for (let at = 0; at < buf.length; at += blockBytes(readHeader(buf, at)!.n)) starts.push(readHeader(buf, at)!.start);
      assert.equal(new Set(starts).size, starts.length, `round ${round}: each day once in ${f}`);
    }
    const cols = names.filter((n) => n.startsWith('cols-')).length;
    const steps = names.filter((n) => n.startsWith('steps-')).length;
    assert.ok(steps <= 1, `round ${round}: only today's steps file (${names.join(', ')})`);
    if (cols > 0) assert.equal(days.length > 0, true);
    await h.close();
    start = next + 60 * 60_000; // after the image's open step: the next child's first steps are its own
  }
  t.diagnostic(`kills that left: ${JSON.stringify(seen)}`);
  assert.ok(spans.length >= ROUNDS - 1, 'the children got steps written before the kills');
  assert.ok(Math.floor(spans.at(-1)![1] / DAY) > Math.floor(START / DAY), 'the rounds went over at least one midnight');
});
