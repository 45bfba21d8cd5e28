// A device's interface table (GET /api/snmp/device-cards/:name/interfaces): name and description,
// administrative and operational status, speed, traffic (byte counters in KiB/MiB, and the rate since the
// previous reading in bps once read twice) and error and discard counts. Used on the SNMP Devices tab and
// on an inventory endpoint's page, at the page's full width. Each figure cell holds one block of lines
// (inbound above outbound), so a stacked row on a phone shows it whole beside its label; the name column
// keeps a readable width and stays in view when a narrow window scrolls the table sideways (snmp.css).
import { dateTime, relTime } from '../../lib/format.js';
import { html, useEffect, useMemo, useRef, useState } from '../../lib/html.js';
import { useApi } from '../../lib/hooks.js';
import { loadStylesheet } from '../../lib/stylesheet.js';
import { IF_STATUSES } from '../../lib/vocabulary.js';
import { Badge } from '../../components/badge.js';
import { EmptyState, ErrorState, Loading } from '../../components/empty.js';
import { Icon } from '../../components/icons.js';
import { Card } from '../../components/page.js';
import { Table } from '../../components/table.js';
import { bps, bytes, counter, rates } from './units.js';

await loadStylesheet(new URL('./snmp.css', import.meta.url).pathname);

const FILTER_FROM = 15;

function Status({ value, what }) {
  if (!value) return html`<span class="muted">—</span>`;
  const s = IF_STATUSES[value] ?? { label: value, tone: 'neutral' };
  return html`<${Badge} tone=${s.tone} title=${`${what}: ${s.label}`}>${s.label}<//>`;
}

function Traffic({ octets, rate }) {
  return html`<div class="if-lines"><div>${bytes(octets)}</div>${rate !== null && rate !== undefined
    ? html`<div class="cell-sub">${bps(rate)}</div>` : null}</div>`;
}

/** Inbound and outbound counts of one kind, a line each ("in 2,345,678"); `bad` marks the non-zero ones. */
function Counts({ inbound, outbound, bad = false }) {
  const line = (dir, n) => html`<span class="if-dir">${dir}</span> <span class=${bad && n ? 'if-bad' : ''}>${counter(n)}</span>`;
  return html`<div class="if-counts">${line('in', inbound)}${line('out', outbound)}</div>`;
}

const COLUMNS = [
  { key: 'name', label: 'Interface', class: 'if-name', render: (i) => html`<div class="cell-title">${i.name}</div>
    ${i.alias || (i.description && i.description !== i.name) ? html`<div class="cell-sub">${i.alias || i.description}</div>` : null}` },
  { key: 'status', label: 'Status', render: (i) => html`<div class="chips">
    <${Status} value=${i.oper_status} what="Operational" />
    ${i.admin_status === 'down' ? html`<${Badge} tone="neutral" title="Shut down by its configuration (ifAdminStatus down)">Disabled<//>` : null}</div>` },
  { key: 'speed', label: 'Speed', class: 'nowrap', render: (i) => (i.speed_bps ? bps(i.speed_bps) : html`<span class="muted">—</span>`) },
  { key: 'in', label: 'In', render: (i) => html`<${Traffic} octets=${i.in_octets} rate=${i.in_bps} />` },
  { key: 'out', label: 'Out', render: (i) => html`<${Traffic} octets=${i.out_octets} rate=${i.out_bps} />` },
  { key: 'errors', label: 'Errors', class: 'num', render: (i) => html`<${Counts} inbound=${i.in_errors} outbound=${i.out_errors} bad />` },
  { key: 'discards', label: 'Discards', class: 'num', render: (i) => html`<${Counts} inbound=${i.in_discards} outbound=${i.out_discards} />` },
];

/** The interface table of `device` (a device name or an endpoint's short ID). */
export function InterfacesCard({ device }) {
  const r = useApi(`/api/snmp/device-cards/${encodeURIComponent(device)}/interfaces`);
  const prev = useRef(null);
  const [shown, setShown] = useState(null);
  const [filter, setFilter] = useState('');
  // Each new reading is compared with the one before it: the difference of the octet counters over the
  // time between them is the traffic rate.
  useEffect(() => {
    const d = r.data;
    if (!d || !d.read_at) return;
    const last = prev.current;
    const seconds = last ? (Date.parse(d.read_at) - Date.parse(last.read_at)) / 1000 : 0;
    const before = new Map((last?.items ?? []).map((i) => [i.index, i]));
    setShown({ ...d, items: d.items.map((i) => ({ ...i, ...rates(before.get(i.index), i, seconds) })), rated: !!last });
    prev.current = d;
  }, [r.data]);
  const data = r.data && !r.data.read_at ? r.data : shown;
  const rows = useMemo(() => {
    const q = filter.trim().toLowerCase();
    const items = data?.items ?? [];
    return q ? items.filter((i) => [i.name, i.alias, i.description, i.type, i.oper_status].some((x) => x && String(x).toLowerCase().includes(q))) : items;
  }, [data, filter]);

  const actions = html`<button type="button" class="btn btn-sm" onClick=${r.reload} disabled=${r.loading}>
    <${Icon} name="refresh" size=${15} />${r.loading ? 'Reading…' : 'Read again'}</button>`;
  const up = data?.items.filter((i) => i.oper_status === 'up').length ?? 0;
  const title = data?.total ? `Interfaces (${up} of ${data.total} up)` : 'Interfaces';
  return html`<${Card} title=${title} actions=${actions} pad=${false} class="if-card">
    ${r.error ? html`<div class="card-body"><${ErrorState} error=${r.error} retry=${r.reload} /></div>`
      : !data ? html`<${Loading} label="Reading the interfaces…" />`
        : data.error ? html`<div class="alert alert-warn snmp-card-error" role="status"><${Icon} name="alert" />
            <div class="alert-body"><strong>The interfaces could not be read</strong><div>${data.error}</div></div></div>`
          : html`
            <div class="if-meta muted small">
              Read <time datetime=${data.read_at} title=${dateTime(data.read_at)}>${relTime(data.read_at)}</time>
              ${data.rated ? ' · rates since the previous reading' : ' · read again for traffic rates'}
              ${data.truncated ? ' · the table was cut short' : ''}
            </div>
            ${data.total > FILTER_FROM ? html`<div class="if-filter"><label class="sr-only" for="if-filter">Filter interfaces</label>
              <input id="if-filter" type="search" placeholder="Filter interfaces" value=${filter} onInput=${(e) => setFilter(e.currentTarget.value)} /></div>` : null}
            <${Table} columns=${COLUMNS} rows=${rows} rowKey="index" caption="Interfaces"
              empty=${html`<${EmptyState} icon="snmp" title=${filter ? 'No interface matches' : 'The device lists no interfaces'} />`} />`}
  <//>`;
}
