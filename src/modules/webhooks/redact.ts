// Webhook URLs often are credentials: Slack, Discord, Teams and Mattermost put a token in the path,
// Telegram the bot token (its provider says how it is shown), Google Chat and Gotify a key or token in the query, ntfy's topic is the
// password of a public topic. Responses and logs show the URL with those parts replaced by ***; the
// pieces themselves are also scrubbed from error messages and response excerpts.
import { providerOf, type WebhookType } from './providers/index.js';

export const MASK = '***';

/** Query parameters whose values are secrets. */
const SECRET_PARAM = /token|key|secret|sig|signature|pass|auth|code|credential|session/i;

/** A path segment that looks like a generated credential: long, with both letters and digits. */
const looksLikeToken = (s: string) => s.length >= 16 && /[A-Za-z]/.test(s) && /\d/.test(s);

export interface UrlSecrets {
  /** The URL with its secret parts replaced by ***. */
  redacted: string;
  /** The secret strings themselves (raw and decoded), to scrub from other text. */
  pieces: string[];
}

export function urlSecrets(raw: string, type: WebhookType): UrlSecrets {
  if (raw === '') return { redacted: '', pieces: [] }; // a provider without a URL (e-mail)
  let u: URL;
  try { u = new URL(raw); } catch { return { redacted: MASK, pieces: [raw] }; }
  const pieces: string[] = [];
  const add = (s: string) => {
    if (!s) return;
    pieces.push(s);
    try { const d = decodeURIComponent(s); if (d !== s) pieces.push(d); } catch { /* not encoded */ }
  };
  if (u.password) { add(u.password); u.password = MASK; }
  const segs = u.pathname.split('/').slice(1);
  const provider = providerOf(type);
  const secretIdx = new Set(provider.secretSegments?.(
    segs.map((s) => { try { return decodeURIComponent(s); } catch { return s; } })) ?? []);
  const out = segs.map((s, i) => {
    if (secretIdx.has(i) && provider.maskSegment) { const m = provider.maskSegment(s); add(m.secret); return m.shown; }
    if (secretIdx.has(i) || looksLikeToken(s)) { add(s); return MASK; }
    return s;
  });
  u.pathname = `/${out.join('/')}`;
  for (const [k, v] of [...u.searchParams]) {
    if (SECRET_PARAM.test(k) && v) { add(v); add(encodeURIComponent(v)); u.searchParams.set(k, MASK); }
  }
  return { redacted: u.href, pieces: [...new Set(pieces)].sort((a, b) => b.length - a.length) };
}

export const redactUrl = (raw: string, type: WebhookType) => urlSecrets(raw, type).redacted;

/** `text` with every occurrence of each secret piece (4 characters or more) replaced by ***. */
export function scrub(text: string, pieces: readonly string[]): string {
  let out = text;
  for (const p of pieces) if (p.length >= 4) out = out.split(p).join(MASK);
  return out;
}
