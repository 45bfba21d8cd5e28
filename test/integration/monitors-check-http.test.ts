// The http check against real local HTTP and HTTPS servers on 127.0.0.1 (certificates made by openssl).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { runCheck } from '../../src/modules/monitors/checks/index.js';
import { validateTarget } from '../../src/modules/monitors/checks/http.js';
import { expiredSelfSigned, selfSigned } from '../helpers/certs.js';
import { freePort } from '../helpers/net.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function handler(base: () => string): http.RequestListener {
  return (req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    const p = u.pathname;
    let m: RegExpExecArray | null;
    if ((m = /^\/status\/(\d{3})$/.exec(p))) { res.writeHead(Number(m[1])); res.end(`status ${m[1]}`); return; }
    if (p === '/slow') {
      const t = setTimeout(() => { res.end('slow ok'); }, Number(u.searchParams.get('ms') ?? 1000));
      res.on('close', () => clearTimeout(t));
      return;
    }
    if (p === '/text') { res.setHeader('content-type', 'text/plain'); res.end('hello world, netprobe here'); return; }
    if (p === '/json') {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ a: { b: [{ c: 'x' }, { c: 42 }] }, ok: true, n: null, 'odd key': 'yes' }));
      return;
    }
    if ((m = /^\/redirect\/(\d+)$/.exec(p))) {
      const n = Number(m[1]);
      if (n === 0) { res.end('arrived'); return; }
      res.writeHead(302, { location: `/redirect/${n - 1}` }); res.end(); return;
    }
    if (p === '/see-other') { res.writeHead(303, { location: '/echo' }); res.end(); return; }
    if (p === '/to-other-origin') { res.writeHead(307, { location: base() }); res.end(); return; }
    if (p === '/echo') {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        res.setHeader('content-type', 'application/json');
        res.setHeader('x-method', req.method ?? '');
        res.end(JSON.stringify({ method: req.method, headers: req.headers, body: Buffer.concat(chunks).toString() }));
      });
      return;
    }
    if (p === '/basic') {
      const ok = req.headers.authorization === `Basic ${Buffer.from('alice:s3cret:x').toString('base64')}`;
      res.writeHead(ok ? 200 : 401, ok ? {} : { 'www-authenticate': 'Basic realm="t"' }); res.end(ok ? 'welcome' : 'no'); return;
    }
    if (p === '/bearer') {
      const ok = req.headers.authorization === 'Bearer tok-123';
      res.writeHead(ok ? 200 : 401); res.end(ok ? 'welcome' : 'no'); return;
    }
    if (p === '/endless') {
      // Never ends: the check must stop reading at its body limit rather than wait for the end.
      res.setHeader('content-type', 'text/plain');
      const chunk = Buffer.alloc(64 * 1024, 'a');
      const pump = () => { while (res.write(chunk)); };
      res.on('drain', pump);
      pump();
      return;
    }
    res.writeHead(404); res.end('not found');
  };
}

async function listen(server: http.Server | https.Server): Promise<number> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as AddressInfo).port;
}

let plain: http.Server;
let secure: https.Server;
let expired: https.Server;
let H = '';
let S = '';
let E = '';

before(async () => {
  plain = http.createServer(handler(() => `http://localhost:${new URL(H).port}/echo`));
  H = `http://127.0.0.1:${await listen(plain)}`;
  const [good, old] = await Promise.all([selfSigned(30), expiredSelfSigned()]);
  secure = https.createServer({ key: good.key, cert: good.cert }, handler(() => H));
  S = `https://127.0.0.1:${await listen(secure)}`;
  expired = https.createServer({ key: old.key, cert: old.cert }, handler(() => H));
  E = `https://localhost:${await listen(expired)}`;
});

after(async () => {
  for (const s of [plain, secure, expired]) {
    if (!s) continue;
    s.closeAllConnections();
    await new Promise<void>((r) => s.close(() => r()));
  }
});

const ctx = { timeout: 5 };

