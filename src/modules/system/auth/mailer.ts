// Outgoing e-mail through the SMTP server of the `smtp` configuration section, with nodemailer, and the
// record of recent messages behind GET /api/dev/emails/recent. Used by password recovery, the test
// message, the e-mail change notice and the webhooks module's e-mail alert channel (through contracts.ts).
//
// - A send never throws: its outcome (sent, or failed with nodemailer's error code: EAUTH for a refused
//   login, ESOCKET/ECONNECTION for a server that is down, ETIMEDOUT, EENVELOPE ...) is returned and kept.
// - The record holds who, what subject, when and how it went; never the body. Error texts are scrubbed of
//   the SMTP password and of every secret the message carried (a temporary password), in case a server
//   echoes them.
// - A fresh transport per message: messages are rare (a reset, a test), and a changed setting applies at
//   once without pooled connections to close.
import { randomUUID } from 'node:crypto';
import { isIP } from 'node:net';
/** nodemailer costs about 12 MiB of memory once loaded: it is loaded with the first message. */
let nodemailerModule: Promise<(typeof import('nodemailer'))['default']> | undefined;
const nodemailer = () => (nodemailerModule ??= import('nodemailer').then((m) => m.default));
import type { Clock } from '../../../core/clock.js';
import type { Logger } from '../../../core/log.js';
import type { Config } from '../../../core/config/index.js';

export type SmtpSettings = Config['smtp'];
export const MAIL_KINDS = ['password_reset', 'test', 'email_changed', 'alert'] as const;
export type MailKind = (typeof MAIL_KINDS)[number];

export interface MailRecord {
  id: string;
  at: string;
  kind: MailKind;
  to: string;
  subject: string;
  outcome: 'sent' | 'failed';
  /** Why it failed: nodemailer's code (EAUTH, ESOCKET, ETIMEDOUT, ...) and a scrubbed message. */
  error: { code: string; message: string } | null;
  duration_ms: number;
}

export interface OutgoingMail {
  kind: MailKind;
  /** One address or several (each gets the same message; the record lists them comma-separated). */
  to: string | string[];
  subject: string;
  text: string;
  /** An HTML alternative to the text: self-contained (no remote images or style sheets). */
  html?: string;
  /** Further headers (X-Netprobe-*, for mail filters). */
  headers?: Record<string, string>;
  /** Values the body carries that must never appear in the record or the log (a temporary password). */
  secrets?: string[];
}

/** How one message went, in the SMTP server's words (deliver()). */
export interface MailDelivery {
  record: MailRecord;
  /** The server's reply code for the outcome: 250 taken; 4xx refused for now, 5xx for good; null without a reply. */
  response_code: number | null;
  /** The server's last reply (its queue id, or why it refused), scrubbed; '' without a reply. */
  response: string;
  /** Recipients the server took. */
  accepted: string[];
  /** Recipients it refused while taking the message for others, each with its reply (scrubbed). */
  rejected: { address: string; response: string }[];
  /** A failure worth trying again later: the server down or unreachable, a timeout, a connection lost, 421. */
  transient: boolean;
}

export interface DeliverOptions {
  /** Ends the attempt (the service is stopping): failed with code EABORT. */
  signal?: AbortSignal;
  /** A deadline over the whole exchange, on top of the per-step smtp.timeout_seconds: failed with ETIMEDOUT. */
  deadlineMs?: number;
}

const RECENT_MAX = 50;
const REDACTED = '[redacted]';

export class Mailer {
  private ring: MailRecord[] = [];

  constructor(private deps: { settings: () => SmtpSettings; clock: Clock; log: Logger; probeName: () => string }) {}

  /** Whether an SMTP server is configured at all. */
  configured(): boolean {
    return this.deps.settings().host !== '';
  }

  /** Newest first. */
  recent(): MailRecord[] {
    return this.ring.map((r) => ({ ...r, error: r.error && { ...r.error } })).reverse();
  }

  async send(mail: OutgoingMail): Promise<MailRecord> {
    return (await this.deliver(mail)).record;
  }

