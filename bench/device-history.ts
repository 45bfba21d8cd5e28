// What the devices known over time cost on the SD card and in the database (src/modules/v1sion/devices/):
// a /24 scanned every 15 minutes for a year, merged through the code every completed scan goes through
// (merge.ts, store.ts: one transaction per scan, the history thinned once a day), into a real store in a
// temp directory. Prints figures, asserts nothing. Run: node --import tsx bench/device-history.ts [days]
//
// The office (60 devices and visitors):
//  - 40 that are always there (switches, servers, printers, access points);
//  - 15 laptops and phones there 08:00-18:00 on weekdays (each evening they go missing, each morning back);
//  - 4 on DHCP that change address every week; 1 that moves to another switch port every month;
//  - 3 visitors a day with a random MAC each (phones' private addresses: a new device every time).
// Written bytes are the journal's and segments' growth plus what the checkpoints wrote (/proc/self/io wchar).
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../src/core/store/index.js';
import { mergeScan } from '../src/modules/v1sion/devices/merge.js';
import { isSubnetKnown, loadDevices, thinHistory, writeMerge } from '../src/modules/v1sion/devices/store.js';
import { v1sionMigrations } from '../src/modules/v1sion/migrations.js';
import type { ScanDevice, ScanLink, ScanResult } from '../src/modules/v1sion/scan/result.js';

const DAYS = Number(process.argv[2] ?? 365);
const SCAN_MS = 15 * 60_000;
const DAY = 86_400_000;
const SUBNET = '10.50.0.0/24';
const START = Date.parse('2026-01-05T00:00:00Z'); // a Monday

const mac = (a: number, b: number) => `02:00:00:${a.toString(16).padStart(2, '0')}:${(b >> 8).toString(16).padStart(2, '0')}:${(b & 255).toString(16).padStart(2, '0')}`;
const wchar = (): number => Number(/^wchar:\s+(\d+)/m.exec(readFileSync('/proc/self/io', 'utf8'))?.[1] ?? NaN);
const mib = (n: number) => `${(n / 1048576).toFixed(2)} MiB`;

function dev(id: string, ip: string, m: string, name: string): ScanDevice {
  return { id, name, kind: 'host', addresses: [ip], macs: [m], vendor_key: null, vendor: null, model: null, serial: null, sys_name: name,
    engine_id: null, chassis_id: null, seen: 'scan', merged_by: [] };
}

/** What a scan at `t` finds. */
function scanAt(t: number, n: number): ScanResult {
  const day = Math.floor((t - START) / DAY);
  const hour = ((t - START) % DAY) / 3_600_000;
  const weekday = day % 7 < 5;
  const devices: ScanDevice[] = [];
  const links: ScanLink[] = [];
  devices.push({ ...dev('sw', '10.50.0.2', mac(1, 2), 'core-sw1'), kind: 'switch' });
  for (let i = 0; i < 39; i++) devices.push(dev(`s${i}`, `10.50.0.${10 + i}`, mac(2, i), `server-${i}`));
  if (weekday && hour >= 8 && hour < 18) for (let i = 0; i < 15; i++) devices.push(dev(`l${i}`, `10.50.0.${100 + i}`, mac(3, i), `laptop-${i}`));
  const week = Math.floor(day / 7);
  for (let i = 0; i < 4; i++) devices.push(dev(`d${i}`, `10.50.0.${150 + ((week * 7 + i * 13) % 50)}`, mac(4, i), `dhcp-${i}`));
  devices.push(dev('mover', '10.50.0.90', mac(5, 0), 'mover'));
  links.push({ from: 'sw', to: 'mover', from_port: `Gi1/0/${1 + (Math.floor(day / 30) % 24)}`, to_port: null, source: 'fdb', vlan: 10 });
  // Three visitors a day, each there for an hour from 10:00, 13:00 and 16:00 with a MAC of their own.
  for (const [k, from] of [[0, 10], [1, 13], [2, 16]] as const) {
    if (hour >= from && hour < from + 1) devices.push(dev(`v${k}`, `10.50.0.${200 + k}`, mac(6, day * 3 + k), `visitor-${day}-${k}`));
  }
  return { job_id: `scan-${n}`, subnet: SUBNET, state: 'completed', started_at: '', finished_at: '', duration_ms: 1,
    counts: { addresses: 254, live: devices.length, snmp: 1, devices: devices.length, links: links.length }, hosts: [], devices, links, warnings: [] };
}

