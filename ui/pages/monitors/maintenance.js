// Maintenance windows (GET /api/monitors/maintenance): each with its state (open, scheduled, over,
// disabled), its open or next occurrence in its time zone (the probe's unless it was given another), its
// schedule and the monitors it holds. "End now" is one click on an open window; new and edit in a dialog
// whose fields are the API's (once: from and to as local times of the window's zone; weekly: days and a
// time range; cron: an expression and a duration), every field error beside its field. While a window is
// open the monitors it applies to show "Maintenance" and their alerts are held (docs/monitors.md).
import { api } from '../../lib/api.js';
import { confirm } from '../../lib/confirm.js';
import { useForm } from '../../lib/form.js';
import { html, useState } from '../../lib/html.js';
import { useApi } from '../../lib/hooks.js';
import { can, useSession } from '../../lib/session.js';
import { toast } from '../../lib/toast.js';
import { MAINTENANCE_APPLIES, MAINTENANCE_KINDS, MAINTENANCE_STATES, WEEK_DAYS } from '../../lib/vocabulary.js';
import { Badge } from '../../components/badge.js';
import { EmptyState, ErrorState, Loading } from '../../components/empty.js';
import { CheckField, CheckGroup, Field, FormError, TextArea } from '../../components/field.js';
import { ChipPicker, Segmented, TagInput } from '../../components/field-extra.js';
import { Icon } from '../../components/icons.js';
import { Modal } from '../../components/modal.js';
import { Card, Page } from '../../components/page.js';
import { Table } from '../../components/table.js';
import { TimeZoneField } from '../../components/time-zone.js';
import { appliesText, scheduleText, sortWindows, spanText, toBody, toForm } from './maintenance-model.js';
import { MonitorTabs } from './section.js';

/** The state as a badge: an open window in the maintenance colour, a scheduled one as information. */
function StateBadge({ w }) {
  const s = MAINTENANCE_STATES[w.state] ?? { label: w.state };
  if (w.state === 'open') return html`<span class="badge status-maintenance" title=${s.hint}><span class="dot" aria-hidden="true"></span>${s.label}</span>`;
  return html`<${Badge} tone=${w.state === 'scheduled' ? 'info' : 'neutral'} title=${s.hint}>${s.label}<//>`;
}

/** The occurrence that matters now: the open one, else the next, else (a one-off that is over) when it was; a disabled window has none. */
function When({ w, zone }) {
  const [word, span] = w.state === 'open' ? ['Now', w.current] : w.next ? ['Next', w.next]
    : w.state === 'over' && w.schedule.kind === 'once' ? ['Was', w.schedule] : [null, null];
  if (!span) return html`<span class="muted">—</span>`;
  return html`<div><span class="muted small">${word}</span> ${spanText(span, w.timezone)}
    ${w.timezone !== zone ? html`<div class="cell-sub">${w.timezone.replace(/_/g, ' ')}</div>` : null}</div>`;
}

