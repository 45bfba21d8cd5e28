// The peers of bench/snmp-poll.ts in a process of their own (their CPU is not the service's): N simulated
// SNMP agents (test/helpers/snmp-sim.ts) with M interfaces each (test/helpers/if-sim.ts) whose counters
// advance with real time, a silent UDP socket (a dead agent: bound, never answers), and a TCP listener for
// the tcp monitors. Loopback only. Prints one JSON line with the ports, then, on "cpu" from stdin, a line
// with its own CPU time (ms). Run by the bench: node --import tsx bench/snmp/poll-agents.ts <devices> <ifs> <community>
import { createSocket } from 'node:dgram';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { IfSim } from '../../test/helpers/if-sim.js';
import { startSimulator } from '../../test/helpers/snmp-sim.js';

const DEVICES = Number(process.argv[2] ?? 50);
const IFS = Number(process.argv[3] ?? 48);
const COMMUNITY = process.argv[4] ?? 'public';
/** How often the counters move: well inside a 60 s poll, so a poll's rate is within a few % of the set one. */
const TICK_MS = 2000;

// Interface i of device d carries a steady rate: 1-48 Mbit/s in, a third of it out, 1,500-byte packets,
// one interface in 16 with a few errors a second (the counters the rates come from all move).
const rateOf = (d: number, i: number) => ((d * 7 + i) % 48 + 1) * 1e6;
const sims = Array.from({ length: DEVICES }, () => new IfSim({
  interfaces: Array.from({ length: IFS }, (_, i) => ({
    index: i + 1, name: `ge-0/0/${i + 1}`, alias: i === 0 ? 'uplink' : '', speed_bps: 1e9,
  })),
}));
const sim = await startSimulator(sims.map((s, d) => ({ text: s.text(), name: `sw${d + 1}`, community: COMMUNITY })));
sims.forEach((s, d) => s.attach(sim.devices[d]!.recording));

let last = Date.now();
const timer = setInterval(() => {
  const now = Date.now();
  const s = (now - last) / 1000;
  last = now;
  sims.forEach((dev, d) => {
    for (let i = 1; i <= IFS; i++) {
      const bps = rateOf(d, i);
      const inOct = Math.round((bps / 8) * s);
      const outOct = Math.round((bps / 24) * s);
      dev.advance(i, {
        in_octets: inOct, out_octets: outOct, in_ucast: Math.round(inOct / 1500), out_ucast: Math.round(outOct / 1500),
        in_bcast: Math.round(s), in_errors: i % 16 === 0 ? Math.round(3 * s) : 0,
      });
    }
    dev.tick(s * 1000).publish();
  });
}, TICK_MS);

const dead = createSocket('udp4');
dead.on('message', () => undefined); // heard, never answered
dead.bind(0, '127.0.0.1');
await new Promise((r) => dead.once('listening', r));

const tcp = createServer((sock) => { sock.on('error', () => undefined); sock.end(); });
tcp.listen(0, '127.0.0.1');
await new Promise((r) => tcp.once('listening', r));

process.stdout.write(JSON.stringify({
  agents: sim.devices.map((d) => d.port), dead: (dead.address()).port, tcp: (tcp.address() as { port: number }).port,
  rates_bps: sims.map((_, d) => Array.from({ length: IFS }, (__, i) => rateOf(d, i + 1))),
}) + '\n');

for await (const line of createInterface({ input: process.stdin })) {
  if (line === 'cpu') {
    const u = process.cpuUsage();
    process.stdout.write(JSON.stringify({ cpu_ms: (u.user + u.system) / 1000, requests: sim.devices.reduce((a, d) => a + d.requests, 0) }) + '\n');
  }
}
clearInterval(timer);
dead.close();
tcp.close();
await sim.stop();
