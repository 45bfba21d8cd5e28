// Plain TCP services for hosts that have nothing else to answer with (the ICMP-silent host, the
// server behind the router): a tiny HTTP server per port, run by this machine's node.
import type { DaemonSpec } from './daemons.js';
import type { HostPlan } from './topology.js';

const SERVER = `
const http = require('node:http');
const [name, ...ports] = process.argv.slice(1);
for (const port of ports) {
  http.createServer((req, res) => res.end('netprobe lab ' + name + '\\n'))
    .listen(Number(port), () => console.log('listening on ' + port));
}`;

export function httpSpec(h: HostPlan): DaemonSpec {
  return {
    name: 'http', phase: 1,
    argv: [process.execPath, '-e', SERVER, h.name, ...h.tcp.map(String)],
    ready: [{ patterns: h.tcp.map((p) => new RegExp(`listening on ${p}\\b`)) }],
  };
}
