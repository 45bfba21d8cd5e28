// Pure parts of the checks: fping output, accepted status codes, the JSONPath subset, DNS answer
// normalisation, secret redaction and merging. The real programs and servers are in test/integration.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { HttpError } from '../../src/core/errors.js';
import type { RunResult } from '../../src/core/exec.js';
import { evalJsonPath, jsonValueString, parseJsonPath, parseStatusRange, statusAccepted, settings as httpSettings } from '../../src/modules/monitors/checks/http.js';
import { check as pingCheck, fpingArgs, parseFpingOutput, pingResult, PingBatcher, runWith, type ExecFn, type FpingTargetResult } from '../../src/modules/monitors/checks/ping.js';
import { answersMatch, normaliseAnswers, normaliseExpected } from '../../src/modules/monitors/checks/dns.js';
import { decideDegraded, degradeWhenSlow } from '../../src/modules/monitors/checks/degrade.js';
import type { CheckResult } from '../../src/modules/monitors/checks/types.js';
import { mergeSecrets, minimumTimeout, redactSettings, settingsShapeErrors, validateCheck } from '../../src/modules/monitors/checks/index.js';

// Output as fping 5.1 prints it for `-c 2 -p 200 -t 200 -r 0` (no -q): replies on stdout, summaries
// and complaints on stderr, host names padded to the longest.
const STDOUT = `127.0.0.1      : [0], 64 bytes, 0.021 ms (0.021 avg, 0% loss)
localhost      : [0], 64 bytes, 0.029 ms (0.029 avg, 0% loss)
198.18.7.3     : [0], timed out (NaN avg, 100% loss)
127.0.0.1      : [1], 64 bytes, 0.043 ms (0.032 avg, 0% loss)
`;
const STDERR = `nosuch.invalid: Name or service not known
ICMP Host Unreachable from 198.18.7.1 for ICMP Echo sent to 198.18.7.3
::1            : xmt/rcv/%loss = 2/2/0%, min/avg/max = 0.038/0.354/0.670

127.0.0.1      : xmt/rcv/%loss = 2/2/0%, min/avg/max = 0.021/0.032/0.043
localhost      : xmt/rcv/%loss = 2/1/50%, min/avg/max = 0.029/0.029/0.029
198.18.7.3     : xmt/rcv/%loss = 2/0/100%
127.0.0.1      : xmt/rcv/%loss = 2/2/0%, min/avg/max = 0.011/0.012/0.013
`;

describe('fping output', () => {
  const targets = ['127.0.0.1', 'localhost', '198.18.7.3', 'nosuch.invalid', '127.0.0.1', '::1', '127.0.0.9'];
  const res = parseFpingOutput(STDOUT, STDERR, targets);

  test('summary lines with and without round-trip times', () => {
    assert.deepEqual(res[0], { sent: 2, received: 2, loss_pct: 0, rtt_min_ms: 0.021, rtt_avg_ms: 0.032, rtt_max_ms: 0.043, error: null, icmp_error: null });
    assert.equal(res[1]!.loss_pct, 50);
    assert.equal(res[1]!.received, 1);
    assert.deepEqual(res[2], { sent: 2, received: 0, loss_pct: 100, rtt_min_ms: null, rtt_avg_ms: null, rtt_max_ms: null,
      error: null, icmp_error: 'ICMP Host Unreachable from 198.18.7.1' });
    assert.equal(res[5]!.rtt_avg_ms, 0.354); // IPv6 name with its padding
  });

  test('duplicates: the n-th summary goes to the n-th occurrence', () => {
    assert.equal(res[0]!.rtt_avg_ms, 0.032);
    assert.equal(res[4]!.rtt_avg_ms, 0.012);
  });

  test('an unresolvable name carries fping\'s complaint; a target missing from the output is null', () => {
    assert.equal(res[3]!.error, 'Name or service not known');
    assert.equal(res[3]!.received, 0);
    assert.equal(res[6], null);
  });

  test('loss is computed from the counts, not fping\'s rounded percentage', () => {
    const [r] = parseFpingOutput('', 'h : xmt/rcv/%loss = 3/1/66%, min/avg/max = 1.0/1.0/1.0\n', ['h']);
    assert.equal(r!.loss_pct, 66.7);
  });

  test('arguments: period equals the timeout, no retries, size', () => {
    assert.deepEqual(fpingArgs({ count: 3, packet_size: 56, per_packet_timeout_ms: 1000 }),
      ['-c', '3', '-p', '1000', '-t', '1000', '-r', '0', '-b', '56']);
  });
});

