// GET /api/dev/logs/stream: admin-only SSE that replays the log ring buffer and then follows live.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/harness.js';

let t: TestApp;
let key: string;
before(async () => { t = await startTestApp(); key = (await t.admin()).key; });
after(() => t.close());

/** Opens the stream and collects parsed messages until `until` says stop; returns them and the raw text. */
function readStream(path: string, headers: Record<string, string>, until: (msgs: any[]) => boolean) {
  return new Promise<{ status: number; type: string; msgs: any[]; ids: string[] }>((resolve, reject) => {
    const req = request(t.url + path, { headers }, (res) => {
      const msgs: any[] = [], ids: string[] = [];
      let buf = '';
      const finish = () => { req.destroy(); resolve({ status: res.statusCode!, type: String(res.headers['content-type']), msgs, ids }); };
      if (res.statusCode !== 200) { res.resume(); return finish(); }
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buf += chunk;
        let i: number;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, i); buf = buf.slice(i + 2);
          const data = block.split('\n').find((l) => l.startsWith('data: '));
          const id = block.split('\n').find((l) => l.startsWith('id: '));
          if (data) { msgs.push(JSON.parse(data.slice(6))); ids.push(id?.slice(4) ?? ''); }
        }
        if (until(msgs)) finish();
      });
    });
    req.on('error', (e) => { if ((e as NodeJS.ErrnoException).code !== 'ECONNRESET') reject(e); });
    req.setTimeout(10_000, () => { req.destroy(new Error('stream timed out')); });
    req.end();
  });
}

test('replays the buffer, follows live lines, and honours Last-Event-ID and level', async () => {
  t.service.app.log.info('marker before subscribing');
  const pending = readStream('/api/dev/logs/stream', { 'x-api-key': key }, (m) => m.some((e) => e.msg === 'marker after subscribing'));
  await new Promise((r) => setTimeout(r, 200));
  t.service.app.log.info('marker after subscribing');
  const first = await pending;
  assert.equal(first.status, 200);
  assert.match(first.type, /text\/event-stream/);
  const before = first.msgs.findIndex((e) => e.msg === 'marker before subscribing');
  const afterIdx = first.msgs.findIndex((e) => e.msg === 'marker after subscribing');
  assert.ok(before >= 0 && afterIdx > before, 'replayed line, then the live one');
  for (const m of first.msgs) { assert.equal(m.type, 'log'); assert.equal(typeof m.progress, 'number'); }

  // Resuming after the "before" marker must not replay it.
  const beforeId = first.ids[before]!;
  const resumed = await readStream('/api/dev/logs/stream', { 'x-api-key': key, 'last-event-id': beforeId },
    (m) => m.some((e) => e.msg === 'marker after subscribing'));
  assert.ok(!resumed.msgs.some((e) => e.msg === 'marker before subscribing'));
  assert.ok(resumed.msgs.every((e) => e.seq > Number(beforeId)));

  t.service.app.log.warn('a warning marker');
  const warnOnly = await readStream('/api/dev/logs/stream?level=warn', { 'x-api-key': key }, (m) => m.some((e) => e.msg === 'a warning marker'));
  assert.ok(warnOnly.msgs.every((e) => e.level === 'warn' || e.level === 'error'));
});

test('non-admins are refused', async () => {
  const op = await t.user('operator');
  const r = await readStream('/api/dev/logs/stream', { cookie: op.cookie }, () => true);
  assert.equal(r.status, 403);
});
