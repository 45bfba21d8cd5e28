// A webhook's secret, and its URL when the URL carries a token (what redact.ts masks: Slack's path
// key, a Telegram bot token, a token= query value, a password...), are stored sealed with the machine
// key (core/secretbox.ts): sealed when written, opened only to deliver or test, and to show the URL
// redacted. A URL without such parts stays readable, so a database restored onto another probe still
// shows where each webhook points. Also here: options an earlier build packed into a (sealed) URL move
// out of it at start-up.
import type { AppContext } from '../../core/context.js';
import { isSealed, SecretUnreadableError, type SecretBox } from '../../core/secretbox.js';
import type { WebhookRow } from './schemas.js';
import { parseOptions, unpackUrl } from './options.js';
import { providerOf, type WebhookType } from './providers/index.js';
import { MASK, redactUrl, urlSecrets } from './redact.js';

/** A clear URL that holds secret parts for this provider. */
const clearWithSecrets = (url: string, type: WebhookType) => !isSealed(url) && urlSecrets(url, type).pieces.length > 0;

/** The URL as stored: sealed when it holds secret parts for this provider. */
export function sealUrl(box: SecretBox, url: string, type: WebhookType): string {
  return clearWithSecrets(url, type) ? box.seal(url) : url;
}

/** A new secret as stored (always sealed, even one that happens to look like an envelope). */
export const sealSecret = (box: SecretBox, secret: string | null): string | null => (secret === null ? null : box.seal(secret));

/** A stored value opened, or null when this probe cannot open it (another key, or altered). */
const openValue = (box: SecretBox, v: string): string | null => (isSealed(v) ? box.tryOpen(v) : v);

/** The row with its URL and secret in clear, for a delivery; throws SecretUnreadableError naming the fields. */
export function openWebhook(box: SecretBox, row: WebhookRow): WebhookRow {
  const url = openValue(box, row.url);
  const secret = row.secret === null ? null : openValue(box, row.secret);
  const bad = [url === null ? 'url' : null, row.secret !== null && secret === null ? 'secret' : null].filter((x) => x !== null);
  if (bad.length) throw new SecretUnreadableError(bad.join(', '));
  return { ...row, url: url!, secret };
}

/** The URL as responses, the audit trail and logs show it: redacted, or *** when it cannot be opened. */
export function shownUrl(box: SecretBox, row: Pick<WebhookRow, 'url' | 'type'>): string {
  const url = openValue(box, row.url);
  return url === null ? MASK : redactUrl(url, row.type);
}

/** The clear URL, or null when it cannot be opened. */
export const clearUrl = (box: SecretBox, row: Pick<WebhookRow, 'url'>): string | null => openValue(box, row.url);

/** The clear secret: null when none is stored, undefined when it cannot be opened. */
export function clearSecret(box: SecretBox, row: Pick<WebhookRow, 'secret'>): string | null | undefined {
  if (row.secret === null) return null;
  return openValue(box, row.secret) ?? undefined;
}

type Row = Pick<WebhookRow, 'id' | 'url' | 'type' | 'secret'>;
const needsSealing = (r: Row) => clearWithSecrets(r.url, r.type) || (r.secret !== null && !isSealed(r.secret));

/**
 * Start-up: seals what an earlier build stored in clear, in one write, then checkpoints so netprobe.db
 * no longer holds it (secure_delete zeroes the replaced row bytes in that write). Idempotent. Also
 * warns about sealed values this probe cannot open.
 */
export async function sealStoredWebhooks(app: Pick<AppContext, 'store' | 'secretbox' | 'log'>): Promise<void> {
  const log = app.log.child('webhooks');
  const box = app.secretbox;
  const rows = app.store.all<Row>('SELECT id, url, type, secret FROM webhooks');
  const unreadable = rows.filter((r) => clearUrl(box, r) === null || clearSecret(box, r) === undefined).length;
  if (unreadable) {
    log.warn('webhook secrets cannot be decrypted with this probe\'s machine key (restored from another probe?): re-enter them',
      { webhooks: unreadable });
  }
  if (!rows.some(needsSealing)) return;
  const sealed = await app.store.write((tx) => {
    let n = 0;
    tx.run('PRAGMA secure_delete = ON');
    for (const r of tx.all<Row>('SELECT id, url, type, secret FROM webhooks')) {
      if (!needsSealing(r)) continue;
      const secret = r.secret === null || isSealed(r.secret) ? r.secret : box.seal(r.secret);
      tx.run('UPDATE webhooks SET url = ?, secret = ? WHERE id = ?', [sealUrl(box, r.url, r.type), secret, r.id]);
      n++;
    }
    tx.run('PRAGMA secure_delete = OFF');
    return n;
  }, 'sync');
  await app.store.checkpoint();
  log.info('sealed webhook secrets stored in clear by an earlier build', { webhooks: sealed });
}

type OptionsRow = Pick<WebhookRow, 'id' | 'url' | 'type' | 'options'>;

/**
 * Start-up: options an earlier build packed into the URL's query move into `options`, in one write
 * (a migration cannot: the URL is sealed with the machine key when it holds a token). Idempotent; a URL
 * this probe cannot open is left as it is.
 */
export async function moveUrlOptions(app: Pick<AppContext, 'store' | 'secretbox' | 'log'>): Promise<void> {
  const box = app.secretbox;
  const moves = app.store.all<OptionsRow>('SELECT id, url, type, options FROM webhooks').flatMap((r) => {
    const url = clearUrl(box, r);
    if (url === null) return [];
    const p = providerOf(r.type);
    const out = unpackUrl(p, url, parseOptions(r.options));
    if (out.url === url) return [];
    return [{ id: r.id, url: sealUrl(box, out.url, r.type), options: JSON.stringify(out.options) }];
  });
  if (!moves.length) return;
  await app.store.write((tx) => {
    for (const m of moves) tx.run('UPDATE webhooks SET url = ?, options = ? WHERE id = ?', [m.url, m.options, m.id]);
  }, 'sync');
  app.log.child('webhooks').info('moved provider options out of webhook URLs (an earlier build packed them in the query)',
    { webhooks: moves.length });
}
