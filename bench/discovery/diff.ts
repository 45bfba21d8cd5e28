// The inventory bridge's diff at size: a 1,000-device session against a 1,000-endpoint inventory
// (docs/discovery.md, "Inventory bridge"; the budget: under 200 ms of CPU). Runs the service
// in this process with a fresh data directory (nothing listens, no packet is sent): seeds the endpoints
// through the inventory's item service as a person would (so every owned field is hand-set and each
// changed record costs a history read), keeps a hand-made scan result as a finished scan keeps it,
// makes a session of it, links some devices, then times BridgeService.diff({session_id}) --runs times
// with process.cpuUsage() (user + system CPU of this process around the call) and, apart, the pure
// part (match.ts + diff.ts on the loaded data).
//
//   node --import tsx bench/discovery/diff.ts [--runs 5] [--devices 1000] [--endpoints 1000] [--changed-every 3]
//
// bench/discovery.ts calls benchInventoryDiff() and prints its figures; benches print, never fail on time.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startService } from '../../src/main.js';
import type { Actor } from '../../src/core/audit/types.js';
import { brainServicesOf } from '../../src/modules/brain/index.js';
import { fromSession } from '../../src/modules/v1sion/brain/discovered.js';
import { diffSource } from '../../src/modules/v1sion/brain/diff.js';
import { matchDevices } from '../../src/modules/v1sion/brain/match.js';
import { inventoryRecords } from '../../src/modules/v1sion/brain/records.js';
import { BridgeService } from '../../src/modules/v1sion/brain/service.js';
import type { ScanDevice, ScanHost, ScanResult } from '../../src/modules/v1sion/scan/result.js';
import { ScanResults } from '../../src/modules/v1sion/scan/results.js';
import { SessionService } from '../../src/modules/v1sion/sessions/service.js';

export interface Spread { min: number; median: number; max: number }

export interface InventoryDiffFigures {
  devices: number;
  endpoints: number;
  runs: number;
  /** CPU of BridgeService.diff: loading the session and its scan result, the inventory, links, history reads, match and diff. */
  cpu_ms: Spread;
  wall_ms: Spread;
  /** CPU of matchDevices + diffSource alone, on data already loaded (history reads still included through the lookup). */
  pure_cpu_ms: Spread;
  /** The diff's counts: new, changed, unchanged, missing, certain, candidates. */
  counts: Record<string, number>;
  /** Time spent making the data (endpoints through the item service, one fsynced write each). */
  seed_s: number;
  budget_cpu_ms: 200;
}

const spread = (xs: number[]): Spread => {
  const s = [...xs].sort((a, b) => a - b);
  const r = (v: number) => Math.round(v * 10) / 10;
  return { min: r(s[0]!), median: r(s[Math.floor(s.length / 2)]!), max: r(s[s.length - 1]!) };
};
const cpuMs = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1000;

const person = (name: string): Actor => ({
  actor: name,
  auditEntry: (action, target, details) => ({ action, actor: name, target: target ?? null, details }),
});

const ip = (i: number) => `10.80.${Math.floor(i / 250)}.${(i % 250) + 1}`;
const mac = (i: number) => `02:80:00:00:${((i >> 8) & 0xff).toString(16).padStart(2, '0')}:${(i & 0xff).toString(16).padStart(2, '0')}`;

/**
 * Inventory: `endpoints` endpoints, one per address 0..endpoints-1 (name, address, MAC, vendor, model,
 * OS set by a person). Session: `devices` devices on addresses from devices*0.3 on, so 70% of them
 * are in the inventory (matched by MAC; one in `changedEvery` (3) of those has a newer OS version: a changed record)
 * and 30% are new; the endpoints before them are missing. 200 devices are linked first.
 */
