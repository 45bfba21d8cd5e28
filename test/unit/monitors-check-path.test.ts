// The path check's pure parts: mtr 0.95's JSON report (recorded outputs, ../shared/notes/port-and-path.md §1
// and this machine's mtr-tiny), the route comparison, the result and its route change, the mtr command line,
// and how a failing mtr reads. The lab test (integration/monitors-check-path-lab.test.ts) runs the real mtr.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { HttpError } from '../../src/core/errors.js';
import type { RunResult } from '../../src/core/exec.js';
import { mtrArgs, parseMtrJson, pathResult, routeChanged, runWith, settings } from '../../src/modules/monitors/checks/path.js';
import type { CheckMemory } from '../../src/modules/monitors/checks/types.js';

/** `mtr -n -c 5 -j 10.98.9.9` over a 2-hop lab path (notes §1): mtr's default fields, no Rcv. */
const TWO_HOPS = `{"report":{"mtr":{"src":"vm","dst":"10.98.9.9","tos":0,"tests":5,"psize":"64","bitpattern":"0x00"},"hubs":[
{"count":1,"host":"10.98.1.1","Loss%":0.0,"Snt":5,"Last":0.044,"Avg":0.039,"Best":0.022,"Wrst":0.052,"StDev":0.011},
{"count":2,"host":"10.98.9.9","Loss%":0.0,"Snt":5,"Last":0.061,"Avg":0.058,"Best":0.049,"Wrst":0.07,"StDev":0.008}]}}`;

/** A hop that never answered ("???", 100 %, times 0.0) and a lossy destination, with -o LSRNABWV (Rcv). */
const UNKNOWN_HOP = `{"report":{"mtr":{"src":"vm","dst":"10.98.9.9","tos":0,"tests":3,"psize":"64","bitpattern":"0x00"},"hubs":[
{"count":1,"host":"10.98.1.1","Loss%":0.0,"Snt":3,"Rcv":3,"Last":0.05,"Avg":0.04,"Best":0.03,"Wrst":0.05,"StDev":0.01},
{"count":2,"host":"???","Loss%":100.0,"Snt":3,"Rcv":0,"Last":0.0,"Avg":0.0,"Best":0.0,"Wrst":0.0,"StDev":0.0},
{"count":3,"host":"10.98.9.9","Loss%":66.666,"Snt":3,"Rcv":1,"Last":0.08,"Avg":0.08,"Best":0.08,"Wrst":0.08,"StDev":0.0}]}}`;

/**
 * Mid-run route change to the longer path through rtr2 (notes §1: JSON keeps one host per hop, the latest;
 * the new third hop has fewer probes sent).
 */
const LONGER = `{"report":{"mtr":{"src":"vm","dst":"10.98.9.9","tos":0,"tests":20,"psize":"64","bitpattern":"0x00"},"hubs":[
{"count":1,"host":"10.98.1.1","Loss%":0.0,"Snt":20,"Rcv":20,"Last":0.04,"Avg":0.04,"Best":0.02,"Wrst":0.06,"StDev":0.01},
{"count":2,"host":"10.98.3.2","Loss%":0.0,"Snt":20,"Rcv":20,"Last":0.05,"Avg":0.05,"Best":0.03,"Wrst":0.07,"StDev":0.01},
{"count":3,"host":"10.98.9.9","Loss%":0.0,"Snt":10,"Rcv":10,"Last":0.07,"Avg":0.06,"Best":0.05,"Wrst":0.08,"StDev":0.01}]}}`;

const s = settings.parse({});
const memory = (): CheckMemory & { kept: unknown } => {
  const m = { previous: undefined as unknown, kept: undefined as unknown, keep(v: unknown) { m.kept = v; } };
  return m;
};

describe('mtr JSON', () => {
  test('a 2-hop path: addresses, loss, times; received from Snt and Loss% without Rcv', () => {
    assert.deepEqual(parseMtrJson(TWO_HOPS), [
      { hop: 1, address: '10.98.1.1', loss_pct: 0, sent: 5, received: 5, avg_ms: 0.039, best_ms: 0.022, worst_ms: 0.052 },
      { hop: 2, address: '10.98.9.9', loss_pct: 0, sent: 5, received: 5, avg_ms: 0.058, best_ms: 0.049, worst_ms: 0.07 },
    ]);
  });

  test('"???" is a hop without an address or times; Loss% rounded to a tenth, Rcv as given', () => {
    const hops = parseMtrJson(UNKNOWN_HOP)!;
    assert.deepEqual(hops[1], { hop: 2, address: null, loss_pct: 100, sent: 3, received: 0, avg_ms: null, best_ms: null, worst_ms: null });
    assert.equal(hops[2]!.loss_pct, 66.7);
    assert.equal(hops[2]!.received, 1);
  });

  test('not a report: null', () => {
    assert.equal(parseMtrJson(''), null);
    assert.equal(parseMtrJson('mtr: Failed to resolve host'), null);
    assert.equal(parseMtrJson('{"report":{}}'), null);
  });
});

