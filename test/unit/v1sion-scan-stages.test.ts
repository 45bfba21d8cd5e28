// The discovery stages as declared (scan/stages/) and the pipeline that runs them: every need is met by
// the request or an earlier stage of its phase, progress comes from the weights, a stage waits only for
// the stages that add what it needs, and a host's messages carry what a later per-host stage found.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AppContext } from '../../src/core/context.js';
import type { JobControl } from '../../src/core/jobs.js';
import { parseCidr, type Cidr } from '../../src/core/ip.js';
import { runPipeline } from '../../src/modules/v1sion/scan/pipeline.js';
import { ScanHost, ScanResult } from '../../src/modules/v1sion/scan/result.js';
import { ScanState } from '../../src/modules/v1sion/scan/state.js';
import { STAGES } from '../../src/modules/v1sion/scan/stages/index.js';
import { INPUTS, PHASES, PRODUCTS, type Stage } from '../../src/modules/v1sion/scan/stages/types.js';

test('every declared stage needs only the request\'s inputs and what earlier stages add, and adds only result fields', () => {
  const names = STAGES.map((s) => s.name);
  assert.equal(new Set(names).size, names.length, 'stage names are unique');
  const hostFields = Object.keys(ScanHost.shape);
  const resultFields = Object.keys(ScanResult.shape);
  STAGES.forEach((s, i) => {
    assert.ok(s.weight > 0, `${s.name}: a share of the progress`);
    assert.ok(!!s.run !== !!s.perHost, `${s.name}: either run or perHost`);
    for (const n of s.needs) {
      const earlier = STAGES.slice(0, i).filter((e) => e.adds.products?.includes(n as never));
      assert.ok((INPUTS as readonly string[]).includes(n) || earlier.length, `${s.name} needs ${n}: no earlier stage adds it`);
      // Per-host stages of one phase run together on a host: one cannot wait for another.
      if (s.perHost) assert.ok(!earlier.some((e) => e.perHost && e.phase === s.phase), `${s.name} needs ${n} from a per-host stage beside it`);
      // They run as one group, so a stage of that phase that waits for one of them comes after all of them.
      const group = STAGES.filter((e) => e.perHost && e.phase === s.phase);
      if (earlier.some((e) => e.perHost && e.phase === s.phase)) assert.ok(group.every((e) => STAGES.indexOf(e) < i), `${s.name} sits among the per-host stages it waits for`);
    }
    for (const p of s.adds.products ?? []) assert.ok(PRODUCTS.includes(p), `${s.name}: ${p}`);
    for (const f of s.adds.host ?? []) assert.ok(hostFields.includes(f), `${s.name} adds host.${f}, not in the result schema`);
    for (const f of s.adds.result ?? []) assert.ok(resultFields.includes(f), `${s.name} adds ${f}, not in the result schema`);
  });
  assert.deepEqual([...new Set(STAGES.map((s) => s.phase))], [...PHASES], 'phases in order');
});

/** A scan of 10.0.0.0/30 with fake stages; records the job's messages and the bus events. */
async function runFake(stages: Stage[], opts: { abortAfter?: string } = {}) {
  const subnet = (parseCidr('10.0.0.0/30') as { cidr: Cidr }).cidr;
  const state = new ScanState({
    jobId: 'job', subnet, subnetText: '10.0.0.0/30', addresses: ['10.0.0.1', '10.0.0.2'], links: [], credentials: [],
    snmpEnabled: true, startedAt: '2024-01-01T00:00:00Z', startedMs: 0,
  });
  const controller = new AbortController();
  const messages: { type: string; progress: number; data?: Record<string, unknown> }[] = [];
  let progress = 0;
  const ctl: JobControl = {
    signal: controller.signal,
    progress: (pct, data) => { progress = pct; messages.push({ type: 'progress', progress, data }); },
    emit: (type, data) => {
      messages.push({ type, progress, data });
      if (type === 'phase' && data?.phase === opts.abortAfter) controller.abort();
    },
  };
  const bus: { host: ScanHost }[] = [];
  const app = { bus: { emit: (_: string, e: { host: ScanHost }) => bus.push(structuredClone(e)) } } as unknown as AppContext;
  const settings = { tcpPorts: [], reverseDns: false, dnsServers: [], snmpTiming: { timeout_ms: 100, retries: 0 } };
  await runPipeline({ app, settings }, state, ctl, stages);
  return { state, messages, bus };
}

