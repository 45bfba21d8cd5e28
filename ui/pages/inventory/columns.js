// The table columns of each inventory type's list. References show as links with the short ID and
// name of the record they point at (from the lookups the list loads). The name column is `fixed` (always
// shown); `hidden` columns start hidden and can be chosen in the list's column menu (column-chooser.js).
// An endpoint shows what watches it: the worst status of the monitors on its addresses or linked to it,
// and when the probe last saw it alive.
import { dateTime, relTime } from '../../lib/format.js';
import { html } from '../../lib/html.js';
import { ASSET_STATUS_TONE, CRITICALITY_TONE } from '../../lib/vocabulary.js';
import { Badge } from '../../components/badge.js';
import { MonitorStatus } from './monitor-status.js';
import { RefLink } from './ref.js';
import { kindLabel, recordHref, roleLabel, typeDef, valueLabel } from './types.js';

const dash = html`<span class="muted">—</span>`;
const text = (v) => (v === null || v === undefined || v === '' ? dash : v);
const mono = (v) => (v ? html`<span class="mono">${v}</span>` : dash);

const SECRETS = typeDef('credentials').fields.filter((f) => f.kind === 'secret');

/** A few values and "+n" for the rest. */
function some(list, n = 2) {
  if (!list?.length) return dash;
  return html`<span class="mono">${list.slice(0, n).join(', ')}</span>${list.length > n ? html` <span class="muted small">+${list.length - n}</span>` : null}`;
}

function nameCell(type, sub) {
  return {
    key: 'name', label: 'Name', fixed: true, render: (r) => html`<div class="name-cell">
      <a href=${recordHref(type, r)} class="cell-title">${r.name}</a>
      <div class="cell-sub"><span class="sid">${r.short_id}</span>${sub?.(r) ?? null}</div>
      ${r.tags.length ? html`<div class="chips inv-tags">${r.tags.map((t) => html`<${Badge} key=${t}>${t}<//>`)}</div>` : null}
    </div>`,
  };
}

/** The worst status of the monitors watching an endpoint ("Failing 1 of 3" ranks above slow), and how many are down or held. */
function watchCell(r) {
  const w = r.watch;
  if (!w?.monitors) return html`<span class="muted small">Not monitored</span>`;
  const label = w.down ? `${w.down} of ${w.monitors} down`
    : w.in_maintenance ? `${w.in_maintenance} of ${w.monitors} in maintenance` : `${w.monitors} ${w.monitors === 1 ? 'monitor' : 'monitors'}`;
  return html`<div class="watch-cell"><${MonitorStatus} m=${w} /><span class="muted small">${label}</span></div>`;
}

/** When the probe last saw an endpoint alive, and how. */
function seenCell(r) {
  const w = r.watch;
  if (!w?.last_seen) return html`<span class="muted small">Never seen</span>`;
  const by = w.seen_by === 'discovery' ? 'found by a discovery scan' : 'a monitor found it up';
  return html`<span title=${`${dateTime(w.last_seen)} · ${by}`}>${relTime(w.last_seen)}</span>`;
}

const place = (r) => [r.building && `Building ${r.building}`, r.floor && `Floor ${r.floor}`, r.room && `Room ${r.room}`, r.rack && `Rack ${r.rack}`].filter(Boolean).join(' · ');