function WindowForm({ win, zone, monitors, tags, onDone, onCancel }) {
  const [initial] = useState(() => toForm(win, zone));
  const form = useForm(initial, { request: win ? `PUT /api/monitors/maintenance/${win.id}` : 'POST /api/monitors/maintenance' });
  const v = form.values;
  const kind = v['schedule.kind'];

  const onSubmit = form.submit(async (vals) => {
    if (!win) {
      onDone(await api.post('/api/monitors/maintenance', toBody(vals)), true);
      return;
    }
    const body = toBody(vals, initial);
    onDone(Object.keys(body).length ? await api.put(`/api/monitors/maintenance/${win.id}`, body) : win, false);
  });

  const zoneHint = kind === 'once' ? 'The times above are read in this zone.'
    : 'The times above follow its clock, daylight saving included.';
  return html`<${Modal} title=${win ? `Edit ${win.name}` : 'New maintenance window'} onClose=${onCancel} size="lg"
    footer=${html`
      <button type="button" class="btn" onClick=${onCancel}>Cancel</button>
      <button type="submit" form="maintenance-form" class="btn btn-primary" disabled=${form.busy}>
        ${form.busy ? 'Saving…' : win ? 'Save' : 'Create window'}</button>`}>
    <form id="maintenance-form" class="maint-form" onSubmit=${onSubmit} novalidate>
      <${FormError} form=${form} />
      <div class="grid-2">
        <${Field} form=${form} name="name" label="Name" required placeholder="Switch firmware upgrade" />
        <${CheckField} form=${form} name="enabled" label="Enabled" hint="A disabled window holds nothing." />
      </div>
      <${TextArea} form=${form} name="description" label="Description" rows=${2} hint="Optional: what is being done, who to ask." />
      <${Segmented} form=${form} name="schedule.kind" label="When" options=${MAINTENANCE_KINDS} />
      ${kind === 'once' ? html`<div class="grid-2">
          <${Field} form=${form} name="schedule.from" label="From" type="datetime-local" required />
          <${Field} form=${form} name="schedule.to" label="To" type="datetime-local" required />
        </div>` : null}
      ${kind === 'weekly' ? html`<div class="maint-days">
          <${CheckGroup} form=${form} name="schedule.days" label="Days" options=${WEEK_DAYS} columns=${7} />
        </div>
        <div class="grid-2">
          <${Field} form=${form} name="schedule.start" label="Starts at" type="time" required />
          <${Field} form=${form} name="schedule.end" label="Ends at" type="time" required
            hint="At or before the start: the next day (22:00 to 02:00 runs over midnight)." />
        </div>` : null}
      ${kind === 'cron' ? html`<div class="grid-2">
          <${Field} form=${form} name="schedule.cron" label="Cron expression" required class="mono-input" spellcheck="false" autocomplete="off"
            placeholder="0 6 * * 0#1" hint="Minute hour day month weekday: 0 6 * * 0#1 = first Sunday 06:00." />
          <${Field} form=${form} name="schedule.duration_min" label="Lasts (minutes)" type="number" min="1" max="10080" inputmode="numeric" required
            hint="Each time it opens; at most a week." />
        </div>` : null}
      <${TimeZoneField} form=${form} name="timezone" hint=${`${zoneHint}${v.timezone === zone ? ' The probe\'s time zone.' : ` The probe's is ${zone}.`}`} />
      <${Segmented} form=${form} name="applies_to" label="Applies to" options=${MAINTENANCE_APPLIES} />
      ${v.applies_to === 'monitors' ? html`<${ChipPicker} form=${form} name="monitor_ids" label="Monitors" placeholder="Add a monitor…"
          empty="No monitor chosen yet" options=${monitors.map((m) => ({ value: m.id, label: m.name }))} />` : null}
      ${v.applies_to === 'tags' ? html`<${TagInput} form=${form} name="tags" label="Tags" suggestions=${tags}
          hint="A monitor with any of these tags is held." />` : null}
    </form>
  <//>`;
}

