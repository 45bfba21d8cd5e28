// The notice sent to a user's previous e-mail address when it is changed: with password recovery by
// e-mail, whoever controls the address controls the account, so the owner of the old one must learn of
// the change (and who made it, from where) while they can still act.
import type { AppContext } from '../../../core/context.js';
import type { Mailer } from '../auth/mailer.js';

export interface EmailChange {
  username: string;
  /** The address the notice goes to. */
  oldEmail: string;
  /** Who made the change: the user themselves or an administrator. */
  by: string;
  ip: string;
}

/**
 * Sends the notice in the background (a send never throws; its outcome is logged and listed by
 * GET /api/dev/emails/recent). Without an SMTP server nothing is sent, and the log says so.
 */
export function noticeEmailChange(app: AppContext, mailer: Mailer, c: EmailChange): void {
  const log = app.log.child('email');
  if (!mailer.configured()) {
    log.info('e-mail change notice not sent: no SMTP server is configured (smtp.host)', { username: c.username });
    return;
  }
  const cfg = app.config.get();
  const name = cfg.probe.name;
  const url = cfg.server.public_url;
  const who = c.by === c.username ? 'by the account itself' : `by the administrator "${c.by}"`;
  void mailer.send({
    kind: 'email_changed', to: c.oldEmail, subject: `The e-mail address of your account on ${name} was changed`,
    text: [
      `The e-mail address of the account "${c.username}" on the network probe ${name}${url ? ` (${url})` : ''} was changed`,
      `${who}, from the address ${c.ip}, at ${app.clock.iso()}. This address (${c.oldEmail}) no longer receives its`,
      'messages, such as password resets.',
      '',
      'If you did not make or expect this change, your account may be in other hands: ask an administrator of the',
      'probe to check the account and its audit log, and to set your e-mail address back.',
      '',
    ].join('\n'),
  });
}
