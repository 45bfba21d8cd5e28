// E-mail through the probe's SMTP server (configuration section `smtp`, Settings > E-mail): one message
// per alert to the recipients in the webhook's options, with a subject that says what happened and where
// ("DOWN: core-switch (10.0.0.2) — connection refused"), a plain-text part and an HTML part (inline
// styles, no remote images, every piece of alert text escaped). A recovery says how long the outage
// lasted. The webhook has no URL and no secret: the SMTP password stays in the SMTP settings.
// docs/webhooks.md, "E-mail".
import { z } from 'zod';
import { Email } from '../../../core/auth/users.js';
import { humanDuration, type Alert } from '../alert.js';
import { clip, COLOR, facts, toneOf, type Fact, type Tone } from './format.js';
import type { DeliveryContext, OutboundMail, Provider } from './types.js';

/** Recipients per channel; more belong on a mailing list. */
export const MAX_RECIPIENTS = 20;
/** Characters of a subject. */
export const SUBJECT_MAX = 200;

export const EmailOptions = z.strictObject({
  to: z.array(z.string().trim()).min(1, 'Add at least one recipient')
    .max(MAX_RECIPIENTS, `At most ${MAX_RECIPIENTS} recipients: use a mailing list`)
    .superRefine((list, ctx) => {
      const seen = new Set<string>();
      list.forEach((a, i) => {
        if (!Email.safeParse(a).success) ctx.addIssue({ code: 'custom', path: [i], message: `"${clip(a, 60)}" is not an e-mail address` });
        else if (seen.has(a.toLowerCase())) ctx.addIssue({ code: 'custom', path: [i], message: `"${a}" is listed twice` });
        seen.add(a.toLowerCase());
      });
    })
    .meta({ title: 'Recipients', examples: ['noc@example.net, oncall@example.net'], 'x-wide': true })
    .describe('E-mail addresses that get the alerts, separated by commas. Sent through the SMTP server set in Settings, E-mail.'),
});

/** Text for HTML, in element content and in quoted attributes. */
export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** One line: line breaks and other control characters become spaces (a subject is a header). */
const oneLine = (s: string) => s.replace(/\p{Cc}+/gu, ' ').replace(/\s{2,}/g, ' ').trim();

/** An ISO timestamp as people read it in a mail: "2026-03-01 10:00:00 UTC". */
const readableTime = (v: string) =>
  (/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(v) ? v.replace('T', ' ').replace(/(\.\d+)?Z$/, ' UTC') : v);

/** How long the outage a recovery ends lasted, in seconds, or null (a recovery from degraded). */
function outageSeconds(alert: Alert): number | null {
  if (!alert.resolved) return null;
  const d = alert.details.downtime_seconds;
  if (typeof d === 'number') return d;
  const i = alert.incident;
  return alert.details.previous_status === 'down' && i && typeof i.duration === 'number' ? i.duration : null;
}

/** What happened, short: the check's message for a problem, how long it lasted for a recovery. */
function reasonOf(alert: Alert): string {
  const outage = outageSeconds(alert);
  if (outage !== null) return `down for ${humanDuration(outage)}`;
  if (alert.resolved) return alert.details.previous_status === 'degraded' ? 'no longer degraded' : '';
  const r = alert.details.result as { message?: unknown } | undefined;
  return typeof r?.message === 'string' ? r.message : '';
}

/** The headline: the alert's title with the monitor's target beside its name ("DOWN: core-switch (10.0.0.2)"). */
function headlineOf(alert: Alert): string {
  const m = alert.monitor;
  if (!m || m.target === m.name || !alert.title.includes(m.name)) return alert.title;
  return alert.title.replace(m.name, () => `${m.name} (${m.target})`);
}

/** "DOWN: core-switch (10.0.0.2) — connection refused": what happened and where, one line. */
export function subjectOf(alert: Alert, ctx: Pick<DeliveryContext, 'probe'>): string {
  if (alert.type === 'test') return clip(oneLine(`TEST: alerts from ${ctx.probe.name} reach this address`), SUBJECT_MAX);
  const reason = oneLine(reasonOf(alert));
  return clip(oneLine(reason ? `${headlineOf(alert)} — ${reason}` : headlineOf(alert)), SUBJECT_MAX);
}

/** The facts of the mail: the chat providers' facts, with the outage's length on a recovery and readable times. */
function mailFacts(alert: Alert, ctx: DeliveryContext): Fact[] {
  const out = facts(alert, ctx).map((f) => ({ name: f.name, value: readableTime(f.value) }));
  const outage = outageSeconds(alert);
  if (outage !== null) out.splice(out.findIndex((f) => f.name === 'Probe'), 0, { name: 'Outage lasted', value: humanDuration(outage) });
  return out;
}

/** The monitor's page on the probe, when the probe's address is known. */
function linkOf(alert: Alert, ctx: DeliveryContext): string | null {
  if (!ctx.public_url || !alert.monitor) return null;
  return `${ctx.public_url.replace(/\/+$/, '')}/monitors/${encodeURIComponent(alert.monitor.id)}`;
}

