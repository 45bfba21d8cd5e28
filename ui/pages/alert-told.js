// Who was told of an alert, and why the others were not: one list per alert (the Alerts page, a monitor's
// "Who was told" card) and a short line of badges (an event log row). Reads an alert log entry of
// GET /api/webhooks/alerts: per webhook subscribed to its type, queued with where its delivery stands,
// or why not (held by the alert gate, not routed to that monitor, disabled, cooldown, ...), with the reason.
import { dateTime, humanize, relTime } from '../lib/format.js';
import { html } from '../lib/html.js';
import { loadStylesheet } from '../lib/stylesheet.js';
import {
  ALERT_DECISION_SHORT, ALERT_DECISION_TEXT, ALERT_OUTCOME_LABELS, ALERT_OUTCOME_TONE, DELIVERY_STATE_LABELS, DELIVERY_STATE_TONE,
} from '../lib/vocabulary.js';
import { Badge } from '../components/badge.js';
import { Icon } from '../components/icons.js';

await loadStylesheet(new URL('./alerts.css', import.meta.url).pathname);

/** When a future time falls, for a person: "due now", "in 25 s", "in 4 minutes". */
export function untilText(iso) {
  const s = Math.round((new Date(iso).getTime() - Date.now()) / 1000);
  if (!(s > 0)) return 'due now';
  return s < 60 ? `in ${s} s` : relTime(iso);
}

export const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** How a delivery to a webhook that was told went, in words. */
function deliveryText(d) {
  const http = d.status_code ? `HTTP ${d.status_code}` : null;
  switch (d.state) {
    case 'delivered': return [http, d.attempts > 1 ? `on attempt ${d.attempts}` : null, relTime(d.last_attempt_at)].filter(Boolean).join(' · ');
    case 'pending': return d.attempts
      ? `Attempt ${d.attempts} failed${d.error ? ` (${d.error})` : ''}; next attempt ${untilText(d.next_attempt_at)}`
      : 'Not tried yet';
    case 'failed': return `Given up after ${plural(d.attempts, 'attempt')}${d.error ? `: ${d.error}` : ''}`;
    case 'cancelled': return d.error ? `Not sent: ${d.error}` : 'Not sent';
    default: return 'Queued; no record of the delivery is left';
  }
}

/** Why a webhook was not told, in words: the decision's sentence, with the server's reason where it gave one. */
export function notToldText(d) {
  const text = ALERT_DECISION_TEXT[d.decision] ?? `Not told: ${humanize(d.decision)}`;
  return d.reason ? `${text}: ${d.reason}` : text;
}

const MARK = { delivered: ['check', 'ok'], pending: ['clock', 'warn'], failed: ['alert', 'bad'], cancelled: ['close', 'muted'], unknown: ['info', 'muted'] };

/** One webhook offered the alert: told (and how the delivery went), or why not. */
export function Told({ d }) {
  if (d.decision !== 'queued') {
    return html`<li class="told told-muted">
      <${Icon} name="close" size=${16} /><span class="told-name">${d.webhook_name}</span>
      <span class="told-text">${notToldText(d)}</span>
    </li>`;
  }
  const dv = d.delivery ?? { state: 'unknown' };
  const [icon, tone] = MARK[dv.state] ?? MARK.unknown;
  return html`<li class=${`told told-${tone}`}>
    <${Icon} name=${icon} size=${16} /><span class="told-name">${d.webhook_name}</span>
    <${Badge} tone=${DELIVERY_STATE_TONE[dv.state] ?? 'neutral'}>${DELIVERY_STATE_LABELS[dv.state] ?? humanize(dv.state)}<//>
    <span class="told-text" title=${dv.next_attempt_at ? `Next attempt ${dateTime(dv.next_attempt_at)}` : undefined}>${deliveryText(dv)}</span>
  </li>`;
}

/** Who was told, or why nobody was. */
export function Recipients({ a }) {
  const held = a.outcome === 'held' ? a.alert.details?.held_by : null;
  const note = held ? html`<p class="al-note">Held back${held.reason ? `: ${held.reason}` : ''}. Nobody was told.</p>` : null;
  // A released alert's message says since when it was held and why.
  if (!a.decisions.length) {
    return html`${note}<p class="al-note">No webhook subscribes to ${humanize(a.type).toLowerCase()} alerts${held ? '' : ': nobody was told'}.</p>`;
  }
  return html`${note}<ul class="told-list" aria-label=${`Webhooks offered ${a.alert.title}`}>
    ${a.decisions.map((d) => html`<${Told} key=${d.webhook_id} d=${d} />`)}
  </ul>`;
}

/** The webhooks of an alert as short badges, each with the full sentence on hover: an event log row's "told" line. */
export function ToldBadges({ a }) {
  if (!a.decisions.length) return html`<span class="muted small">No webhook subscribes to it</span>`;
  return html`<span class="told-badges">${a.decisions.map((d) => {
    const state = d.decision === 'queued' ? d.delivery?.state ?? 'unknown' : null;
    const tone = state ? DELIVERY_STATE_TONE[state] ?? 'neutral' : 'neutral';
    const label = state ? DELIVERY_STATE_LABELS[state] ?? humanize(state) : ALERT_DECISION_SHORT[d.decision] ?? humanize(d.decision);
    return html`<${Badge} key=${d.webhook_id} tone=${tone} title=${state ? `Told ${d.webhook_name}` : `${d.webhook_name}: ${notToldText(d)}`}>
      ${d.webhook_name}: ${label}<//>`;
  })}</span>`;
}

/** One alert: its title (linking to its monitor), what became of it, when, its message and who was told. */
export function AlertItem({ a }) {
  const m = a.alert.monitor;
  const title = a.alert.title ?? humanize(a.type);
  return html`<li class="al-item">
    <div class="al-head">
      <span class=${`al-sev sev-${a.alert.severity}`} aria-hidden="true"></span>
      <span class="al-title">${m ? html`<a href=${`/monitors/${m.id}`}>${title}</a>` : title}</span>
      <${Badge} tone=${ALERT_OUTCOME_TONE[a.outcome] ?? 'neutral'}>${ALERT_OUTCOME_LABELS[a.outcome] ?? humanize(a.outcome)}<//>
      <time class="al-time muted small" datetime=${a.at} title=${dateTime(a.at)}>${relTime(a.at)}</time>
    </div>
    <div class="al-meta muted small">${humanize(a.type)} · ${a.alert.severity}</div>
    ${a.alert.message ? html`<div class="al-msg">${a.alert.message}</div>` : null}
    <${Recipients} a=${a} />
  </li>`;
}
