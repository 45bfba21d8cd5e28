// The Devices tab: the OID cards of one device, known by name (a saved card selection, or an inventory
// endpoint's name or short ID), read live: each value with its unit and the time it was read, the
// vendor profile that chose the cards, and why the device could not be read when it could not; then its
// interface table (interfaces.js) when it has an address and a credential, and a link to poll it over time
// (the Polling tab's dialog, filled in).
import { qs } from '../../lib/api.js';
import { dateTime, relTime } from '../../lib/format.js';
import { html, useEffect, useState } from '../../lib/html.js';
import { useApi } from '../../lib/hooks.js';
import { setQuery } from '../../lib/router.js';
import { can, useSession } from '../../lib/session.js';
import { SNMP_VENDOR_FROM as VENDOR_FROM } from '../../lib/vocabulary.js';
import { Badge } from '../../components/badge.js';
import { ErrorState, Loading } from '../../components/empty.js';
import { Icon } from '../../components/icons.js';
import { Card } from '../../components/page.js';
import { Table } from '../../components/table.js';
import { InterfacesCard } from './interfaces.js';

/** A value: its display text, or for a table item each row's label and value. */
function Value({ item }) {
  if (Array.isArray(item.value)) {
    return item.value.length ? html`<ul class="snmp-rows">${item.value.map((r) => html`<li key=${r.index}>
      <span class="muted">${r.label}</span> <span class="mono">${r.display}</span></li>`)}</ul>` : html`<span class="muted">No rows</span>`;
  }
  return item.display === null ? html`<span class="muted">—</span>` : html`<span class="mono">${item.display}</span>`;
}

const COLUMNS = [
  { key: 'label', label: 'Item', render: (i) => html`<div class="cell-title">${i.label}</div>
    ${i.name || i.unit ? html`<div class="cell-sub">${i.name ? html`<span class="mono">${i.name}</span>` : null}${i.name && i.unit ? ' · ' : null}${i.unit ? `unit ${i.unit}` : null}</div>` : null}` },
  { key: 'value', label: 'Value', render: (i) => html`<${Value} item=${i} />` },
  { key: 'read_at', label: 'Read', class: 'nowrap', render: (i) => (i.read_at
    ? html`<time datetime=${i.read_at} title=${dateTime(i.read_at)}>${relTime(i.read_at)}</time>` : html`<span class="muted">Not read</span>`) },
];

/** The device's cards, two abreast where there is room, then its interface table at full width. */
export function DeviceCards({ data, reload, loading }) {
  const s = useSession();
  // Polling it over time: the Polling tab's dialog, filled in with this device's address and credential; a
  // device asked for by an endpoint's short ID (EP-3) is that endpoint, a name is the name to show.
  const byEndpoint = /^[A-Z]+-\d+$/.test(data.device_name);
  const poll = data.target && data.credential && can(s, 'snmp:write')
    ? `/snmp/polling${qs({ add: '1', target: data.target, port: data.port === 161 ? '' : data.port, credential: data.credential.id,
      name: byEndpoint ? '' : data.device_name, endpoint: byEndpoint ? data.device_name : '' })}` : null;
  const refresh = html`${poll ? html`<a class="btn btn-sm" href=${poll}><${Icon} name="monitors" size=${15} />Poll over time</a>` : null}
    <button type="button" class="btn btn-sm" onClick=${reload} disabled=${loading}>
    <${Icon} name="refresh" size=${15} />${loading ? 'Reading…' : 'Read again'}</button>`;
  return html`
    <div class="snmp-cards">
      <${Card} title=${data.device_name} actions=${refresh}>
        ${data.live.error ? html`<div class="alert alert-warn" role="status">
          <${Icon} name="alert" />
          <div class="alert-body"><strong>The device could not be read</strong><div>${data.live.error}</div></div>
        </div>` : null}
        <dl class="dl">
          <dt>Address</dt><dd class="mono">${data.target ? `${data.target}:${data.port}` : '—'}</dd>
          <dt>Credential</dt><dd>${data.credential
            ? html`<a href=${`/inventory/credentials/${data.credential.short_id}`}>${data.credential.short_id}</a> ${data.credential.name}` : 'None'}</dd>
          <dt>Vendor</dt><dd>${data.vendor.name}${data.vendor.variant ? ` (${data.vendor.variant})` : ''}
            <span class="muted"> · ${VENDOR_FROM[data.vendor.from] ?? data.vendor.from}</span></dd>
          <dt>Read</dt><dd>${data.live.ok ? html`<${Badge} tone="ok">Live<//>` : html`<${Badge} tone=${data.live.attempted ? 'bad' : 'neutral'}>${data.live.attempted ? 'Failed' : 'Not read'}<//>`}</dd>
        </dl>
      <//>
      ${data.cards.map((c) => html`<${Card} key=${c.key} title=${c.title} pad=${false}>
        ${c.error ? html`<div class="alert alert-warn snmp-card-error" role="status"><${Icon} name="alert" /><div class="alert-body">${c.error}</div></div>` : null}
        <${Table} columns=${COLUMNS} rows=${c.items} rowKey="key" caption=${c.title} />
      <//>`)}
    </div>
    ${data.target && data.credential ? html`<${InterfacesCard} device=${data.device_name} />` : null}`;
}

export default function DevicesSection({ query }) {
  const device = (query.device ?? '').trim();
  const [name, setName] = useState(device);
  useEffect(() => setName(device), [device]); // Back and Forward change the device in the query
  const cards = useApi(device ? `/api/snmp/device-cards/${encodeURIComponent(device)}` : null);
  const onSubmit = (e) => {
    e.preventDefault();
    // A new name is a new entry in the history, so Back returns to the device before.
    if (name.trim() === device) cards.reload(); else setQuery({ device: name.trim() }, { replace: false });
  };
  return html`
    <${Card} title="Device">
      <form class="toolbar snmp-device-form" onSubmit=${onSubmit}>
        <div class="field">
          <label for="snmp-device-name">Device name or short ID</label>
          <input id="snmp-device-name" value=${name} onInput=${(e) => setName(e.currentTarget.value)} required
            placeholder="core-sw1 or EP-3" autocapitalize="none" spellcheck="false" aria-describedby="snmp-device-hint" />
          <div class="field-hint" id="snmp-device-hint">An inventory endpoint (its address and credential are used) or a device with saved cards.</div>
        </div>
        <div class="field-actions"><button type="submit" class="btn btn-primary"><${Icon} name="search" size=${16} />Show cards</button></div>
      </form>
    <//>
    ${!device ? null
      : cards.error ? html`<${ErrorState} error=${cards.error} retry=${cards.reload} />`
        : !cards.data ? html`<${Loading} label="Reading the device…" />`
          : html`<${DeviceCards} data=${cards.data} reload=${cards.reload} loading=${cards.loading} />`}`;
}
