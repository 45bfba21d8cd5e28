// Telegram Bot API sendMessage (https://api.telegram.org/bot<token>/sendMessage): the chat (and optional
// forum topic) are the webhook's options and go into the JSON body; the bot token in the path is
// redacted (shown as bot***). HTML parse mode, so only <, > and & need escaping.
// https://core.telegram.org/bots/api#sendmessage
import { z } from 'zod';
import type { Alert } from '../alert.js';
import { clip, facts, hostOf, jsonRequest, MARK, toneOf } from './format.js';
import type { DeliveryContext, Provider } from './types.js';

export const htmlEscape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

const idValue = (v: string): string | number => (/^-?\d{1,15}$/.test(v) ? Number(v) : v);

/** The options, and where an earlier build packed them: the URL's query (`?chat_id=…&message_thread_id=…`). */
export const TelegramOptions = z.strictObject({
  chat_id: z.string().trim().regex(/^(-?\d{1,15}|@[A-Za-z][A-Za-z0-9_]{3,31})$/, 'A chat id (-1001234567890) or @channelname')
    .meta({ title: 'Chat' }).describe('The chat id (a number, negative for groups) or @channelname of a public channel'),
  message_thread_id: z.string().trim().regex(/^\d{1,15}$/, 'A topic id is a number').optional()
    .meta({ title: 'Topic' }).describe('Optional: the topic (message thread) id in a forum supergroup'),
});

export const telegram = {
  type: 'telegram' as const,
  label: 'Telegram',
  reference: 'https://core.telegram.org/bots/api#sendmessage',
  detect: 'host',
  matches: (u) => hostOf(u) === 'api.telegram.org',
  options: TelegramOptions,
  check: (u) => (/\/bot[^/]+\/sendMessage\/?$/.test(u.pathname) && !u.search ? []
    : [{ path: 'url', message: 'Expected https://api.telegram.org/bot<token>/sendMessage (the chat is an option)' }]),
  secretSegments: (segs) => segs.flatMap((s, i) => (s.startsWith('bot') && s.length > 3 ? [i] : [])),
  maskSegment: (s) => ({ shown: 'bot***', secret: s.slice(3) }),
  build(alert: Alert, ctx: DeliveryContext) {
    const { chat_id: chat, message_thread_id: thread } = TelegramOptions.parse(ctx.options);
    const lines = [
      `${MARK[toneOf(alert)]} <b>${htmlEscape(alert.title)}</b>`,
      htmlEscape(alert.message),
      '',
      ...facts(alert, ctx).map((f) => `<b>${htmlEscape(f.name)}:</b> ${htmlEscape(f.value)}`),
    ];
    // Clipping may cut an entity or tag in half; cut the plain lines instead when the whole is too long.
    let text = lines.join('\n');
    if ([...text].length > 4096) text = [lines[0], htmlEscape(clip(alert.message, 3500))].join('\n');
    return jsonRequest(ctx.url, {
      chat_id: idValue(chat),
      ...(thread ? { message_thread_id: idValue(thread) } : {}),
      text,
      parse_mode: 'HTML',
      link_preview_options: { is_disabled: true },
    }, ctx);
  },
} satisfies Provider;
