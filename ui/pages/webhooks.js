// Webhooks: the list with each one's last delivery (a link to its deliveries on the Alerts page), create
// and edit (provider, its options, alert types (monitor alerts apart from discovery and system ones), which
// monitors' alerts it gets (all, by tag, chosen ones), reminders while a monitor stays down, cooldown,
// secret), send a test and show what the
// destination answered, delete with confirmation. The providers, what their secret is and their option
// fields come from GET /api/webhooks/providers (the options as JSON Schema, drawn by
// components/schema-fields.js as the monitor form's check settings are); a provider whose transport is
// 'mail' (e-mail through the probe's SMTP server) has no URL and no secret, so the form leaves them out.
import { api } from '../lib/api.js';
import { confirm } from '../lib/confirm.js';
import { useForm } from '../lib/form.js';
import { dateTime, duration, humanize, ms, relTime } from '../lib/format.js';
import { html, useState } from '../lib/html.js';
import { useApi } from '../lib/hooks.js';
import { describeValues, initialValues, valuesOf } from '../lib/schema-form.js';
import { noteDroppedSecrets } from '../lib/secrets.js';
import { can, useSession } from '../lib/session.js';
import { toast } from '../lib/toast.js';
import { DEFAULT_ALERT_TYPES, WEBHOOK_ROUTING } from '../lib/vocabulary.js';
import { Badge } from '../components/badge.js';
import { EmptyState, ErrorState, Loading } from '../components/empty.js';
import { CheckField, CheckGroup, Field, FormError, SelectField } from '../components/field.js';
import { ChipPicker, Segmented, TagInput } from '../components/field-extra.js';
import { Icon } from '../components/icons.js';
import { Modal } from '../components/modal.js';
import { Card, Page } from '../components/page.js';
import { SchemaFields } from '../components/schema-fields.js';
import { Table } from '../components/table.js';

const AUTO = '';
/** Form fields of provider options are named `options.<field>`: the API's error paths name them the same way. */
const OPT = 'options.';

/** Whether webhooks of this provider send by e-mail (no URL, no secret; SMTP reply codes). */
const byMail = (provider) => provider?.transport === 'mail';

/** The secret field's hint: what the provider uses it for, or that it uses none. */
function secretHint(provider) {
  if (!provider) return 'Only for providers that use one; the provider list says what it is for each.';
  if (!provider.secret) return 'This provider does not use a secret.';
  return `${provider.secret.required ? 'Required' : 'Optional'}: ${provider.secret.role}.`;
}

/** The latest attempt or test, linking to the webhook's deliveries on the Alerts page. */
function LastDelivery({ d, hookId }) {
  if (!d) return html`<span class="muted">Never</span>`;
  const ok = d.outcome === 'delivered' || (d.outcome === 'test' && d.status_code !== null && d.status_code < 300 && !d.error);
  return html`<div>
    <${Badge} tone=${ok ? 'ok' : d.outcome === 'retry' ? 'warn' : 'bad'}>${humanize(d.outcome)}${d.status_code ? ` ${d.status_code}` : ''}<//>
    <div class="cell-sub" title=${dateTime(d.at)}><a href=${`/alerts/deliveries?webhook_id=${hookId}`}>${relTime(d.at)}</a></div>
  </div>`;
}

/** Monitor alerts apart from the others (discovery, system): each its own group of the form, both sent as alert_types. */
const isMonitorAlert = (t) => t.source === 'monitors';

/** The routing the form's fields describe, as the API takes it. */
function routingOf(vals) {
  const mode = vals['monitors.mode'];
  if (mode === 'tags') return { mode, tags: vals['monitors.tags'] };
  if (mode === 'monitors') return { mode, ids: vals['monitors.ids'] };
  return { mode: 'all' };
}

/** "All monitors", "Monitors tagged core, edge", "3 chosen monitors". */
export function routingText(r, nameOf) {
  if (r?.mode === 'tags') return `Monitors tagged ${r.tags.join(', ')}`;
  if (r?.mode === 'monitors') return r.ids.length === 1 ? `Only ${nameOf(r.ids[0])}` : r.ids.length ? `${r.ids.length} chosen monitors` : 'No monitor (all chosen ones were deleted)';
  return 'All monitors';
}

