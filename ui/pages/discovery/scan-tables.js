// The tables of a scan: hosts (filled live from the stream, then from the result, with the inventory
// record each stands for once the scan has ended), devices (hosts merged by identity, and neighbours only
// another device named) and the links between them. Hosts are in numeric address order, filtered by any
// text they show, 100 to a page.
import { ms } from '../../lib/format.js';
import { html, useMemo, useState } from '../../lib/html.js';
import { DEVICE_MERGE_KEYS } from '../../lib/vocabulary.js';
import { Badge } from '../../components/badge.js';
import { SearchBox } from '../../components/controls.js';
import { EmptyState } from '../../components/empty.js';
import { Pager, Table } from '../../components/table.js';
import { HOST_SORTS, hostName, hostsCsv, hostText, identifiedBy, identifiedByLines, snmpOs, snmpTitle, sortByIp, sortHosts } from './model.js';
import { Addresses, CredentialRef, KindBadge, LinkSource, MacCell, none, PortChips, RecordRef, SourceChips } from './section.js';

const PAGE = 100;

function SnmpCell({ s }) {
  if (!s) return none;
  const title = snmpTitle(s);
  const os = snmpOs(s);
  const by = identifiedBy(s);
  return html`<div class="disc-snmp">
    ${title ? html`<div class="disc-snmp-title">${title}</div>` : s.sys_name ? html`<div>${s.sys_name}</div>` : null}
    ${os ? html`<div class="cell-sub">${os}</div>` : null}
    ${s.serial ? html`<div class="cell-sub">Serial <span class="mono">${s.serial}</span></div>` : null}
    ${by ? html`<div class="cell-sub disc-evidence" title=${identifiedByLines(s).join('\n')}>Identified by ${by}</div>` : null}
    ${s.note ? html`<div class="cell-sub disc-note">${s.note}</div>` : null}
    ${!title && !os && !s.note && !s.sys_name ? html`<span class="muted">Answered${s.version ? ` (${s.version})` : ''}</span>` : null}
  </div>`;
}

/** What a host advertises over mDNS/SSDP (scan/advertised/): its own name, category, maker and services. */
function AdvertisedCell({ a, shown }) {
  const title = a.services.map((x) => `${x.type} ${x.instance}${x.port ? ` :${x.port}` : ''}`).join('\n');
  return html`<div class="cell-sub disc-advertised" title=${title || null}>
    ${a.name && a.name !== shown ? html`<div>${a.name}</div>` : null}
    <div>${[a.category ? CATEGORY_LABELS[a.category] ?? a.category : null, [a.vendor, a.model].filter(Boolean).join(' ') || null,
      a.services.length ? `${a.services.length} service${a.services.length === 1 ? '' : 's'} (mDNS)` : null,
      a.upnp ? 'UPnP' : null].filter(Boolean).join(' · ')}</div></div>`;
}

const CATEGORY_LABELS = { printer: 'Printer', scanner: 'Scanner', storage: 'Storage', camera: 'Camera', media: 'Media player',
  computer: 'Computer', router: 'Router', access_point: 'Access point', iot: 'Smart-home device' };

const HOST_COLUMNS = [
  { key: 'ip', label: 'Address', class: 'nowrap', render: (h) => html`<div>
    <span class="cell-title mono">${h.ip}</span>
    ${Number.isFinite(h.rtt_ms) ? html`<div class="cell-sub" title="Round-trip time of a ping">${h.rtt_ms < 1 ? '< 1 ms' : ms(h.rtt_ms)}</div>` : null}</div>` },
  { key: 'name', label: 'Name', render: (h) => (hostName(h) || h.advertised ? html`<div>
    ${hostName(h) ? html`<span class="disc-name">${hostName(h)}</span>` : null}
    ${h.advertised ? html`<${AdvertisedCell} a=${h.advertised} shown=${hostName(h)} />` : null}</div>` : none) },
  { key: 'mac', label: 'MAC', render: (h) => html`<${MacCell} mac=${h.mac} vendor=${h.mac_vendor} />` },
  { key: 'alive_by', label: 'Found by', render: (h) => html`<${SourceChips} sources=${h.alive_by} />` },
  { key: 'ports', label: 'Open ports', render: (h) => html`<${PortChips} ports=${h.open_ports} />` },
  { key: 'snmp', label: 'Vendor and model (SNMP)', render: (h) => html`<${SnmpCell} s=${h.snmp} />` },
  { key: 'credential', label: 'Credential', render: (h) => html`<${CredentialRef} credential=${h.snmp?.credential} />` },
];

