// The webhook form renders a provider's options from GET /api/webhooks/providers: a Telegram webhook is
// created in a real browser with its chat typed into the "Chat" field the provider describes (a bad one
// refused beside that field), and its test delivery reaches the receiver on loopback with that chat.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Receiver } from '../helpers/webhook-receiver.js';
import { assertClean, startSignedIn, type UiEnv, type UiPage } from './helpers/browser.js';

let env: UiEnv;
let admin: { key: string };
let p: UiPage;
let receiver: Receiver;

before(async () => {
  receiver = await Receiver.start();
  ({ env, admin, p } = await startSignedIn());
});

after(async () => {
  await p?.context.close();
  await env?.close();
  await receiver?.close();
});

test('a Telegram webhook with its chat typed into the field its provider describes, tested', async () => {
  const { page } = p;
  await page.goto('/webhooks');
  await page.getByRole('button', { name: 'New webhook' }).first().click();
  const dialog = page.getByRole('dialog', { name: 'New webhook' });
  await dialog.getByLabel('Name').fill('Ops chat');
  await dialog.getByLabel('URL').fill(`${receiver.url}/bot123456:AAbbCCdd/sendMessage`);
  await dialog.getByLabel('Provider').selectOption('telegram');
  const chat = dialog.getByLabel('Chat');
  await dialog.getByText('The chat id (a number, negative for groups)').waitFor();
  assert.equal(await dialog.getByLabel('Secret', { exact: true }).isVisible(), true);
  await dialog.getByText('This provider does not use a secret.').waitFor();

  await chat.fill('my chat');
  await dialog.getByRole('button', { name: 'Create webhook' }).click();
  await dialog.locator('.field', { has: page.getByLabel('Chat') }).locator('.field-error').waitFor();

  await chat.fill('-1001234567890');
  await dialog.getByLabel('Topic').fill('42');
  await dialog.getByRole('button', { name: 'Create webhook' }).click();
  await dialog.waitFor({ state: 'detached' });
  const row = page.getByRole('row', { name: /Ops chat/ });
  await row.waitFor();
  assert.match(await row.innerText(), /Telegram/);
  assert.match(await row.innerText(), /bot\*\*\*\/sendMessage/);

  const stored = (await env.t.request('GET', '/api/webhooks', { key: admin.key })).body.items[0];
  assert.deepEqual(stored.options, { chat_id: '-1001234567890', message_thread_id: '42' });

  await row.getByRole('button', { name: 'Send a test to Ops chat' }).click();
  await page.getByRole('dialog', { name: 'Test of Ops chat' }).getByText('Delivered').waitFor();
  const [got] = await receiver.waitFor(1);
  assert.equal(got!.path, '/bot123456:AAbbCCdd/sendMessage');
  assert.equal(got!.json.chat_id, -1001234567890);
  assert.equal(got!.json.message_thread_id, 42);
  await page.keyboard.press('Escape');

  // Editing shows the stored options in their fields.
  await row.getByRole('button', { name: 'Edit Ops chat' }).click();
  const edit = page.getByRole('dialog', { name: 'Edit Ops chat' });
  assert.equal(await edit.getByLabel('Chat').inputValue(), '-1001234567890');
  await page.keyboard.press('Escape');
  assertClean(p, 'the webhooks page', ['POST /api/webhooks 400']);
});
