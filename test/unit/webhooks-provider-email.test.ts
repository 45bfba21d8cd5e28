// The e-mail provider on its own (pure): its recipients option, the subject that says what happened and
// where, the text and HTML parts (escaped, self-contained), a recovery's outage length, and that it has
// no URL to detect or redact.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { MonitorBusEvent } from '../../src/modules/monitors/contracts.js';
import { monitorDownAlert, monitorUpAlert, testAlert } from '../../src/modules/webhooks/alert.js';
import { checkOptions, providerList } from '../../src/modules/webhooks/options.js';
import { email, EmailOptions, MAX_RECIPIENTS, subjectOf } from '../../src/modules/webhooks/providers/email.js';
import { defaultType } from '../../src/modules/webhooks/providers/index.js';
import { urlSecrets } from '../../src/modules/webhooks/redact.js';

const ctx = (options: Record<string, unknown> = { to: ['noc@example.net'] }, extra: { public_url?: string } = {}) => ({
  url: '', secret: null, options, delivery_id: 'd1', sent_at: '2026-03-01T10:12:05.000Z', probe: { name: 'lab-probe', version: '1.2.3' }, ...extra,
});

function event(name: string, status: 'down' | 'up', previous: 'up' | 'down', message: string, duration = 0): MonitorBusEvent {
  return {
    monitor: { id: 'm-1', name, target: '10.0.0.2', check_type: 'tcp', tags: ['core'] },
    previous_status: previous, status, fail_streak: status === 'down' ? 3 : 0, failure_threshold: 3,
    result: { at: '2026-03-01T10:12:00.000Z', status, response_time: null, message, details: {}, manual: false, monitor_status: status, measurements: {} },
    incident: { id: 'i-1', monitor_id: 'm-1', opened_at: '2026-03-01T10:00:00.000Z', closed_at: status === 'up' ? '2026-03-01T10:12:05.000Z' : null,
      duration, message: 'connection refused', close_message: null, failures: 3 },
    occurred_at: '2026-03-01T10:12:05.000Z', alert: { send: true },
  } as unknown as MonitorBusEvent;
}

test('options: one to twenty distinct addresses; a bad one is named at its index', () => {
  assert.ok(EmailOptions.safeParse({ to: ['noc@example.net'] }).success);
  assert.deepEqual(EmailOptions.parse({ to: [' noc@example.net ', 'Ops.Team+alerts@sub.example.org'] }).to,
    ['noc@example.net', 'Ops.Team+alerts@sub.example.org']);
  const bad = checkOptions(email, { to: ['noc@example.net', 'not an address', 'bob@'] });
  assert.deepEqual(bad.errors.map((e) => e.path), ['options.to.1', 'options.to.2']);
  assert.match(bad.errors[0]!.message, /"not an address" is not an e-mail address/);
  assert.deepEqual(checkOptions(email, { to: ['a@example.net', 'A@example.net'] }).errors.map((e) => e.path), ['options.to.1']);
  assert.deepEqual(checkOptions(email, {}).errors.map((e) => e.path), ['options.to']);
  assert.deepEqual(checkOptions(email, { to: [] }).errors.map((e) => e.path), ['options.to']);
  const many = Array.from({ length: MAX_RECIPIENTS + 1 }, (_, i) => `u${i}@example.net`);
  assert.deepEqual(checkOptions(email, { to: many }).errors.map((e) => e.path), ['options.to']);
  assert.deepEqual(checkOptions(email, { to: ['a@example.net'], cc: ['b@example.net'] }).errors.map((e) => e.path), ['options.cc']);
});

test('it describes itself as a mail provider with a recipients list field, and no URL is ever taken for it', () => {
  const listed = providerList().find((p) => p.type === 'email')!;
  assert.equal(listed.transport, 'mail');
  assert.equal(listed.secret, null);
  assert.deepEqual(listed.options.required, ['to']);
  const to = (listed.options.properties as Record<string, any>).to;
  assert.equal(to.type, 'array');
  assert.equal(to.items.type, 'string');
  assert.equal(to.title, 'Recipients');
  assert.ok(providerList().filter((p) => p.type !== 'email').every((p) => p.transport === 'http'));
  for (const u of ['mailto:noc@example.net', 'smtp://mail.example.net', 'https://mail.example.net/']) assert.notEqual(defaultType(u), 'email');
  assert.deepEqual(urlSecrets('', 'email'), { redacted: '', pieces: [] });
});

