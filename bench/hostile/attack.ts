// The attacker of bench/hostile-clients.ts, run as its own process so that its work does not delay the
// timed client's. `node --import tsx bench/hostile/attack.ts <shape> <port> <seconds>` prints one JSON
// line of counts when done. Loopback only, from source addresses 127.0.0.2 and up (the timed client is
// 127.0.0.1); bounded in time and, for the malformed burst, in count.
//   spread     60 slow connections from each of 127.0.0.2..7, each sending a header line every 2 s and never
//              finishing it; a connection the server closes is opened again
//   abusive    one address (127.0.0.9) opening connections as fast as it can, 256 at a time, each
//              pipelining requests for the OpenAPI document and never reading; closed after 100 ms
//   malformed  50,000 malformed requests from 127.0.0.10..13, 64 connections at a time
import { connect, type Socket } from 'node:net';

const [shape, portArg, secondsArg] = process.argv.slice(2);
const port = Number(portArg);
const until = Date.now() + Number(secondsArg) * 1000;
const counts = { opened: 0, refused: 0, closedByServer: 0, requests: 0, responses: 0, errors: 0 };
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function open(localAddress: string): Socket {
  const s = connect({ host: '127.0.0.1', port, localAddress });
  counts.opened++;
  s.on('error', () => { counts.errors++; });
  return s;
}

async function spread(): Promise<void> {
  const addresses = [2, 3, 4, 5, 6, 7].map((n) => `127.0.0.${n}`);
  const live = new Set<Socket>();
  const slow = (addr: string): void => {
    if (Date.now() >= until) return;
    const s = open(addr);
    live.add(s);
    s.on('data', (d) => { if (d.toString('latin1').startsWith('HTTP/1.1 503')) counts.refused++; });
    s.write('GET /api/version HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    const drip = setInterval(() => s.write(`X-Slow-${counts.opened}: ${'a'.repeat(32)}\r\n`), 2000);
    s.on('close', () => {
      clearInterval(drip);
      live.delete(s);
      if (Date.now() < until) { counts.closedByServer++; setTimeout(() => slow(addr), 100); }
    });
  };
  for (const a of addresses) for (let i = 0; i < 60; i++) slow(a);
  while (Date.now() < until) await sleep(200);
  for (const s of live) s.destroy();
}

async function abusive(): Promise<void> {
  const request = 'GET /api/openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'.repeat(8);
  let inFlight = 0;
  const one = (): void => {
    if (Date.now() >= until) return;
    inFlight++;
    const s = open('127.0.0.9');
    s.pause(); // never read: what the server sends stays queued on its side
    s.on('connect', () => { s.write(request); counts.requests += 8; });
    const t = setTimeout(() => s.destroy(), 100);
    s.on('close', () => { clearTimeout(t); inFlight--; setImmediate(one); });
  };
  for (let i = 0; i < 256; i++) one();
  while (Date.now() < until || inFlight > 0) await sleep(100);
}

/** Requests the server must refuse, each on its own connection: the parser's errors and the API's. */
const MALFORMED: ((n: number) => string)[] = [
  () => 'GARBAGE \x00\x01\x02 nonsense\r\n\r\n',
  (n) => `GET /api/version HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Header${n}: x\r\n\r\n`,
  (n) => `GET /api/${'x'.repeat(20_000)}${n} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`,
  (n) => `POST /api/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 30\r\n\r\n{"username": "u${n}", "passw`,
  (n) => { const b = `{"username":"u${n}","password":` + '['.repeat(2000); return `POST /api/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${b.length}\r\n\r\n${b}`; },
  () => 'POST /api/monitors HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: abc\r\n\r\n',
  (n) => `GET /api/monitors?limit=%zz${n}&offset=-1 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`,
  (n) => `GET /api/version HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\nzz${n}\r\n`,
];
const MALFORMED_TOTAL = 50_000;

async function malformed(): Promise<void> {
  const addresses = [10, 11, 12, 13].map((n) => `127.0.0.${n}`);
  let sent = 0;
  const worker = async (w: number): Promise<void> => {
    while (sent < MALFORMED_TOTAL && Date.now() < until) {
      const n = sent++;
      await new Promise<void>((resolve) => {
        const s = open(addresses[w % addresses.length]!);
        const t = setTimeout(() => s.destroy(), 3000);
        s.on('connect', () => { s.end(MALFORMED[n % MALFORMED.length]!(n)); counts.requests++; });
        s.once('data', () => { counts.responses++; });
        s.resume();
        s.on('close', () => { clearTimeout(t); resolve(); });
      });
    }
  };
  await Promise.all(Array.from({ length: 64 }, (_, w) => worker(w)));
}

const shapes: Record<string, () => Promise<void>> = { spread, abusive, malformed };
const run = shapes[shape ?? ''];
if (!run || !port) { console.error('usage: attack.ts spread|abusive|malformed <port> <seconds>'); process.exit(2); }
const t0 = Date.now();
await run();
process.stdout.write(JSON.stringify({ ...counts, seconds: (Date.now() - t0) / 1000 }) + '\n');
process.exit(0);
