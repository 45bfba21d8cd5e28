// Monitor parents proposed from a saved session, through the API: what is proposed and why, applying one or
// all, never over parents a person set (a person's later change wins and the next proposal says "conflict"),
// re-applying changes nothing, both scopes needed, audited and in the monitors' event log. The graph is drawn
// by hand here and the probe's place given as `root`; the lab test (v1sion-parents-lab.test.ts) takes a scan.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/harness.js';
import { assertMatchesResponse } from '../helpers/route-schema.js';

describe('monitor parents proposed from a session', () => {
  let t: TestApp;
  let key: string;
  let session: string;
  const ids: Record<string, string> = {};
  const api = (method: string, path: string, body?: unknown, k = key) => t.request(method, path, { key: k, body });
  const proposals = async (root = 'probe') => {
    const r = await api('GET', `/api/v1sion/sessions/${session}/parent-proposals?root=${root}`);
    assert.equal(r.status, 200, r.text);
    assertMatchesResponse(t, 'GET', '/api/v1sion/sessions/:id/parent-proposals', r.body);
    return r.body;
  };
  const byName = (list: any, name: string) => list.proposals.find((p: any) => p.monitor.name === name);
  const apply = async (monitor_ids: string[] | 'all') => {
    const r = await api('POST', `/api/v1sion/sessions/${session}/parent-proposals/apply`, { monitor_ids, root: 'probe' });
    assert.equal(r.status, 200, r.text);
    assertMatchesResponse(t, 'POST', '/api/v1sion/sessions/:id/parent-proposals/apply', r.body);
    return r.body;
  };
  const parentsOf = async (name: string) => (await api('GET', `/api/monitors/${ids[name]}`)).body.parents;

  before(async () => {
    t = await startTestApp();
    key = (await t.admin()).key;
    const node = (id: string, address: string) => ({ id, label: id, addresses: [address] });
    const s = await api('POST', '/api/v1sion/sessions', {
      name: 'office',
      nodes: [node('probe', '127.0.0.1'), node('sw1', '127.0.0.2'), node('sw2', '127.0.0.3'), node('h1', '127.0.0.61'),
        node('h2', '127.0.0.62'), node('h3', '127.0.0.63')],
      edges: [
        { from: 'sw1', to: 'probe', from_port: 'ge1', source: 'fdb' },
        { from: 'sw1', to: 'sw2', from_port: 'ge2', to_port: 'ge1', source: 'lldp' },
        { from: 'sw2', to: 'h1', from_port: 'ge5', source: 'fdb' },
        { from: 'sw2', to: 'h2', from_port: 'ge6', source: 'fdb' },
        { from: 'sw2', to: 'h3', from_port: 'ge7', source: 'fdb' },
      ],
    });
    assert.equal(s.status, 201, s.text);
    session = s.body.id;
    // Checked once when made, then an hour apart: loopback addresses, so nothing leaves the machine.
    for (const [name, target, type] of [['sw1', '127.0.0.2', 'ping'], ['sw2', '127.0.0.3', 'ping'], ['h1', '127.0.0.61', 'ping'],
      ['h2', '127.0.0.62', 'ping'], ['h3', '127.0.0.63', 'ping'], ['h1-web', 'http://127.0.0.61:9/', 'http'],
      ['elsewhere', '127.0.1.7', 'ping']] as const) {
      const r = await api('POST', '/api/monitors', { name, check_type: type, target, interval: 3600 });
      assert.equal(r.status, 201, r.text);
      ids[name] = r.body.id;
    }
  });
  after(() => t.close());

  test('each monitor on a node gets the nearest ping monitor toward the probe, with why; nothing is applied by reading', async () => {
    const list = await proposals();
    assert.deepEqual(list.root, { node_id: 'probe', label: 'probe', why: 'the node chosen as the probe\'s place' });
    const got = Object.fromEntries(list.proposals.map((p: any) => [p.monitor.name, [p.status, p.parents.map((x: any) => x.name)]]));
    assert.deepEqual(got, {
      sw1: ['none', []], sw2: ['new', ['sw1']], h1: ['new', ['sw2']], h2: ['new', ['sw2']], h3: ['new', ['sw2']],
      'h1-web': ['new', ['h1']],
    });
    assert.equal(byName(list, 'h2').why, '127.0.0.62 (h2) is behind sw2 port ge6 (FDB); sw2\'s ping "sw2" is the nearest monitor ' +
      'toward the probe (probe)');
    assert.equal(list.counts.not_in_session, 1, 'the monitor of an address outside the session');
    assert.deepEqual(await parentsOf('h2'), []);
  });

  test('one by one, then all; re-applying changes nothing', async () => {
    const one = await apply([ids.h1!]);
    assert.deepEqual(one, { applied: 1, results: [{ monitor_id: ids.h1, outcome: 'applied', message: null }] });
    assert.deepEqual(await parentsOf('h1'), [ids.sw2]);
    assert.equal(byName(await proposals(), 'h1').status, 'applied');
    const all = await apply('all');
    assert.equal(all.applied, 4); // sw2, h2, h3, h1-web
    for (const [name, parent] of [['sw2', 'sw1'], ['h2', 'sw2'], ['h3', 'sw2'], ['h1-web', 'h1']]) {
      assert.deepEqual(await parentsOf(name!), [ids[parent!]], name);
    }
    assert.deepEqual((await apply('all')).results, []);
    assert.deepEqual((await apply([ids.h2!])).results, [{ monitor_id: ids.h2, outcome: 'unchanged', message: null }]);
    const unknown = await apply([ids.elsewhere!]);
    assert.deepEqual(unknown.results.map((r: any) => r.outcome), ['not_proposed']);
  });

  test('a person\'s parents are never replaced: a conflict, kept by apply all and by apply one', async () => {
    const put = await api('PUT', `/api/monitors/${ids.h3}`, { parents: [ids.sw1] });
    assert.equal(put.status, 200, put.text);
    const p = byName(await proposals(), 'h3');
    assert.equal(p.status, 'conflict');
    assert.deepEqual(p.current, { parents: [{ id: ids.sw1, name: 'sw1' }], set_by: 'person' });
    assert.deepEqual((await apply('all')).results, []);
    assert.deepEqual((await apply([ids.h3!])).results, [{ monitor_id: ids.h3, outcome: 'kept',
      message: 'A person set its parents: they are kept' }]);
    assert.deepEqual(await parentsOf('h3'), [ids.sw1]);
  });

  test('when the graph changes, parents a proposal set follow it', async () => {
    // h2 moves: a hand-drawn cable to sw1 (and its forwarding-table edge on sw2 goes).
    const s = (await api('GET', `/api/v1sion/sessions/${session}`)).body;
    const old = s.edges.find((e: any) => e.to === 'h2');
    const r = await api('PATCH', `/api/v1sion/sessions/${session}`, { remove_edges: [old.id],
      add_edges: [{ from: 'sw1', to: 'h2', from_port: 'ge9', to_port: null }] });
    assert.equal(r.status, 200, r.text);
    const p = byName(await proposals(), 'h2');
    assert.equal(p.status, 'changed');
    assert.equal(p.current.set_by, 'proposal');
    assert.match(p.why, /is behind sw1 port ge9 \(drawn by hand\)/);
    assert.equal((await apply('all')).applied, 1);
    assert.deepEqual(await parentsOf('h2'), [ids.sw1]);
  });

  test('audited, and in each monitor\'s event log with why', async () => {
    const audit = (await api('GET', '/api/audit-log?action=monitors.parents_proposed&limit=50')).body.items;
    assert.equal(audit.length, 3);
    assert.equal(audit.at(-1).target, `session:${session}`);
    const log = (await api('GET', `/api/monitors/events?monitor_id=${ids.h1}&limit=20`)).body.items;
    const e = log.find((x: any) => x.kind === 'updated' && /^Parents from the topology: /.test(x.message ?? ''));
    assert.ok(e, JSON.stringify(log));
    assert.deepEqual(e.details.changes.parents, { from: [], to: [ids.sw2] });
  });

  test('reading needs monitors:read as well as v1sion:read; applying needs v1sion:read as well as monitors:write', async () => {
    const only = async (scopes: string[]) => (await t.user('operator', scopes)).key;
    const v1sionOnly = await only(['v1sion:write']);
    const r = await api('GET', `/api/v1sion/sessions/${session}/parent-proposals`, undefined, v1sionOnly);
    assert.equal(r.status, 403, r.text);
    assert.match(r.body.detail, /monitors:read/);
    const monitorsOnly = await only(['monitors:write']);
    const w = await api('POST', `/api/v1sion/sessions/${session}/parent-proposals/apply`, { monitor_ids: 'all' }, monitorsOnly);
    assert.equal(w.status, 403, w.text);
    assert.match(w.body.detail, /v1sion:read/);
    const both = await only(['v1sion:read', 'monitors:write']);
    assert.equal((await api('POST', `/api/v1sion/sessions/${session}/parent-proposals/apply`, { monitor_ids: 'all', root: 'probe' }, both)).status, 200);
    // A viewer signed in reads both areas, and writes neither.
    const { cookie } = await t.user('viewer');
    assert.equal((await t.request('GET', `/api/v1sion/sessions/${session}/parent-proposals?root=probe`, { cookie })).status, 200);
    assert.equal((await t.request('POST', `/api/v1sion/sessions/${session}/parent-proposals/apply`,
      { cookie, body: { monitor_ids: 'all' } })).status, 403);
  });

  test('an unknown session is a 404, a root that is no node says so, bad bodies are 400', async () => {
    assert.equal((await api('GET', '/api/v1sion/sessions/7d0f7f44-0000-4000-8000-00000000000a/parent-proposals')).status, 404);
    const none = await proposals('nope');
    assert.equal(none.root, null);
    assert.match(none.problem, /No node "nope"/);
    for (const body of [{}, { monitor_ids: [] }, { monitor_ids: 'some' }, { monitor_ids: ['x'] }, { monitor_ids: 'all', extra: 1 }]) {
      const r = await api('POST', `/api/v1sion/sessions/${session}/parent-proposals/apply`, body);
      assert.equal(r.status, 400, JSON.stringify(body));
    }
  });
});
