// The loopback peers of bench/monitors.ts, in their own process so that their CPU is not the service's:
// one HTTP server (200 with a small body) and a few TCP listeners, all on 127.0.0.1 only. Prints one JSON
// line {"http": port, "tcp": [ports]} on stdout when listening; exits when stdin closes or on SIGTERM.
// Run by the bench: node --import tsx bench/monitors/peers.ts <tcp listener count>
import { createServer as createHttpServer } from 'node:http';
import { createServer as createTcpServer, type Server } from 'node:net';

const tcpCount = Math.max(1, Number(process.argv[2] ?? 8));
const body = Buffer.from('ok\n');

const http = createHttpServer((req, res) => {
  req.resume();
  res.writeHead(200, { 'content-type': 'text/plain', 'content-length': body.length });
  res.end(body);
});
http.keepAliveTimeout = 5000;

function listen(s: Server | ReturnType<typeof createHttpServer>): Promise<number> {
  return new Promise((resolve, reject) => {
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => resolve((s.address() as { port: number }).port));
  });
}

const tcpServers: Server[] = [];
for (let i = 0; i < tcpCount; i++) {
  // Accept and let the client close (the tcp check connects, then closes without sending anything).
  tcpServers.push(createTcpServer((sock) => { sock.on('error', () => undefined); sock.resume(); }));
}

const httpPort = await listen(http);
const tcpPorts: number[] = [];
for (const s of tcpServers) tcpPorts.push(await listen(s));
process.stdout.write(JSON.stringify({ http: httpPort, tcp: tcpPorts }) + '\n');

const stop = () => {
  http.closeAllConnections();
  http.close();
  for (const s of tcpServers) s.close();
  process.exit(0);
};
process.stdin.on('end', stop);
process.stdin.on('close', stop);
process.stdin.resume();
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