describe('http check: status codes', () => {
  test('200 is up by default; message and details', async () => {
    const r = await runCheck('http', `${H}/text`, {}, ctx);
    assert.equal(r.status, 'up', r.message);
    assert.equal(r.message, 'HTTP 200 OK');
    assert.equal(r.details.status_code, 200);
    assert.equal(r.details.final_url, `${H}/text`);
    assert.equal(r.details.bytes, 'hello world, netprobe here'.length);
    assert.deepEqual(r.details.headers, { 'content-type': 'text/plain', 'content-length': '26' });
    assert.equal(typeof r.response_time_ms, 'number');
    const timing = r.details.timing as Record<string, number | null>;
    assert.equal(timing.dns_ms, null); // an IP literal needs no lookup
    assert.equal(typeof timing.connect_ms, 'number');
    assert.equal(typeof timing.ttfb_ms, 'number');
  });

  test('500 is down; 404 down by default, up when accepted', async () => {
    const r500 = await runCheck('http', `${H}/status/500`, {}, ctx);
    assert.equal(r500.status, 'down');
    assert.match(r500.message, /^HTTP 500 Internal Server Error \(expected 200-299\)$/);
    const r404 = await runCheck('http', `${H}/status/404`, {}, ctx);
    assert.equal(r404.status, 'down');
    const ok404 = await runCheck('http', `${H}/status/404`, { accepted_status: ['200-299', '404'] }, ctx);
    assert.equal(ok404.status, 'up');
    const range = await runCheck('http', `${H}/status/418`, { accepted_status: ['400-499'] }, ctx);
    assert.equal(range.status, 'up');
    const outside = await runCheck('http', `${H}/status/204`, { accepted_status: ['200', '300-399'] }, ctx);
    assert.equal(outside.status, 'down');
  });

  test('invalid accepted_status and unknown settings make a down result, not a throw', async () => {
    const r = await runCheck('http', `${H}/text`, { accepted_status: ['2xx'] }, ctx);
    assert.equal(r.status, 'down');
    assert.match(r.message, /settings\.accepted_status\.0/);
    const u = await runCheck('http', `${H}/text`, { nonsense: 1 }, ctx);
    assert.equal(u.status, 'down');
    assert.match(u.message, /invalid monitor/);
  });
});

describe('http check: time', () => {
  test('a response slower than the timeout is down with a timeout message', async () => {
    const r = await runCheck('http', `${H}/slow?ms=3000`, {}, { timeout: 0.4 });
    assert.equal(r.status, 'down');
    assert.equal(r.message, 'timed out after 0.4 s waiting for the response');
  });

  test('a response slower than degraded_ms is degraded; faster stays up', async () => {
    const r = await runCheck('http', `${H}/slow?ms=300`, {}, { timeout: 5, degraded_ms: 100 });
    assert.equal(r.status, 'degraded', r.message);
    assert.equal(r.message, 'HTTP 200 OK; slower than 100 ms');
    assert.ok((r.response_time_ms ?? 0) >= 300);
    const fast = await runCheck('http', `${H}/text`, {}, { timeout: 5, degraded_ms: 60_000 });
    assert.equal(fast.status, 'up');
  });

  test('the response time is the sum of the phases in details.timing; after redirects, of every hop', async () => {
    const phases = (t: Record<string, number | null>) =>
      (t.dns_ms ?? 0) + (t.connect_ms ?? 0) + (t.tls_ms ?? 0) + (t.ttfb_ms ?? 0) + (t.transfer_ms ?? 0);
    const one = await runCheck('http', `${H}/text`, {}, ctx);
    const t = one.details.timing as Record<string, number | null>;
    assert.equal(t.total_ms, one.response_time_ms);
    assert.ok(Math.abs(phases(t) - one.response_time_ms!) <= 0.005, JSON.stringify(t)); // each phase rounded to 1 µs
    const chain = await runCheck('http', `${H}/redirect/2`, {}, ctx);
    const last = chain.details.timing as Record<string, number | null>;
    assert.equal(last.total_ms, chain.response_time_ms);
    assert.ok(chain.response_time_ms! > phases(last), 'the two redirects before the last hop count too');
  });

  test('the check honours an abort signal', async () => {
    const ac = new AbortController();
    const p = runCheck('http', `${H}/slow?ms=5000`, {}, { timeout: 10, signal: ac.signal });
    await sleep(100);
    ac.abort();
    const r = await p;
    assert.equal(r.status, 'down');
    assert.equal(r.message, 'check aborted');
  });

  test('an endless body is read up to the limit, then the check ends', async () => {
    const r = await runCheck('http', `${H}/endless`, {}, { timeout: 10 });
    assert.equal(r.status, 'up', r.message);
    assert.equal(r.details.bytes, 1024 * 1024);
    assert.equal(r.details.body_truncated, true);
    const k = await runCheck('http', `${H}/endless`, { keyword: 'netprobe' }, { timeout: 10 });
    assert.equal(k.status, 'down');
    assert.match(k.message, /keyword "netprobe" not found in the first 1 MiB/);
  });
});

