import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '../../src/core/clock.js';
import { EventBus } from '../../src/core/events.js';
import { Logger } from '../../src/core/log.js';

test('the bus delivers to every listener and isolates failures', async () => {
  const errors: string[] = [];
  const bus = new EventBus((event) => errors.push(event));
  const got: string[] = [];
  bus.on('config.changed', () => { throw new Error('sync boom'); });
  bus.on('config.changed', async () => { throw new Error('async boom'); });
  const off = bus.on('config.changed', (p) => { got.push(p.keys.join(',')); });
  bus.emit('config.changed', { keys: ['a', 'b'] });
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(got, ['a,b']);
  assert.deepEqual(errors, ['config.changed', 'config.changed']);
  off();
  bus.emit('config.changed', { keys: ['c'] });
  assert.deepEqual(got, ['a,b']);
  assert.equal(bus.listenerCount('config.changed'), 2);
});

test('the logger filters by level, keeps a bounded ring and feeds subscribers', () => {
  const lines: string[] = [];
  const log = Logger.create({ capacity: 3, level: 'info', write: (l) => lines.push(l) });
  const child = log.child('mod', { request_id: 'r1' });
  const seen: string[] = [];
  const off = log.subscribe((e) => seen.push(e.msg));
  child.debug('hidden');
  for (let i = 0; i < 5; i++) child.info(`m${i}`, { i });
  child.error('bad', { err: new Error('why') });
  off();
  log.info('after');
  assert.equal(lines.length, 7);
  assert.match(lines[0]!, /INFO {2}\[mod\] m0 \{"request_id":"r1","i":0\}/);
  assert.deepEqual(log.recent().map((e) => e.msg), ['m4', 'bad', 'after']);
  assert.deepEqual(seen, ['m0', 'm1', 'm2', 'm3', 'm4', 'bad']);
  const errEntry = log.recent().find((e) => e.msg === 'bad')!;
  assert.match(String(errEntry.fields!.err), /Error: why/);
  const last = log.recent().at(-1)!.seq;
  assert.deepEqual(log.recent(last - 1).map((e) => e.msg), ['after']);
});

test('the manual clock fires due timers in order and not cancelled ones', () => {
  const c = new ManualClock(0);
  const fired: string[] = [];
  c.setTimeout(() => fired.push('b'), 200);
  c.setTimeout(() => { fired.push('a'); c.setTimeout(() => fired.push('a2'), 50); }, 100);
  const x = c.setTimeout(() => fired.push('x'), 120);
  x.cancel();
  c.advance(160);
  assert.deepEqual(fired, ['a', 'a2']);
  assert.equal(c.now(), 160);
  c.advance(100);
  assert.deepEqual(fired, ['a', 'a2', 'b']);
  assert.equal(c.iso(0), '1970-01-01T00:00:00.000Z');
});
