// The pure rules of alerting, as tables: the provider a URL defaults to, what redaction hides, the
// cooldown and recovery decision, dependents' summaries, backoff, and the alert-type registry.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { DependencyNode } from '../../src/modules/monitors/service.js';
import { alertTypes, registerAlertType } from '../../src/modules/webhooks/alert-types.js';
import { humanDuration } from '../../src/modules/webhooks/alert.js';
import { decide, type CooldownInput } from '../../src/modules/webhooks/cooldown.js';
import { summarise, upSummaryText } from '../../src/modules/webhooks/dependencies.js';
import { backoffMs } from '../../src/modules/webhooks/dispatcher.js';
import { defaultType } from '../../src/modules/webhooks/providers/index.js';
import { ntfyTarget } from '../../src/modules/webhooks/providers/ntfy.js';
import { scrub, urlSecrets } from '../../src/modules/webhooks/redact.js';
import { retryAfterMs } from '../../src/modules/webhooks/sender.js';

describe('the provider a URL defaults to', () => {
  const cases: [string, string][] = [
    ['https://hooks.slack.com/services/T0/B0/xyz', 'slack'],
    ['https://discord.com/api/webhooks/1/abc', 'discord'],
    ['https://discordapp.com/api/webhooks/1/abc', 'discord'],
    ['https://discord.com/channels/1/2', 'generic'],
    ['https://contoso.webhook.office.com/webhookb2/a@b/IncomingWebhook/c/d', 'teams'],
    ['https://prod-12.westeurope.logic.azure.com:443/workflows/abc/triggers/manual/paths/invoke?sig=x', 'teams'],
    ['https://chat.googleapis.com/v1/spaces/AAA/messages?key=k&token=t', 'google_chat'],
    ['https://chat.example.org/hooks/abcdefghijklmnopqrstuvwxyz', 'mattermost'],
    ['https://events.pagerduty.com/v2/enqueue', 'pagerduty'],
    ['https://events.eu.pagerduty.com/v2/enqueue', 'pagerduty'],
    ['https://api.opsgenie.com/v2/alerts', 'opsgenie'],
    ['https://api.eu.opsgenie.com/v2/alerts', 'opsgenie'],
    ['https://ntfy.sh/my-topic', 'ntfy'],
    ['https://push.example.org/message?token=abc', 'gotify'],
    ['https://api.telegram.org/bot1:abc/sendMessage?chat_id=1', 'telegram'],
    ['https://HOOKS.SLACK.COM./services/T0/B0/xyz', 'slack'],
    ['http://10.0.0.5:8080/alerts', 'generic'],
    ['https://example.net/hooks/short', 'generic'],
  ];
  for (const [url, type] of cases) test(`${url} -> ${type}`, () => assert.equal(defaultType(url), type));
});

describe('redaction', () => {
  const cases: [string, Parameters<typeof urlSecrets>[1], string, string[]][] = [
    ['https://hooks.slack.com/services/T0A1/B0A1/abcdefghij', 'slack', 'https://hooks.slack.com/services/T0A1/B0A1/***', ['abcdefghij']],
    ['https://discord.com/api/webhooks/1234/tok', 'discord', 'https://discord.com/api/webhooks/1234/***', ['tok']],
    ['https://api.telegram.org/bot123:AbC/sendMessage?chat_id=5', 'telegram', 'https://api.telegram.org/bot***/sendMessage?chat_id=5', ['123:AbC']],
    ['https://chat.googleapis.com/v1/spaces/A/messages?key=K1&token=T%3D', 'google_chat', 'https://chat.googleapis.com/v1/spaces/A/messages?key=***&token=***', ['K1', 'T=']],
    ['https://a.webhook.office.com/webhookb2/g@t/IncomingWebhook/s3/o', 'teams', 'https://a.webhook.office.com/webhookb2/***/IncomingWebhook/***/***', ['g@t', 's3']],
    ['https://x.logic.azure.com/workflows/1/triggers/manual/paths/invoke?api-version=2016-06-01&sig=S1G', 'teams',
      'https://x.logic.azure.com/workflows/1/triggers/manual/paths/invoke?api-version=2016-06-01&sig=***', ['S1G']],
    ['https://mm.example.org/hooks/key1', 'mattermost', 'https://mm.example.org/hooks/***', ['key1']],
    ['https://ntfy.sh/secret-topic', 'ntfy', 'https://ntfy.sh/***', ['secret-topic']],
    ['https://push.example.org/message?token=AppTok', 'gotify', 'https://push.example.org/message?token=***', ['AppTok']],
    ['https://user:pa55@example.net/hook', 'generic', 'https://user:***@example.net/hook', ['pa55']],
    ['https://example.net/in/9f8e7d6c5b4a39281706f5e4?x=1', 'generic', 'https://example.net/in/***?x=1', ['9f8e7d6c5b4a39281706f5e4']],
    ['https://example.net/alerts/incoming?apikey=abc123&team=ops', 'generic', 'https://example.net/alerts/incoming?apikey=***&team=ops', ['abc123']],
    ['https://example.net/alerts', 'generic', 'https://example.net/alerts', []],
  ];
  for (const [url, type, shown, secrets] of cases) {
    test(`${type}: ${shown}`, () => {
      const r = urlSecrets(url, type);
      assert.equal(r.redacted, shown);
      for (const s of secrets) assert.ok(r.pieces.includes(s), `${s} is a secret piece`);
    });
  }
  test('scrub replaces every occurrence of each piece', () => {
    assert.equal(scrub('bad token AppTok (AppTok)', ['AppTok']), 'bad token *** (***)');
    assert.equal(scrub('a b', ['a']), 'a b', 'pieces under 4 characters are left alone');
  });
});