/** Text colour per tone, dark enough to read on white and to carry white text. */
const INK: Record<Tone, string> = {
  critical: '#b71c1c', error: '#bf360c', warning: '#7a5200', info: '#0d47a1', resolved: '#1b5e20',
};
const LABEL: Record<Tone, string> = {
  critical: 'Critical', error: 'Error', warning: 'Warning', info: 'Information', resolved: 'Resolved',
};

const footer = (ctx: DeliveryContext) =>
  `Sent by the network probe ${ctx.probe.name} (netprobe ${ctx.probe.version}) to the recipients of one of its e-mail alert channels.`;

function textPart(alert: Alert, ctx: DeliveryContext, fs: Fact[], link: string | null): string {
  const width = Math.max(...fs.map((f) => [...f.name].length)) + 2;
  return [
    headlineOf(alert),
    '',
    alert.message,
    '',
    ...fs.map((f) => `${`${f.name}:`.padEnd(width)}${f.value}`),
    ...(link ? ['', `Open the monitor: ${link}`] : []),
    '',
    '-- ',
    footer(ctx),
    '',
  ].join('\n');
}

function htmlPart(alert: Alert, ctx: DeliveryContext, subject: string, fs: Fact[], link: string | null): string {
  const tone = toneOf(alert);
  const ink = INK[tone];
  const bar = `#${COLOR[tone].toString(16).padStart(6, '0')}`;
  const cell = 'padding:6px 0;border-top:1px solid #eaeef2;vertical-align:top;';
  const rows = fs.map((f) => `<tr><th align="left" style="${cell}padding-right:16px;color:#57606a;font-weight:600;white-space:nowrap;">` +
    `${escapeHtml(f.name)}</th><td style="${cell}word-break:break-word;">${escapeHtml(f.value)}</td></tr>`).join('');
  const button = link ? `<tr><td style="padding:0 24px 20px;"><a href="${escapeHtml(link)}" style="display:inline-block;padding:9px 16px;` +
    `background:${ink};color:#ffffff;text-decoration:none;border-radius:4px;font-weight:600;">Open the monitor</a></td></tr>` : '';
  return '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1"><meta name="color-scheme" content="light only">' +
    `<title>${escapeHtml(subject)}</title></head>` +
    '<body style="margin:0;padding:0;background:#f4f5f7;">' +
    '<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="background:#f4f5f7;">' +
    '<tr><td align="center" style="padding:16px 8px;">' +
    '<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="max-width:600px;background:#ffffff;' +
    `border:1px solid #d0d7de;border-top:4px solid ${bar};border-radius:6px;` +
    'font-family:-apple-system,BlinkMacSystemFont,\'Segoe UI\',Roboto,Helvetica,Arial,sans-serif;color:#1f2328;">' +
    '<tr><td style="padding:20px 24px 4px;">' +
    `<div style="font-size:12px;font-weight:700;letter-spacing:0.04em;text-transform:uppercase;color:${ink};">${LABEL[tone]}</div>` +
    '<h1 style="margin:4px 0 0;font-size:20px;line-height:1.3;font-weight:700;color:#1f2328;">' +
    `${escapeHtml(headlineOf(alert))}</h1></td></tr>` +
    `<tr><td style="padding:8px 24px 16px;font-size:15px;line-height:1.5;white-space:pre-line;">${escapeHtml(alert.message)}</td></tr>` +
    '<tr><td style="padding:0 24px 16px;"><table role="presentation" cellpadding="0" cellspacing="0" ' +
    `style="width:100%;border-collapse:collapse;font-size:14px;line-height:1.4;">${rows}</table></td></tr>` +
    button +
    '<tr><td style="padding:12px 24px;border-top:1px solid #eaeef2;font-size:12px;line-height:1.4;color:#57606a;">' +
    `${escapeHtml(footer(ctx))}</td></tr>` +
    '</table></td></tr></table></body></html>';
}

export const email = {
  type: 'email' as const,
  label: 'E-mail (SMTP)',
  reference: 'docs/webhooks.md#e-mail',
  transport: 'mail',
  detect: 'none',
  matches: () => false,
  options: EmailOptions,
  build(alert: Alert, ctx: DeliveryContext): OutboundMail {
    const { to } = EmailOptions.parse(ctx.options);
    const subject = subjectOf(alert, ctx);
    const fs = mailFacts(alert, ctx);
    const link = linkOf(alert, ctx);
    return {
      kind: 'mail',
      to,
      subject,
      text: textPart(alert, ctx, fs, link),
      html: htmlPart(alert, ctx, subject, fs, link),
      headers: {
        // RFC 3834: no vacation or out-of-office replies to an alert.
        'Auto-Submitted': 'auto-generated',
        'X-Auto-Response-Suppress': 'All',
        'X-Netprobe-Event': alert.type,
        'X-Netprobe-Delivery': ctx.delivery_id,
      },
    };
  },
} satisfies Provider;