describe('route changes', () => {
  test('a hop answering from another address, or another length to a reached destination', () => {
    assert.equal(routeChanged(['a', 'b'], ['a', 'b'], true), false);
    assert.equal(routeChanged(['a', 'b', 'c'], ['a', 'x', 'c'], true), true);
    assert.equal(routeChanged(['a', 'c'], ['a', 'b', 'c'], true), true);
    assert.equal(routeChanged(['a', 'b', 'c'], ['a', 'c'], true), true);
  });

  test('a hop that did not answer is no evidence; nor is the length of a path that did not reach the host', () => {
    assert.equal(routeChanged(['a', 'b', 'c'], ['a', null, 'c'], true), false);
    assert.equal(routeChanged(['a', 'b'], ['a', 'b', null, null], false), false);
  });

  test('the result carries the change (event log, alert) with the old and the new path, and memory keeps the new', () => {
    const m = memory();
    const first = pathResult('far', '10.98.9.9', parseMtrJson(TWO_HOPS)!, s, { memory: m });
    assert.equal(first.change, undefined, 'the first check has nothing to compare with');
    assert.deepEqual(m.kept, { path: ['10.98.1.1', '10.98.9.9'], reached: true });
    m.previous = m.kept;
    const second = pathResult('far', '10.98.9.9', parseMtrJson(LONGER)!, s, { memory: m });
    assert.deepEqual(second.change, { kind: 'route_changed',
      message: 'Route to far changed: 10.98.1.1 > 10.98.9.9 became 10.98.1.1 > 10.98.3.2 > 10.98.9.9',
      details: { from: ['10.98.1.1', '10.98.9.9'], to: ['10.98.1.1', '10.98.3.2', '10.98.9.9'] } });
    assert.deepEqual(second.details.route_change, second.change!.details);
    assert.deepEqual(second.measurements, { hops: 3, loss_pct: 0 });
    m.previous = m.kept;
    assert.equal(pathResult('far', '10.98.9.9', parseMtrJson(LONGER)!, s, { memory: m }).change, undefined, 'the same again');
  });
});

describe('the result', () => {
  test('up: the destination answered; its average is the response time, its loss the measurement', () => {
    const r = pathResult('10.98.9.9', '10.98.9.9', parseMtrJson(UNKNOWN_HOP)!, s, {});
    assert.equal(r.status, 'up');
    assert.equal(r.response_time_ms, 0.08);
    assert.deepEqual(r.measurements, { hops: 3, loss_pct: 66.7 });
    assert.equal(r.message, '3 hops, 66.7% loss at 10.98.9.9');
    assert.equal((r.details.hops as unknown[]).length, 3);
  });

  test('down: the last hop is not the destination; the message names the last hop that answered', () => {
    const hops = parseMtrJson(TWO_HOPS)!.slice(0, 1);
    const r = pathResult('far.lab', '10.98.9.9', [...hops, { hop: 2, address: null, loss_pct: 100, sent: 5, received: 0,
      avg_ms: null, best_ms: null, worst_ms: null }], s, {});
    assert.equal(r.status, 'down');
    assert.equal(r.response_time_ms, null);
    assert.equal(r.message, 'no answer from far.lab within 2 hops; last answer from hop 1 (10.98.1.1)');
    assert.deepEqual(r.measurements, { hops: 2, loss_pct: 100 });
  });
});

describe('running mtr', () => {
  test('the command line: JSON, no DNS, Rcv among the fields, a probe a second, 1 s grace; UDP and TCP with a port', () => {
    assert.deepEqual(mtrArgs('192.0.2.1', s),
      ['-j', '-n', '-o', 'LSRNABWV', '-c', '5', '-i', '1', '-G', '1', '-m', '30', '--', '192.0.2.1']);
    assert.deepEqual(mtrArgs('192.0.2.1', settings.parse({ probe_type: 'tcp', dest_port: 443, cycles: 3 })).slice(4),
      ['-c', '3', '-i', '1', '-G', '1', '-m', '30', '-T', '-P', '443', '--', '192.0.2.1']);
    assert.deepEqual(mtrArgs('192.0.2.1', settings.parse({ probe_type: 'udp' })).slice(-5), ['-u', '-P', '80', '--', '192.0.2.1']);
    assert.deepEqual(mtrArgs('192.0.2.1', settings.parse({ dest_port: 53 })).slice(-2), ['--', '192.0.2.1'], 'ICMP has no port');
  });

  const result = (over: Partial<RunResult>): RunResult =>
    ({ code: 0, signal: null, stdout: '', stderr: '', duration_ms: 1, timed_out: false, truncated: false, ...over });

  test('mtr refused to run (its privilege drop under a strict unit): down with its words', async () => {
    const r = await runWith(async () => result({ code: 1, stderr: 'mtr-packet: Unable to drop elevated permissions: Operation not permitted\n' }),
      '192.0.2.1', s, { timeout: 10 });
    assert.equal(r.status, 'down');
    assert.equal(r.message, 'mtr failed: mtr-packet: Unable to drop elevated permissions: Operation not permitted');
  });

  test('mtr not installed: down with the install hint; an unresolvable name: down naming it', async () => {
    const r = await runWith(async () => { throw new HttpError(503, 'program_missing', 'missing'); }, '192.0.2.1', s, { timeout: 10 });
    assert.equal(r.message, 'mtr is not installed (apt-get install mtr-tiny)');
    assert.equal(r.details.install_hint, 'apt-get install mtr-tiny');
    const n = await runWith(async () => assert.fail('mtr must not run'), 'no-such-host.invalid', s, { timeout: 5 });
    assert.equal(n.status, 'down');
    assert.match(n.message, /^cannot resolve no-such-host\.invalid: /);
  });

  test('the report goes to the result, with the address mtr was given', async () => {
    let args: string[] = [];
    const r = await runWith(async (_p, a) => { args = a; return result({ stdout: TWO_HOPS }); }, '10.98.9.9', s, { timeout: 10 });
    assert.equal(args.at(-1), '10.98.9.9');
    assert.equal(r.status, 'up');
    assert.equal(r.details.address, '10.98.9.9');
  });
});