describe('http check: content', () => {
  test('keyword present / absent', async () => {
    assert.equal((await runCheck('http', `${H}/text`, { keyword: 'netprobe' }, ctx)).status, 'up');
    const missing = await runCheck('http', `${H}/text`, { keyword: 'NetProbe' }, ctx);
    assert.equal(missing.status, 'down');
    assert.equal(missing.message, 'HTTP 200 OK, but keyword "NetProbe" not found');
    assert.equal((await runCheck('http', `${H}/text`, { keyword: 'error', keyword_mode: 'absent' }, ctx)).status, 'up');
    const found = await runCheck('http', `${H}/text`, { keyword: 'hello', keyword_mode: 'absent' }, ctx);
    assert.equal(found.status, 'down');
    assert.match(found.message, /keyword "hello" found/);
  });

  test('JSON path: exists, equals, mismatch, missing, not JSON', async () => {
    const exists = await runCheck('http', `${H}/json`, { json_path: '$.a.b[1].c' }, ctx);
    assert.equal(exists.status, 'up', exists.message);
    assert.equal(exists.details.json_value, '42');
    assert.equal((await runCheck('http', `${H}/json`, { json_path: '$.a.b[0].c', json_expected: 'x' }, ctx)).status, 'up');
    assert.equal((await runCheck('http', `${H}/json`, { json_path: '$.a.b[-1].c', json_expected: '42' }, ctx)).status, 'up');
    assert.equal((await runCheck('http', `${H}/json`, { json_path: '$.ok', json_expected: 'true' }, ctx)).status, 'up');
    assert.equal((await runCheck('http', `${H}/json`, { json_path: "$['odd key']", json_expected: 'yes' }, ctx)).status, 'up');
    assert.equal((await runCheck('http', `${H}/json`, { json_path: '$.n', json_expected: 'null' }, ctx)).status, 'up');
    const wrong = await runCheck('http', `${H}/json`, { json_path: '$.a.b[0].c', json_expected: 'y' }, ctx);
    assert.equal(wrong.status, 'down');
    assert.equal(wrong.message, 'HTTP 200 OK, but $.a.b[0].c is "x", expected "y"');
    const missing = await runCheck('http', `${H}/json`, { json_path: '$.a.z' }, ctx);
    assert.equal(missing.status, 'down');
    assert.match(missing.message, /JSON path \$\.a\.z not found/);
    const notJson = await runCheck('http', `${H}/text`, { json_path: '$.a' }, ctx);
    assert.equal(notJson.status, 'down');
    assert.match(notJson.message, /not valid JSON/);
  });

  test('HEAD, and POST with body and headers', async () => {
    const head = await runCheck('http', `${H}/echo`, { method: 'HEAD' }, ctx);
    assert.equal(head.status, 'up', head.message);
    assert.equal(head.details.bytes, 0);
    const post = await runCheck('http', `${H}/echo`, {
      method: 'POST', body: '{"hello":"world"}', headers: { 'Content-Type': 'application/json', 'X-Probe': 'yes' },
      json_path: '$.body', json_expected: '{"hello":"world"}',
    }, ctx);
    assert.equal(post.status, 'up', post.message);
    for (const [path, want] of [['$.method', 'POST'], ['$.headers.x-probe', 'yes'], ['$.headers.content-type', 'application/json'],
      ['$.headers.content-length', '17']]) {
      const r = await runCheck('http', `${H}/echo`, {
        method: 'POST', body: '{"hello":"world"}', headers: { 'Content-Type': 'application/json', 'X-Probe': 'yes' },
        json_path: path, json_expected: want,
      }, ctx);
      assert.equal(r.status, 'up', `${path}: ${r.message}`);
    }
    const put = await runCheck('http', `${H}/echo`, { method: 'PUT', body: 'x', json_path: '$.method', json_expected: 'PUT' }, ctx);
    assert.equal(put.status, 'up', put.message);
  });

  test('header values with line breaks are rejected by the settings schema', async () => {
    const r = await runCheck('http', `${H}/echo`, { headers: { 'X-Evil': 'a\r\nInjected: 1' } }, ctx);
    assert.equal(r.status, 'down');
    assert.match(r.message, /line breaks/);
  });
});