const tick = () => new Promise((r) => setTimeout(r, 5));

test('stages run by what they need; progress comes from the weights; a late per-host stage\'s finding travels with the host', async () => {
  const order: string[] = [];
  const stages: Stage[] = [
    { name: 'a', phase: 'liveness', needs: ['addresses'], adds: { products: ['hosts'] }, weight: 30,
      async run(ctx) { order.push('a+'); await tick(); ctx.progress(0.5); ctx.state.alive('10.0.0.1', 'icmp'); order.push('a-'); } },
    { name: 'b', phase: 'liveness', needs: ['addresses'], adds: { products: ['neighbours'] }, weight: 10,
      async run() { order.push('b+'); await tick(); await tick(); order.push('b-'); } },
    { name: 'c', phase: 'liveness', needs: ['neighbours'], adds: { products: ['macs'] }, weight: 10,
      async run() { order.push('c+'); } },
    { name: 'skipped', phase: 'liveness', needs: ['links'], adds: {}, weight: 10, async run() { order.push('skipped'); } },
    { name: 'name', phase: 'identify', needs: ['hosts'], adds: { products: ['agents'], host: ['hostname'] }, weight: 10,
      perHost: () => ({ each: async (h) => { await tick(); h.hostname = 'early'; } }) },
    { name: 'agents', phase: 'identify', needs: ['agents'], adds: {}, weight: 10,
      async run(ctx) { order.push(`agents after ${[...ctx.state.hosts.values()].map((h) => h.hostname).join()}`); } },
    { name: 'late', phase: 'neighbours', needs: ['hosts'], adds: { host: ['device_id'] }, weight: 20,
      perHost: () => ({ each: async (h) => { h.device_id = 'device-1'; } }) },
  ];
  const { messages, bus } = await runFake(stages);
  // a and b start at once; c waits for b only (it needs what b adds), not for a.
  assert.deepEqual(order.slice(0, 2), ['a+', 'b+']);
  assert.ok(order.indexOf('c+') > order.indexOf('b-'));
  assert.ok(!order.includes('skipped'), 'a stage without its inputs (no links) does not run');
  assert.ok(order.includes('agents after early'), 'a scan-wide stage waits for the per-host stage whose product it needs');
  assert.deepEqual(messages.filter((m) => m.type === 'phase').map((m) => m.data!.phase), ['liveness', 'identify', 'neighbours']);

  const pcts = messages.filter((m) => m.type === 'progress').map((m) => m.progress);
  // The skipped stage counts as done from the start: 10 of 100; a at half: +15.
  assert.equal(pcts[0], Math.round(0.25 * 99));
  assert.deepEqual(pcts, [...pcts].sort((x, y) => x - y), 'progress never goes back');
  assert.equal(pcts.at(-1), 99);

  // One host message, sent once the neighbours-phase stage had run: it carries the late finding.
  const hosts = messages.filter((m) => m.type === 'host');
  assert.equal(hosts.length, 1);
  assert.deepEqual((hosts[0]!.data!.host as ScanHost), { ...(hosts[0]!.data!.host as ScanHost), hostname: 'early', device_id: 'device-1' });
  assert.ok(messages.indexOf(hosts[0]!) > messages.findIndex((m) => m.type === 'phase' && m.data!.phase === 'neighbours'));
  assert.equal(bus.length, 1);
  assert.equal(bus[0]!.host.device_id, 'device-1');
});

test('a cancelled scan starts no further stage and sends no host message', async () => {
  let ran = false;
  const stages: Stage[] = [
    { name: 'a', phase: 'liveness', needs: [], adds: { products: ['hosts'] }, weight: 1,
      async run(ctx) { ctx.state.alive('10.0.0.1', 'icmp'); } },
    { name: 'b', phase: 'identify', needs: ['hosts'], adds: {}, weight: 1, perHost: () => ({ each: async () => { ran = true; } }) },
  ];
  const { messages, state } = await runFake(stages, { abortAfter: 'liveness' });
  assert.equal(ran, false);
  assert.equal(messages.filter((m) => m.type === 'host').length, 0);
  assert.equal(state.hosts.size, 0, 'nothing of the first stage ran after the cancel either');
});