/** What a ping monitor with this max_loss_pct (and no degraded_ms) records for fping's figures. */
const judge = (target: string, r: FpingTargetResult, s: { count: number; packet_size: number; per_packet_timeout_ms: number }, maxLossPct: number) =>
  decideDegraded(pingCheck, pingResult(target, r, s), { degraded_ms: null, max_loss_pct: maxLossPct });

describe('ping judgement', () => {
  const base: FpingTargetResult = { sent: 4, received: 4, loss_pct: 0, rtt_min_ms: 1, rtt_avg_ms: 2, rtt_max_ms: 3, error: null, icmp_error: null };
  const s = { count: 4, packet_size: 56, per_packet_timeout_ms: 1000 };

  test('no loss is up, any loss above max_loss_pct degraded, at or below it up, all lost down', () => {
    assert.equal(judge('h', base, s, 0).status, 'up');
    const partial = { ...base, received: 3, loss_pct: 25 };
    assert.equal(judge('h', partial, s, 0).status, 'degraded');
    assert.match(judge('h', partial, s, 0).message, /loss above 0%/);
    assert.equal(judge('h', partial, s, 25).status, 'up');
    assert.equal(judge('h', partial, s, 24.9).status, 'degraded');
    const none = { ...base, received: 0, loss_pct: 100, rtt_min_ms: null, rtt_avg_ms: null, rtt_max_ms: null };
    assert.equal(judge('h', none, s, 100).status, 'down');
  });
});

describe('ping batcher with a canned exec', () => {
  const ok = (stdout: string, stderr: string, code = 0): RunResult =>
    ({ code, signal: null, stdout, stderr, duration_ms: 1, timed_out: false, truncated: false });
  const ctx = { timeout: 5 };
  const s = { count: 2, packet_size: 56, per_packet_timeout_ms: 200 };

  test('one exec per window; distinct targets on stdin; every waiter answered', async () => {
    const inputs: string[] = [];
    const exec: ExecFn = async (_p, _a, o) => {
      inputs.push(String(o?.input));
      return ok(STDOUT, STDERR, 2);
    };
    const b = new PingBatcher({ exec });
    const rs = await Promise.all(['127.0.0.1', '127.0.0.1', 'nosuch.invalid', '127.0.0.9', '198.18.7.3']
      .map((t) => runWith(b, t, s, ctx)));
    assert.equal(inputs.length, 1);
    assert.equal(inputs[0], '127.0.0.1\nnosuch.invalid\n127.0.0.9\n198.18.7.3\n');
    assert.deepEqual(rs.map((r) => r.status), ['up', 'up', 'down', 'down', 'down']);
    assert.equal(rs[2]!.message, 'cannot ping nosuch.invalid: Name or service not known');
    assert.equal(rs[3]!.message, 'no result from fping for this target');
    assert.equal(rs[4]!.message, 'no reply (0/2 received, 100% loss): ICMP Host Unreachable from 198.18.7.1');
  });

  test('exit code 3 or 4 fails the whole batch with fping\'s words', async () => {
    const b = new PingBatcher({ exec: async () => ok('', 'fping: can\'t create socket (must run as root?)\n', 4) });
    const r = await runWith(b, '127.0.0.1', s, ctx);
    assert.equal(r.status, 'down');
    assert.equal(r.message, 'fping failed: fping: can\'t create socket (must run as root?)');
  });

  test('a missing program becomes down with the install hint', async () => {
    const b = new PingBatcher({ exec: async () => { throw new HttpError(503, 'program_missing', 'no fping'); } });
    const r = await runWith(b, '127.0.0.1', s, ctx);
    assert.equal(r.message, 'fping is not installed (apt-get install fping)');
    assert.equal(r.details.install_hint, 'apt-get install fping');
  });

  test('an invalid target never reaches fping', async () => {
    let calls = 0;
    const b = new PingBatcher({ exec: async () => { calls++; return ok('', ''); } });
    const r = await runWith(b, '-f/etc/passwd', s, ctx);
    assert.equal(r.status, 'down');
    assert.equal(calls, 0);
  });
});