describe('http check: redirects', () => {
  test('followed up to the limit', async () => {
    const r = await runCheck('http', `${H}/redirect/3`, { keyword: 'arrived' }, ctx);
    assert.equal(r.status, 'up', r.message);
    assert.equal(r.details.redirects, 3);
    assert.equal(r.details.final_url, `${H}/redirect/0`);
    assert.equal((r.details.redirect_chain as string[]).length, 4);
    const atLimit = await runCheck('http', `${H}/redirect/2`, { max_redirects: 2 }, ctx);
    assert.equal(atLimit.status, 'up');
  });

  test('limit exceeded', async () => {
    const r = await runCheck('http', `${H}/redirect/6`, {}, ctx);
    assert.equal(r.status, 'down');
    assert.equal(r.message, 'too many redirects (more than 5)');
    const zero = await runCheck('http', `${H}/redirect/1`, { max_redirects: 0 }, ctx);
    assert.equal(zero.status, 'down');
  });

  test('not followed: the 3xx is judged by accepted_status', async () => {
    const r = await runCheck('http', `${H}/redirect/1`, { follow_redirects: false }, ctx);
    assert.equal(r.status, 'down');
    assert.match(r.message, /^HTTP 302 Found/);
    const ok = await runCheck('http', `${H}/redirect/1`, { follow_redirects: false, accepted_status: ['300-399'] }, ctx);
    assert.equal(ok.status, 'up');
    assert.equal((ok.details.headers as Record<string, string>).location, '/redirect/0');
  });

  test('303 after POST continues as GET without the body', async () => {
    const r = await runCheck('http', `${H}/see-other`, { method: 'POST', body: 'x', json_path: '$.method', json_expected: 'GET' }, ctx);
    assert.equal(r.status, 'up', r.message);
  });

  test('no configured header and no credential is carried to another origin', async () => {
    // Two servers on loopback, two origins: the first redirects to the second, which records what it got.
    const got: http.IncomingHttpHeaders[] = [];
    const second = http.createServer((req, res) => { got.push(req.headers); res.end('second'); });
    const B = `http://127.0.0.1:${await listen(second)}`;
    const first = http.createServer((req, res) => {
      if (req.url === '/start') { res.writeHead(307, { location: `${B}/landed` }); res.end(); return; }
      res.end(`first ${req.headers['x-api-key'] ?? ''}`);
    });
    const A = `http://127.0.0.1:${await listen(first)}`;
    try {
      const headers = { 'X-API-Key': 'key-1234', 'X-Custom': 'c', Cookie: 'a=b', 'Proxy-Authorization': 'Basic eHg6eXk=', 'User-Agent': 'mine' };
      for (const auth of [{ type: 'bearer', token: 'tok-123' }, { type: 'basic', username: 'u', password: 'p' }]) {
        const r = await runCheck('http', `${A}/start`, { auth, headers, keyword: 'second' }, ctx);
        assert.equal(r.status, 'up', r.message);
        const h = got.at(-1)!;
        for (const name of ['x-api-key', 'x-custom', 'cookie', 'proxy-authorization', 'authorization']) {
          assert.equal(h[name], undefined, `${name} not carried to ${B}`);
        }
        assert.equal(h['user-agent'], 'netprobe-monitor/1', 'the probe\'s own headers only');
      }
      // The same origin still gets them all.
      const same = await runCheck('http', `${A}/here`, { headers, keyword: 'first key-1234' }, ctx);
      assert.equal(same.status, 'up', same.message);
    } finally {
      for (const s of [first, second]) { s.closeAllConnections(); s.close(); }
    }
  });
});

describe('http check: authentication', () => {
  test('basic', async () => {
    const ok = await runCheck('http', `${H}/basic`, { auth: { type: 'basic', username: 'alice', password: 's3cret:x' } }, ctx);
    assert.equal(ok.status, 'up', ok.message);
    const bad = await runCheck('http', `${H}/basic`, { auth: { type: 'basic', username: 'alice', password: 'nope' } }, ctx);
    assert.equal(bad.status, 'down');
    assert.match(bad.message, /^HTTP 401/);
    assert.equal((await runCheck('http', `${H}/basic`, {}, ctx)).status, 'down');
  });

  test('bearer', async () => {
    assert.equal((await runCheck('http', `${H}/bearer`, { auth: { type: 'bearer', token: 'tok-123' } }, ctx)).status, 'up');
    assert.equal((await runCheck('http', `${H}/bearer`, { auth: { type: 'bearer', token: 'other' } }, ctx)).status, 'down');
  });
});

