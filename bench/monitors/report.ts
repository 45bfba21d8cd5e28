// What bench/monitors.ts prints for one count: its figures, and the long-run write rate with the
// checkpoints a window of N minutes may not contain, from the store's own bounds (docs/store.md).
import type { IoSample } from './proc.js';
import type { LagFigures, retentionIn } from './lag.js';
import { HISTORY_HOURS, type SeedInfo } from './seed.js';
import { fmtMs, int, kib, mib } from './util.js';

export interface FileSizes { db: number; journal: number }

export interface Figures {
  n: number;
  mix: string;
  mixCounts: Record<string, number>;
  createMs: number;
  seed: SeedInfo;
  startMs: number;
  /** The start after the measured run's stop, from the start-up image that stop wrote. */
  /** codeMs, listeningMs: from the service's "listening" line (ms since its process started). */
  restart: { ms: number; image: string; loadMs: number; entries: number; rss: number; codeMs: number; listeningMs: number };
  windowMin: number;
  /** hwm: VmHWM at the window's end (start-up included); hwmBurst: after the back-to-back lists. */
  rss: { start: number; max: number; end: number; hwm: number; hwmBurst: number };
  cpu: { self: number; sys: number; children: number };
  /** CPU per check (service and fping, list polls included) in each whole minute of the window. */
  cpuPerMinute: number[];
  checks: number;
  checksByType: Record<string, number>;
  listPolls: number;
  listBurstCpuMs: number;
  /** GET /api/version right before each list poll: the wait any request sees at that moment. */
  version: { p50: number; p99: number; max: number };
  list: { p50: number; p99: number; max: number; n: number; burstN: number; burstP50: number; burstP99: number; bytes: number };
  lag: { window: LagFigures; listing: LagFigures; burst: LagFigures };
  files: { start: FileSizes; end: FileSizes; maxJournal: number; checkpoints: number; segments: { files: number; bytes: number } };
  io: { start: IoSample | null; end: IoSample | null };
  checkpointRun: {
    rss: number; hwm: number; checkpoints: number; snapshot: number; ms: number; syncMs: number; during: LagFigures; all: LagFigures;
    /** Checkpoints whose copy was made in steps, and the turns of the event loop one took (p50). */
    inSteps: number; turns: number;
  } | null;
  peersCpu: number;
  dnsmasqCpu: number;
  warnings: number;
  /** Retention passes that logged at info level (they deleted something) in the window, and compactions. */
  retention: ReturnType<typeof retentionIn>;
}

/** The store's defaults (src/core/config/schema.ts: store.checkpoint_mb, checkpoint_age_minutes, snapshot_kib_per_minute). */
const CHECKPOINT_BYTES = 8 * 1024 * 1024;
const CHECKPOINT_AGE_MIN = 10;
const SNAPSHOT_BYTES_PER_MIN = 32 * 1024;

const lagText = (l: LagFigures) => (l.n ? `p50 ${fmtMs(l.p50)}, p99 ${fmtMs(l.p99)}, max ${fmtMs(l.max)} over ${int(l.n)} checks` +
  (l.over20 ? ` (${l.over20} over 20 ms)` : '') : 'no checks');

