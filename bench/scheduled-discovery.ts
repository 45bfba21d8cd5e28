// Scheduled discovery's cost (issue 35 §1): the compiled service scans the namespace lab's /24 on a schedule
// (a scan profile, every 15 minutes by default, no jitter, SNMP with the lab's three credentials stored and
// saved as the discovery credentials) and this prints the CPU share of one core and the MiB a minute it
// writes to disk, against the targets (< 1 % of a core, <= 0.05 MiB/min). Steps:
//   1. start the service in a fresh data directory on disk (not tmpfs: write_bytes must reach a device);
//   2. idle baseline: --idle-minutes (default 5) with nothing scheduled: CPU and write_bytes per minute;
//   3. create the profile and "run now" once: its first run saves the session (a one-time cost, printed apart);
//   4. the window: --minutes (default 30) from the profile's creation, so its scheduled runs fall at every
//      --every minutes (default 15) inside it; the window ends once the last due run has finished.
// CPU is the service's and its children's (fping) from /proc/<pid>/stat; writes are /proc/<pid>/io
// write_bytes (what reached the block layer: result files, journal records, checkpoints of the snapshot).
// A window with no checkpoint in it also prints the long-run rate with the checkpoints the store would
// make (the snapshot rewritten once per its age bound, docs/store.md). With --every other than 15, the
// per-run cost is also extrapolated to a run every 15 minutes (said so in the output).
//
//   sudo node --import tsx bench/scheduled-discovery.ts                       # 30 min window (+5 idle, ~40 min)
//   sudo node --import tsx bench/scheduled-discovery.ts --minutes 10 --every 5 --idle-minutes 2
//
// Needs root (the lab). Every packet stays in the lab: the profile scans only the lab's lan subnet.
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { labDown, labUp, type LabInfo } from '../scripts/lab/lab.js';
import { cpuTimes, io } from './monitors/proc.js';
import { adminKey, ensureBuilt, startServiceProc, type ServiceProc } from './monitors/service.js';
import { freePort, sleep } from './monitors/util.js';

const argv = process.argv.slice(2);
const opt = (name: string, dflt: number) => { const i = argv.indexOf(`--${name}`); return i >= 0 ? Number(argv[i + 1]) : dflt; };
const MINUTES = opt('minutes', 30);
const EVERY = opt('every', 15);
const IDLE_MINUTES = opt('idle-minutes', 5);
const KEEP = argv.includes('--keep');
const MIN = 60_000;
const MiB = 1024 * 1024;
/** The store's checkpoint bounds (docs/store.md): age 10 min, or the snapshot's size at 32 KiB a minute. */
const CHECKPOINT_AGE_MIN = 10;
const SNAPSHOT_BYTES_PER_MIN = 32 * 1024;

interface Sample { at: number; cpu: number; written: number; journal: number; db: number }

async function sample(svc: ServiceProc, dir: string): Promise<Sample> {
  const c = await cpuTimes(svc.pid);
  const w = await io(svc.pid);
  const size = async (f: string) => (await stat(join(dir, f)).catch(() => ({ size: 0 }))).size;
  if (!c || !w) throw new Error('/proc/<pid>/stat or io is unavailable (task I/O accounting off?)');
  return { at: Date.now(), cpu: c.self + c.children, written: w.writeBytes, journal: await size('netprobe.journal'),
    db: await size('netprobe.db') };
}

const share = (a: Sample, b: Sample) => (b.cpu - a.cpu) / (b.at - a.at);
const perMin = (a: Sample, b: Sample) => (b.written - a.written) / ((b.at - a.at) / MIN);
const pct = (x: number) => `${(x * 100).toFixed(3)} %`;
const mibMin = (x: number) => `${(x / MiB).toFixed(4)} MiB/min`;