describe('http check: TLS', () => {
  test('self-signed: down with verification on, up with it off, days_left reported either way', async () => {
    const on = await runCheck('http', `${S}/text`, {}, ctx);
    assert.equal(on.status, 'down');
    assert.match(on.message, /^TLS certificate not accepted: self-signed certificate \(DEPTH_ZERO_SELF_SIGNED_CERT\)$/);
    assert.ok(on.details.cert, 'the rejected certificate is still recorded');
    const off = await runCheck('http', `${S}/text`, { verify_tls: false, keyword: 'netprobe' }, ctx);
    assert.equal(off.status, 'up', off.message);
    const cert = off.details.cert as Record<string, unknown>;
    assert.equal(cert.subject_cn, 'localhost');
    assert.equal(cert.issuer, 'localhost');
    assert.equal(cert.self_signed, true);
    assert.ok(cert.days_left === 29 || cert.days_left === 30, `days_left ${String(cert.days_left)}`);
    assert.match(String(cert.valid_to), /^\d{4}-\d\d-\d\dT/);
    assert.match(String(cert.fingerprint256), /^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    const tls = off.details.tls as Record<string, unknown>;
    assert.match(String(tls.protocol), /^TLSv1\.[23]$/);
    assert.equal(tls.authorized, false);
    assert.equal(typeof (off.details.timing as Record<string, unknown>).tls_ms, 'number');
  });

  test('expired: down with a clear message; with verification off, negative days_left', async () => {
    const on = await runCheck('http', `${E}/text`, {}, ctx);
    assert.equal(on.status, 'down');
    assert.match(on.message, /^TLS certificate expired on 2020-02-01 \(\d+ days ago\)/);
    const off = await runCheck('http', `${E}/text`, { verify_tls: false }, ctx);
    assert.equal(off.status, 'up', off.message);
    const cert = off.details.cert as Record<string, unknown>;
    assert.ok(typeof cert.days_left === 'number' && cert.days_left < -300, `days_left ${String(cert.days_left)}`);
    assert.equal(cert.valid_to, '2020-02-01T00:00:00.000Z');
  });

  test('plain HTTP to a TLS port and TLS to a plain port fail cleanly', async () => {
    const a = await runCheck('http', `https${H.slice(4)}/text`, {}, ctx);
    assert.equal(a.status, 'down');
    assert.match(a.message, /TLS/);
    const b = await runCheck('http', `http${S.slice(5)}/text`, {}, ctx);
    assert.equal(b.status, 'down');
  });
});

describe('http check: failures and targets', () => {
  test('connection refused on a closed port', async () => {
    const port = await freePort();
    const r = await runCheck('http', `http://127.0.0.1:${port}/`, {}, ctx);
    assert.equal(r.status, 'down');
    assert.equal(r.message, 'connection refused');
    assert.equal(r.response_time_ms, null);
  });

  test('an IPv6 literal URL', async () => {
    const v6 = http.createServer((req, res) => res.end(`host=${req.headers.host}`));
    await new Promise<void>((r) => v6.listen(0, '::1', r));
    try {
      const port = (v6.address() as AddressInfo).port;
      const r = await runCheck('http', `http://[::1]:${port}/`, { keyword: `host=[::1]:${port}` }, ctx);
      assert.equal(r.status, 'up', r.message);
      assert.equal(r.details.remote_address, '::1');
    } finally {
      v6.closeAllConnections();
      await new Promise<void>((r) => v6.close(() => r()));
    }
  });

  test('validateTarget', () => {
    assert.equal(validateTarget('http://127.0.0.1:8080/x?y=1'), null);
    assert.equal(validateTarget('https://[::1]/'), null);
    assert.equal(validateTarget('https://example.com'), null);
    assert.match(validateTarget('ftp://example.com') ?? '', /http/);
    assert.match(validateTarget('example.com') ?? '', /URL/);
    assert.match(validateTarget('http://u:p@example.com/') ?? '', /auth/);
    assert.match(validateTarget('http://exa mple.com/') ?? '', /URL|host/);
  });
});