const dir = await mkdtemp(join(tmpdir(), 'netprobe-bench-devices-'));
const store = await openStore({ dir, migrations: v1sionMigrations });
const fileBytes = async () => {
  const { readdir } = await import('node:fs/promises');
  let n = 0;
  for (const f of await readdir(dir)) n += (await stat(join(dir, f))).size;
  return n;
};
try {
  const w0 = wchar();
  let cpu = 0;
  let n = 0;
  let alerts = 0;
  const scans = Math.round(DAYS * DAY / SCAN_MS);
  for (let i = 0; i < scans; i++) {
    const now = START + i * SCAN_MS;
    const result = scanAt(now, i);
    const c0 = process.cpuUsage();
    const out = mergeScan({ known: loadDevices(store), result, subnetKnown: isSubnetKnown(store, SUBNET), now,
      missing: { after_ms: 120 * 60_000, after_runs: 3 }, newId: () => `dev-${++n}` });
    await store.write((tx) => {
      writeMerge(tx, out, SUBNET, result.job_id, now);
      if (i % (DAY / SCAN_MS) === 0) thinHistory(tx, now);
    }, 'group');
    await store.flush(); // what the group commit does a moment later on the probe (15 minutes pass between scans)
    const c = process.cpuUsage(c0);
    cpu += (c.user + c.system) / 1000;
    alerts += out.changes.filter((x) => x.alert).length;
  }
  await store.checkpoint();
  const written = wchar() - w0;
  const devices = store.get<{ n: number }>('SELECT count(*) AS n FROM v1sion_devices')!.n;
  const history = store.get<{ n: number }>('SELECT count(*) AS n FROM v1sion_device_history')!.n;
  const historyBytes = store.get<{ n: number }>(
    "SELECT sum(length(device_id) + 8 + length(kind) + coalesce(length(from_v), 0) + coalesce(length(to_v), 0) + length(text) + coalesce(length(job_id), 0)) AS n FROM v1sion_device_history")!.n;
  const deviceBytes = store.get<{ n: number }>(
    'SELECT sum(length(id) + length(name) + length(addresses) + length(macs) + coalesce(length(attachment), 0) + 80) AS n FROM v1sion_devices')!.n;
  const keys = store.get<{ n: number }>('SELECT count(*) AS n FROM v1sion_device_keys')!.n;
  const years = DAYS / 365;
  console.log(`devices over time: a /24 scanned every 15 min for ${DAYS} days (${scans} scans merged)`);
  console.log(`  devices known at the end   ${devices} (${keys} keys); alerts raised ${alerts}`);
  console.log(`  history rows               ${history} (${(history / devices).toFixed(1)} a device; ${Math.round(history / years)} a year)`);
  console.log(`  stored (row data)          devices ${mib(deviceBytes)}, history ${mib(historyBytes)}: ${((deviceBytes + historyBytes) / devices / years).toFixed(0)} bytes a device-year`);
  console.log(`  database files at the end  ${mib(await fileBytes())}`);
  console.log(`  written                    ${mib(written)} in all: ${(written / (DAYS * 1440) / 1048576).toFixed(4)} MiB a minute (budget 0.05 with the scans)`);
  console.log(`  merge CPU                  ${(cpu / scans).toFixed(2)} ms a scan (${(cpu / scans / SCAN_MS * 100).toFixed(4)} % of one core at one scan per 15 min)`);
} finally {
  await store.close();
  await rm(dir, { recursive: true, force: true });
}