test('a down: the subject says what and where, the text and HTML parts carry the facts, to the configured recipients only', () => {
  const alert = monitorDownAlert(event('core-switch', 'down', 'up', 'connection refused'));
  const mail = email.build(alert, ctx({ to: ['noc@example.net', 'oncall@example.net'] }));
  assert.equal(mail.kind, 'mail');
  assert.deepEqual(mail.to, ['noc@example.net', 'oncall@example.net']);
  assert.equal(mail.subject, 'DOWN: core-switch (10.0.0.2) — connection refused');
  assert.match(mail.text, /^DOWN: core-switch \(10\.0\.0\.2\)\n\ncore-switch \(10\.0\.0\.2\) is down: connection refused\n/);
  assert.match(mail.text, /Target: +10\.0\.0\.2\n/);
  assert.match(mail.text, /Incident opened: +2026-03-01 10:00:00 UTC\n/);
  assert.match(mail.text, /Probe: +lab-probe\n/);
  assert.ok(!mail.text.includes('Open the monitor'), 'no link without server.public_url');
  assert.match(mail.html, /^<!DOCTYPE html>/);
  assert.match(mail.html, /<h1[^>]*>DOWN: core-switch \(10\.0\.0\.2\)<\/h1>/);
  assert.match(mail.html, />Critical</);
  assert.equal(mail.headers['Auto-Submitted'], 'auto-generated');
  assert.equal(mail.headers['X-Netprobe-Event'], 'monitor_down');
  assert.equal(mail.headers['X-Netprobe-Delivery'], 'd1');
});

test('a recovery names how long the outage lasted, in the subject and the body', () => {
  const alert = monitorUpAlert(event('core-switch', 'up', 'down', 'connected in 2 ms', 725));
  const mail = email.build(alert, ctx());
  assert.equal(mail.subject, 'UP: core-switch (10.0.0.2) — down for 12 min');
  assert.match(mail.text, /is up again after 12 min down/);
  assert.match(mail.text, /Outage lasted: +12 min\n/);
  assert.match(mail.text, /Down since: +2026-03-01 10:00:00 UTC\n/);
  assert.match(mail.html, />Outage lasted<\/th><td[^>]*>12 min</);
  assert.match(mail.html, />Resolved</);
});

test('alert text is escaped in the HTML, the subject is one line, and the HTML loads nothing remote', () => {
  const name = '<script>alert("x")</script> & <img src=http://evil.example/p.png>\r\nBcc: victim@example.net';
  const alert = monitorDownAlert(event(name, 'down', 'up', '<b>refused</b>\nnext line'));
  const mail = email.build(alert, ctx(undefined, { public_url: 'https://probe.example.net/' }));
  assert.ok(!/[\r\n]/.test(mail.subject), JSON.stringify(mail.subject));
  assert.ok([...mail.subject].length <= 200);
  assert.ok(!mail.html.includes('<script'), 'no markup from a monitor name');
  assert.ok(!mail.html.includes('<img') && !mail.html.includes('<b>refused'), 'no element from alert text');
  assert.ok(mail.html.includes('&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62; &#38; &#60;img src=http://evil.example/p.png&#62;'));
  assert.ok(!/<(img|link|script|iframe|object|video|audio)\b/i.test(mail.html), 'no remote or active content');
  assert.ok(!/url\(|@import|src=/i.test(mail.html.replace(/&#60;img src=http:\/\/evil\.example\/p\.png&#62;/g, '')), 'no resource loaded by the HTML');
  assert.ok(mail.text.includes(name.split('\r\n')[0]!), 'the text part keeps the name as it is');
  // The one link is the probe's own monitor page, from server.public_url.
  const links = [...mail.html.matchAll(/href="([^"]*)"/g)].map((m) => m[1]);
  assert.deepEqual(links, ['https://probe.example.net/monitors/m-1']);
  assert.match(mail.text, /Open the monitor: https:\/\/probe\.example\.net\/monitors\/m-1\n/);
});

test('the test message says which probe it comes from', () => {
  const alert = testAlert({ id: 'w-1', name: 'ops mail' }, '2026-03-01T10:00:00.000Z');
  assert.equal(subjectOf(alert, ctx()), 'TEST: alerts from lab-probe reach this address');
  const mail = email.build(alert, ctx());
  assert.match(mail.text, /A test alert for the webhook "ops mail"/);
  assert.match(mail.html, />Information</);
});
