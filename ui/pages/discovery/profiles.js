// Scheduled scans (/discovery/profiles): the scan profiles, each with its schedule, its state (waiting,
// running), its next run and its last one (what it found, what the merge into its session added or marked
// missing, an error). "Run now" and "Skip next" are one click; new and edit in a dialog (profile-form.js).
// Refreshed every five seconds, so a run's state and its result show as they change.
import { api } from '../../lib/api.js';
import { confirm } from '../../lib/confirm.js';
import { count, dateTime, relTime } from '../../lib/format.js';
import { html, useState } from '../../lib/html.js';
import { useApi } from '../../lib/hooks.js';
import { can, useSession } from '../../lib/session.js';
import { toast } from '../../lib/toast.js';
import { Badge } from '../../components/badge.js';
import { EmptyState, ErrorState, Loading } from '../../components/empty.js';
import { Icon } from '../../components/icons.js';
import { Card, Page } from '../../components/page.js';
import { Table } from '../../components/table.js';
import { ProfileDialog } from './profile-form.js';
import { scheduleText } from './profile-model.js';
import { DiscoveryTabs, none } from './section.js';

const STATES = {
  idle: { label: 'Scheduled', tone: 'info' }, waiting: { label: 'Waiting', tone: 'warn', hint: 'Due: waits for the scan going on to end' },
  running: { label: 'Running', tone: 'accent' }, disabled: { label: 'Disabled', tone: 'neutral' },
};
const RUN_STATES = { completed: 'ok', failed: 'bad', cancelled: 'warn' };

function NextRun({ p }) {
  if (!p.next_run) return none;
  return html`<div><span title=${dateTime(p.next_run)}>${relTime(p.next_run)}</span>
    <div class="cell-sub">${dateTime(p.next_run)}</div>
    ${p.skipped && Date.parse(p.skipped) > Date.parse(p.last_run?.started_at ?? 0)
      ? html`<div class="cell-sub">Skipped ${dateTime(p.skipped)}</div>` : null}</div>`;
}

function LastRun({ p }) {
  const r = p.last_run;
  if (!r) return html`<span class="muted">Not run yet</span>`;
  const job = r.job_ids.find((id) => !r.unchanged.length || id) ?? null;
  return html`<div class="disc-last-run">
    <${Badge} tone=${RUN_STATES[r.state] ?? 'neutral'}>${r.state === 'completed' ? 'Done' : r.state === 'failed' ? 'Failed' : 'Cancelled'}<//>
    <span class="small" title=${dateTime(r.started_at)}> ${relTime(r.finished_at)}</span>${r.trigger === 'now' ? html` <span class="muted small">(run now)</span>` : null}
    <div class="cell-sub">${count(r.counts.live)} live · ${r.unchanged.length === p.subnets.length && r.state === 'completed' ? 'no change'
      : `${count(r.new_nodes)} new · ${count(r.missing_nodes)} missing`}</div>
    ${r.error ? html`<div class="cell-sub disc-run-error" title=${r.error}>${r.error}</div>` : null}
    ${p.session_id ? html`<div class="cell-sub"><a href=${`/discovery/sessions/${p.session_id}`}>Session</a>${job && !r.unchanged.length
      ? html` · <a href=${`/discovery?job=${encodeURIComponent(job)}`}>Scan result</a>` : null}</div>` : null}
  </div>`;
}

