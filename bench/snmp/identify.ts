// Identifying 50 simulated devices at once: the snmprec simulator (test/helpers/snmp-sim.ts) serves
// the shared corpus and the project's own recordings, cycled to 50 devices on 50 loopback ports, and
// identify() runs against all of them concurrently with the real client. Prints wall time (min and
// median of the rounds), this process's CPU per round, requests per device, and memory: RSS and V8 heap
// before and at their peak (sampled every 5 ms). Prints figures, asserts nothing.
//
//   node --import tsx bench/snmp/identify.ts [--devices 50] [--rounds 5]
import { cpuUsage, memoryUsage } from 'node:process';
import { createSnmpClient } from '../../src/modules/snmp/client.js';
import { identify } from '../../src/modules/snmp/identify.js';
import { OidStore } from '../../src/modules/snmp/oids/oid-store.js';
import { startSimulator } from '../../test/helpers/snmp-sim.js';
import { knownRecordings } from '../../test/helpers/snmp-recordings.js';
import { int, mib, percentile } from '../monitors/util.js';

function option(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

async function main(): Promise<void> {
  const devices = option('devices', 50);
  const rounds = option('rounds', 5);
  const recordings = knownRecordings();
  const sim = await startSimulator(Array.from({ length: devices }, (_, i) => ({ file: recordings[i % recordings.length]!.file })));
  try {
    const client = createSnmpClient();
    const store = OidStore.load();
    const base = memoryUsage();
    const peak = { rss: base.rss, heap: base.heapUsed };
    const sampler = setInterval(() => {
      const m = memoryUsage();
      peak.rss = Math.max(peak.rss, m.rss);
      peak.heap = Math.max(peak.heap, m.heapUsed);
    }, 5);
    const wall: number[] = [];
    const cpu: number[] = [];
    const vendors = new Map<string, number>();
    for (let r = 0; r <= rounds; r++) {
      const c0 = cpuUsage();
      const t0 = performance.now();
      const ids = await Promise.all(sim.devices.map((d) =>
        identify(client, { host: d.host, port: d.port, version: 'v2c', community: d.community, timeout_ms: 5000, retries: 1 }, store)));
      const ms = performance.now() - t0;
      const c = cpuUsage(c0);
      if (r === 0) { ids.forEach((id) => vendors.set(id.vendor_key, (vendors.get(id.vendor_key) ?? 0) + 1)); continue; } // warm-up
      wall.push(ms);
      cpu.push((c.user + c.system) / 1000);
    }
    clearInterval(sampler);
    const requests = sim.devices.reduce((n, d) => n + d.requests, 0) / (rounds + 1) / devices;
    const row = (k: string, v: string) => console.log(`  ${k.padEnd(26)} ${v}`);
    console.log(`bench/snmp/identify: ${devices} simulated devices (${recordings.length} recordings cycled) identified at once, ${rounds} rounds after one warm-up`);
    row('vendors', [...vendors].map(([k, n]) => `${k} ${n}`).join(', '));
    row('wall time per round', `min ${Math.min(...wall).toFixed(0)} ms, median ${percentile(wall, 50).toFixed(0)} ms`);
    row('CPU per round', `median ${percentile(cpu, 50).toFixed(0)} ms (client and simulator share this process)`);
    row('requests per device', int(requests));
    row('RSS', `before ${mib(base.rss)}, peak ${mib(peak.rss)} (+${mib(peak.rss - base.rss)})`);
    row('V8 heap used', `before ${mib(base.heapUsed)}, peak ${mib(peak.heap)} (+${mib(peak.heap - base.heapUsed)})`);
  } finally {
    await sim.stop();
  }
}

main().catch((e: unknown) => { console.error(e); process.exitCode = 1; });