function WebhookForm({ hook, alertTypes, providers, monitors, tags, onDone, onCancel }) {
  const editing = !!hook;
  const types = alertTypes ?? [];
  const chosen = hook?.alert_types ?? DEFAULT_ALERT_TYPES;
  const routing = hook?.monitors ?? { mode: 'all' };
  const form = useForm({
    ...(hook ? initialValues(providers.find((p) => p.type === hook.type)?.options ?? {}, hook.options, OPT) : {}),
    name: hook?.name ?? '',
    url: hook?.url ?? '',
    type: hook?.type ?? AUTO,
    monitor_alerts: chosen.filter((t) => types.some((x) => x.type === t && isMonitorAlert(x))),
    other_alerts: chosen.filter((t) => types.some((x) => x.type === t && !isMonitorAlert(x))),
    'monitors.mode': routing.mode,
    'monitors.tags': routing.tags ?? [],
    'monitors.ids': routing.ids ?? [],
    reminder_minutes: hook?.reminder_minutes == null ? '' : String(hook.reminder_minutes),
    cooldown: String(hook?.cooldown ?? 300),
    enabled: hook?.enabled ?? true,
    secret: '',
    remove_secret: false,
  });
  const v = form.values;
  const provider = providers.find((p) => p.type === v.type);
  const secretSet = hook?.secret?.set;

  const onSubmit = form.submit(async (vals) => {
    const body = {};
    const cooldown = vals.cooldown.trim() === '' ? undefined : Number(vals.cooldown);
    if (!editing || vals.name !== hook.name) body.name = vals.name.trim();
    // The URL is shown with its tokens masked; sending it back unchanged would keep it anyway. E-mail has none.
    if (!byMail(provider) && (!editing || vals.url !== (hook.url ?? ''))) body.url = vals.url.trim();
    if (vals.type !== AUTO && (!editing || vals.type !== hook.type)) body.type = vals.type;
    const alertTypesChosen = [...vals.monitor_alerts, ...vals.other_alerts];
    if (!editing || JSON.stringify(alertTypesChosen) !== JSON.stringify(hook.alert_types)) body.alert_types = alertTypesChosen;
    const monitorsChosen = routingOf(vals);
    if (!editing || JSON.stringify(monitorsChosen) !== JSON.stringify(hook.monitors)) body.monitors = monitorsChosen;
    const reminder = vals.reminder_minutes.trim() === '' ? null : Number(vals.reminder_minutes);
    if (!editing || reminder !== hook.reminder_minutes) body.reminder_minutes = reminder;
    if (cooldown !== undefined && (!editing || cooldown !== hook.cooldown)) body.cooldown = cooldown;
    if (!editing || vals.enabled !== hook.enabled) body.enabled = vals.enabled;
    if (provider) {
      const options = valuesOf(provider.options, vals, editing && vals.type === hook.type ? hook.options : undefined, OPT);
      if (!editing || vals.type !== hook.type || JSON.stringify(options) !== JSON.stringify(hook.options)) body.options = options;
    }
    if (vals.secret && !byMail(provider)) body.secret = vals.secret;
    else if (editing && vals.remove_secret) body.secret = null;
    const saved = editing ? await api.put(`/api/webhooks/${hook.id}`, body) : await api.post('/api/webhooks', body);
    onDone(saved);
  });

  const providerChoices = [{ value: AUTO, label: 'Detect from the URL' }, ...providers.map((p) => ({ value: p.type, label: p.label }))];
  const option = (t) => ({ value: t.type, label: humanize(t.type), hint: t.description });
  const monitorTypes = types.filter(isMonitorAlert).map(option);
  const otherTypes = types.filter((t) => !isMonitorAlert(t)).map(option);
  const mode = v['monitors.mode'];
  return html`<${Modal} title=${editing ? `Edit ${hook.name}` : 'New webhook'} onClose=${onCancel} size="lg"
    footer=${html`
      <button type="button" class="btn" onClick=${onCancel}>Cancel</button>
      <button type="submit" form="webhook-form" class="btn btn-primary" disabled=${form.busy}>${form.busy ? 'Saving…' : editing ? 'Save' : 'Create webhook'}</button>`}>
    <form id="webhook-form" onSubmit=${onSubmit}>
      <${FormError} form=${form} />
      <div class="grid-2">
        <${Field} form=${form} name="name" label="Name" required autofocus placeholder="Ops channel" />
        <${SelectField} form=${form} name="type" label="Provider" options=${providerChoices}
          hint=${v.type === AUTO ? 'Services with a well-known address are recognised by it; anything else gets generic JSON. Choose the provider to see its options.' : undefined} />
      </div>
      ${byMail(provider) ? null : html`<${Field} form=${form} name="url" label="URL" type="url" required placeholder="https://hooks.example.com/…" spellcheck="false"
        hint=${editing ? 'Tokens in the address are shown as ***; leave it as it is to keep the stored address.' : 'http:// or https://'} />`}
      ${provider ? html`<${SchemaFields} key=${provider.type} form=${form} schema=${provider.options} prefix=${OPT}
        stored=${editing && v.type === hook.type ? hook.options : undefined} />` : null}
      <div class="grid-2">
        ${byMail(provider) ? null : html`<${Field} form=${form} name="secret" label="Secret" type="password" autocomplete="new-password"
          placeholder=${secretSet ? 'Stored — type to replace' : ''} hint=${secretHint(provider)} />`}
        <${Field} form=${form} name="cooldown" label="Cooldown (seconds)" type="number" min="0" max="604800" inputmode="numeric"
          hint=${`Repeats of one alert are held back for ${duration(Number(v.cooldown) || 0)}.`} />
      </div>
      ${secretSet && !byMail(provider) ? html`<${CheckField} form=${form} name="remove_secret" label="Remove the stored secret" />` : null}
      ${alertTypes ? html`<${CheckGroup} form=${form} name="monitor_alerts" label="Monitor alerts" options=${monitorTypes} columns=${2} />` : html`<${Loading} />`}
      <div class="wh-routing">
        <${Segmented} form=${form} name="monitors.mode" label="Send monitor alerts for" options=${WEBHOOK_ROUTING} />
        ${mode === 'tags' ? html`<${TagInput} form=${form} name="monitors.tags" label="Tags" suggestions=${tags}
          hint="A monitor with any of these tags; the others' alerts are not sent here (the alert log says so)." />` : null}
        ${mode === 'monitors' ? html`<${ChipPicker} form=${form} name="monitors.ids" label="Monitors" placeholder="Add a monitor…"
          empty="No monitor chosen yet" options=${monitors.map((m) => ({ value: m.id, label: m.name }))} />` : null}
        <${Field} form=${form} name="reminder_minutes" label="Remind every (minutes) while down" type="number" inputmode="numeric"
          placeholder="Off" hint=${v.reminder_minutes.trim() === '' ? 'Off: one alert per outage. 5 to 1440 minutes repeat the down alert, saying how long it has lasted, until it recovers.'
            : `While a monitor stays down, its alert is repeated every ${duration((Number(v.reminder_minutes) || 0) * 60)} with how long it has been down.`} />
      </div>
      ${alertTypes && otherTypes.length ? html`<${CheckGroup} form=${form} name="other_alerts" label="Discovery and system alerts" options=${otherTypes} columns=${2}
        hint="Not about a monitor: the choice of monitors above does not apply to them." />` : null}
      <${CheckField} form=${form} name="enabled" label="Enabled" hint="A disabled webhook sends nothing (a test still goes out)." />
    </form>
  <//>`;
}

