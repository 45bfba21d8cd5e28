// A polled device's page (/snmp/polling/:id, GET /api/snmp/polling/:id): how it stands (status in words,
// its error, last and next poll, interval, thresholds) with poll now, pause or resume, settings and delete;
// then every interface in a table sortable by name, status, speed, rates, utilisation and errors (the
// choice kept in the URL): its rates now (or why there are none), a sparkline of the last hour, watched
// and chosen as switches (PATCH .../interfaces/:key), and what became of it (renumbered, gone, an LLDP
// neighbour). An interface's name leads to its graphs (poll-interface.js).
import { request } from '../../lib/api.js';
import { dateTime, relTime } from '../../lib/format.js';
import { html, useMemo, useState } from '../../lib/html.js';
import { useApi } from '../../lib/hooks.js';
import { loadStylesheet } from '../../lib/stylesheet.js';
import { navigate, setQuery } from '../../lib/router.js';
import { can, useSession } from '../../lib/session.js';
import { toast } from '../../lib/toast.js';
import { IF_STATUSES } from '../../lib/vocabulary.js';
import { Badge } from '../../components/badge.js';
import { Crumbs } from '../../components/controls.js';
import { EmptyState, ErrorState, Loading } from '../../components/empty.js';
import { Icon } from '../../components/icons.js';
import { Card, Page } from '../../components/page.js';
import { Sparkline } from '../../components/sparkline.js';
import { Table } from '../../components/table.js';
import { DeviceForm } from './poll-form.js';
import { DeviceActions, intervalText, LastPoll, PollStatus } from './polling.js';
import { ifLabel, IF_SORTS, nowText, perSecond, sortInterfaces, utilText, whyText } from './polling-model.js';
import { bps } from './units.js';

await loadStylesheet(new URL('./snmp.css', import.meta.url).pathname);

