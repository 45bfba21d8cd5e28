// The Polling tab: the devices whose interfaces the probe polls over time (GET /api/snmp/polling), each with
// its status in words (and the error when it fails), interval, interfaces polled of all, and last poll;
// add one (a dialog, poll-form.js; a link from the Devices tab opens it filled in: ?add=1&target=…), poll
// now, pause or resume, delete; then the busiest ports across all of them by utilisation, bit/s or errors.
import { dateTime, relTime } from '../../lib/format.js';
import { html, useState } from '../../lib/html.js';
import { useApi } from '../../lib/hooks.js';
import { setQuery } from '../../lib/router.js';
import { can, useSession } from '../../lib/session.js';
import { toast } from '../../lib/toast.js';
import { IF_STATUSES } from '../../lib/vocabulary.js';
import { Badge } from '../../components/badge.js';
import { ButtonGroup } from '../../components/controls.js';
import { EmptyState, ErrorState, Loading } from '../../components/empty.js';
import { XIcon } from '../../components/extra-icons.js';
import { Icon } from '../../components/icons.js';
import { Card } from '../../components/page.js';
import { Table } from '../../components/table.js';
import { DeviceForm, pollNow, removeDevice, togglePaused } from './poll-form.js';
import { BUSIEST_BY, ifLabel, perSecond, POLL_STATUS, utilText } from './polling-model.js';
import { bps } from './units.js';

/** A polled device's status as a badge in words, with its error and failures below. */
export function PollStatus({ device: d }) {
  const st = d.enabled ? d.state.status : 'paused';
  const s = POLL_STATUS[st] ?? { label: st, tone: 'neutral', text: st };
  return html`<div>
    <${Badge} tone=${s.tone} title=${s.text}>${s.label}<//>
    ${d.state.failures > 1 ? html`<span class="cell-sub"> ${d.state.failures} polls in a row</span>` : null}
    ${d.state.error && st !== 'ok' ? html`<div class="cell-sub poll-error snmp-clip" title=${d.state.error}>${d.state.error}</div>` : null}
  </div>`;
}

export const intervalText = (s) => (s === 300 ? '5 min' : `${s} s`);

/** When the device was polled last ("3 minutes ago"), and when next. */
export function LastPoll({ state }) {
  if (!state.last_poll_at) return html`<span class="muted">Never</span>`;
  return html`<div><time datetime=${state.last_poll_at} title=${dateTime(state.last_poll_at)}>${relTime(state.last_poll_at)}</time>
    ${state.elapsed_ms !== null ? html`<div class="cell-sub">in ${Math.round(state.elapsed_ms)} ms${state.requests ? `, ${state.requests} requests` : ''}</div>` : null}</div>`;
}

/** Poll now, pause or resume, delete: buttons named after the device. */
export function DeviceActions({ device: d, onChange, onDeleted, compact = false }) {
  const [busy, setBusy] = useState(null);
  const act = (what, fn) => async () => {
    setBusy(what);
    try { await fn(); } finally { setBusy(null); }
  };
  const label = (verb) => (compact ? `${verb} ${d.name}` : undefined);
  return html`<div class="actions">
    <button type="button" class="btn btn-sm" disabled=${!!busy || !d.enabled} aria-label=${label('Poll now')}
      onClick=${act('poll', async () => { if (await pollNow(d)) onChange(); })}>
      <${Icon} name="refresh" size=${15} />${busy === 'poll' ? 'Polling…' : 'Poll now'}</button>
    <button type="button" class="btn btn-sm" disabled=${!!busy} aria-label=${label(d.enabled ? 'Pause' : 'Resume')}
      onClick=${act('pause', async () => { if (await togglePaused(d)) onChange(); })}>
      <${XIcon} name=${d.enabled ? 'pause' : 'play'} size=${15} />${d.enabled ? 'Pause' : 'Resume'}</button>
    <button type="button" class="btn btn-sm btn-icon" disabled=${!!busy} aria-label=${`Delete ${d.name}`} title="Delete"
      onClick=${act('del', async () => { if (await removeDevice(d)) onDeleted(); })}><${Icon} name="trash" size=${15} /></button>
  </div>`;
}

/** Two figures, in above out, each named. */
const InOutLines = ({ a, b }) => html`<div class="poll-rates"><div><span class="if-dir">in</span> ${a}</div><div><span class="if-dir">out</span> ${b}</div></div>`;