/**
 * The inventory column: the record the host's device stands for (GET /api/v1sion/brain/matches), linked
 * or only matched. `inventory`: {byIp: Map(ip -> matches item), loading}.
 */
function inventoryColumn(inventory) {
  return { key: 'inventory', label: 'In inventory', render: (h) => {
    const it = inventory.byIp.get(h.ip);
    if (!it) return inventory.loading ? html`<span class="muted" aria-label="Loading">…</span>` : html`<span class="muted">Not in inventory</span>`;
    return html`<div class="disc-inv-cell"><${RecordRef} record=${it.inventory} />
      <div class="cell-sub">${it.linked ? 'Linked' : html`<span class="disc-unlinked" title="A record matches it; link it under Compare with inventory">Matched, not linked</span>`}</div></div>`;
  } };
}

/** ip -> the matches item of the device holding that address. */
export function inventoryByIp(matches) {
  const out = new Map();
  for (const it of matches?.items ?? []) for (const a of it.addresses ?? []) if (!out.has(a)) out.set(a, it);
  return out;
}

/** Saves the hosts shown (filtered, in their order) as a CSV file. */
function downloadCsv(hosts, name) {
  const url = URL.createObjectURL(new Blob([hostsCsv(hosts)], { type: 'text/csv;charset=utf-8' }));
  const a = Object.assign(document.createElement('a'), { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/**
 * hosts: the hosts so far (any order); filter and offset come from the page's query. `waiting` is what
 * the empty table says while the scan still runs, `nothing` what it says when the scan found no host;
 * `inventory` ({byIp, loading}, or null for no such column) names the record each host stands for.
 */
export function HostsTable({ hosts, filter, onFilter, offset, onOffset, waiting, nothing, inventory = null, csvName = 'hosts.csv' }) {
  const [sort, setSort] = useState({ key: 'ip', desc: false });
  const sorted = useMemo(() => sortHosts(hosts, sort.key, sort.desc), [hosts, sort]);
  const words = filter.toLowerCase().split(/\s+/).filter(Boolean);
  const textOf = (h) => { const it = inventory?.byIp.get(h.ip); return it ? `${hostText(h)} ${it.inventory.short_id} ${it.inventory.name}`.toLowerCase() : hostText(h); };
  const shown = words.length ? sorted.filter((h) => { const t = textOf(h); return words.every((w) => t.includes(w)); }) : sorted;
  const columns = inventory ? [...HOST_COLUMNS.slice(0, 2), inventoryColumn(inventory), ...HOST_COLUMNS.slice(2)] : HOST_COLUMNS;
  const from = Math.min(offset, Math.max(0, shown.length - 1));
  return html`
    ${hosts.length ? html`<div class="disc-toolbar">
      <${SearchBox} value=${filter} label="Filter the hosts" placeholder="Filter by address, name, MAC, vendor or port" onInput=${onFilter} />
      <div class="disc-sort">
        <label for="disc-host-sort" class="small muted">Sort by</label>
        <select id="disc-host-sort" class="select-sm" value=${sort.key} onChange=${(e) => setSort({ key: e.currentTarget.value, desc: false })}>
          ${HOST_SORTS.map((o) => html`<option key=${o.value} value=${o.value}>${o.label}</option>`)}
        </select>
        <button type="button" class="btn btn-sm" onClick=${() => setSort((x) => ({ ...x, desc: !x.desc }))}
          aria-label=${sort.desc ? 'Descending: sort ascending' : 'Ascending: sort descending'} title="Reverse the order">${sort.desc ? '↓ Z–A' : '↑ A–Z'}</button>
      </div>
      <button type="button" class="btn btn-sm" onClick=${() => downloadCsv(shown, csvName)}
        title="The hosts shown, filtered and in this order">Export CSV</button>
      <span class="muted small">${words.length ? `${shown.length} of ${hosts.length}` : `${hosts.length} ${hosts.length === 1 ? 'host' : 'hosts'}`}</span>
    </div>` : null}
    <${Table} columns=${columns} rows=${shown.slice(from, from + PAGE)} rowKey="ip" caption="Hosts found"
      empty=${hosts.length ? html`<${EmptyState} icon="search" title="No host matches the filter"
          action=${html`<button type="button" class="btn" onClick=${() => onFilter('')}>Clear the filter</button>`} />`
        : waiting ? html`<${EmptyState} icon="discovery" title="No host classified yet"><p>${waiting}</p><//>`
          : html`<${EmptyState} icon="discovery" title="No live host found"><p>${nothing ?? 'Nothing answered ping, ARP, TCP or SNMP in this subnet.'}</p><//>`} />
    <${Pager} total=${shown.length} limit=${PAGE} offset=${from} onChange=${onOffset} />`;
}

/** The devices of a result, in the order of their first address. */
export function DevicesTable({ devices }) {
  const rows = useMemo(() => sortByIp(devices, (d) => d.addresses[0] ?? ''), [devices]);
  const columns = [
    { key: 'name', label: 'Device', render: (d) => html`<div>
      <span class="cell-title">${d.name}</span>
      ${d.sys_name && d.sys_name !== d.name ? html`<div class="cell-sub">${d.sys_name}</div>` : null}
      ${d.seen === 'neighbour' ? html`<div class="disc-flags"><${Badge} tone="warn" title="Named by another device's LLDP or CDP table; it did not answer in the subnet">Neighbour only<//></div>` : null}
      ${d.merged_by?.length ? html`<div class="cell-sub">Merged by ${d.merged_by.map((k) => DEVICE_MERGE_KEYS[k] ?? k).join(', ')}</div>` : null}
    </div>` },
    { key: 'kind', label: 'Kind', render: (d) => html`<div><${KindBadge} kind=${d.kind} />
      ${d.category ? html`<div class="cell-sub" title="What it advertises over mDNS or SSDP">${CATEGORY_LABELS[d.category] ?? d.category}</div>` : null}</div>` },
    { key: 'addresses', label: 'Addresses', render: (d) => html`<${Addresses} list=${d.addresses} />` },
    { key: 'mac', label: 'MAC', render: (d) => (d.macs?.length ? html`<div><span class="mono">${d.macs[0]}</span>${d.macs.length > 1
      ? html`<div class="cell-sub" title=${d.macs.join(', ')}>and ${d.macs.length - 1} more</div>` : null}</div>` : none) },
    { key: 'vendor', label: 'Vendor and model', render: (d) => (d.vendor || d.model || d.serial ? html`<div>
      ${d.vendor || d.model ? html`<div>${[d.vendor, d.model].filter(Boolean).join(' ')}</div>` : null}
      ${d.serial ? html`<div class="cell-sub">Serial <span class="mono">${d.serial}</span></div>` : null}</div>` : none) },
  ];
  return html`<${Table} columns=${columns} rows=${rows} caption="Devices"
    empty=${html`<${EmptyState} icon="inventory" title="No devices" />`} />`;
}

/** The links of a result, each end as device name and port. */
export function LinksTable({ links, devices }) {
  const names = useMemo(() => new Map(devices.map((d) => [d.id, d.name])), [devices]);
  const end = (id, port) => html`<div><span class="cell-title">${names.get(id) ?? id}</span>
    ${port ? html`<div class="cell-sub mono">${port}</div>` : null}</div>`;
  const columns = [
    { key: 'from', label: 'From', render: (l) => end(l.from, l.from_port) },
    { key: 'arrow', label: 'Connects to', hideLabel: true, class: 'disc-arrow-col', render: () => html`<span class="disc-arrow" aria-hidden="true">→</span><span class="sr-only">connects to</span>` },
    { key: 'to', label: 'To', render: (l) => end(l.to, l.to_port) },
    { key: 'source', label: 'Seen in', render: (l) => html`<${LinkSource} source=${l.source} />` },
  ];
  return html`<${Table} columns=${columns} rows=${links} rowKey=${(l) => `${l.from}|${l.from_port}|${l.to}|${l.to_port}|${l.source}`} caption="Links"
    empty=${html`<${EmptyState} icon="discovery" title="No links">
      <p>Links come from the LLDP, CDP and forwarding tables of SNMP devices: a scan with SNMP and a credential the switches accept finds them.</p><//>`} />`;
}
