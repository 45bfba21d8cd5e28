// What SSH enrichment learned about one device (an SSH target's or a session node's `facts`), readable:
// the identity (host name, platform, OS, model, serial, uptime), then one table per list (interfaces,
// routes, ARP/ND neighbours, LLDP/CDP neighbours, listening services, MAC table, hardware, and what each
// command gave), chosen with a row of buttons; long lists are filtered and paged. Routes can be imported
// (documented) from here when the page says for which device.
import { count, dateTime, ms, relTime } from '../../lib/format.js';
import { html, useMemo, useState } from '../../lib/html.js';
import { SSH_PLATFORMS } from '../../lib/vocabulary.js';
import { Badge } from '../../components/badge.js';
import { SearchBox } from '../../components/controls.js';
import { EmptyState } from '../../components/empty.js';
import { Icon } from '../../components/icons.js';
import { Pager, Table } from '../../components/table.js';
import { sortByIp, uptime } from './model.js';
import { ImportCell, offeredKey } from './route-import.js';
import { Addresses, none } from './section.js';

const PAGE = 100;
const PLATFORM_SOURCES = { configured: 'set on the target', banner: 'told by the SSH banner', probe: 'told by the device' };
const platformLabel = (p) => SSH_PLATFORMS.find((x) => x.value === p)?.label ?? p;
const mono = (v) => (v === null || v === undefined || v === '' ? none : html`<span class="mono">${v}</span>`);
const text = (v) => (v === null || v === undefined || v === '' ? none : v);

function StateBadge({ state }) {
  if (!state) return none;
  const s = state.toLowerCase();
  const tone = s === 'up' || s === 'reachable' || s === 'permanent' ? 'ok' : s.includes('down') || s === 'failed' ? 'bad' : 'neutral';
  return html`<${Badge} tone=${tone}>${state}<//>`;
}

const INTERFACE_COLUMNS = [
  { key: 'name', label: 'Interface', render: (i) => html`<div class="disc-name-cell"><span class="cell-title mono">${i.name}</span>
    ${i.description ? html`<div class="cell-sub">${i.description}</div>` : null}</div>` },
  { key: 'state', label: 'State', render: (i) => html`<${StateBadge} state=${i.state} />` },
  { key: 'addresses', label: 'Addresses', render: (i) => html`<${Addresses} list=${i.addresses} />` },
  { key: 'mac', label: 'MAC', render: (i) => mono(i.mac) },
  { key: 'mtu', label: 'MTU', class: 'num', render: (i) => (i.mtu ? count(i.mtu) : none) },
  { key: 'master', label: 'Member of', render: (i) => mono(i.master) },
];

const NEIGHBOUR_COLUMNS = [
  { key: 'address', label: 'Address', render: (n) => html`<span class="cell-title mono">${n.address}</span>` },
  { key: 'mac', label: 'MAC', render: (n) => mono(n.mac) },
  { key: 'interface', label: 'Interface', render: (n) => mono(n.interface) },
  { key: 'state', label: 'State', render: (n) => html`<${StateBadge} state=${n.state} />` },
];

const LLDP_COLUMNS = [
  { key: 'system_name', label: 'Neighbour', render: (n) => html`<div class="disc-name-cell">
    <span class="cell-title">${n.system_name || n.chassis_id || '—'}</span>
    ${n.system_name && n.chassis_id ? html`<div class="cell-sub mono">${n.chassis_id}</div>` : null}
    ${n.platform || n.system_description ? html`<div class="cell-sub clip-2" title=${n.system_description ?? n.platform}>${n.platform || n.system_description}</div>` : null}</div>` },
  { key: 'local_port', label: 'Local port', render: (n) => mono(n.local_port) },
  { key: 'port_id', label: 'Their port', render: (n) => (n.port_id || n.port_description ? html`<div><span class="mono">${n.port_id ?? n.port_description}</span>
    ${n.port_description && n.port_description !== n.port_id ? html`<div class="cell-sub">${n.port_description}</div>` : null}</div>` : none) },
  { key: 'management_addresses', label: 'Management address', render: (n) => html`<${Addresses} list=${n.management_addresses} max=${2} />` },
  { key: 'capabilities', label: 'Capabilities', render: (n) => (n.capabilities?.length
    ? html`<span class="chips">${n.capabilities.map((c) => html`<span key=${c} class="disc-src">${c}</span>`)}</span>` : none) },
  { key: 'protocol', label: 'Seen in', render: (n) => html`<${Badge} tone="info">${String(n.protocol).toUpperCase()}<//>` },
];

const SERVICE_COLUMNS = [
  { key: 'port', label: 'Port', render: (s) => html`<span class="cell-title mono">${s.port}/${s.protocol}</span>` },
  { key: 'address', label: 'Listening on', render: (s) => mono(s.address) },
  { key: 'process', label: 'Process', render: (s) => mono(s.process) },
];

