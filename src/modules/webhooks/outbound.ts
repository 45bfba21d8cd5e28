// The one way out for deliveries and tests: what a provider built goes out as an e-mail through the
// probe's SMTP server (mail-sender.ts) or as an HTTP request (sender.ts), both read as a SendResult, so
// the outbox, retries, cooldown and the attempt log are the same for every provider.
import type { OutgoingEmail } from '../system/contracts.js';
import { sendMail } from './mail-sender.js';
import type { Outbound } from './providers/types.js';
import { sendRequest, type SendOptions, type SendResult } from './sender.js';

export type Sender = (out: Outbound, opts: SendOptions) => Promise<SendResult>;

/** `email()`: the system module's outgoing e-mail, looked up when a mail goes. */
export function outboundSender(email: () => OutgoingEmail): Sender {
  return (out, opts) => (out.kind === 'mail' ? sendMail(email(), out, opts) : sendRequest(out, opts));
}