function Busiest() {
  const [by, setBy] = useState('util');
  const r = useApi('/api/snmp/polling/busiest', { query: { by, limit: 20 }, every: 60 });
  const columns = [
    { key: 'port', label: 'Port', class: 'if-name', render: (x) => html`<a class="cell-title" href=${`/snmp/polling/${x.device.id}/interfaces/${x.interface.key}`}>${ifLabel(x.interface)}</a>
      <div class="cell-sub">${x.device.name}${x.interface.alias ? ` · ${x.interface.alias}` : ''}</div>` },
    { key: 'status', label: 'Status', render: (x) => (x.interface.oper_status
      ? html`<${Badge} tone=${IF_STATUSES[x.interface.oper_status]?.tone ?? 'neutral'}>${IF_STATUSES[x.interface.oper_status]?.label ?? x.interface.oper_status}<//>`
      : html`<span class="muted">—</span>`) },
    { key: 'speed', label: 'Speed', class: 'nowrap', render: (x) => (x.interface.speed_bps ? bps(x.interface.speed_bps) : html`<span class="muted">—</span>`) },
    { key: 'rates', label: 'Bit/s', class: 'num', render: (x) => html`<${InOutLines} a=${bps(x.now.in_bps)} b=${bps(x.now.out_bps)} />` },
    { key: 'util', label: 'Utilisation', class: 'num', render: (x) => html`<${InOutLines} a=${utilText(x.now.in_util_pct)} b=${utilText(x.now.out_util_pct)} />` },
    { key: 'errors', label: 'Errors', class: 'num', render: (x) => html`<${InOutLines} a=${perSecond(x.now.in_errors_ps)} b=${perSecond(x.now.out_errors_ps)} />` },
  ];
  return html`<${Card} title="Busiest ports" pad=${false} class="poll-card"
    actions=${html`<${ButtonGroup} label="Busiest by" options=${BUSIEST_BY} value=${by} onChange=${setBy} />`}>
    ${r.error ? html`<div class="card-body"><${ErrorState} error=${r.error} retry=${r.reload} /></div>`
      : !r.data ? html`<${Loading} />`
        : html`<${Table} columns=${columns} rows=${r.data.items} rowKey=${(x) => `${x.device.id}/${x.interface.key}`} caption="Busiest ports"
            empty=${html`<${EmptyState} icon="snmp" title="No rates yet"><p>Ports are ranked once their devices have been polled twice.</p><//>`} />`}
  <//>`;
}

export default function PollingSection({ query }) {
  const s = useSession();
  const writable = can(s, 'snmp:write');
  const devices = useApi('/api/snmp/polling', { every: 30 });
  // ?add=1 (with target, credential, name, endpoint) opens the dialog filled in; closing it drops them.
  const adding = writable && query.add === '1';
  const [added, setAdded] = useState(false);
  const closeAdd = () => setQuery({ add: '', target: '', credential: '', name: '', endpoint: '', port: '' });

  const columns = [
    { key: 'name', label: 'Device', render: (d) => html`<a class="cell-title" href=${`/snmp/polling/${d.id}`}>${d.name}</a>
      <div class="cell-sub mono">${d.target}${d.port ? `:${d.port}` : ''}</div>` },
    { key: 'status', label: 'Status', render: (d) => html`<${PollStatus} device=${d} />` },
    { key: 'interval', label: 'Interval', class: 'nowrap', render: (d) => intervalText(d.interval_s) },
    { key: 'interfaces', label: 'Interfaces', class: 'nowrap', render: (d) => html`<div>${d.state.polled} of ${d.state.interfaces} polled
      ${d.all_interfaces ? null : html`<div class="cell-sub">chosen ones</div>`}</div>` },
    { key: 'last', label: 'Last poll', class: 'nowrap', render: (d) => html`<${LastPoll} state=${d.state} />` },
    ...(writable ? [{ key: 'actions', label: 'Actions', class: 'actions-col', hideLabel: true,
      render: (d) => html`<${DeviceActions} device=${d} compact onChange=${devices.reload} onDeleted=${devices.reload} />` }] : []),
  ];
  const addButton = writable ? html`<button type="button" class="btn btn-primary btn-sm" onClick=${() => setQuery({ add: '1' })}>
    <${Icon} name="plus" size=${15} />Add device</button>` : null;

  return html`
    <${Card} title="Polled devices" actions=${addButton} pad=${false} class="poll-card">
      ${devices.error ? html`<div class="card-body"><${ErrorState} error=${devices.error} retry=${devices.reload} /></div>`
        : !devices.data ? html`<${Loading} />`
          : html`<${Table} columns=${columns} rows=${devices.data.items} caption="Polled devices"
              empty=${html`<${EmptyState} icon="snmp" title="No devices polled yet" action=${addButton}>
                <p>A polled device's interfaces are read every minute or five: traffic, utilisation, errors and status over time.</p><//>`} />`}
    <//>
    ${devices.data?.items.length || added ? html`<${Busiest} />` : null}
    ${adding ? html`<${DeviceForm} prefill=${query} onCancel=${closeAdd}
      onDone=${(saved) => { closeAdd(); setAdded(true); toast.ok(`Polling ${saved.name}`); devices.reload(); }} />` : null}`;
}