export default function MaintenancePage() {
  const s = useSession();
  const writable = can(s, 'monitors:write');
  const windows = useApi('/api/monitors/maintenance', { live: true, every: 30 });
  const monitors = useApi('/api/monitors', { live: true });
  const tags = useApi('/api/monitors/tags');
  const [editing, setEditing] = useState(null);
  const [busy, setBusy] = useState(null);

  const list = monitors.data?.monitors ?? [];
  const nameOf = (id) => list.find((m) => m.id === id)?.name ?? 'a deleted monitor';
  // The probe's zone: the form's default, and the one occurrences are shown in unless a window has its own.
  const zone = windows.data?.timezone;

  const act = (w, what, fn) => async () => {
    setBusy(`${w.id}:${what}`);
    try {
      await fn();
      windows.reload();
      monitors.reload();
    } catch (e) { toast.error(e); } finally { setBusy(null); }
  };
  const endNow = (w) => act(w, 'end', async () => {
    await api.post(`/api/monitors/maintenance/${w.id}/end`);
    toast.ok(`Ended ${w.name}: its monitors' alerts go out again`);
  });
  const remove = (w) => act(w, 'delete', async () => {
    const ok = await confirm({ title: `Delete ${w.name}?`, confirmLabel: 'Delete window', danger: true,
      message: w.state === 'open' ? 'It is open: it closes now, and outages it held alert then.' : 'Past maintenance time stays counted as it was.' });
    if (!ok) return;
    await api.del(`/api/monitors/maintenance/${w.id}`);
    toast.ok(`Deleted ${w.name}`);
  });

  const columns = [
    { key: 'name', label: 'Window', render: (w) => html`<span class="cell-title">${w.name}</span>
      <div class="cell-sub">${scheduleText(w)}</div>
      ${w.description ? html`<div class="cell-sub clip-2" title=${w.description}>${w.description}</div>` : null}` },
    { key: 'state', label: 'State', render: (w) => html`<${StateBadge} w=${w} />` },
    { key: 'when', label: 'Occurrence', render: (w) => html`<${When} w=${w} zone=${zone} />` },
    { key: 'applies', label: 'Applies to', render: (w) => (w.applies_to === 'monitors'
      ? html`<div class="chips">${w.monitor_ids.map((id) => html`<a key=${id} class="badge tone-neutral" href=${`/monitors/${id}`}>${nameOf(id)}</a>`)}</div>`
      : html`<span>${appliesText(w, nameOf)}</span>`) },
    ...(writable ? [{ key: 'actions', label: 'Actions', class: 'actions-col', hideLabel: true, render: (w) => html`<div class="actions">
      ${w.state === 'open' ? html`<button type="button" class="btn btn-sm" onClick=${endNow(w)} disabled=${!!busy}
        aria-label=${`End ${w.name} now`}>End now</button>` : null}
      <button type="button" class="btn btn-sm btn-icon" onClick=${() => setEditing(w)} aria-label=${`Edit ${w.name}`} title="Edit">
        <${Icon} name="edit" size=${15} /></button>
      <button type="button" class="btn btn-sm btn-icon" onClick=${remove(w)} disabled=${!!busy} aria-label=${`Delete ${w.name}`} title="Delete">
        <${Icon} name="trash" size=${15} /></button>
    </div>` }] : []),
  ];

  const newButton = writable ? html`<button type="button" class="btn btn-primary" onClick=${() => setEditing('new')} disabled=${!zone}>
    <${Icon} name="plus" />New window</button>` : null;
  const items = windows.data ? sortWindows(windows.data.items) : [];
  const done = (saved, created) => {
    setEditing(null);
    toast.ok(`${created ? 'Created' : 'Saved'} ${saved.name}${saved.state === 'open' ? ': open now' : ''}`);
    windows.reload();
    monitors.reload();
  };

  const subtitle = `Windows that hold monitors' alerts while work is done${zone ? ` · times in ${zone.replace(/_/g, ' ')}, the probe's time zone` : ''}`;
  return html`<${Page} title="Maintenance" subtitle=${subtitle} actions=${newButton}>
    <${MonitorTabs} active="/monitors/maintenance" />
    ${windows.error ? html`<${ErrorState} error=${windows.error} retry=${windows.reload} />`
      : !windows.data ? html`<${Card}><${Loading} /><//>`
        : html`<${Card} pad=${false} class="maint-card">
            <${Table} columns=${columns} rows=${items} caption="Maintenance windows" rowClass=${(w) => `maint-row maint-${w.state}`}
              empty=${html`<${EmptyState} icon="wrench" title="No maintenance windows" action=${newButton}>
                <p>While a window is open, the monitors it applies to are still checked and recorded, but their alerts are held and
                  their time counts in no uptime. An outage still going on when it closes alerts then.</p><//>`} />
          <//>`}
    ${editing ? html`<${WindowForm} key=${editing === 'new' ? 'new' : editing.id} win=${editing === 'new' ? null : editing} zone=${zone}
      monitors=${list} tags=${tags.data ?? []} onDone=${done} onCancel=${() => setEditing(null)} />` : null}
  <//>`;
}
