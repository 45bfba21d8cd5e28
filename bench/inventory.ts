// The inventory's lists at the size of a site (docs/brain.md, "Lists"): a CSV import of N endpoints (its dry
// run, then the import), the CSV export of them, and the endpoints list of 500 with each record's `watch`
// (the monitors on its addresses, found among M monitors, and its last-seen time), the endpoint's monitors,
// and the subnet's addresses with its free ranges. The real service in-process with a fresh data directory
// on 127.0.0.1; the endpoints' addresses and the monitors' targets are loopback (127.1.0.0/16), the monitors
// paused once made, so no packet leaves the machine. Prints figures; asserts nothing.
//
//   node --import tsx bench/inventory.ts [--endpoints 2000] [--monitors 500] [--runs 20]
import { parseArgs } from 'node:util';
import { brainServicesOf } from '../src/modules/brain/index.js';
import { startTestApp } from '../test/helpers/harness.js';

const { values } = parseArgs({ options: {
  endpoints: { type: 'string', default: '2000' }, monitors: { type: 'string', default: '500' }, runs: { type: 'string', default: '20' },
} });
const N = Number(values.endpoints), M = Number(values.monitors), RUNS = Number(values.runs);
const ip = (i: number) => `127.1.${Math.floor(i / 250)}.${(i % 250) + 1}`;
const mib = (n: number) => (n / 1048576).toFixed(1);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const t0 = performance.now();
  const r = await fn();
  return [r, performance.now() - t0];
}

async function main(): Promise<void> {
  const t = await startTestApp();
  try {
    const { key } = await t.admin();
    const call = async (method: string, path: string, body?: unknown, raw?: string) => {
      const r = await t.request(method, path, raw === undefined ? { key, body } : { key, raw, headers: { 'content-type': 'text/csv' } });
      if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.text.slice(0, 300)}`);
      return r;
    };
    await call('POST', '/api/brain/subnets', { cidr: '127.1.0.0/16', name: 'bench' });
    const rss0 = process.memoryUsage().rss;
    const csv = ['name,hostname,ip_addresses,mac_addresses,role,vendor,tags',
      ...Array.from({ length: N }, (_, i) => `ep-${i},ep-${i}.bench.lan,${ip(i)},02:00:00:00:${(i >> 8).toString(16).padStart(2, '0')}:${(i & 255).toString(16).padStart(2, '0')},server,Bench,"a, b"`),
    ].join('\r\n');
    await call('POST', '/api/brain/endpoints/import?dry_run=true', undefined, csv); // the first warms the code up
    const [, dry] = await timed(() => call('POST', '/api/brain/endpoints/import?dry_run=true', undefined, csv));
    const [, real] = await timed(() => call('POST', '/api/brain/endpoints/import', undefined, csv));
    console.log(`import of ${N} endpoints (${mib(csv.length)} MiB of CSV): dry run ${dry.toFixed(0)} ms, import ${real.toFixed(0)} ms ` +
      `(${(real / N).toFixed(2)} ms a row)`);

    for (let i = 0; i < M; i++) {
      const m = (await call('POST', '/api/monitors', { name: `m-${i}`, check_type: 'tcp', target: `${ip(i * Math.floor(N / M))}:9`, interval: 3600, timeout: 1 })).body;
      await call('POST', `/api/monitors/${m.id}/pause`);
    }
    const exports: number[] = [];
    let bytes = 0;
    for (let r = 0; r < Math.max(3, RUNS / 4); r++) {
      const [res, ms] = await timed(() => call('GET', '/api/brain/endpoints/export.csv'));
      exports.push(ms); bytes = res.text.length;
    }
    console.log(`export of ${N} endpoints with ${M} monitors: median ${median(exports).toFixed(0)} ms, ${mib(bytes)} MiB`);

    const lists: number[] = [];
    for (let r = 0; r < RUNS; r++) lists.push((await timed(() => call('GET', '/api/brain/endpoints?limit=500')))[1]);
    // The same 500 records straight from the item service, with and without their watch: what the summary costs.
    const { items, watch } = brainServicesOf(t.service.app);
    const bare: number[] = [], watched: number[] = [];
    for (let r = 0; r < RUNS; r++) {
      let t0 = performance.now();
      const page = items.list('endpoints', { limit: 500, offset: 0 }).items;
      bare.push(performance.now() - t0);
      t0 = performance.now();
      watch.shownAll(page);
      watched.push(performance.now() - t0);
    }
    const one = (await call('GET', '/api/brain/endpoints?limit=1')).body.items[0];
    const cards: number[] = [];
    for (let r = 0; r < RUNS; r++) cards.push((await timed(() => call('GET', `/api/brain/endpoints/${one.id}/monitors`)))[1]);
    const subnet = (await call('GET', '/api/brain/subnets')).body.items[0];
    const subnets: number[] = [];
    for (let r = 0; r < RUNS; r++) subnets.push((await timed(() => call('GET', `/api/brain/subnets/${subnet.id}/addresses?limit=100`)))[1]);
    console.log(`list of 500 endpoints with watch: median ${median(lists).toFixed(1)} ms; an endpoint's monitors: median ` +
      `${median(cards).toFixed(1)} ms; the /16's addresses (${N} documented, free ranges): median ${median(subnets).toFixed(1)} ms`);
    console.log(`500 endpoints from the item service: median ${median(bare).toFixed(1)} ms; their watch summaries: median ` +
      `${median(watched).toFixed(1)} ms (${(median(watched) * 2).toFixed(0)} µs an endpoint)`);
    console.log(`resident memory: ${mib(rss0)} MiB before the import, ${mib(process.memoryUsage().rss)} MiB after (this process: service and client)`);
  } finally {
    await t.close();
  }
}

await main();