export function report(f: Figures): string[] {
  const out: string[] = [];
  const row = (label: string, value: string) => out.push(`  ${label.padEnd(36)} ${value}`);
  const cpuTotal = f.cpu.self + f.cpu.children;
  const listCpu = f.listPolls * f.listBurstCpuMs;
  const s = f.seed;
  const types = ['http', 'tcp', 'dns', 'ping'].filter((t) => f.mixCounts[t]);
  out.push(`${int(f.n)} monitors (${types.map((t) => `${f.mixCounts[t]} ${t}`).join(', ')}), interval 60 s, ` +
    `window ${f.windowMin.toFixed(2)} min`);
  row('create through the API', `${(f.createMs / 1000).toFixed(1)} s (8 in parallel, each checked at once)`);
  row(`seed ${HISTORY_HOURS} h of history`, `${(s.ms / 1000).toFixed(1)} s: ${int(s.results)} results (${int(s.results / f.n)}/monitor), ` +
    `rollups ${int(s.rollups.hour)} hour / ${int(s.rollups.day)} day, ${int(s.messages)} messages, ${int(s.events)} events`);
  row('seeded data', `snapshot ${mib(s.snapshotBytes)} (${int(s.snapshotBytes / f.n)} B/monitor), ` +
    `results channel ${mib(s.segments.bytes)} in ${s.segments.files} segment(s)`);
  row('start on the seeded data', `${(f.startMs / 1000).toFixed(2)} s to the first answer (the whole results channel read)`);
  row('restart after a stop', `${(f.restart.ms / 1000).toFixed(2)} s to the first answer; monitors loaded in ${fmtMs(f.restart.loadMs)} ` +
    `(${int(f.restart.entries)} channel entries; start-up image ${f.restart.image}); RSS ${mib(f.restart.rss)}`);
  row('  of which', `code loaded after ${fmtMs(f.restart.codeMs)}, listening after ${fmtMs(f.restart.listeningMs)} (the service's own clock)`);
  row('resident memory (VmRSS)', `start ${mib(f.rss.start)}, max ${mib(f.rss.max)}, end ${mib(f.rss.end)}; VmHWM ${mib(f.rss.hwm)}, ` +
    `${mib(f.rss.hwmBurst)} after the back-to-back lists`);
  row('checks in the window', `${int(f.checks)} (${types.map((t) => `${int(f.checksByType[t] ?? 0)} ${t}`).join(', ')}), ` +
    `${(f.checks / f.windowMin).toFixed(0)}/min`);
  row('CPU per check', `${fmtMs((cpuTotal - listCpu) / f.checks)} (service ${(f.cpu.self / 1000).toFixed(1)} s, of which ` +
    `${(f.cpu.sys / 1000).toFixed(1)} s system, + fping children ${(f.cpu.children / 1000).toFixed(1)} s, ` +
    `less ${f.listPolls} list polls x ${fmtMs(f.listBurstCpuMs)}, over ${int(f.checks)} checks)`);
  if (f.cpuPerMinute.length) {
    row('  minute by minute', `${f.cpuPerMinute.map((v) => v.toFixed(2)).join(', ')} ms (list polls included)`);
  }
  row('  CPU share of one core', `${((cpuTotal / (f.windowMin * 60_000)) * 100).toFixed(1)} % (all service work in the window)`);
  row('GET /api/monitors, every poll', `p50 ${fmtMs(f.list.p50)}, p99 ${fmtMs(f.list.p99)}, max ${fmtMs(f.list.max)} ` +
    `(${f.list.n} requests, ${kib(f.list.bytes)})`);
  row('  GET /api/version just before', `p50 ${fmtMs(f.version.p50)}, p99 ${fmtMs(f.version.p99)}, max ${fmtMs(f.version.max)} ` +
    '(what any request waited then: the list\'s own share is the difference)');
  row('GET /api/monitors, back to back', `p50 ${fmtMs(f.list.burstP50)}, p99 ${fmtMs(f.list.burstP99)} (${f.list.burstN} requests); ` +
    `${fmtMs(f.listBurstCpuMs)} service CPU each`);
  row('scheduling lag (the scheduler\'s own)', lagText(f.lag.window));
  row('  slots inside a list request', lagText(f.lag.listing));
  row('  while listing back to back', lagText(f.lag.burst));
  if (f.checkpointRun) {
    const c = f.checkpointRun;
    row('  checkpoint run (one a minute)', `${c.checkpoints} checkpoints of ${mib(c.snapshot)}, ${fmtMs(c.ms)} each (p50), ` +
      `${c.inSteps} copied in steps (${c.turns} turns, p50), at most ${fmtMs(c.syncMs)} holding the event loop at once; ` +
      `VmRSS ${mib(c.rss)} at its end, VmHWM ${mib(c.hwm)}`);
    row('    slots inside a checkpoint', lagText(c.during));
    row('    the whole run', lagText(c.all));
  }
  if (f.retention.rollups || f.retention.compactions.length) {
    const r = f.retention;
    row('retention in the window', `${int(r.rollups)} rollup rows deleted by ${r.passes} pass(es)` +
      r.compactions.map((c) => `; compacted ${mib(c.bytes)} away in ${fmtMs(c.ms)} (VACUUM, holding the event loop)`).join(''));
  }
  writes(f, row);
  row('peers\' own CPU (not the service)',
    `http+tcp process ${(f.peersCpu / 1000).toFixed(2)} s, dnsmasq ${(f.dnsmasqCpu / 1000).toFixed(2)} s`);
  if (f.warnings) row('service log', `${f.warnings} WARN/ERROR lines (see --keep and service.log)`);
  return out;
}

/** Bytes written: measured in the window, and over a checkpoint period when the window saw none. */
function writes(f: Figures, row: (label: string, value: string) => void): void {
  row('netprobe.db', `start ${mib(f.files.start.db)}, end ${mib(f.files.end.db)}`);
  row('netprobe.journal', `start ${kib(f.files.start.journal)}, end ${kib(f.files.end.journal)}, max seen ${kib(f.files.maxJournal)}`);
  if (!f.io.start || !f.io.end) { row('written to disk', '/proc/<pid>/io unavailable here'); return; }
  const written = f.io.end.writeBytes - f.io.start.writeBytes;
  row('written to disk (write_bytes)', `${mib(written / f.windowMin)}/min, ${int(written / f.checks)} B/check ` +
    `(${mib(written)} in the window, ${f.files.checkpoints} checkpoint(s) in it)`);
  if (f.files.checkpoints) return;
  // No checkpoint fell in the window: add what the next ones write, spread over their period.
  const journalPerMin = (f.files.end.journal - f.files.start.journal) / f.windowMin;
  const snapshot = f.files.end.db;
  const sizeBound = Math.max(CHECKPOINT_BYTES, snapshot);
  const ageBound = Math.max(CHECKPOINT_AGE_MIN, snapshot / SNAPSHOT_BYTES_PER_MIN);
  const period = Math.min(ageBound, journalPerMin > 0 ? sizeBound / journalPerMin : Infinity);
  // A checkpoint writes the snapshot and a segment of the period's channel entries (at most the journal's).
  const perMin = written / f.windowMin + (snapshot + journalPerMin * period) / period;
  row('  over a checkpoint period', `${mib(perMin)}/min: a ${mib(snapshot)} snapshot and a segment every ` +
    `${period.toFixed(0)} min (journal grows ${kib(journalPerMin)}/min; bounds ${mib(sizeBound)} or ${ageBound.toFixed(0)} min)`);
}