/** Columns for a type; `lookups` maps referenced types to their lookups. */
export function columnsFor(type, lookups) {
  const ref = (t, field) => (r) => html`<${RefLink} type=${t} id=${r[field]} lookup=${lookups[t]} />`;
  const changed = { key: 'updated_at', label: 'Changed', class: 'nowrap', render: (r) => html`<span title=${dateTime(r.updated_at)}>${relTime(r.updated_at)}</span>` };
  const later = (c) => ({ ...c, hidden: true });
  const description = later({ key: 'description', label: 'Description', render: (r) => (r.description ? html`<span class="clip" title=${r.description}>${r.description}</span>` : dash) });
  switch (type) {
    case 'sites': return [
      nameCell(type, (r) => (r.time_zone ? ` · ${r.time_zone}` : '')),
      { key: 'address', label: 'Address', render: (r) => (r.address ? html`<span class="clip" title=${r.address}>${r.address}</span>` : dash) },
      { key: 'contact', label: 'Contact', render: (r) => (r.contact_name || r.contact_email
        ? html`<div><div>${r.contact_name ?? ''}</div><div class="cell-sub">${r.contact_email ?? r.contact_phone ?? ''}</div></div>` : dash) },
      later({ key: 'phone', label: 'Phone', render: (r) => text(r.contact_phone) }),
      later({ key: 'coordinates', label: 'Coordinates', render: (r) => (r.latitude != null ? mono(`${r.latitude}, ${r.longitude}`) : dash) }),
      description,
      changed,
    ];
    case 'locations': return [
      nameCell(type),
      { key: 'site', label: 'Site', render: ref('sites', 'site_id') },
      { key: 'place', label: 'Place', render: (r) => text(place(r)) },
      description,
      changed,
    ];
    case 'endpoints': return [
      nameCell(type, (r) => (r.hostname && r.hostname !== r.name ? html` · <span class="mono">${r.hostname}</span>` : '')),
      { key: 'ip', label: 'Addresses', render: (r) => some(r.ip_addresses) },
      { key: 'status', label: 'Status', class: 'nowrap', render: watchCell },
      { key: 'last_seen', label: 'Last seen', class: 'nowrap', render: seenCell },
      { key: 'role', label: 'Role', render: (r) => (r.role ? html`<${Badge} tone="accent">${roleLabel(r.role)}<//>` : dash) },
      { key: 'model', label: 'Vendor and model', render: (r) => text([r.vendor, r.model].filter(Boolean).join(' ')) },
      { key: 'site', label: 'Site', render: ref('sites', 'site_id') },
      later({ key: 'hostname', label: 'Host name', render: (r) => mono(r.hostname) }),
      later({ key: 'mac', label: 'MAC addresses', render: (r) => some(r.mac_addresses, 1) }),
      later({ key: 'serial', label: 'Serial', render: (r) => mono(r.serial_number) }),
      later({ key: 'os', label: 'Operating system', render: (r) => text([r.os, r.os_version].filter(Boolean).join(' ')) }),
      later({ key: 'location', label: 'Location', render: ref('locations', 'location_id') }),
      later(changed),
    ];
    case 'assets': return [
      nameCell(type, (r) => (r.asset_tag ? html` · <span class="mono">${r.asset_tag}</span>` : '')),
      { key: 'status', label: 'Status', render: (r) => (r.status ? html`<${Badge} tone=${ASSET_STATUS_TONE[r.status]}>${valueLabel(r.status)}<//>` : dash) },
      { key: 'model', label: 'Model', render: (r) => text([r.manufacturer, r.model].filter(Boolean).join(' ')) },
      { key: 'serial', label: 'Serial', render: (r) => mono(r.serial_number) },
      { key: 'warranty', label: 'Warranty', class: 'nowrap', render: (r) => (r.warranty_expires
        ? html`<span class=${r.warranty_expires < new Date().toISOString().slice(0, 10) ? 'expired' : ''}>${r.warranty_expires}</span>` : dash) },
      { key: 'location', label: 'Location', render: ref('locations', 'location_id') },
      later({ key: 'assigned', label: 'Assigned to', render: (r) => text(r.assigned_to) }),
      later({ key: 'purchased', label: 'Purchased', class: 'nowrap', render: (r) => text(r.purchase_date) }),
      later(changed),
    ];
    case 'applications': return [
      nameCell(type),
      { key: 'criticality', label: 'Criticality', render: (r) => (r.criticality ? html`<${Badge} tone=${CRITICALITY_TONE[r.criticality]}>${valueLabel(r.criticality)}<//>` : dash) },
      { key: 'owner', label: 'Owner', render: (r) => text(r.owner) },
      { key: 'runs', label: 'Runs on', render: (r) => (r.endpoint_ids.length
        ? html`<div class="chips">${r.endpoint_ids.map((id) => html`<${RefLink} key=${id} type="endpoints" id=${id} lookup=${lookups.endpoints} />`)}</div>` : dash) },
      { key: 'url', label: 'URL', render: (r) => (r.url ? html`<a href=${r.url} target="_blank" rel="noopener noreferrer" class="clip mono small">${r.url}</a>` : dash) },
      description,
      later(changed),
    ];
    case 'subnets': return [
      nameCell(type, (r) => (r.name !== r.cidr ? html` · <span class="mono">${r.cidr}</span>` : '')),
      { key: 'vlan', label: 'VLAN', render: (r) => (r.vlan_id ? html`<span>${r.vlan_id}${r.vlan_name ? html` <span class="muted">${r.vlan_name}</span>` : null}</span>` : dash) },
      { key: 'gateway', label: 'Gateway', render: (r) => mono(r.gateway) },
      { key: 'dhcp', label: 'DHCP', render: (r) => (r.dhcp_ranges.length ? html`<span class="mono small">${r.dhcp_ranges.map((d) => `${d.start}–${d.end}`).join(', ')}</span>` : dash) },
      { key: 'site', label: 'Site', render: ref('sites', 'site_id') },
      later({ key: 'dns_servers', label: 'DNS servers', render: (r) => some(r.dns_servers) }),
      description,
      later(changed),
    ];
    case 'credentials': return [
      nameCell(type),
      { key: 'kind', label: 'Kind', render: (r) => html`<${Badge} tone="accent">${kindLabel(r.kind)}<//>` },
      { key: 'username', label: 'User', render: (r) => mono(r.username) },
      { key: 'secrets', label: 'Secrets', render: (r) => {
        const shown = SECRETS.filter((f) => r[f.name]);
        return shown.length ? html`<div class="chips">${shown.map((f) => (r[f.name].set
          ? html`<${Badge} key=${f.name} tone="ok">${f.label}<//>` : html`<${Badge} key=${f.name} tone="warn">No ${f.label.toLowerCase()}<//>`))}</div>` : dash;
      } },
      later({ key: 'scope', label: 'Where it may be used', render: (r) => some(r.scope) }),
      later({ key: 'port', label: 'Port', render: (r) => text(r.port) }),
      changed,
    ];
    default: return [nameCell(type), changed];
  }
}