describe('accepted status codes', () => {
  test('codes and ranges', () => {
    assert.deepEqual(parseStatusRange('200-299'), [200, 299]);
    assert.deepEqual(parseStatusRange(' 301 '), [301, 301]);
    assert.deepEqual(parseStatusRange('200 - 204'), [200, 204]);
    for (const bad of ['2xx', '299-200', '99', '600', '200-600', '', '200,201', '1000']) assert.equal(parseStatusRange(bad), null, bad);
    assert.ok(statusAccepted(204, ['200-299']));
    assert.ok(statusAccepted(301, ['200-299', '301']));
    assert.ok(!statusAccepted(302, ['200-299', '301']));
  });

  test('the settings schema: defaults and strictness', () => {
    const d = httpSettings.parse({});
    assert.deepEqual(d, { method: 'GET', headers: {}, accepted_status: ['200-299'], keyword_mode: 'present',
      follow_redirects: true, max_redirects: 5, verify_tls: true });
    assert.equal(httpSettings.safeParse({ accepted_status: ['2xx'] }).success, false);
    assert.equal(httpSettings.safeParse({ extra: 1 }).success, false);
    assert.equal(httpSettings.safeParse({ auth: { type: 'basic', username: 'u' } }).success, false);
    assert.equal(httpSettings.safeParse({ headers: { 'bad name': 'x' } }).success, false);
  });
});

describe('JSONPath subset', () => {
  const doc = { a: { b: [{ c: 'x' }, { c: 42 }] }, 'odd key': true, n: null, arr: [1, [2, 3]] };

  test('parsing', () => {
    assert.deepEqual(parseJsonPath('$'), []);
    assert.deepEqual(parseJsonPath('$.a.b[0].c'), ['a', 'b', 0, 'c']);
    assert.deepEqual(parseJsonPath("$['odd key']"), ['odd key']);
    assert.deepEqual(parseJsonPath('$["q\\"t"]'), ['q"t']);
    assert.deepEqual(parseJsonPath('$.arr[-1][0]'), ['arr', -1, 0]);
    for (const bad of ['a.b', '$.', '$..a', '$.a[*]', '$[?(@.x)]', '$.a[', '$ .a']) assert.equal(parseJsonPath(bad), null, bad);
  });

  test('evaluation', () => {
    const ev = (p: string) => evalJsonPath(doc, parseJsonPath(p)!);
    assert.deepEqual(ev('$.a.b[1].c'), { found: true, value: 42 });
    assert.deepEqual(ev('$.arr[-1][0]'), { found: true, value: 2 });
    assert.deepEqual(ev('$.n'), { found: true, value: null });
    assert.deepEqual(ev('$.a.b[2]'), { found: false });
    assert.deepEqual(ev('$.a.x'), { found: false });
    assert.deepEqual(ev('$.a.b.c'), { found: false });
    assert.deepEqual(ev('$.toString'), { found: false }); // own properties only
  });

  test('string form of values', () => {
    assert.equal(jsonValueString('x'), 'x');
    assert.equal(jsonValueString(42), '42');
    assert.equal(jsonValueString(true), 'true');
    assert.equal(jsonValueString(null), 'null');
    assert.equal(jsonValueString({ a: [1] }), '{"a":[1]}');
  });
});

