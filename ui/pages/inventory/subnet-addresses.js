// What a subnet holds (GET /api/brain/subnets/:id/addresses): its utilisation (addresses in use of the
// usable ones, with a bar), and the addresses inside it that the inventory knows in numeric order, each
// with the endpoints that have it, the gateway and DHCP ranges marked, and when discovery last found it
// alive; beside them, the addresses discovery found alive that nobody documented, and the free ones.
import { dateTime, relTime } from '../../lib/format.js';
import { html, useState } from '../../lib/html.js';
import { useApi } from '../../lib/hooks.js';
import { Badge } from '../../components/badge.js';
import { EmptyState, ErrorState, Loading } from '../../components/empty.js';
import { Card } from '../../components/page.js';
import { Pager, Table } from '../../components/table.js';

const LIMIT = 100;

/** 0.0123 -> "1.2 %"; small non-zero shares keep a digit so they do not read as nothing. */
export function share(u) {
  if (u === null || u === undefined) return '—';
  const p = u * 100;
  return `${p === 0 || p >= 10 ? Math.round(p) : p.toFixed(1)} %`;
}

const bigCount = (n) => (n >= 1e15 ? n.toExponential(2) : Math.round(n).toLocaleString('en-US'));

const seen = (t) => (t ? html`<span title=${dateTime(t)}>${relTime(t)}</span>` : html`<span class="muted">—</span>`);

const COLUMNS = [
  { key: 'address', label: 'Address', render: (a) => html`<span class="cell-title mono">${a.address}</span>` },
  { key: 'endpoints', label: 'Endpoints', render: (a) => (a.endpoints.length
    ? html`<div class="chips">${a.endpoints.map((e) => html`<a key=${e.id} href=${`/inventory/endpoints/${e.short_id}`} class="ref-link"><span class="sid">${e.short_id}</span> ${e.name}</a>`)}</div>`
    : html`<span class="muted">—</span>`) },
  { key: 'role', label: 'Role', render: (a) => html`<div class="chips">
    ${a.gateway ? html`<${Badge} tone="accent">Gateway<//>` : null}
    ${a.dhcp ? html`<${Badge} tone="info" title="Inside a DHCP range of the subnet">DHCP range<//>` : null}
    ${!a.gateway && !a.dhcp ? html`<span class="muted">—</span>` : null}</div>` },
  { key: 'seen', label: 'Last seen alive', class: 'nowrap', render: (a) => seen(a.last_seen) },
];

const FOUND = [
  { key: 'address', label: 'Address', render: (a) => html`<span class="cell-title mono">${a.address}</span>` },
  { key: 'device', label: 'Device', render: (a) => html`<div>${a.hostname ? html`<div class="mono">${a.hostname}</div>` : null}
    ${a.mac || a.vendor ? html`<div class="cell-sub">${[a.mac, a.vendor].filter(Boolean).join(' · ')}</div>` : null}
    ${!a.hostname && !a.mac && !a.vendor ? html`<span class="muted">—</span>` : null}</div>` },
  { key: 'role', label: 'Role', render: (a) => (a.dhcp ? html`<${Badge} tone="info" title="Inside a DHCP range of the subnet">DHCP range<//>`
    : html`<span class="muted">—</span>`) },
  { key: 'seen', label: 'Last seen alive', class: 'nowrap', render: (a) => seen(a.last_seen) },
];

/** The addresses discovery found alive that no endpoint has: documented nowhere, yet in use. */
function Discovered({ d }) {
  const [all, setAll] = useState(false);
  if (!d.discovered.total) return null;
  const rows = all ? d.discovered.items : d.discovered.items.slice(0, 10);
  return html`<div class="subnet-part">
    <h3 class="subnet-part-title">Found alive, not documented (${d.discovered.total})</h3>
    <p class="muted small subnet-part-note">Discovery scans found these addresses answering; no endpoint of the inventory has them.</p>
    <${Table} columns=${FOUND} rows=${rows} rowKey="address" caption=${`Addresses found alive in ${d.cidr} that no endpoint has`} />
    ${d.discovered.items.length > rows.length ? html`<button type="button" class="btn btn-sm btn-ghost subnet-more" onClick=${() => setAll(true)}>
      Show all ${d.discovered.items.length}</button>` : null}
  </div>`;
}

/** The usable addresses neither documented nor found alive, as ranges. */
function Free({ d }) {
  const f = d.free;
  const range = (r) => (r.start === r.end ? r.start : `${r.start} – ${r.end}`);
  return html`<div class="subnet-part">
    <h3 class="subnet-part-title">Free (${bigCount(f.size)})</h3>
    ${f.total ? html`<ul class="free-ranges" aria-label=${`Free addresses in ${d.cidr}`}>${f.ranges.map((r) => html`<li key=${r.start} class=${r.dhcp ? 'free-dhcp' : ''}>
        <span class="mono">${range(r)}</span> <span class="muted small">${bigCount(r.size)}${r.dhcp ? ' · DHCP range' : ''}</span></li>`)}</ul>
      ${f.total > f.ranges.length ? html`<p class="muted small subnet-part-note">and ${f.total - f.ranges.length} more ranges</p>` : null}
      <p class="muted small subnet-part-note">Neither documented nor found alive by discovery. An address inside a DHCP range may be handed out at any time.</p>`
      : html`<p class="muted subnet-part-note">Every usable address is documented or was found alive.</p>`}
  </div>`;
}

export function SubnetAddressesCard({ rec }) {
  const [offset, setOffset] = useState(0);
  const r = useApi(`/api/brain/subnets/${rec.id}/addresses`, { query: { limit: LIMIT, offset } });
  const d = r.data;
  const pct = d?.utilisation ?? 0;
  const tone = pct >= 0.9 ? 'bad' : pct >= 0.75 ? 'warn' : 'ok';
  return html`<${Card} title="Addresses" pad=${false}>
    ${r.error ? html`<div class="card-body"><${ErrorState} error=${r.error} retry=${r.reload} /></div>`
      : !d ? html`<${Loading} />`
        : html`
          <div class="card-body subnet-use">
            <div class="subnet-use-figures">
              <strong>${share(d.utilisation)} used</strong>
              <span class="muted">${bigCount(d.used)} of ${bigCount(d.size)} usable addresses documented · ${d.endpoints} ${d.endpoints === 1 ? 'endpoint' : 'endpoints'}${d.discovered.total ? ` · ${d.discovered.total} more found alive` : ''}${d.dhcp_size ? ` · DHCP ranges hold ${bigCount(d.dhcp_size)}` : ''}</span>
            </div>
            <div class=${`subnet-meter tone-${tone}`} role="meter" aria-label="Utilisation" aria-valuemin="0" aria-valuemax=${d.size}
              aria-valuenow=${d.used} aria-valuetext=${`${share(d.utilisation)}: ${d.used} of ${d.size} addresses`}>
              <span style=${{ width: `${Math.min(100, pct * 100)}%` }}></span>
            </div>
          </div>
          <${Table} columns=${COLUMNS} rows=${d.items} rowKey="address" caption=${`Addresses in ${d.cidr}`}
            empty=${html`<${EmptyState} icon="inventory" title="No known addresses">
              <p>No endpoint of the inventory has an address in ${d.cidr}${d.gateway ? '' : ', and the subnet names no gateway'}.</p><//>`} />
          <${Pager} total=${d.total} limit=${LIMIT} offset=${offset} onChange=${setOffset} />
          <${Discovered} d=${d} />
          <${Free} d=${d} />`}
  <//>`;
}
