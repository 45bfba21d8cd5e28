// The bench's HTTP client in a process of its own, as a browser is: it times GET /api/version and
// GET /api/monitors on kept-alive sockets (ListTimer, VersionTimer) when bench/monitors.ts asks, one
// line each way: "version" or "list" in, {"ms": ..., "bytes": ...} out. Timed in the bench's own
// process, a request's time also held that process's pauses (its heap holds the seeding's garbage).
// Run by the bench: node --import tsx bench/monitors/client.ts <base> <api key>
import { createInterface } from 'node:readline';
import { ListTimer, VersionTimer } from './service.js';

const [base, key] = [process.argv[2]!, process.argv[3]!];
const lister = new ListTimer(base, key);
const versions = new VersionTimer(base);

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  try {
    if (line === 'version') process.stdout.write(JSON.stringify({ ms: await versions.time(), bytes: 0 }) + '\n');
    else if (line === 'list') process.stdout.write(JSON.stringify(await lister.time()) + '\n');
    else throw new Error(`unknown command ${JSON.stringify(line)}`);
  } catch (e) {
    process.stdout.write(JSON.stringify({ error: String(e) }) + '\n');
  }
}
lister.close();
versions.close();