function TestResult({ hook, provider, result, onClose }) {
  return html`<${Modal} title=${`Test of ${hook.name}`} onClose=${onClose} footer=${html`<button type="button" class="btn btn-primary" onClick=${onClose} autofocus>Close</button>`}>
    <div class=${`alert ${result.ok ? 'alert-ok' : 'alert-error'}`} role="status" data-testid="webhook-test-result">
      <${Icon} name=${result.ok ? 'check' : 'alert'} />
      <div class="alert-body"><strong>${result.ok ? 'Delivered' : 'Delivery failed'}</strong>
        ${result.error ? html`<div>${result.error}</div>` : null}</div>
    </div>
    <dl class="dl">
      <dt>${byMail(provider) ? 'SMTP reply' : 'HTTP status'}</dt><dd>${result.status_code ?? '—'}</dd>
      <dt>Time</dt><dd>${ms(result.latency_ms)}</dd>
    </dl>
    ${result.response_excerpt ? html`<h3 class="small muted" style="margin:16px 0 6px">${byMail(provider) ? 'Server reply' : 'Response'}</h3><pre class="excerpt">${result.response_excerpt}</pre>` : null}
  <//>`;
}

export default function WebhooksPage() {
  const s = useSession();
  const writable = can(s, 'webhooks:write');
  const hooks = useApi('/api/webhooks');
  const alertTypes = useApi('/api/webhooks/alert-types');
  const providers = useApi('/api/webhooks/providers');
  // The monitors and tags a webhook may choose (the form's pickers, and names in the list).
  const monitors = useApi('/api/monitors');
  const tags = useApi('/api/monitors/tags');
  const monitorList = monitors.data?.monitors ?? [];
  const nameOf = (id) => monitorList.find((m) => m.id === id)?.name ?? 'a deleted monitor';
  const providerOf = (type) => providers.data?.items.find((p) => p.type === type);
  const labelOf = (type) => providerOf(type)?.label ?? type;
  /** Where a webhook sends: its URL (tokens masked), or for e-mail its recipients. */
  const whereTo = (h) => h.url ?? describeValues(providerOf(h.type)?.options ?? {}, h.options).map(([, text]) => text).join(' · ');
  const [editing, setEditing] = useState(null); // null, 'new' or a webhook
  const [testing, setTesting] = useState(null); // id being tested
  const [result, setResult] = useState(null); // {hook, result}

  const runTest = async (hook) => {
    setTesting(hook.id);
    try {
      const r = await api.post(`/api/webhooks/${hook.id}/test`);
      setResult({ hook, result: r });
      hooks.reload();
    } catch (e) {
      toast.error(e);
    } finally {
      setTesting(null);
    }
  };

  const remove = async (hook) => {
    const ok = await confirm({ title: `Delete ${hook.name}?`, message: 'Alerts waiting for this webhook are dropped. This cannot be undone.', confirmLabel: 'Delete', danger: true });
    if (!ok) return;
    try {
      await api.del(`/api/webhooks/${hook.id}`);
      toast.ok(`Deleted ${hook.name}`);
      hooks.reload();
    } catch (e) { toast.error(e); }
  };

  const columns = [
    { key: 'name', label: 'Webhook', render: (h) => html`<div class="cell-title">${h.name}${h.enabled ? null : html` <${Badge}>Disabled<//>`}</div>
      <div class="cell-sub mono clip" title=${whereTo(h)}>${whereTo(h)}</div>` },
    { key: 'type', label: 'Provider', render: (h) => html`<${Badge} tone="accent">${labelOf(h.type)}<//>` },
    { key: 'alert_types', label: 'Alerts', render: (h) => html`<div class="chips">${h.alert_types.map((t) => html`<${Badge} key=${t}>${humanize(t)}<//>`)}</div>
      <div class="cell-sub">${routingText(h.monitors, nameOf)}${h.reminder_minutes ? ` · reminds every ${duration(h.reminder_minutes * 60)}` : ''}</div>` },
    { key: 'cooldown', label: 'Cooldown', class: 'nowrap', render: (h) => duration(h.cooldown) },
    { key: 'last', label: 'Last delivery', render: (h) => html`<${LastDelivery} d=${h.last_delivery} hookId=${h.id} />` },
    ...(writable ? [{ key: 'actions', label: 'Actions', class: 'actions-col', hideLabel: true, render: (h) => html`<div class="actions">
      <button type="button" class="btn btn-sm" onClick=${() => runTest(h)} disabled=${testing === h.id} aria-label=${`Send a test to ${h.name}`}>
        <${Icon} name="send" size=${15} />${testing === h.id ? 'Sending…' : 'Test'}</button>
      <button type="button" class="btn btn-sm btn-icon" onClick=${() => setEditing(h)} aria-label=${`Edit ${h.name}`} title="Edit"><${Icon} name="edit" size=${15} /></button>
      <button type="button" class="btn btn-sm btn-icon" onClick=${() => remove(h)} aria-label=${`Delete ${h.name}`} title="Delete"><${Icon} name="trash" size=${15} /></button>
    </div>` }] : []),
  ];

  const newButton = writable ? html`<button type="button" class="btn btn-primary" onClick=${() => setEditing('new')} disabled=${!providers.data || !alertTypes.data}><${Icon} name="plus" />New webhook</button>` : null;
  const actions = html`<a class="btn" href="/alerts"><${Icon} name="bell" size=${16} />Alerts and deliveries</a>${newButton}`;

  return html`<${Page} title="Webhooks" subtitle="Send alerts to chat, incident tools, e-mail or any HTTP endpoint" actions=${actions}>
    <${Card} pad=${false}>
      ${hooks.error ? html`<${ErrorState} error=${hooks.error} retry=${hooks.reload} />`
        : !hooks.data ? html`<${Loading} />`
          : html`<${Table} columns=${columns} rows=${hooks.data.items} caption="Webhooks" rowClass=${(h) => (h.enabled ? '' : 'row-disabled')}
              empty=${html`<${EmptyState} icon="webhooks" title="No webhooks yet" action=${newButton}>
                <p>A webhook posts an alert when a monitor goes down, recovers or degrades: to Slack, Teams, PagerDuty, e-mail addresses or your own endpoint.</p><//>`} />`}
    <//>
    ${editing && providers.data && alertTypes.data ? html`<${WebhookForm} hook=${editing === 'new' ? null : editing} alertTypes=${alertTypes.data?.items}
      providers=${providers.data.items} monitors=${monitorList} tags=${tags.data ?? []}
      onCancel=${() => setEditing(null)}
      onDone=${(saved) => { setEditing(null); toast.ok(`${editing === 'new' ? 'Created' : 'Saved'} ${saved.name}`); noteDroppedSecrets(saved); hooks.reload(); }} />` : null}
    ${result ? html`<${TestResult} hook=${result.hook} provider=${providerOf(result.hook.type)} result=${result.result} onClose=${() => setResult(null)} />` : null}
  <//>`;
}
