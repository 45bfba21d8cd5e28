// What other modules may use of the system module: the outgoing e-mail (the SMTP server of the `smtp`
// configuration section), for the webhooks module's e-mail alert channel, and the branding (the uploaded
// logo), for the monitors module's public status pages. Import them from here, never from inner files.
import type { AppContext } from '../../core/context.js';
import { serviceSlot } from '../../core/modules.js';
import type { Mailer } from './auth/mailer.js';

export type { DeliverOptions, MailDelivery, OutgoingMail } from './auth/mailer.js';

/** What another module may do with the outgoing e-mail: whether it is configured, and send a message. */
export type OutgoingEmail = Pick<Mailer, 'configured' | 'deliver'>;

const mail = serviceSlot<OutgoingEmail>('system', 'Outgoing e-mail');

/** Set by the system module's register(). */
export const setOutgoingEmail = (app: AppContext, mailer: OutgoingEmail): void => mail.set(app, mailer);

/** The outgoing e-mail of an app; throws when the system module is not registered (declare it in needs). */
export const outgoingEmailOf = (app: AppContext): OutgoingEmail => mail.of(app);

/** What another module may show of the branding: the uploaded logo's URL (open to all), or null without one. */
export interface Branding { logoUrl(): string | null }

const branding = serviceSlot<Branding>('system', 'Branding');

/** Set by the system module's register(). */
export const setBranding = (app: AppContext, b: Branding): void => branding.set(app, b);

/** The branding of an app, or undefined when the system module is not registered (a module that only uses it). */
export const brandingOf = (app: AppContext): Branding | undefined => branding.find(app);
