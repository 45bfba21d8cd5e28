// The e-mail alert channel against real SMTP servers on loopback (the smtp-server package): an alert from a
// real monitor delivered end to end through STARTTLS with a login (subject, text and HTML parts,
// recipients) and its recovery naming the outage; the test button; implicit TLS with certificate checks;
// a server that refuses STARTTLS; one that is down (retried, then given up); refused recipients (some,
// all); alerts the gate held; the 409 without an SMTP server; and the SMTP password, which a changed
// server does not get unless it is entered again.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { ManualClock } from '../../src/core/clock.js';
import type { MonitorBusEvent } from '../../src/modules/monitors/contracts.js';
import { selfSigned } from '../helpers/certs.js';
import { assertProblem, startTestApp, type TestApp } from '../helpers/harness.js';
import { parseMail } from '../helpers/mime.js';
import type { SMTPServerOptions } from 'smtp-server';
import { sink, until, type Sink } from '../helpers/smtp-sink.js';
import { advanceAndSettle, webhooksQuiet } from '../helpers/webhook-settle.js';

const SMTP_SECRET = 'smtp-Alert-Pa55word-q7';

/** A loopback port nothing listens on. */
async function deadPort(): Promise<number> {
  const s = createTcpServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

/** Refuses RCPT TO for nobody@…, as a server does for an unknown mailbox. */
const refuseNobody: Partial<SMTPServerOptions> = {
  onRcptTo(addr, _s, cb) {
    if (addr.address.startsWith('nobody@')) cb(Object.assign(new Error(`5.1.1 <${addr.address}>: Recipient address rejected: no such user`), { responseCode: 550 }));
    else cb();
  },
};

let t: TestApp;
let key: string;
const clock = new ManualClock(Math.floor(Date.now() / 1000) * 1000);
let plain: Sink, starttls: Sink, implicit: Sink, other: Sink;
/** Every password a server was offered, by server. */
const offered = new Map<string, string[]>();
const auth = (name: string): Partial<SMTPServerOptions> => ({
  authOptional: false,
  onAuth(a, _s, cb) {
    offered.set(name, [...offered.get(name) ?? [], a.password ?? '']);
    if (a.username === 'probe' && a.password === SMTP_SECRET) cb(null, { user: 'probe' });
    else cb(new Error('Invalid username or password'));
  },
});

const api = (method: string, path: string, body?: unknown) => t.request(method, path, { key, body });
const quiet = () => webhooksQuiet(t.service.app);
const advance = (ms: number) => advanceAndSettle(t.service.app, clock, ms);
/** Sets the SMTP settings through the configuration API, as an administrator does. */
async function setSmtp(smtp: Record<string, unknown>): Promise<any> {
  const r = await t.request('POST', '/api/config/import', {
    key, raw: JSON.stringify({ smtp: { host: null, port: null, security: null, user: null, verify_certificate: null, ...smtp } }),
    headers: { 'content-type': 'application/json' },
  });
  assert.equal(r.status, 200, r.text);
  return r.body;
}
async function channel(name: string, to: string[], extra: Record<string, unknown> = {}): Promise<any> {
  const r = await api('POST', '/api/webhooks', { name, type: 'email', options: { to }, cooldown: 0, alert_types: ['monitor_down', 'monitor_up'], ...extra });
  assert.equal(r.status, 201, r.text);
  return r.body;
}
const attempts = async (id: string) => (await api('GET', `/api/webhooks/deliveries?webhook_id=${id}`)).body.items.reverse() as any[];
const fakeMonitor = (name: string) => ({ id: randomUUID(), name, target: '10.0.0.2', check_type: 'tcp', tags: [] });
async function raiseDown(m: ReturnType<typeof fakeMonitor>, message = 'connection refused'): Promise<void> {
  const { raiseAlert } = await import('../../src/modules/webhooks/index.js');
  await raiseAlert(t.service.app, { type: 'monitor_down', subject: `monitor/${m.id}`, monitor: m, title: `DOWN: ${m.name}`, occurred_at: clock.iso(),
    message: `${m.name} (${m.target}) is down: ${message}`, details: { previous_status: 'up', status: 'down', result: { message } } });
  await quiet();
}

before(async () => {
  const cert = await selfSigned();
  plain = await sink({ ...refuseNobody }); // no STARTTLS, no login
  starttls = await sink({ key: cert.key, cert: cert.cert, disabledCommands: [], allowInsecureAuth: false, ...auth('starttls') });
  implicit = await sink({ key: cert.key, cert: cert.cert, secure: true, disabledCommands: [], ...auth('implicit') });
  other = await sink({ key: cert.key, cert: cert.cert, disabledCommands: [], allowInsecureAuth: false, ...auth('other') });
  t = await startTestApp({ clock });
  key = (await t.admin()).key;
});
after(async () => {
  await t?.close();
  await Promise.all([plain, starttls, implicit, other].map((s) => s?.close()));
});

describe('setting up an e-mail channel', () => {
  test('without an SMTP server it is refused with a 409 saying to set one up first; bad fields are 400s naming the field', async () => {
    const none = await api('POST', '/api/webhooks', { name: 'ops mail', type: 'email', options: { to: ['noc@example.net'] } });
    assertProblem(none, 409);
    assert.equal(none.body.code, 'smtp_not_configured');
    assert.match(none.body.detail, /SMTP server.*Settings, E-mail/);
    const base = { name: 'ops mail', type: 'email' };
    const bad: [Record<string, unknown>, string][] = [
      [{ ...base }, 'options.to'],
      [{ ...base, options: { to: [] } }, 'options.to'],
      [{ ...base, options: { to: ['noc@example.net', 'noc at example'] } }, 'options.to.1'],
      [{ ...base, options: { to: 'noc@example.net' } }, 'options.to'],
      [{ ...base, options: { to: ['noc@example.net'] }, url: 'https://hooks.example.net/x' }, 'url'],
      [{ ...base, options: { to: ['noc@example.net'] }, secret: 'x-secret' }, 'secret'],
      [{ name: 'no url' }, 'url'],
    ];
    for (const [body, field] of bad) {
      const r = await api('POST', '/api/webhooks', body);
      assertProblem(r, 400, field);
    }
    const r = await api('POST', '/api/webhooks', { ...base, options: { to: ['noc@example.net', 'noc at example'] } });
    assert.match(r.body.errors.find((e: any) => e.path === 'options.to.1').message, /"noc at example" is not an e-mail address/);
    assert.equal((await api('GET', '/api/webhooks')).body.total, 0);
  });

  test('with one it is created (audited, no URL, recipients as options) and can move to a webhook and back', async () => {
    await setSmtp({ host: '127.0.0.1', port: plain.port, security: 'none' });
    const w = await channel('ops mail', ['noc@example.net']);
    assert.equal(w.type, 'email');
    assert.equal(w.url, null);
    assert.deepEqual(w.options, { to: ['noc@example.net'] });
    assert.deepEqual(w.secret, { set: false });
    const audit = await api('GET', '/api/audit-log?action=webhooks.create&limit=1');
    assert.deepEqual(audit.body.items[0].details.options, { to: ['noc@example.net'] });
    assert.equal(audit.body.items[0].details.url, null);
    assertProblem(await api('PUT', `/api/webhooks/${w.id}`, { type: 'generic' }), 400, 'url');
    const hook = await api('PUT', `/api/webhooks/${w.id}`, { type: 'generic', url: 'http://127.0.0.1:9/hook' });
    assert.equal(hook.status, 200, hook.text);
    assert.equal(hook.body.url, 'http://127.0.0.1:9/hook');
    assert.deepEqual(hook.body.options, {});
    const back = await api('PUT', `/api/webhooks/${w.id}`, { type: 'email', options: { to: ['oncall@example.net'] } });
    assert.equal(back.status, 200, back.text);
    assert.equal(back.body.url, null);
    assert.equal((await api('GET', '/api/webhooks')).body.items[0].url, null);
    assert.equal((await api('DELETE', `/api/webhooks/${w.id}`)).status, 204);
  });
});

describe('delivery', () => {
  let web: Server;
  let webUrl: string;
  const status = new Map<string, number>();
  before(async () => {
    web = createHttpServer((req, res) => { res.statusCode = status.get(req.url ?? '') ?? 200; res.end('x'); });
    await new Promise<void>((r) => web.listen(0, '127.0.0.1', r));
    webUrl = `http://127.0.0.1:${(web.address() as AddressInfo).port}`;
  });
  after(async () => {
    for (const m of (await api('GET', '/api/monitors')).body.monitors) await api('DELETE', `/api/monitors/${m.id}`);
    for (const w of (await api('GET', '/api/webhooks')).body.items) await api('DELETE', `/api/webhooks/${w.id}`);
    web.closeAllConnections();
    web.close();
  });

  test('a real monitor\'s down and up, end to end through STARTTLS with a login: subject, text and HTML parts, recipients', async () => {
    const set = await setSmtp({ host: '127.0.0.1', port: starttls.port, security: 'starttls', verify_certificate: false, user: 'probe', password: SMTP_SECRET });
    assert.equal(set.secrets_dropped, undefined);
    const w = await channel('noc mail', ['noc@example.net', 'Oncall.Team@example.org']);
    const m = await api('POST', '/api/monitors', { name: 'core-switch <edge> & "uplink"', check_type: 'http', target: `${webUrl}/core`, interval: 10, timeout: 2, failure_threshold: 1 });
    assert.equal(m.status, 201, m.text);
    await advance(0); // unknown -> up: no alert
    status.set('/core', 500);
    await advance(10_000); // down
    const [down] = await until('the down mail', () => starttls.mails[0] ? starttls.mails : undefined);
    assert.deepEqual(down!.to, ['noc@example.net', 'Oncall.Team@example.org']);
    assert.equal(down!.user, 'probe', 'logged in');
    assert.equal(down!.secure, true, 'upgraded with STARTTLS');
    const mail = parseMail(down!.raw);
    // What happened (the check's own words) and where.
    assert.equal(mail.subject, `DOWN: core-switch <edge> & "uplink" (${webUrl}/core) — HTTP 500 Internal Server Error (expected 200-299)`);
    assert.match(mail.headers.get('to')!, /noc@example\.net.*Oncall\.Team@example\.org/);
    assert.match(mail.headers.get('from')!, /netprobe.*<netprobe@localhost>/);
    assert.equal(mail.headers.get('auto-submitted'), 'auto-generated');
    assert.equal(mail.headers.get('x-netprobe-event'), 'monitor_down');
    assert.match(mail.headers.get('content-type')!, /^multipart\/alternative/);
    assert.match(mail.text!, /^DOWN: core-switch <edge> & "uplink" \(http:\/\/127\.0\.0\.1:\d+\/core\)\r?\n/);
    assert.match(mail.text!, /Target: +http:\/\/127\.0\.0\.1:\d+\/core/);
    assert.match(mail.html!, /<h1[^>]*>DOWN: core-switch &#60;edge&#62; &#38; &#34;uplink&#34; \(http:\/\/127\.0\.0\.1:\d+\/core\)<\/h1>/);
    assert.ok(!/<(img|link|script)\b/i.test(mail.html!));

    await advance(600_000); // ten minutes down
    status.set('/core', 200);
    await advance(10_000);
    const up = parseMail((await until('the up mail', () => starttls.mails[1]))!.raw);
    assert.match(up.subject, /^UP: core-switch <edge> & "uplink" \(http:\/\/127\.0\.0\.1:\d+\/core\) — down for 10 min$/);
    assert.match(up.text!, /Outage lasted: +10 min/);
    assert.match(up.html!, />Resolved</);
    const log = await attempts(w.id);
    assert.deepEqual(log.map((a) => [a.outcome, a.status_code]), [['delivered', 250], ['delivered', 250]]);
    assert.match(log[0].response_excerpt, /^250 /);
    const recent = (await api('GET', '/api/dev/emails/recent')).body.items;
    assert.equal(recent[0].kind, 'alert');
    assert.equal(recent[0].to, 'noc@example.net, Oncall.Team@example.org');
    await api('DELETE', `/api/monitors/${m.body.id}`);
    await api('DELETE', `/api/webhooks/${w.id}`);
  });

  test('the test button sends a test message and logs it; a disabled channel is tested too', async () => {
    const w = await channel('test mail', ['noc@example.net'], { enabled: false });
    const n = starttls.mails.length;
    const r = await api('POST', `/api/webhooks/${w.id}/test`);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.ok, true, r.text);
    assert.equal(r.body.status_code, 250);
    assert.match(r.body.response_excerpt, /^250 /);
    const mail = parseMail((await until('the test mail', () => starttls.mails[n]))!.raw);
    assert.equal(mail.subject, 'TEST: alerts from netprobe reach this address');
    assert.match(mail.text!, /A test alert for the webhook "test mail"/);
    const log = await attempts(w.id);
    assert.deepEqual(log.map((a) => [a.outcome, a.status_code]), [['test', 250]]);
    const audit = await api('GET', '/api/audit-log?action=webhooks.test&limit=1');
    assert.equal(audit.body.items[0].outcome, 'success');
    await api('DELETE', `/api/webhooks/${w.id}`);
  });

  test('implicit TLS checks the server\'s certificate by default: a self-signed one is refused, readably, until the check is turned off', async () => {
    await setSmtp({ host: '127.0.0.1', port: implicit.port, security: 'tls', user: 'probe', password: SMTP_SECRET });
    assert.equal(t.service.app.config.get().smtp.verify_certificate, true, 'on by default');
    const w = await channel('tls mail', ['noc@example.net']);
    const refused = await api('POST', `/api/webhooks/${w.id}/test`);
    assert.equal(refused.body.ok, false);
    assert.match(refused.body.error, /self[- ]signed certificate/i);
    assert.equal(implicit.mails.length, 0);
    assert.ok(!(offered.get('implicit') ?? []).length, 'no password before the certificate is trusted');
    await setSmtp({ host: '127.0.0.1', port: implicit.port, security: 'tls', verify_certificate: false, user: 'probe' });
    const ok = await api('POST', `/api/webhooks/${w.id}/test`);
    assert.equal(ok.body.ok, true, ok.text);
    const got = await until('the mail over TLS', () => implicit.mails[0]);
    assert.equal(got.secure, true);
    assert.equal(got.user, 'probe');
    await api('DELETE', `/api/webhooks/${w.id}`);
  });

  test('a server that refuses STARTTLS while it is required gets nothing in clear; the delivery fails at once, readably', async () => {
    await setSmtp({ host: '127.0.0.1', port: plain.port, security: 'starttls', user: 'probe', password: SMTP_SECRET });
    const w = await channel('starttls mail', ['noc@example.net']);
    const n = plain.mails.length;
    await raiseDown(fakeMonitor('needs-tls'));
    const log = await attempts(w.id);
    assert.equal(log.length, 1);
    assert.equal(log[0].outcome, 'failed', JSON.stringify(log[0]));
    assert.match(log[0].error, /TLS/);
    assert.ok(!log[0].error.includes(SMTP_SECRET));
    assert.equal(plain.mails.length, n, 'nothing sent without TLS');
    await advance(3600_000);
    assert.equal((await attempts(w.id)).length, 1, 'not retried: it would be refused again');
    await api('DELETE', `/api/webhooks/${w.id}`);
  });

  test('a server that is down: retried with backoff, then given up with a readable reason', async () => {
    await setSmtp({ host: '127.0.0.1', port: await deadPort(), security: 'none' });
    const w = await channel('down mail', ['noc@example.net']);
    await raiseDown(fakeMonitor('while-mail-is-down'));
    for (const wait of [10_000, 30_000, 90_000, 270_000]) await advance(wait);
    const log = await attempts(w.id);
    assert.deepEqual(log.map((a) => a.outcome), ['retry', 'retry', 'retry', 'retry', 'failed']);
    for (const a of log) {
      assert.match(a.error, /ECONNREFUSED 127\.0\.0\.1:\d+/);
      assert.equal(a.status_code, null);
    }
    const alerts = (await api('GET', `/api/webhooks/alerts?webhook_id=${w.id}`)).body.items;
    assert.equal(alerts[0].decisions[0].delivery.state, 'failed');
    assert.match(alerts[0].decisions[0].delivery.error, /ECONNREFUSED/);
    await api('DELETE', `/api/webhooks/${w.id}`);
  });

  test('refused recipients: some — delivered to the others, the refused named; all — failed at once with the server\'s 550', async () => {
    await setSmtp({ host: '127.0.0.1', port: plain.port, security: 'none' });
    const some = await channel('some refused', ['noc@example.net', 'nobody@example.net']);
    const n = plain.mails.length;
    await raiseDown(fakeMonitor('half-delivered'));
    const got = await until('the mail', () => plain.mails[n]);
    assert.deepEqual(got.to, ['noc@example.net']);
    const [a] = await attempts(some.id);
    assert.equal(a.outcome, 'delivered');
    assert.equal(a.status_code, 250);
    assert.match(a.error, /not delivered to 1 of 2 recipients: nobody@example\.net \(550 5\.1\.1 <nobody@example\.net>: Recipient address rejected/);
    await api('DELETE', `/api/webhooks/${some.id}`);

    const all = await channel('all refused', ['nobody@example.net']);
    await raiseDown(fakeMonitor('undeliverable'));
    const [b] = await attempts(all.id);
    assert.equal(b.outcome, 'failed');
    assert.equal(b.status_code, 550);
    assert.match(b.error, /refused every recipient: nobody@example\.net \(550 /);
    await advance(3600_000);
    assert.equal((await attempts(all.id)).length, 1, 'a permanent refusal is not retried');
    assert.equal(plain.mails.length, n + 1);
    await api('DELETE', `/api/webhooks/${all.id}`);
  });

  test('an event the alert gate held is not mailed; the same event let through is', async () => {
    await setSmtp({ host: '127.0.0.1', port: plain.port, security: 'none' });
    const w = await channel('gate mail', ['noc@example.net']);
    const n = plain.mails.length;
    const ev = (alert: MonitorBusEvent['alert']) => ({
      monitor: { id: randomUUID(), name: 'child', target: '10.0.0.9', check_type: 'ping', tags: [] },
      previous_status: 'up', status: 'down', fail_streak: 1, failure_threshold: 1,
      result: { at: clock.iso(), status: 'down', response_time: null, message: '100% loss', details: {}, manual: false, monitor_status: 'down', measurements: {} },
      incident: null, occurred_at: clock.iso(), alert,
    }) as unknown as MonitorBusEvent;
    t.service.app.bus.emit('monitor.down', ev({ send: false, held_by: { rule: 'dependency', reason: 'switch is down', since: clock.iso() } } as MonitorBusEvent['alert']));
    await quiet();
    assert.equal(plain.mails.length, n, 'held: nothing mailed');
    assert.equal((await attempts(w.id)).length, 0);
    const held = (await api('GET', '/api/webhooks/alerts?outcome=held&limit=1')).body.items[0];
    assert.equal(held.alert.details.held_by.reason, 'switch is down');
    t.service.app.bus.emit('monitor.down', ev({ send: true }));
    await quiet();
    await until('the mail let through', () => plain.mails[n]);
    await api('DELETE', `/api/webhooks/${w.id}`);
  });
});

describe('the SMTP password stays with its server', () => {
  test('a changed server does not get the stored password unless it is entered again', async () => {
    await setSmtp({ host: '127.0.0.1', port: starttls.port, security: 'starttls', verify_certificate: false, user: 'probe', password: SMTP_SECRET });
    const w = await channel('moving mail', ['noc@example.net']);
    assert.equal((await api('POST', `/api/webhooks/${w.id}/test`)).body.ok, true);
    // Another server (a port is a server too), the password left out: dropped, and the new server never sees it.
    const moved = await setSmtp({ host: '127.0.0.1', port: other.port, security: 'starttls', verify_certificate: false, user: 'probe' });
    assert.deepEqual(moved.secrets_dropped, ['smtp.password']);
    const cfg = await api('GET', '/api/config/json');
    assert.deepEqual(cfg.body.smtp.password, { set: false });
    const r = await api('POST', `/api/webhooks/${w.id}/test`);
    assert.equal(r.body.ok, false);
    assert.ok(!(offered.get('other') ?? []).includes(SMTP_SECRET), 'the new server was not offered the old password');
    assert.equal(other.mails.length, 0);
    // Entered again with the move: it goes there.
    await setSmtp({ host: '127.0.0.1', port: other.port, security: 'starttls', verify_certificate: false, user: 'probe', password: SMTP_SECRET });
    const ok = await api('POST', `/api/webhooks/${w.id}/test`);
    assert.equal(ok.body.ok, true, ok.text);
    assert.deepEqual(offered.get('other')?.filter((p) => p === SMTP_SECRET), [SMTP_SECRET]);
    // Nowhere in an answer, the audit trail or the log.
    const everything = [(await api('GET', '/api/webhooks/deliveries')).text, (await api('GET', '/api/audit-log?limit=200')).text,
      (await api('GET', '/api/dev/emails/recent')).text, t.logs.join('\n')].join('\n');
    assert.ok(!everything.includes(SMTP_SECRET));
    await api('DELETE', `/api/webhooks/${w.id}`);
  });
});
