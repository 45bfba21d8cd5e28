// Devices (/discovery/devices): everything completed scans found, known over time (GET /api/v1sion/devices):
// new ones first, then missing and changed, each with the switch port it is on now. The search box is
// "where is it?": a MAC in any notation or its start, an IP, a name or a vendor. New devices are
// acknowledged here (one or all); a device's page has its history.
import { count, relTime, dateTime } from '../../lib/format.js';
import { html } from '../../lib/html.js';
import { useApi, useDebounced } from '../../lib/hooks.js';
import { setQuery } from '../../lib/router.js';
import { can, useSession } from '../../lib/session.js';
import { ButtonGroup, SearchBox } from '../../components/controls.js';
import { EmptyState, ErrorState, Loading } from '../../components/empty.js';
import { Icon } from '../../components/icons.js';
import { Card, Page } from '../../components/page.js';
import { Pager, Table } from '../../components/table.js';
import { acknowledge, AttachmentText, DeviceStates } from './device-parts.js';
import { DiscoveryTabs } from './section.js';

const LIMIT = 100;
const STATES = [
  { value: '', label: 'All' }, { value: 'new', label: 'New' }, { value: 'missing', label: 'Missing' }, { value: 'changed', label: 'Changed' },
];

export default function DevicesPage({ query }) {
  const s = useSession();
  const writable = can(s, 'v1sion:write');
  const offset = Number(query.offset) || 0;
  const q = useDebounced((query.q ?? '').trim(), 250);
  const list = useApi('/api/v1sion/devices', { query: { q: q || undefined, state: query.state || undefined, limit: LIMIT, offset }, every: 60 });
  const fresh = useApi('/api/v1sion/devices', { query: { state: 'new', limit: 1 }, every: 60 });
  const newCount = fresh.data?.total ?? 0;

  const ack = async (ids) => { if (await acknowledge(ids)) { list.reload(); fresh.reload(); } };

  const columns = [
    { key: 'name', label: 'Device', render: (d) => html`<div class="disc-name-cell">
      <a href=${`/discovery/devices/${d.id}`} class="cell-title">${d.name}</a>
      <div class="cell-sub">${[d.kind === 'unknown' ? null : d.kind.replace(/_/g, ' '), d.vendor, d.model].filter(Boolean).join(' · ') || '—'}</div></div>` },
    { key: 'addresses', label: 'Addresses', render: (d) => html`<div class="mono small dev-addr">
      ${d.addresses.map((a) => html`<div key=${a}>${a}</div>`)}${d.macs.map((m) => html`<div key=${m} class="muted">${m}</div>`)}</div>` },
    { key: 'where', label: 'Where', render: (d) => html`<${AttachmentText} a=${d.attachment} />` },
    { key: 'seen', label: 'Last seen', render: (d) => html`<span title=${`First seen ${dateTime(d.first_seen)}`}>${relTime(d.last_seen)}</span>` },
    { key: 'states', label: 'State', render: (d) => html`<${DeviceStates} d=${d} />` },
    ...(writable ? [{ key: 'actions', label: 'Actions', class: 'actions-col', hideLabel: true, render: (d) => (d.states.includes('new')
      ? html`<div class="actions"><button type="button" class="btn btn-sm" onClick=${() => ack([d.id])} aria-label=${`Acknowledge ${d.name}`}
          title="It stops being new"><${Icon} name="check" size=${15} />Acknowledge</button></div>` : null) }] : []),
  ];

  const actions = writable && newCount ? html`<button type="button" class="btn" onClick=${() => ack('all_new')}>
    <${Icon} name="check" size=${16} />Acknowledge all new (${count(newCount)})</button>` : null;
  const filtered = q || query.state;

  return html`<${Page} title="Discovery" subtitle="Devices: what scans found, over time, and where each is plugged in" actions=${actions}>
    <${DiscoveryTabs} active="/discovery/devices" />
    <${Card} pad=${false} class="disc-table-card">
      <div class="disc-toolbar">
        <${SearchBox} value=${query.q ?? ''} label="Where is it? A MAC, an IP address, a name or a vendor"
          placeholder="Where is it? MAC, IP, name or vendor" onInput=${(v) => setQuery({ q: v, offset: '' })} />
        <${ButtonGroup} label="Show" options=${STATES} value=${query.state ?? ''} onChange=${(v) => setQuery({ state: v, offset: '' })} />
        ${list.data ? html`<span class="muted small">${count(list.data.total)} ${list.data.total === 1 ? 'device' : 'devices'}</span>` : null}
      </div>
      ${list.error ? html`<div class="disc-note"><${ErrorState} error=${list.error} retry=${list.reload} /></div>`
        : !list.data ? html`<${Loading} />`
          : html`<${Table} columns=${columns} rows=${list.data.items} caption="Devices known over time"
              rowClass=${(d) => (d.states.includes('missing') ? 'disc-row-failed' : undefined)}
              empty=${filtered ? html`<${EmptyState} icon="search" title="No device matches"
                  action=${html`<button type="button" class="btn" onClick=${() => setQuery({ q: '', state: '', offset: '' })}>Clear the filters</button>`} />`
                : html`<${EmptyState} icon="discovery" title="No devices known yet"
                    action=${html`<a class="btn btn-primary" href="/discovery">Scan a subnet</a>`}>
                    <p>Every completed scan is kept here by device (MAC, SNMP engine ID, serial): the first scan of a subnet is its
                      baseline; after it, a device never seen before is new, one that stops answering is missing, and one that moves
                      to another switch port or address is changed. Channels can be told of each (Alerts).</p><//>`} />
            <${Pager} total=${list.data.total} limit=${LIMIT} offset=${offset} onChange=${(o) => setQuery({ offset: o || '' }, { replace: false })} />`}
    <//>
  <//>`;
}
