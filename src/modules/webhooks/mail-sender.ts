// Sends one e-mail a provider built (transport 'mail') through the probe's SMTP server (the system
// module's outgoing e-mail) and reads the outcome as the dispatcher reads an HTTP answer: status_code is
// the server's reply code (250 taken; 4xx refused for now, retried; 5xx refused for good), the excerpt
// its last reply, and the error says what went wrong in words. Never throws.
import type { OutgoingEmail } from '../system/contracts.js';
import type { OutboundMail } from './providers/types.js';
import { EXCERPT_CHARS, type SendOptions, type SendResult } from './sender.js';

/** Recipients named in a message before "and n more". */
const NAMED = 5;

/** "a@x (550 5.1.1 no such user); b@y (…)", the first few. */
function refusedList(rejected: { address: string; response: string }[]): string {
  const named = rejected.slice(0, NAMED).map((r) => `${r.address} (${r.response})`).join('; ');
  return rejected.length > NAMED ? `${named}; and ${rejected.length - NAMED} more` : named;
}

/** The failure in words, by nodemailer's code, ending with that code. */
function failureText(code: string, message: string, rejected: { address: string; response: string }[]): string {
  switch (code) {
    case 'ENOTCONFIGURED':
      return 'no SMTP server is configured: set one in Settings, E-mail (smtp.host) (ENOTCONFIGURED)';
    case 'ETLS':
      return `the SMTP server did not take the connection to TLS, and smtp.security requires it: ${message} (ETLS)`;
    case 'EAUTH':
      return `the login to the SMTP server failed (smtp.user, smtp.password): ${message} (EAUTH)`;
    case 'ESOCKET': case 'ECONNECTION': case 'EDNS':
      return /certificate|self[- ]signed|CERT_|unable to verify/i.test(message)
        ? 'the SMTP server\'s TLS certificate was not accepted (turn off smtp.verify_certificate only for a self-signed relay): ' +
          `${message} (${code})`
        : `the SMTP server cannot be reached: ${message} (${code})`;
    case 'ETIMEDOUT':
      return `the SMTP server did not answer in time: ${message} (ETIMEDOUT)`;
    case 'EENVELOPE':
      return rejected.length ? `the SMTP server refused every recipient: ${refusedList(rejected)} (EENVELOPE)` : `${message} (EENVELOPE)`;
    default:
      return `${message} (${code})`;
  }
}

export async function sendMail(mail: OutgoingEmail, m: OutboundMail, opts: SendOptions): Promise<SendResult> {
  const d = await mail.deliver({ kind: 'alert', to: m.to, subject: m.subject, text: m.text, html: m.html, headers: m.headers },
    { deadlineMs: opts.timeoutMs, ...(opts.signal ? { signal: opts.signal } : {}) });
  const excerpt = [...d.response.replace(/\s+/g, ' ').trim()].slice(0, EXCERPT_CHARS).join('');
  const base = { status_code: d.response_code, latency_ms: d.record.duration_ms, response_excerpt: excerpt };
  if (d.record.outcome === 'sent') {
    // Taken for some: delivered (another attempt would send the others a second copy), the refused named.
    const of = d.rejected.length + d.accepted.length;
    const partial = d.rejected.length
      ? { error: `not delivered to ${d.rejected.length} of ${of} recipients: ${refusedList(d.rejected)}` } : {};
    return { ok: true, retryable: false, ...base, ...partial };
  }
  const { code, message } = d.record.error!;
  const temporary = d.response_code !== null && d.response_code >= 400 && d.response_code < 500;
  return { ok: false, retryable: d.transient || temporary, ...base, error: failureText(code, message, d.rejected) };
}