describe('DNS answer normalisation', () => {
  test('each record type', () => {
    assert.deepEqual(normaliseAnswers('A', ['192.0.2.1']), ['192.0.2.1']);
    assert.deepEqual(normaliseAnswers('AAAA', ['2001:DB8:0:0:0:0:0:1']), ['2001:db8::1']);
    assert.deepEqual(normaliseAnswers('CNAME', ['Web.Example.COM.']), ['web.example.com']);
    assert.deepEqual(normaliseAnswers('MX', [{ exchange: 'Mail.example.com', priority: 10 }]), ['10 mail.example.com']);
    assert.deepEqual(normaliseAnswers('SRV', [{ name: 'sip.example.com.', port: 5060, priority: 1, weight: 5 }]), ['1 5 5060 sip.example.com']);
    assert.deepEqual(normaliseAnswers('SOA', [{ nsname: 'ns1.example.com', hostmaster: 'hostmaster.example.com', serial: 7,
      refresh: 3600, retry: 600, expire: 86400, minttl: 300 }]), ['ns1.example.com hostmaster.example.com 7 3600 600 86400 300']);
    assert.deepEqual(normaliseAnswers('TXT', [['v=spf1 ', '-all'], ['Key=AbC']]), ['v=spf1 -all', 'Key=AbC']);
    assert.deepEqual(normaliseAnswers('CAA', [{ critical: 0, issue: 'ca.example' }, { critical: 128, iodef: 'mailto:x@example.com' }]),
      ['0 issue ca.example', '128 iodef mailto:x@example.com']);
  });

  test('expected values and matching', () => {
    assert.equal(normaliseExpected('MX', ' 10   Mail.Example.com. '), '10 mail.example.com');
    assert.equal(normaliseExpected('AAAA', '2001:db8:0::1'), '2001:db8::1');
    assert.ok(answersMatch('MX', ['10 mail.example.com'], '10 MAIL.example.com.', 'equals'));
    assert.ok(answersMatch('A', ['192.0.2.1', '192.0.2.2'], '192.0.2.2', 'equals'));
    assert.ok(!answersMatch('A', ['192.0.2.10'], '192.0.2.1', 'equals'));
    assert.ok(answersMatch('A', ['192.0.2.10'], '192.0.2.1', 'contains'));
    assert.ok(answersMatch('TXT', ['v=spf1 -all'], 'spf1', 'contains'));
    assert.ok(!answersMatch('TXT', ['Key=AbC'], 'key=abc', 'contains'));
    assert.ok(answersMatch('CNAME', ['web.example.com'], 'WEB', 'contains'));
  });
});