export async function benchInventoryDiff(opts: { devices?: number; endpoints?: number; runs?: number; changedEvery?: number } = {}):
  Promise<InventoryDiffFigures> {
  const devices = opts.devices ?? 1000, endpoints = opts.endpoints ?? 1000, runs = opts.runs ?? 5, every = opts.changedEvery ?? 3;
  const dataDir = await mkdtemp(join(tmpdir(), 'netprobe-bench-diff-'));
  const service = await startService({ env: { NETPROBE_DATA_DIR: dataDir }, logWrite: () => {} });
  try {
    const app = service.app;
    const items = brainServicesOf(app).items;
    const t0 = performance.now();
    const by = person('bench-admin');
    for (let i = 0; i < endpoints; i++) {
      await items.create('endpoints', {
        name: `host-${i}`, ip_addresses: [ip(i)], mac_addresses: [mac(i)], vendor: 'Acme', model: 'A-100', os: 'Linux', os_version: '6.1',
      }, by);
    }
    const first = Math.floor(devices * 0.3);
    const hosts: ScanHost[] = [];
    const scanDevices: ScanDevice[] = [];
    for (let k = 0; k < devices; k++) {
      const i = first + k;
      const id = `d${k + 1}`;
      const snmp = {
        credential: null, version: 'v2c' as const, vendor_key: 'generic', vendor: 'Acme', kind: 'server', model: 'A-100', os: 'Linux',
        os_version: k % every === 0 ? '6.6' : '6.1', serial: null, sys_name: `host-${i}`, sys_descr: null, sys_object_id: null,
        sys_location: null, sys_services: null, engine_id: null, note: null,
      };
      hosts.push({ ip: ip(i), alive_by: ['icmp'], rtt_ms: 1, mac: mac(i), mac_vendor: null, hostname: null, open_ports: [], snmp, device_id: id });
      scanDevices.push({ id, name: `host-${i}`, kind: 'server', addresses: [ip(i)], macs: [mac(i)], vendor_key: 'generic', vendor: 'Acme',
        model: 'A-100', serial: null, sys_name: `host-${i}`, engine_id: null, chassis_id: null, seen: 'scan', merged_by: [] });
    }
    const now = new Date().toISOString();
    const result = {
      job_id: crypto.randomUUID(), subnet: '10.80.0.0/20', state: 'completed', started_at: now, finished_at: now, duration_ms: 1000,
      counts: { addresses: 4094, live: devices, snmp: devices, devices, links: 0 }, hosts, devices: scanDevices, links: [], routes: [],
      warnings: [],
    } as ScanResult;
    const results = new ScanResults(app);
    await results.save(result, 'bench');
    const sessions = new SessionService(app, results);
    const bridge = new BridgeService(app, results, sessions);
    const session = await sessions.create({ name: 'bench', subnets: [], scan_job_id: result.job_id, notes: '', nodes: [], edges: [] }, by);
    const auto = await bridge.autoMatch({ session_id: session.id }, false, by);
    const toLink = auto.items.slice(0, 200).map((p) => ({ device_id: p.device_id, inventory: p.inventory, apply_fields: false }));
    await bridge.bulkLink({ session_id: session.id }, toLink, by);
    const seed_s = Math.round((performance.now() - t0) / 100) / 10;

    const cpu: number[] = [], wall: number[] = [], pure: number[] = [];
    let counts: Record<string, number> = {};
    for (let r = 0; r < runs; r++) {
      const c0 = process.cpuUsage(), w0 = performance.now();
      const d = await bridge.diff({ session_id: session.id });
      wall.push(performance.now() - w0);
      cpu.push(cpuMs(process.cpuUsage(c0)));
      counts = { ...d.counts };
    }
    const source = fromSession(sessions.get(session.id), result);
    const records = inventoryRecords(items);
    for (let r = 0; r < runs; r++) {
      const c0 = process.cpuUsage();
      diffSource(source, records, matchDevices(source.devices, records), { handSet: () => true, lastSeen: () => null, linked: () => false });
      pure.push(cpuMs(process.cpuUsage(c0)));
    }
    return { devices, endpoints, runs, cpu_ms: spread(cpu), wall_ms: spread(wall), pure_cpu_ms: spread(pure), counts, seed_s, budget_cpu_ms: 200 };
  } finally {
    await service.shutdown('bench end');
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** One line per figure, as the other benches print. */
export function formatInventoryDiff(f: InventoryDiffFigures): string {
  const s = (x: Spread) => `${x.median} ms (min ${x.min}, max ${x.max})`;
  return [
    `inventory diff: ${f.devices}-device session against ${f.endpoints} endpoints, ${f.runs} runs (seeding took ${f.seed_s} s)`,
    `  CPU   ${s(f.cpu_ms)}   budget ${f.budget_cpu_ms} ms`,
    `  wall  ${s(f.wall_ms)}`,
    `  match + diff alone: CPU ${s(f.pure_cpu_ms)}`,
    `  counts ${JSON.stringify(f.counts)}`,
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const argv = process.argv.slice(2);
  const num = (flag: string) => (argv.includes(flag) ? Number(argv[argv.indexOf(flag) + 1]) || undefined : undefined);
  const f = await benchInventoryDiff({ runs: num('--runs'), devices: num('--devices'), endpoints: num('--endpoints'),
    changedEvery: num('--changed-every') });
  console.log(formatInventoryDiff(f));
}