describe('cooldown and recoveries', () => {
  const base: CooldownInput = {
    alertType: 'monitor_down', recovery: false, cooldown: 300, subscribed: ['monitor_down', 'monitor_up'],
    problemTypes: ['monitor_down', 'monitor_degraded', 'test_failure'], lastAt: new Map(), now: 1_000_000,
  };
  const at = (entries: [string, number][]) => new Map(entries);
  const cases: [string, Partial<CooldownInput>, string][] = [
    ['first alert', {}, 'queued'],
    ['same type within cooldown', { lastAt: at([['monitor_down', 1_000_000 - 299_000]]) }, 'cooldown'],
    ['same type after cooldown', { lastAt: at([['monitor_down', 1_000_000 - 300_000]]) }, 'queued'],
    ['another type within cooldown', { alertType: 'test_failure', lastAt: at([['monitor_down', 999_000]]) }, 'queued'],
    ['cooldown 0', { cooldown: 0, lastAt: at([['monitor_down', 1_000_000]]) }, 'queued'],
    ['recovery after a delivered down, within its own cooldown', { alertType: 'monitor_up', recovery: true, lastAt: at([['monitor_up', 990_000], ['monitor_down', 995_000]]) }, 'queued'],
    ['recovery after a delivered test_failure', { alertType: 'monitor_up', recovery: true, lastAt: at([['test_failure', 995_000]]) }, 'queued'],
    ['recovery whose down was not sent', { alertType: 'monitor_up', recovery: true, lastAt: at([['monitor_down', 900_000], ['monitor_up', 950_000]]) }, 'no_problem_sent'],
    ['recovery with nothing sent ever', { alertType: 'monitor_up', recovery: true }, 'no_problem_sent'],
    ['recovery to a webhook without problem types: plain cooldown', { alertType: 'monitor_up', recovery: true, subscribed: ['monitor_up'] }, 'queued'],
    ['recovery to a webhook without problem types, within cooldown', { alertType: 'monitor_up', recovery: true, subscribed: ['monitor_up'], lastAt: at([['monitor_up', 999_000]]) }, 'cooldown'],
  ];
  for (const [name, over, want] of cases) test(name, () => assert.equal(decide({ ...base, ...over }), want));
});

describe('dependents', () => {
  const node = (name: string, status: DependencyNode['status'], fail_streak = 0): DependencyNode => ({ id: name, name, status, fail_streak, held: false });
  test('summaries', () => {
    const s = summarise([node('a', 'up'), node('b', 'down'), node('c', 'down')]);
    assert.equal(s.total, 3);
    assert.equal(s.down, 2);
    assert.deepEqual(s.monitors.map((m) => m.name), ['b', 'c', 'a']);
    assert.match(upSummaryText(2, [node('b', 'down')]), /2 dependent monitor alerts were held back.*1 dependent monitor is still down \(b\)/);
  });
});

test('backoff: 10 s, 30 s, 90 s, 270 s; Retry-After when longer; never over an hour', () => {
  assert.deepEqual([1, 2, 3, 4].map((n) => backoffMs(n, 10)), [10_000, 30_000, 90_000, 270_000]);
  assert.equal(backoffMs(1, 10, 120_000), 120_000);
  assert.equal(backoffMs(1, 10, 1_000), 10_000);
  assert.equal(backoffMs(9, 10), 3600_000);
  assert.equal(retryAfterMs('30', 0), 30_000);
  assert.equal(retryAfterMs('Thu, 01 Jan 1970 00:01:00 GMT', 0), 60_000);
  assert.equal(retryAfterMs('soon', 0), undefined);
});

test('ntfy publishes to the server root with the topic in the body', () => {
  assert.deepEqual(ntfyTarget('https://ntfy.sh/alerts'), { root: 'https://ntfy.sh/', topic: 'alerts' });
  assert.deepEqual(ntfyTarget('https://example.org/ntfy/alerts?x=1'), { root: 'https://example.org/ntfy/?x=1', topic: 'alerts' });
});

test('alert types: one registry; a module adds its own; conflicting definitions are refused', () => {
  const n = alertTypes().length;
  const def = { type: 'unit_test_type', description: 'Raised only by this unit test.', severity: 'info' as const, source: 'test' };
  registerAlertType(def);
  registerAlertType({ ...def }); // the same again: fine
  assert.equal(alertTypes().length, n + 1);
  assert.throws(() => registerAlertType({ ...def, severity: 'critical' }), /already registered/);
  assert.throws(() => registerAlertType({ ...def, type: 'Bad-Name' }), /lowercase/);
});

test('alert type descriptions, shown beside each type in the webhook form, speak the form\'s words, not API field names', () => {
  for (const t of alertTypes()) {
    assert.doesNotMatch(t.description, /\b[a-z]+_[a-z_]+\b/, `${t.type}: "${t.description}" names an API field`);
  }
});

test('durations for people', () => {
  assert.deepEqual([5, 150, 3600, 3900, 90_000].map(humanDuration), ['5 s', '2 min', '1 h', '1 h 5 min', '1 d 1 h']);
});