  /** Sends one message and says how the server took it; never throws. */
  async deliver(mail: OutgoingMail, opts: DeliverOptions = {}): Promise<MailDelivery> {
    const s = this.deps.settings();
    const started = this.deps.clock.now();
    const to = Array.isArray(mail.to) ? mail.to : [mail.to];
    const record: MailRecord = {
      id: randomUUID(), at: this.deps.clock.iso(started), kind: mail.kind, to: to.join(', '), subject: mail.subject,
      outcome: 'sent', error: null, duration_ms: 0,
    };
    const out: MailDelivery = { record, response_code: null, response: '', accepted: [], rejected: [], transient: false };
    const secrets = [s.password, ...(mail.secrets ?? [])].filter((x) => x.length >= 4);
    const deadline = opts.deadlineMs ? AbortSignal.timeout(opts.deadlineMs) : undefined;
    const signals = [opts.signal, deadline].filter((x): x is AbortSignal => x !== undefined);
    const t0 = performance.now();
    try {
      if (!s.host) throw Object.assign(new Error('No SMTP server is configured (smtp.host)'), { code: 'ENOTCONFIGURED' });
      const transport = (await nodemailer()).createTransport({
        host: s.host, port: s.port,
        secure: s.security === 'tls',
        requireTLS: s.security === 'starttls',
        ignoreTLS: s.security === 'none',
        auth: s.user ? { user: s.user, pass: s.password } : undefined,
        tls: { rejectUnauthorized: s.verify_certificate, servername: isIP(s.host) ? undefined : s.host },
        connectionTimeout: s.timeout_seconds * 1000,
        greetingTimeout: s.timeout_seconds * 1000,
        socketTimeout: s.timeout_seconds * 1000,
        dnsTimeout: s.timeout_seconds * 1000,
        disableFileAccess: true,
        disableUrlAccess: true,
      });
      try {
        const info = await transport.sendMail({
          from: { name: this.deps.probeName(), address: s.from || `netprobe@${isIP(s.host) ? 'localhost' : s.host}` },
          to, subject: mail.subject, text: mail.text,
          ...(mail.html !== undefined ? { html: mail.html } : {}),
          ...(mail.headers ? { headers: mail.headers } : {}),
          ...(signals.length ? { signal: signals.length === 1 ? signals[0] : AbortSignal.any(signals) } : {}),
        });
        out.response = scrub(String(info.response ?? ''), secrets);
        out.response_code = replyCode(out.response);
        out.accepted = (info.accepted ?? []).map(String);
        const refused = (info as { rejectedErrors?: (Error & { recipient?: string; response?: string })[] }).rejectedErrors ?? [];
        out.rejected = (info.rejected ?? []).map((a) => {
          const address = String(a);
          const why = refused.find((e) => e.recipient === address);
          return { address, response: scrub(why?.response ?? why?.message ?? 'refused', secrets) };
        });
      } finally {
        transport.close();
      }
    } catch (e) {
      const err = e as Error & { code?: string; responseCode?: number; response?: string };
      // The deadline and a stop abort the same way; say which.
      const timedOut = deadline?.aborted === true && err.code === 'EABORT';
      const code = timedOut ? 'ETIMEDOUT' : typeof err.code === 'string' ? err.code : 'ERROR';
      const message = timedOut ? `no answer from ${s.host}:${s.port} within ${Math.round(opts.deadlineMs! / 1000)} s`
        : err.code === 'EABORT' ? 'aborted: the service is stopping' : String(err.message ?? err);
      record.outcome = 'failed';
      record.error = { code, message: scrub(message, secrets) };
      out.response_code = typeof err.responseCode === 'number' ? err.responseCode : null;
      out.response = err.response ? scrub(String(err.response), secrets) : '';
      out.transient = timedOut || ['ECONNECTION', 'ESOCKET', 'ETIMEDOUT', 'EDNS'].includes(code) || err.responseCode === 421;
      const rejected = (err as { rejectedErrors?: (Error & { recipient?: string; response?: string })[] }).rejectedErrors ?? [];
      out.rejected = rejected.map((r) => ({ address: String(r.recipient ?? ''), response: scrub(r.response ?? r.message, secrets) }));
    }
    record.duration_ms = Math.round(performance.now() - t0);
    this.ring.push(record);
    if (this.ring.length > RECENT_MAX) this.ring.splice(0, this.ring.length - RECENT_MAX);
    const fields = {
      id: record.id, kind: record.kind, to: record.to, outcome: record.outcome, ...(record.error ? { error: record.error } : {}),
      ...(out.rejected.length ? { refused: out.rejected.map((r) => r.address) } : {}),
    };
    if (record.outcome === 'sent') this.deps.log.info('e-mail sent', fields);
    else this.deps.log.warn('e-mail not sent', fields);
    return out;
  }
}

/** The three-digit reply code a server's reply starts with, or null. */
const replyCode = (reply: string): number | null => (/^[2-5]\d\d\b/.test(reply) ? Number(reply.slice(0, 3)) : null);

function scrub(text: string, secrets: string[]): string {
  let out = text.slice(0, 500);
  for (const s of secrets) out = out.split(s).join(REDACTED);
  return out;
}
