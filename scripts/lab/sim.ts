// The project's snmprec simulator (test/helpers/snmp-sim.ts) as a lab daemon: run inside a lab
// namespace (`ip netns exec ... timeout ... node --import tsx scripts/lab/sim.ts <config.json>`), it
// serves each recording of the configuration on its own lab address, UDP 161, until it is killed.
//   config.json: {"devices": [{"name": "access-sw1", "file": ".../x.snmprec", "host": "10.77.0.40", "community": "..."}]}
// It prints one "serving <name> on <address>:<port>" line per device, then "ready".
import { readFileSync } from 'node:fs';
import { startSimulator, type SimRecording } from '../../test/helpers/snmp-sim.js';

export interface SimConfig { devices: (Required<Pick<SimRecording, 'name' | 'file' | 'host' | 'community'>> & { port?: number })[] }

async function main(): Promise<void> {
  const file = process.argv[2];
  if (!file) throw new Error('usage: scripts/lab/sim.ts <config.json>');
  const config = JSON.parse(readFileSync(file, 'utf8')) as SimConfig;
  const sim = await startSimulator(config.devices.map((d) => ({ ...d, port: d.port ?? 161 })));
  for (const d of sim.devices) console.log(`serving ${d.name} on ${d.host}:${d.port} (${d.recording.vars.length} variables)`);
  console.log('ready');
  const stop = () => { void sim.stop().then(() => process.exit(0)); };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((e) => {
  console.error(`sim: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
