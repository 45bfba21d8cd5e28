// Telegram Bot API sendMessage (https://api.telegram.org/bot<token>/sendMessage?chat_id=<chat>): the chat
// (and optional message_thread_id) come from the URL's query and go into the JSON body; the bot token in
// the path is redacted. HTML parse mode, so only <, > and & need escaping.
// https://core.telegram.org/bots/api#sendmessage
import type { Alert } from '../alert.js';
import { clip, facts, hostOf, jsonRequest, MARK, toneOf } from './format.js';
import type { DeliveryContext, Provider } from './types.js';

export const htmlEscape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

const idValue = (v: string): string | number => (/^-?\d{1,15}$/.test(v) ? Number(v) : v);

export const telegram: Provider = {
  type: 'telegram',
  label: 'Telegram',
  reference: 'https://core.telegram.org/bots/api#sendmessage',
  matches: (u) => hostOf(u) === 'api.telegram.org',
  check: (u) => {
    const errors = [];
    if (!/\/bot[^/]+\/sendMessage\/?$/.test(u.pathname))
      errors.push({ path: 'url', message: 'Expected https://api.telegram.org/bot<token>/sendMessage?chat_id=<chat>' });
    else if (!u.searchParams.get('chat_id'))
      errors.push({ path: 'url', message: 'Add the chat to the URL: ?chat_id=<chat id or @channel>' });
    return errors;
  },
  secretSegments: (segs) => segs.flatMap((s, i) => (s.startsWith('bot') && s.length > 3 ? [i] : [])),
  build(alert: Alert, ctx: DeliveryContext) {
    const u = new URL(ctx.url);
    const chat = u.searchParams.get('chat_id') ?? '';
    const thread = u.searchParams.get('message_thread_id');
    u.search = '';
    const lines = [
      `${MARK[toneOf(alert)]} <b>${htmlEscape(alert.title)}</b>`,
      htmlEscape(alert.message),
      '',
      ...facts(alert, ctx).map((f) => `<b>${htmlEscape(f.name)}:</b> ${htmlEscape(f.value)}`),
    ];
    // Clipping may cut an entity or tag in half; cut the plain lines instead when the whole is too long.
    let text = lines.join('\n');
    if ([...text].length > 4096) text = [lines[0], htmlEscape(clip(alert.message, 3500))].join('\n');
    return jsonRequest(u.href, {
      chat_id: idValue(chat),
      ...(thread ? { message_thread_id: idValue(thread) } : {}),
      text,
      parse_mode: 'HTML',
      link_preview_options: { is_disabled: true },
    }, ctx);
  },
};
