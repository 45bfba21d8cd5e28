// The Telegram provider on its own (pure): its options schema, the request it builds from them, and how
// its URL is redacted (the bot token, shown as bot***).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { testAlert } from '../../src/modules/webhooks/alert.js';
import { unpackUrl } from '../../src/modules/webhooks/options.js';
import { telegram, TelegramOptions } from '../../src/modules/webhooks/providers/telegram.js';
import { urlSecrets } from '../../src/modules/webhooks/redact.js';

const url = 'https://api.telegram.org/bot123:AbC/sendMessage';
const ctx = (options: Record<string, unknown>) => ({
  url, secret: null, options, delivery_id: 'd1', sent_at: '2026-01-01T00:00:00.000Z', probe: { name: 'p', version: '1' },
});

test('options: a chat id or @channel, an optional numeric topic, nothing else', () => {
  for (const chat_id of ['-1001234567890', '5', '@netprobe_ops']) assert.ok(TelegramOptions.safeParse({ chat_id }).success, chat_id);
  for (const bad of [{}, { chat_id: '' }, { chat_id: 'my chat' }, { chat_id: '@ab' }, { chat_id: '5', message_thread_id: 'x' },
    { chat_id: '5', extra: 1 }]) assert.equal(TelegramOptions.safeParse(bad).success, false, JSON.stringify(bad));
});

test('build: the chat and topic go into the body as numbers (a @channel stays a string), the URL stays', () => {
  const alert = testAlert({ id: 'w', name: 'ops' }, '2026-01-01T00:00:00.000Z');
  const req = telegram.build(alert, ctx({ chat_id: '-1001234567890', message_thread_id: '7' }));
  assert.equal(req.url, url);
  const body = JSON.parse(req.body);
  assert.equal(body.chat_id, -1001234567890);
  assert.equal(body.message_thread_id, 7);
  assert.equal(body.parse_mode, 'HTML');
  const channel = JSON.parse(telegram.build(alert, ctx({ chat_id: '@netprobe_ops' })).body);
  assert.equal(channel.chat_id, '@netprobe_ops');
  assert.equal('message_thread_id' in channel, false);
});

test('check: the sendMessage URL without a query (the chat is an option)', () => {
  assert.deepEqual(telegram.check(new URL(url)), []);
  assert.equal(telegram.check(new URL(`${url}?chat_id=5`))[0]?.path, 'url');
  assert.equal(telegram.check(new URL('https://api.telegram.org/sendMessage'))[0]?.path, 'url');
});

test('an earlier build\'s URL-packed chat moves into the options; an option given wins', () => {
  assert.deepEqual(unpackUrl(telegram, `${url}?chat_id=5&message_thread_id=9`, {}), { url, options: { chat_id: '5', message_thread_id: '9' } });
  assert.deepEqual(unpackUrl(telegram, `${url}?chat_id=5`, { chat_id: '6' }), { url, options: { chat_id: '6' } });
  assert.deepEqual(unpackUrl(telegram, url, {}), { url, options: {} });
});

test('redaction: the bot token is hidden as bot***, and is the piece scrubbed from other text', () => {
  assert.deepEqual(urlSecrets(url, 'telegram'), { redacted: 'https://api.telegram.org/bot***/sendMessage', pieces: ['123:AbC'] });
});
