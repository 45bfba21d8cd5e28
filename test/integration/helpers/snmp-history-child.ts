// Child process for snmp-poll-history-kill.test.ts: polls N interfaces into the interface history in argv[2]
// from argv[3] (epoch ms, a test clock run as fast as it goes) until it is killed. Interface k's in rate in
// the 5-minute step j of a day is k + j % 100 at every poll of the step, so every step's average is known.
// Prints "ready" once open, and "durable <ms>" once every step that ended by <ms> is on disk (after flush()).
import { ManualClock } from '../../../src/core/clock.js';
import { Logger } from '../../../src/core/log.js';
import { InterfaceHistory } from '../../../src/modules/snmp/polling/history/index.js';
import type { IfPoint } from '../../../src/modules/snmp/polling/types.js';

export const CHILD_INTERFACES = 2400;
export const keyOf = (i: number): number => 1 + i * 2;
export const inRate = (key: number, stepStartMs: number): number => key + (Math.floor((stepStartMs % 86_400_000) / 300_000) % 100);

async function main(dir: string, start: number): Promise<void> {
  const clock = new ManualClock(start);
  const log = Logger.create({ write: (l) => { if (/"level":"(warn|error)"/.test(l)) process.stderr.write(l + '\n'); } });
  const h = new InterfaceHistory({ dir, clock, log, interfaces_hint: CHILD_INTERFACES });
  await h.open();
  process.stdout.write('ready\n');
  const p: IfPoint = { t: 0, in_bps: 0, out_bps: 5, in_pps: 1, out_pps: 1, in_errors_ps: 0, out_errors_ps: 0, in_discards_ps: 0,
    out_discards_ps: 0, up: true, speed_bps: 1e9 };
  for (let m = 1; ; m++) {
    p.t = clock.now() + 500;
    const step = Math.floor(p.t / 300_000) * 300_000;
    for (let i = 0; i < CHILD_INTERFACES; i++) {
      p.in_bps = inRate(keyOf(i), step);
      h.add(keyOf(i), p);
    }
    clock.advance(60_000);
    if (m % 5 === 0) {
      await h.flush();
      // Steps close a minute after their end: those that ended by now - 60 s are written.
      process.stdout.write(`durable ${Math.floor((clock.now() - 60_000) / 300_000) * 300_000}\n`);
    }
  }
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) await main(process.argv[2]!, Number(process.argv[3]));