async function main(): Promise<void> {
  if (process.getuid?.() !== 0) throw new Error('bench/scheduled-discovery needs root (the lab creates network namespaces)');
  if (EVERY < 5 || MINUTES < EVERY) throw new Error('--every is at least 5 (minutes) and --minutes at least --every');
  const built = ensureBuilt();
  const lab: LabInfo = await labUp({ corpus: false });
  // On disk, beside the repository: /tmp may be tmpfs, where write_bytes sees nothing.
  const dir = await mkdtemp(join(process.cwd(), '.bench-scheduled-'));
  let svc: ServiceProc | undefined;
  try {
    const lan = lab.subnets.find((s) => s.name === 'lan')!;
    await writeFile(join(dir, 'config.yaml'), `discovery:\n  dns_servers: [${lab.resolver}]\n`);
    svc = await startServiceProc(dir, await freePort(), join(dir, 'service.log'));
    const key = await adminKey(svc.base, dir);
    const headers = { 'x-api-key': key, 'content-type': 'application/json' };
    const call = async (method: string, path: string, body?: unknown) => {
      const r = await fetch(svc!.base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      const j = await r.json() as any;
      if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(j)}`);
      return j;
    };
    await call('POST', '/api/brain/vault/setup', { passphrase: 'bench passphrase long enough' });
    // Each may go to the lab's subnet only (a stored credential goes nowhere outside its scope).
    const scope = [lan.cidr];
    const c1 = await call('POST', '/api/brain/credentials', { name: 'lab', kind: 'snmp_v2c', community: lab.snmp.community, scope });
    const c2 = await call('POST', '/api/brain/credentials', { name: 'second', kind: 'snmp_v2c', community: lab.snmp.community2, scope });
    const v3 = await call('POST', '/api/brain/credentials', {
      name: 'v3', kind: 'snmp_v3', scope, username: lab.snmp.v3.username, snmpv3_level: 'authPriv', snmpv3_auth_protocol: 'sha',
      snmpv3_auth_key: lab.snmp.v3.auth_key, snmpv3_priv_protocol: 'aes', snmpv3_priv_key: lab.snmp.v3.priv_key,
    });
    await call('POST', '/api/v1sion/credentials', { credentials: [c1, c2, v3].map((c) => ({ credential_id: c.id })) });
    console.log(`bench/scheduled-discovery: the lab's ${lan.cidr} every ${EVERY} min over ${MINUTES} min (idle baseline ` +
      `${IDLE_MINUTES} min; dist/ ${built})`);

    // 2. Idle baseline.
    await sleep(5000);
    const i0 = await sample(svc, dir);
    await sleep(IDLE_MINUTES * MIN);
    const i1 = await sample(svc, dir);

    // 3. The profile and its first run (the session is saved from it).
    const p = await call('POST', '/api/v1sion/profiles', { name: 'lab lan', subnets: [lan.cidr], jitter_seconds: 0,
      schedule: { kind: 'interval', every: EVERY, unit: 'minutes' } });
    const created = Date.parse(p.created_at);
    const f0 = await sample(svc, dir);
    await call('POST', `/api/v1sion/profiles/${p.id}/run`);
    const wait = async (ok: (x: any) => boolean) => {
      for (;;) { const x = await call('GET', `/api/v1sion/profiles/${p.id}`); if (ok(x)) return x; await sleep(1000); }
    };
    const firstRun = await wait((x) => x.last_run && x.state === 'idle');
    const f1 = await sample(svc, dir);
    console.log(`first run (saves the session): ${firstRun.last_run.counts.live} live, ${firstRun.last_run.counts.snmp} SNMP, ` +
      `${firstRun.last_run.counts.links} links; ${((f1.cpu - f0.cpu) / 1000).toFixed(2)} s CPU, ${((f1.written - f0.written) / 1024).toFixed(0)} KiB ` +
      `written (once per profile)`);

    // 4. The window: from the profile's creation, its scheduled runs inside it.
    const w0 = f1;
    const lastDue = created + Math.floor(MINUTES / EVERY) * EVERY * MIN;
    await sleep(Math.max(0, lastDue - Date.now()));
    const last = await wait((x) => x.last_run && Date.parse(x.last_run.started_at) >= lastDue && x.state === 'idle');
    const w1 = await sample(svc, dir);
    const runs = Math.floor(MINUTES / EVERY);
    const windowMin = (w1.at - w0.at) / MIN;
    const idleShare = share(i0, i1), idleWrite = perMin(i0, i1);
    const cpuPerRun = ((w1.cpu - w0.cpu) - idleShare * (w1.at - w0.at)) / runs;
    const bytesPerRun = ((w1.written - w0.written) - idleWrite * windowMin) / runs;
    const row = (label: string, value: string) => console.log(`${label.padEnd(44)} ${value}`);
    row('idle service (no profile)', `${pct(idleShare)} of a core, ${mibMin(idleWrite)}`);
    row(`window: ${windowMin.toFixed(1)} min, ${runs} scheduled runs`, `${pct(share(w0, w1))} of a core, ${mibMin(perMin(w0, w1))} ` +
      `(last run: ${last.last_run.unchanged.length ? 'unchanged, nothing rewritten' : `${last.last_run.new_nodes} new, ` +
      `${last.last_run.missing_nodes} missing`})`);
    row('per scheduled run, over idle', `${(cpuPerRun / 1000).toFixed(2)} s CPU, ${(bytesPerRun / 1024).toFixed(1)} KiB written`);
    const at15 = { cpu: idleShare + cpuPerRun / (15 * MIN), write: idleWrite + bytesPerRun / 15 };
    row(EVERY === 15 ? 'a /24 every 15 min (measured)' : 'a /24 every 15 min (extrapolated from the runs above)',
      `${pct(at15.cpu)} of a core (target < 1 %), ${mibMin(at15.write)} (target <= 0.05 MiB/min)`);
    row('added by the schedule alone', `${pct(cpuPerRun / (15 * MIN))} of a core, ${mibMin(bytesPerRun / 15)}`);
    row('netprobe.db / netprobe.journal', `${(w1.db / 1024).toFixed(0)} KiB / ${(w1.journal / 1024).toFixed(1)} KiB ` +
      `(journal grew ${((w1.journal - w0.journal) / 1024).toFixed(1)} KiB in the window)`);
    if (w1.journal < w0.journal || w1.db !== w0.db) {
      row('  a checkpoint fell in the window', `the ${(w1.db / 1024).toFixed(0)} KiB snapshot was rewritten: counted above (the store ` +
        `checkpoints by age whenever its journal holds anything, the schedule's rows or another's)`);
    } else {
      // No checkpoint in the window: the journal's growth is rewritten into the snapshot at the next one.
      const period = Math.max(CHECKPOINT_AGE_MIN, w1.db / SNAPSHOT_BYTES_PER_MIN);
      row('  with the checkpoints to come', `${mibMin(at15.write + w1.db / period)}: a ${(w1.db / 1024).toFixed(0)} KiB snapshot ` +
        `every ${period.toFixed(0)} min at most, which any write to the store brings (the schedule's or another's)`);
    }
  } finally {
    await svc?.stop();
    await labDown(lab.slot);
    if (!KEEP) await rm(dir, { recursive: true, force: true });
    else console.log(`kept ${dir}`);
  }
}

main().catch((e: unknown) => { console.error(e instanceof Error ? e.stack ?? e.message : e); process.exitCode = 1; });
