// Outgoing e-mail through the SMTP server of the `smtp` configuration section, with nodemailer, and the
// record of recent messages behind GET /api/dev/emails/recent.
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
export const MAIL_KINDS = ['password_reset', 'test', 'email_changed'] as const;
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
  to: string;
  subject: string;
  text: string;
  /** Values the body carries that must never appear in the record or the log (a temporary password). */
  secrets?: string[];
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
    const s = this.deps.settings();
    const started = this.deps.clock.now();
    const record: MailRecord = {
      id: randomUUID(), at: this.deps.clock.iso(started), kind: mail.kind, to: mail.to, subject: mail.subject,
      outcome: 'sent', error: null, duration_ms: 0,
    };
    const secrets = [s.password, ...(mail.secrets ?? [])].filter((x) => x.length >= 4);
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
        await transport.sendMail({
          from: { name: this.deps.probeName(), address: s.from || `netprobe@${isIP(s.host) ? 'localhost' : s.host}` },
          to: mail.to, subject: mail.subject, text: mail.text,
        });
      } finally {
        transport.close();
      }
    } catch (e) {
      const err = e as Error & { code?: string };
      record.outcome = 'failed';
      record.error = { code: typeof err.code === 'string' ? err.code : 'ERROR', message: scrub(String(err.message ?? err), secrets) };
    }
    record.duration_ms = Math.round(performance.now() - t0);
    this.ring.push(record);
    if (this.ring.length > RECENT_MAX) this.ring.splice(0, this.ring.length - RECENT_MAX);
    const fields = {
      id: record.id, kind: record.kind, to: record.to, outcome: record.outcome, ...(record.error ? { error: record.error } : {}),
    };
    if (record.outcome === 'sent') this.deps.log.info('e-mail sent', fields);
    else this.deps.log.warn('e-mail not sent', fields);
    return record;
  }
}

function scrub(text: string, secrets: string[]): string {
  let out = text.slice(0, 500);
  for (const s of secrets) out = out.split(s).join(REDACTED);
  return out;
}