export default function ProfilesPage() {
  const s = useSession();
  const writable = can(s, 'v1sion:write');
  const list = useApi('/api/v1sion/profiles', { every: 5 });
  const own = useApi('/api/v1sion/scan/local-subnets');
  const [editing, setEditing] = useState(null);
  const [busy, setBusy] = useState(null);
  const zone = list.data?.timezone;

  const act = (p, what, fn) => async () => {
    setBusy(`${p.id}:${what}`);
    try { await fn(); list.reload(); } catch (e) { toast.error(e); } finally { setBusy(null); }
  };
  const runNow = (p) => act(p, 'run', async () => {
    await api.post(`/api/v1sion/profiles/${p.id}/run`);
    toast.ok(`${p.name}: starting now`);
  });
  const skip = (p) => act(p, 'skip', async () => {
    const next = await api.post(`/api/v1sion/profiles/${p.id}/skip`);
    toast.ok(`${p.name}: skipped; next run ${relTime(next.next_run)}`);
  });
  const remove = (p) => act(p, 'delete', async () => {
    const ok = await confirm({ title: `Delete ${p.name}?`, confirmLabel: 'Delete schedule', danger: true,
      message: 'It stops running. Its session and the scans it kept stay.' });
    if (!ok) return;
    await api.del(`/api/v1sion/profiles/${p.id}`);
    toast.ok(`Deleted ${p.name}`);
  });

  const columns = [
    { key: 'name', label: 'Schedule', render: (p) => html`<div class="disc-name-cell"><span class="cell-title">${p.name}</span>
      <div class="cell-sub">${scheduleText(p, zone)}</div>
      <div class="chips disc-tags">${p.subnets.map((n) => html`<span key=${n} class="disc-fchip mono">${n}</span>`)}</div></div>` },
    { key: 'state', label: 'State', render: (p) => html`<${Badge} tone=${STATES[p.state]?.tone} title=${STATES[p.state]?.hint}>${STATES[p.state]?.label ?? p.state}<//>
      ${p.running_job_id ? html`<div class="cell-sub"><a href=${`/discovery?job=${encodeURIComponent(p.running_job_id)}`}>Follow</a></div>` : null}` },
    { key: 'next_run', label: 'Next run', render: (p) => html`<${NextRun} p=${p} />` },
    { key: 'last_run', label: 'Last run', render: (p) => html`<${LastRun} p=${p} />` },
    ...(writable ? [{ key: 'actions', label: 'Actions', class: 'actions-col', hideLabel: true, render: (p) => html`<div class="actions">
      <button type="button" class="btn btn-sm" onClick=${runNow(p)} disabled=${!!busy || p.state === 'running' || p.state === 'waiting'}
        aria-label=${`Run ${p.name} now`}><${Icon} name="refresh" size=${15} />Run now</button>
      <button type="button" class="btn btn-sm" onClick=${skip(p)} disabled=${!!busy || !p.next_run || p.state === 'running'}
        aria-label=${`Skip the next run of ${p.name}`}>Skip next</button>
      <button type="button" class="btn btn-sm btn-icon" onClick=${() => setEditing(p)} aria-label=${`Edit ${p.name}`} title="Edit">
        <${Icon} name="edit" size=${15} /></button>
      <button type="button" class="btn btn-sm btn-icon" onClick=${remove(p)} disabled=${!!busy} aria-label=${`Delete ${p.name}`} title="Delete">
        <${Icon} name="trash" size=${15} /></button>
    </div>` }] : []),
  ];

  const newButton = writable ? html`<button type="button" class="btn btn-primary" onClick=${() => setEditing('new')} disabled=${!zone}>
    <${Icon} name="plus" size=${16} />New schedule</button>` : null;
  const done = (saved, created) => {
    setEditing(null);
    toast.ok(`${created ? 'Created' : 'Saved'} ${saved.name}${saved.next_run ? `: next run ${relTime(saved.next_run)}` : ''}`);
    list.reload();
  };

  return html`<${Page} title="Discovery" subtitle="Scheduled scans: subnets scanned on a schedule, one at a time, each run merged into its session"
    actions=${newButton}>
    <${DiscoveryTabs} active="/discovery/profiles" />
    ${list.error ? html`<${ErrorState} error=${list.error} retry=${list.reload} />`
      : !list.data ? html`<${Card}><${Loading} /><//>`
        : html`<${Card} pad=${false} class="disc-table-card">
            <${Table} columns=${columns} rows=${list.data.items} caption="Scheduled scans"
              rowClass=${(p) => (p.last_run?.state === 'failed' ? 'disc-row-failed' : undefined)}
              empty=${html`<${EmptyState} icon="discovery" title="No scheduled scans" action=${newButton}>
                <p>A schedule scans its subnets every few minutes or hours (or on a cron), one scan at a time and never while a person's
                  scan runs, and merges each run into a session: new devices are marked new, devices it no longer finds missing.</p><//>`} />
          <//>`}
    ${editing ? html`<${ProfileDialog} key=${editing === 'new' ? 'new' : editing.id} profile=${editing === 'new' ? null : editing} zone=${zone}
      stages=${list.data?.stages ?? []} ownSubnets=${(own.data?.items ?? []).map((o) => o.subnet)}
      onDone=${done} onCancel=${() => setEditing(null)} />` : null}
  <//>`;
}