describe('secrets', () => {
  const stored = {
    method: 'GET',
    auth: { type: 'basic', username: 'alice', password: 'pw' },
    headers: { Authorization: 'Token abc', 'X-API-Key': 'k1', Cookie: 'sid=1', Accept: 'text/html' },
  };

  test('redactSettings replaces set secrets with {set: true} and leaves the rest', () => {
    const r = redactSettings('http', stored) as typeof stored & Record<string, any>;
    assert.deepEqual(r.auth, { type: 'basic', username: 'alice', password: { set: true } });
    assert.deepEqual(r.headers, { Authorization: { set: true }, 'X-API-Key': { set: true }, Cookie: { set: true }, Accept: 'text/html' });
    assert.equal(stored.auth.password, 'pw', 'the input is not modified');
    assert.deepEqual(redactSettings('http', { auth: { type: 'bearer', token: 't' } }), { auth: { type: 'bearer', token: { set: true } } });
    assert.deepEqual(redactSettings('ping', { count: 3 }), { count: 3 });
    assert.deepEqual(redactSettings('http', {}), {});
  });

  test('mergeSecrets keeps stored values for {set: true} and omitted secrets', () => {
    const back = redactSettings('http', stored);
    assert.deepEqual(mergeSecrets('http', back, stored), stored);
    const omitted = mergeSecrets('http', { auth: { type: 'basic', username: 'bob' } }, stored);
    assert.deepEqual(omitted, { auth: { type: 'basic', username: 'bob', password: 'pw' } });
    const changed = mergeSecrets('http', { auth: { type: 'basic', username: 'alice', password: 'new' } }, stored);
    assert.deepEqual(changed, { auth: { type: 'basic', username: 'alice', password: 'new' } });
  });

  test('mergeSecrets does not resurrect a secret of another kind, a removed header or a missing value', () => {
    assert.deepEqual(mergeSecrets('http', { auth: { type: 'bearer' } }, stored), { auth: { type: 'bearer' } });
    assert.deepEqual(mergeSecrets('http', { headers: { Accept: 'x' } }, stored), { headers: { Accept: 'x' } });
    assert.deepEqual(mergeSecrets('http', { headers: { authorization: { set: true } } }, stored), { headers: { authorization: 'Token abc' } });
    assert.deepEqual(mergeSecrets('http', { auth: { type: 'bearer', token: { set: true } } }, {}), { auth: { type: 'bearer' } });
    const v = validateCheck('http', 'http://x.example/', mergeSecrets('http', { auth: { type: 'bearer', token: { set: true } } }, {}));
    assert.equal(v.ok, false);
  });

  test('{set: false} clears a stored secret or header, as everywhere else in the API (core/secret-marker.ts)', () => {
    const cleared = mergeSecrets('http', { auth: { type: 'basic', username: 'bob', password: { set: false } } }, stored);
    assert.deepEqual(cleared, { auth: { type: 'basic', username: 'bob' } });
    assert.deepEqual(mergeSecrets('http', { headers: { Authorization: { set: false }, Accept: 'x' } }, stored), { headers: { Accept: 'x' } });
    assert.deepEqual(settingsShapeErrors('http', { headers: { Authorization: { set: false } } }), []);
    // Basic auth needs its password: clearing it alone is refused, naming the field.
    assert.deepEqual(settingsShapeErrors('http', { auth: { type: 'basic', username: 'bob', password: { set: false } } }).map((e) => e.path),
      ['settings.auth.password']);
  });
});

describe('runCheck helpers', () => {
  const applyDegraded = (r: CheckResult, degraded_ms: number | null) => degradeWhenSlow(r as never, { degraded_ms, max_loss_pct: null });
  test('the slow rule: only up results slower than degraded_ms change', () => {
    const up = { status: 'up' as const, response_time_ms: 150, message: 'HTTP 200 OK', details: {} };
    assert.deepEqual(applyDegraded(up, 100), { ...up, status: 'degraded', message: 'HTTP 200 OK; slower than 100 ms' });
    assert.equal(applyDegraded(up, 150).status, 'up');
    assert.equal(applyDegraded(up, null).status, 'up');
    assert.equal(applyDegraded({ ...up, status: 'down' }, 100).status, 'down');
  });

  test('minimumTimeout: ping needs count x per-packet timeout, plus a second', () => {
    assert.equal(minimumTimeout('ping', { count: 3, packet_size: 56, per_packet_timeout_ms: 1000 }), 4);
    assert.equal(minimumTimeout('http', {}), 1);
  });

  test('validateCheck: paths for the errors, defaults in the settings', () => {
    const bad = validateCheck('tcp', 'nohost', { tls: 'yes' });
    assert.equal(bad.ok, false);
    if (!bad.ok) assert.deepEqual(bad.errors.map((e) => e.path), ['target', 'settings.tls']);
    const good = validateCheck('dns', 'example.com', {});
    assert.ok(good.ok);
    if (good.ok) assert.deepEqual(good.settings, { record_type: 'A', port: 53, match: 'contains' });
    const ptr = validateCheck('dns', '192.0.2.1', { record_type: 'MX' });
    assert.equal(ptr.ok, false);
    const ping = validateCheck('ping', '127.0.0.1', null);
    assert.ok(ping.ok);
    if (ping.ok) assert.deepEqual(ping.settings, { count: 3, packet_size: 56, per_packet_timeout_ms: 1000 });
  });
});
