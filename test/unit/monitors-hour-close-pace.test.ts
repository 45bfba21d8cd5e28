// The hour closer's pace: each write's batch is sized from the last one's time, so that a write holds the
// event loop for about CLOSE_SLICE_MS whatever the machine (fixed batches of 100 held it 15-16 ms here).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CLOSE_BATCH, CLOSE_SLICE_MS, nextCloseBatch } from '../../src/modules/monitors/storage/hour-close.js';

test('a batch is as large as fits in the slice at the last batch pace', () => {
  // 2 monitors in 1 ms: 0.5 ms each, so 8 fit in a 4 ms slice.
  assert.equal(nextCloseBatch(2, 0.5 * 2, CLOSE_BATCH), Math.floor(CLOSE_SLICE_MS / 0.5));
  // Cold code: 2 monitors took 20 ms, so the next write takes one.
  assert.equal(nextCloseBatch(2, 20, CLOSE_BATCH), 1);
  // 20 monitors in 3.9 ms (this machine, warm): about the same again.
  assert.equal(nextCloseBatch(20, 3.9, CLOSE_BATCH), 20);
});

test('a batch holds at least one monitor and at most the maximum', () => {
  assert.equal(nextCloseBatch(1, 500, CLOSE_BATCH), 1, 'a slow machine still makes progress');
  assert.equal(nextCloseBatch(50, 0, CLOSE_BATCH), CLOSE_BATCH, 'a write too quick to time');
  assert.equal(nextCloseBatch(50, 1, 7), 7, 'the closer\'s own maximum (tests set 1)');
});