function OperStatus({ i }) {
  if (i.gone_at) return html`<${Badge} tone="neutral" title=${`The agent no longer lists it (since ${dateTime(i.gone_at)})`}>Gone<//>`;
  const s = i.oper_status ? IF_STATUSES[i.oper_status] ?? { label: i.oper_status, tone: 'neutral' } : null;
  return html`<div class="chips">
    ${s ? html`<${Badge} tone=${s.tone} title=${i.oper_since ? `Since ${dateTime(i.oper_since)}` : undefined}>${s.label}<//>` : html`<span class="muted">—</span>`}
    ${i.admin_status === 'down' ? html`<${Badge} tone="neutral" title="Shut down by its configuration (ifAdminStatus down)">Disabled<//>` : null}
  </div>`;
}

/** What became of it and what is known of it: renumbered, an LLDP neighbour, 32-bit counters. */
function Notes({ i }) {
  const notes = [];
  if (i.renumbered) notes.push(html`<span title=${dateTime(i.renumbered.at)}>Renumbered from ifIndex ${i.renumbered.from} (matched by name)</span>`);
  if (i.gone_at) notes.push(html`<span>Gone ${relTime(i.gone_at)}: its history is kept</span>`);
  if (i.neighbour) notes.push(html`<span>Neighbour ${i.neighbour}</span>`);
  if (i.hc === false) notes.push(html`<span title="ifInOctets and ifOutOctets wrap at 2^32; wraps are counted">32-bit counters</span>`);
  return notes.length ? html`<div class="cell-sub">${notes.map((n, k) => html`${k ? ' · ' : ''}${n}`)}</div>` : null;
}

/** Two figures, in above out; without them, with `why` the reason there are none (said once a row, in the bit/s cell). */
function InOut({ i, a, b, fmt, why = false }) {
  if (!i.polled) return html`<span class="muted">Not polled</span>`;
  if (!i.now) return html`<span class="muted">Not yet</span>`;
  const x = i.now[a], y = i.now[b];
  if (x === null && y === null) return why ? html`<span class="cell-sub poll-why">${whyText(i.now.why) ?? '—'}</span>` : html`<span class="muted">—</span>`;
  return html`<div class="poll-rates"><div><span class="if-dir">in</span> ${fmt(x)}</div><div><span class="if-dir">out</span> ${fmt(y)}</div></div>`;
}

export default function PollDevicePage({ params, query }) {
  const s = useSession();
  const writable = can(s, 'snmp:write');
  const r = useApi(`/api/snmp/polling/${encodeURIComponent(params.id)}`, { every: 30 });
  const [editing, setEditing] = useState(false);
  const [filter, setFilter] = useState('');
  const [changed, setChanged] = useState({}); // key -> {watched?, chosen?} as last saved here
  const [saving, setSaving] = useState(null);
  const sortKey = IF_SORTS[query.sort] ? query.sort : 'name';
  const sortDir = query.dir === 'desc' ? 'desc' : 'asc';
  const onSort = (key) => setQuery({ sort: key === 'name' ? '' : key, dir: key === sortKey && sortDir === 'asc' ? 'desc' : '' });

  const d = r.data;
  const rows = useMemo(() => {
    const q = filter.trim().toLowerCase();
    const items = (d?.interfaces ?? []).map((i) => ({ ...i, ...changed[i.key] }));
    const shown = q ? items.filter((i) => [i.name, i.descr, i.alias, i.neighbour].some((x) => x && x.toLowerCase().includes(q))) : items;
    return sortInterfaces(shown, sortKey, sortDir);
  }, [d, filter, changed, sortKey, sortDir]);

  if (r.error && !d) {
    return html`<${Page} title="Polled device" subtitle=${html`<${Crumbs} items=${[{ href: '/snmp/polling', label: 'Polling' }]} />`}>
      <${ErrorState} error=${r.error} retry=${r.reload} /><//>`;
  }
  if (!d) return html`<${Page} title="Polled device"><${Loading} /><//>`;

  const toggle = async (i, field) => {
    const value = !i[field];
    setSaving(`${i.key}/${field}`);
    try {
      const saved = await request('PATCH', `/api/snmp/polling/${d.id}/interfaces/${i.key}`, { body: { [field]: value } });
      setChanged((c) => ({ ...c, [i.key]: { watched: saved.watched, chosen: saved.chosen, polled: saved.polled, watched_by: saved.watched_by } }));
      toast.ok(`${ifLabel(i)}: ${field === 'watched' ? (value ? 'watched' : 'no longer watched') : (value ? 'polled' : 'no longer polled')}`);
    } catch (e) { toast.error(e); } finally { setSaving(null); }
  };

  const sw = (i, field, label) => html`<label class="check">
    <input type="checkbox" role="switch" checked=${!!i[field]} disabled=${!writable || saving === `${i.key}/${field}`}
      aria-label=${`${label} ${ifLabel(i)}`} onChange=${() => toggle(i, field)} /><span class="sr-only">${label}</span></label>`;

  const columns = [
    { key: 'name', label: 'Interface', sort: 'name', class: 'if-name', render: (i) => html`${i.polled
      ? html`<a class="cell-title" href=${`/snmp/polling/${d.id}/interfaces/${i.key}`}>${ifLabel(i)}</a>` : html`<div class="cell-title">${ifLabel(i)}</div>`}
      ${i.alias || (i.descr && i.descr !== i.name) ? html`<div class="cell-sub">${i.alias || i.descr}</div>` : null}
      <${Notes} i=${i} />` },
    { key: 'status', label: 'Status', sort: 'status', render: (i) => html`<${OperStatus} i=${i} />` },
    { key: 'speed', label: 'Speed', sort: 'speed', class: 'nowrap', render: (i) => (i.speed_bps ? bps(i.speed_bps) : html`<span class="muted">—</span>`) },
    { key: 'bps', label: 'Bit/s now', sort: 'in', render: (i) => html`<${InOut} i=${i} a="in_bps" b="out_bps" fmt=${bps} why />` },
    { key: 'util', label: 'Utilisation', sort: 'util', class: 'num', render: (i) => html`<${InOut} i=${i} a="in_util_pct" b="out_util_pct" fmt=${utilText} />` },
    { key: 'errors', label: 'Errors', sort: 'errors', class: 'num', render: (i) => html`<${InOut} i=${i} a="in_errors_ps" b="out_errors_ps" fmt=${perSecond} />` },
    { key: 'spark', label: 'Last hour', render: (i) => (i.polled
      ? html`<${Sparkline} label=${`${ifLabel(i)}, the last hour: ${nowText(i)}`} series=${[{ values: i.spark.in, tone: 'in' }, { values: i.spark.out, tone: 'out' }]} />`
      : html`<span class="muted">—</span>`) },
    { key: 'watched', label: 'Watched', render: (i) => html`<div>${sw(i, 'watched', 'Watch')}
      ${i.watched && i.watched_by === 'lldp' ? html`<div class="cell-sub">uplink (LLDP)</div>` : null}</div>` },
    ...(d.all_interfaces ? [] : [{ key: 'chosen', label: 'Polled', render: (i) => html`${sw(i, 'chosen', 'Poll')}` }]),
  ];

  const subtitle = html`<${Crumbs} items=${[{ href: '/snmp/polling', label: 'Polling' }, { label: `${d.target}${d.port ? `:${d.port}` : ''}`, mono: true }]} />`;
  const actions = writable ? html`
    <button type="button" class="btn btn-sm" onClick=${() => setEditing(true)}><${Icon} name="edit" size=${15} />Settings</button>` : null;
  const polledCount = d.interfaces.filter((i) => i.polled).length;
  return html`<${Page} title=${d.name} subtitle=${subtitle} actions=${actions} wide>
    <${Card} title="Polling" actions=${writable ? html`<${DeviceActions} device=${d} onChange=${r.reload} onDeleted=${() => navigate('/snmp/polling')} />` : null}>
      <dl class="dl">
        <dt>Status</dt><dd><${PollStatus} device=${d} /></dd>
        <dt>Last poll</dt><dd><${LastPoll} state=${d.state} /></dd>
        ${d.enabled && d.state.next_poll_at ? html`<dt>Next poll</dt><dd><time datetime=${d.state.next_poll_at} title=${dateTime(d.state.next_poll_at)}>${relTime(d.state.next_poll_at)}</time></dd>` : null}
        <dt>Interval</dt><dd>${intervalText(d.interval_s)}, ${d.all_interfaces ? 'all interfaces' : 'chosen interfaces'} (${polledCount} of ${d.interfaces.length} polled)</dd>
        <dt>Credential</dt><dd>${d.credential
          ? html`<a href=${`/inventory/credentials/${d.credential.short_id}`}>${d.credential.short_id}</a> ${d.credential.name}`
          : html`<${Badge} tone="warn">Deleted<//> <span class="muted">choose another in the settings</span>`}</dd>
        ${d.endpoint_id ? html`<dt>Inventory</dt><dd><a href=${`/inventory/endpoints/${encodeURIComponent(d.endpoint_id)}`}>The endpoint's page</a></dd>` : null}
        <dt>Alerts</dt><dd>Watched interfaces going down or up${d.util_alert_pct !== null ? `; utilisation at or above ${d.util_alert_pct} % for ${d.util_alert_minutes} min` : ''}${
          d.error_alert_ps !== null ? `; more than ${d.error_alert_ps} errors/s` : ''}</dd>
      </dl>
    <//>
    <${Card} title=${`Interfaces (${d.interfaces.length})`} pad=${false} class="poll-card">
      <div class="poll-toolbar">
        <label class="sr-only" for="poll-if-filter">Filter interfaces</label>
        <input id="poll-if-filter" type="search" placeholder="Filter interfaces" value=${filter} onInput=${(e) => setFilter(e.currentTarget.value)} />
        <select class="select-sm" aria-label="Sort interfaces by" value=${sortKey} onChange=${(e) => setQuery({ sort: e.currentTarget.value === 'name' ? '' : e.currentTarget.value })}>
          ${Object.entries(IF_SORTS).map(([k, x]) => html`<option key=${k} value=${k}>${x.label}</option>`)}</select>
        <button type="button" class="btn btn-sm" aria-label=${sortDir === 'desc' ? 'Sorted descending: sort ascending' : 'Sorted ascending: sort descending'}
          title="Reverse the order" onClick=${() => setQuery({ dir: sortDir === 'desc' ? '' : 'desc' })}>${sortDir === 'desc' ? '▼' : '▲'}</button>
        <span class="poll-key muted"><span><i class="k-in"></i>in</span><span><i class="k-out"></i>out</span></span>
      </div>
      <${Table} columns=${columns} rows=${rows} rowKey="key" caption="Interfaces" sort=${{ key: sortKey, dir: sortDir, onChange: onSort }}
        empty=${html`<${EmptyState} icon="snmp" title=${filter ? 'No interface matches' : d.state.last_poll_at ? 'The device lists no interfaces' : 'Not polled yet'} />`} />
    <//>
    ${editing ? html`<${DeviceForm} device=${d} onCancel=${() => setEditing(false)}
      onDone=${(saved) => { setEditing(false); toast.ok(`Saved ${saved.name}`); r.reload(); }} />` : null}
  <//>`;
}