const MAC_COLUMNS = [
  { key: 'mac', label: 'MAC', render: (m) => html`<span class="cell-title mono">${m.mac}</span>` },
  { key: 'vlan', label: 'VLAN', class: 'num', render: (m) => (m.vlan ?? none) },
  { key: 'interface', label: 'Interface', render: (m) => mono(m.interface) },
  { key: 'type', label: 'Type', render: (m) => text(m.type) },
];

const HARDWARE_COLUMNS = [
  { key: 'name', label: 'Part', render: (h) => html`<div class="disc-name-cell"><span class="cell-title">${h.name}</span>
    ${h.description ? html`<div class="cell-sub">${h.description}</div>` : null}</div>` },
  { key: 'model', label: 'Model', render: (h) => mono(h.model) },
  { key: 'serial', label: 'Serial', render: (h) => mono(h.serial) },
];

const COMMAND_COLUMNS = [
  { key: 'command', label: 'Command', render: (c) => html`<div class="disc-name-cell"><span class="cell-title mono">${c.command}</span>
    ${c.error ? html`<div class="cell-sub disc-enrich-error">${c.error}</div>` : null}</div>` },
  { key: 'ok', label: 'Result', render: (c) => html`<span class="chips"><${Badge} tone=${c.ok ? 'ok' : 'bad'}>${c.ok ? 'Answered' : 'Failed'}<//>
    ${c.truncated ? html`<${Badge} tone="warn" title="The output was longer than the limit; the rest was cut">Cut short<//>` : null}</span>` },
  { key: 'ms', label: 'Took', class: 'num', render: (c) => (Number.isFinite(c.ms) ? ms(c.ms) : none) },
];

const rowText = (r) => Object.values(r).flat().filter((v) => v !== null && v !== undefined && typeof v !== 'object').join(' ').toLowerCase();

/** A list as a table, with a filter once it is long and 100 rows to a page. */
function FactTable({ rows, columns, caption, rowKey, emptyText }) {
  const [q, setQ] = useState('');
  const [offset, setOffset] = useState(0);
  const words = q.toLowerCase().split(/\s+/).filter(Boolean);
  const shown = words.length ? rows.filter((r) => { const t = rowText(r); return words.every((w) => t.includes(w)); }) : rows;
  const from = Math.min(offset, Math.max(0, shown.length - 1));
  return html`
    ${rows.length > 15 ? html`<div class="disc-toolbar">
      <${SearchBox} value=${q} label=${`Filter the ${caption.toLowerCase()}`} placeholder="Filter" onInput=${(v) => { setQ(v); setOffset(0); }} />
      <span class="muted small">${words.length ? `${shown.length} of ${rows.length}` : count(rows.length)}</span>
    </div>` : null}
    <${Table} columns=${columns} rows=${shown.slice(from, from + PAGE)} rowKey=${rowKey} caption=${caption}
      empty=${html`<${EmptyState} icon=${words.length ? 'search' : 'info'} title=${words.length ? 'Nothing matches the filter' : emptyText} />`} />
    <${Pager} total=${shown.length} limit=${PAGE} offset=${from} onChange=${setOffset} />`;
}

/** The identity part: what the device is. */
function Identity({ facts: f }) {
  const items = [
    ['Host name', f.hostname ? html`<span class="mono">${f.hostname}</span>` : none],
    ['Platform', html`${platformLabel(f.platform)}${f.platform_source ? html` <span class="muted small">(${PLATFORM_SOURCES[f.platform_source] ?? f.platform_source})</span>` : null}`],
    ['Operating system', [f.os, f.os_version].filter(Boolean).join(' ') || none],
    ['Vendor and model', [f.vendor, f.model].filter(Boolean).join(' ') || none],
    ['Serial number', mono(f.serial)],
    ['Uptime', uptime(f.uptime_s) ?? none],
    ...(f.kernel ? [['Kernel', mono(f.kernel)]] : []),
    ['SSH banner', mono(f.ssh_banner)],
    ['Collected', html`<time datetime=${f.collected_at} title=${dateTime(f.collected_at)}>${relTime(f.collected_at)}</time>${Number.isFinite(f.duration_ms)
      ? html` <span class="muted small">in ${ms(f.duration_ms)}</span>` : null}`],
  ];
  return html`<dl class="disc-kv">${items.map(([k, v]) => html`<div key=${k}><dt>${k}</dt><dd>${v}</dd></div>`)}</dl>`;
}

/**
 * facts: the record. `routeImport` ({device, source, imports, disabled}) adds an Import button to each
 * route (device: the route's device for the API, or a function of the route opening a dialog).
 */
export function FactsView({ facts, routeImport }) {
  const f = facts;
  const routes = useMemo(() => sortByIp(f.routes ?? [], (r) => r.destination.split('/')[0]), [f]);
  const sections = [
    { value: 'interfaces', label: 'Interfaces', n: f.interfaces?.length ?? 0 },
    { value: 'routes', label: 'Routes', n: routes.length },
    { value: 'neighbours', label: 'ARP and ND', n: f.neighbours?.length ?? 0 },
    { value: 'lldp', label: 'LLDP and CDP', n: f.lldp?.length ?? 0 },
    { value: 'services', label: 'Services', n: f.services?.length ?? 0 },
    { value: 'mac_table', label: 'MAC table', n: f.mac_table?.length ?? 0 },
    { value: 'inventory', label: 'Hardware', n: f.inventory?.length ?? 0 },
    { value: 'commands', label: 'Commands', n: f.commands?.length ?? 0 },
  ].filter((s) => s.n || ['interfaces', 'routes', 'commands'].includes(s.value));
  const [section, setSection] = useState('interfaces');

  const routeColumns = [
    { key: 'destination', label: 'Destination', render: (r) => html`<span class="cell-title mono">${r.destination}</span>` },
    { key: 'gateway', label: 'Next hop', render: (r) => (r.gateway ? html`<span class="mono">${r.gateway}</span>` : html`<span class="muted">Directly connected</span>`) },
    { key: 'interface', label: 'Interface', render: (r) => mono(r.interface) },
    { key: 'protocol', label: 'Protocol', render: (r) => text(r.protocol) },
    { key: 'metric', label: 'Metric', class: 'num', render: (r) => (r.metric ?? none) },
    ...(routeImport ? [{ key: 'import', label: 'Document', class: 'actions-col', render: (r) => html`<${ImportCell}
      state=${routeImport.imports.states.get(offeredKey(r))} disabled=${routeImport.disabled}
      label=${`Import the route to ${r.destination}`} onImport=${() => routeImport.onImport(r)} />` }] : []),
  ];

  const body = {
    interfaces: html`<${FactTable} rows=${f.interfaces ?? []} columns=${INTERFACE_COLUMNS} caption="Interfaces" rowKey="name" emptyText="No interfaces read" />`,
    routes: html`<${FactTable} rows=${routes} columns=${routeColumns} caption="Routes" rowKey=${offeredKey} emptyText="No routes read" />`,
    neighbours: html`<${FactTable} rows=${f.neighbours ?? []} columns=${NEIGHBOUR_COLUMNS} caption="ARP and ND neighbours"
      rowKey=${(n) => `${n.address}|${n.interface}`} emptyText="No neighbours" />`,
    lldp: html`<${FactTable} rows=${f.lldp ?? []} columns=${LLDP_COLUMNS} caption="LLDP and CDP neighbours"
      rowKey=${(n) => `${n.protocol}|${n.local_port}|${n.chassis_id}|${n.port_id}`} emptyText="No LLDP or CDP neighbours" />`,
    services: html`<${FactTable} rows=${f.services ?? []} columns=${SERVICE_COLUMNS} caption="Listening services"
      rowKey=${(s) => `${s.protocol}|${s.address}|${s.port}`} emptyText="No listening services" />`,
    mac_table: html`<${FactTable} rows=${f.mac_table ?? []} columns=${MAC_COLUMNS} caption="MAC table"
      rowKey=${(m) => `${m.mac}|${m.vlan}|${m.interface}`} emptyText="No MAC entries" />`,
    inventory: html`<${FactTable} rows=${f.inventory ?? []} columns=${HARDWARE_COLUMNS} caption="Hardware"
      rowKey=${(h) => `${h.name}|${h.serial}`} emptyText="No hardware listed" />`,
    commands: html`<${FactTable} rows=${f.commands ?? []} columns=${COMMAND_COLUMNS} caption="Commands" rowKey="name" emptyText="No commands" />`,
  };
  const current = sections.some((s) => s.value === section) ? section : 'interfaces';

  return html`<div class="disc-facts-view">
    <div class="disc-facts-head">
      <${Identity} facts=${f} />
      ${f.warnings?.length ? html`<div class="alert alert-warn disc-warnings" role="status"><${Icon} name="alert" />
        <div class="alert-body"><strong>${f.warnings.length === 1 ? 'Warning' : `${f.warnings.length} warnings`}</strong>
          <ul>${f.warnings.map((w, i) => html`<li key=${i}>${w}</li>`)}</ul></div></div>` : null}
    </div>
    <div class="disc-facts-nav">
      <div class="disc-chips" role="group" aria-label="What the device said">
        ${sections.map((s) => html`<button key=${s.value} type="button" class="disc-fchip" aria-pressed=${current === s.value ? 'true' : 'false'}
          onClick=${() => setSection(s.value)}>${s.label}<span class="disc-fchip-n">${count(s.n)}</span></button>`)}
      </div>
    </div>
    <div class="disc-table-card">${body[current]}</div>
  </div>`;
}
