// The panel beside the topology map: what the chosen node is (its inventory record, identification from
// the scan it came from, addresses, MAC; whether the host answers and how its services fare, from the
// monitors on its addresses), its neighbours on the map with both ports, its interfaces
// and what SSH enrichment learned, and links to its inventory record, its SNMP cards and its monitors;
// or the chosen edge with both ends. Manual nodes and edges (and scanned nodes, with a warning) can be
// removed from here.
import { dateTime, relTime } from '../../lib/format.js';
import { html } from '../../lib/html.js';
import { DEVICE_KINDS, LINK_SOURCES, MATCH_REASONS, NODE_SCAN_STATES } from '../../lib/vocabulary.js';
import { Badge } from '../../components/badge.js';
import { Icon } from '../../components/icons.js';
import { deviceOfNode, neighboursOf, serviceBadge, servicesText } from './map-model.js';
import { identifiedBy, identifiedByLines } from './model.js';
import { Addresses, KindBadge, LinkSource, none, RecordRef } from './section.js';

const MARKS = {
  new: { label: 'New', tone: 'info' },
  vanished: { label: 'Vanished', tone: 'warn' },
};

const REACH = {
  reachable: { label: 'Answers', tone: 'ok', hint: 'A monitor on its addresses answered its last check' },
  unreachable: { label: 'No answer', tone: 'bad', hint: 'Its ping monitor is down and no other monitor answered' },
};

/** Whether the host answers, from its monitors (not from one service failing). */
export function ReachBadge({ status }) {
  const r = REACH[status?.reachability];
  if (!r) return html`<span class="muted" title=${status ? 'No ping monitor, and no monitor on it answered' : 'No monitor watches its addresses'}>${status ? 'Unknown' : 'No monitor'}</span>`;
  return html`<${Badge} tone=${r.tone} title=${r.hint}>${r.label}<//>`;
}

/** The services on a node: how many are down, failing, degraded or in maintenance of how many. */
export function ServicesCell({ status }) {
  const b = serviceBadge(status);
  if (!b) return html`<span class="muted">None</span>`;
  const text = servicesText(status);
  const tone = { down: 'bad', failing: 'failing', degraded: 'warn', maintenance: 'maintenance' }[b.tone];
  return b.count ? html`<${Badge} tone=${tone}>${text}<//>` : html`<span>${text}</span>`;
}


function Row({ label, children }) {
  return html`<dt>${label}</dt><dd>${children ?? none}</dd>`;
}

/** Identification: the scan's view of the device (vendor, model, serial, sysName) where the scan is kept. */
function Identification({ node, device, host }) {
  const snmp = host?.snmp;
  return html`<dl class="dl map-dl">
    <${Row} label="Kind"><${KindBadge} kind=${node.kind} /><//>
    <${Row} label="Vendor and model">${device && (device.vendor || device.model) ? [device.vendor, device.model].filter(Boolean).join(' ') : null}<//>
    <${Row} label="OS">${snmp?.os ? [snmp.os, snmp.os_version].filter(Boolean).join(' ') : null}<//>
    <${Row} label="Serial">${device?.serial ? html`<span class="mono">${device.serial}</span>` : null}<//>
    <${Row} label="sysName">${device?.sys_name ?? null}<//>
    <${Row} label="Addresses"><${Addresses} list=${node.addresses} max=${6} /><//>
    <${Row} label="MAC">${node.mac ? html`<span class="mono">${node.mac}</span>` : null}<//>
    <${Row} label="Vendor profile">${node.vendor_key ? html`<span class="mono small">${node.vendor_key}</span>` : null}<//>
    <${Row} label="Identified by">${identifiedBy(snmp) ? html`<details class="disc-evidence">
      <summary>${identifiedBy(snmp)}</summary>
      <ul class="small">${identifiedByLines(snmp).map((l) => html`<li key=${l}>${l}</li>`)}</ul></details>` : null}<//>
    <${Row} label="Node id"><span class="mono small">${node.id}</span><//>
  </dl>`;
}

function Neighbours({ session, node, onSelect }) {
  const list = neighboursOf(session, node.id);
  if (!list.length) return html`<p class="muted small">No edge on the map.</p>`;
  return html`<ul class="map-neigh">${list.map((n) => html`<li key=${`${n.source}:${n.edge}`}>
    <button type="button" class="map-linkbtn" onClick=${() => onSelect({ type: 'node', id: n.node })}>${n.label}</button>
    ${n.source === 'route' ? html`<span class="muted small"> routes ${n.destinations.join(', ')}</span>`
      : html`<span class="small"> ${n.port ? html`<span class="mono">${n.port}</span>` : html`<span class="muted">?</span>`}
        <span aria-hidden="true">↔</span><span class="sr-only">to</span>
        ${n.remote_port ? html`<span class="mono">${n.remote_port}</span>` : html`<span class="muted">?</span>`}</span>`}
    <${LinkSource} source=${n.source === 'route' ? 'manual' : n.source} />
  </li>`)}</ul>`;
}

function Interfaces({ facts }) {
  const list = facts?.interfaces ?? [];
  if (!list.length) return html`<p class="muted small">${facts ? 'SSH enrichment listed no interfaces.' : 'Not enriched over SSH: the SNMP cards show the interfaces of a linked device.'}</p>`;
  return html`<ul class="map-ifaces">${list.slice(0, 40).map((i) => html`<li key=${i.name}>
    <span class="mono">${i.name}</span>
    ${i.state || i.oper_status ? html` <span class="muted small">${i.state ?? i.oper_status}</span>` : null}
    ${i.addresses?.length ? html` <span class="mono small">${i.addresses.join(', ')}</span>` : null}</li>`)}
    ${list.length > 40 ? html`<li class="muted small">and ${list.length - 40} more in the facts</li>` : null}</ul>`;
}

function Enrichment({ facts, onFacts }) {
  if (!facts) return html`<p class="muted small">Not enriched over SSH yet (the session's page starts an enrichment).</p>`;
  const model = [facts.vendor, facts.model].filter(Boolean).join(' ');
  return html`<div>
    <dl class="dl map-dl">
      <${Row} label="Host name">${facts.hostname ? html`<span class="mono">${facts.hostname}</span>` : null}<//>
      <${Row} label="OS">${[facts.os, facts.os_version].filter(Boolean).join(' ') || null}<//>
      <${Row} label="Model">${model || null}<//>
      <${Row} label="Learned">${facts.collected_at ? html`<time datetime=${facts.collected_at} title=${dateTime(facts.collected_at)}>${relTime(facts.collected_at)}</time>` : null}<//>
    </dl>
    <button type="button" class="btn btn-sm" onClick=${onFacts}>All facts</button>
  </div>`;
}

/**
 * The chosen node. `status` nodeStatus() | null; `record` the matches item of the record that stands for
 * it (undefined: none, or the inventory may not be read); `result` the session's kept scan result (or null).
 */
export function NodeDetails({ session, node, status, record, mark, result, writable, onSelect, onRemove, onFacts, onClose }) {
  const device = deviceOfNode(result, node);
  const host = result?.hosts?.find((h) => node.addresses.includes(h.ip)) ?? null;
  const inv = node.inventory;
  const first = node.addresses[0];
  return html`<section class="map-panel" aria-labelledby="map-panel-title">
    <header class="map-panel-head">
      <h2 id="map-panel-title" class="map-panel-title">${record?.inventory?.name ?? node.label}</h2>
      <button type="button" class="btn btn-icon btn-sm" onClick=${onClose} aria-label="Close the details" title="Close"><${Icon} name="close" size=${15} /></button>
    </header>
    <div class="chips map-panel-chips">
      <${ReachBadge} status=${status} />
      ${serviceBadge(status)?.count ? html`<${ServicesCell} status=${status} />` : null}
      ${mark ? html`<${Badge} tone=${MARKS[mark].tone} title=${mark === 'vanished' ? NODE_SCAN_STATES.missing.hint : NODE_SCAN_STATES.new.hint}>${MARKS[mark].label}<//>` : null}
      ${node.manual ? html`<${Badge} tone="accent" title="Added by a person: every merge keeps it">Manual<//>` : null}
    </div>
    <h3 class="map-h">Identification</h3>
    <${Identification} node=${node} device=${device} host=${host} />
    <h3 class="map-h">Monitors</h3>
    ${status ? html`<dl class="dl map-dl">
        <${Row} label="Host"><${ReachBadge} status=${status} /><//>
        <${Row} label="Services">${servicesText(status) ?? 'None (only ping watches it)'}<//>
      </dl>` : null}
    <p class="small">${status ? `${status.monitors} ${status.monitors === 1 ? 'monitor watches' : 'monitors watch'} its addresses.` : 'No monitor watches its addresses.'}
      ${first ? html` <a href=${`/monitors?q=${encodeURIComponent(first)}`}>Monitors of ${first}</a>` : null}</p>
    <h3 class="map-h">Neighbours</h3>
    <${Neighbours} session=${session} node=${node} onSelect=${onSelect} />
    <h3 class="map-h">Interfaces</h3>
    <${Interfaces} facts=${node.facts} />
    <h3 class="map-h">SSH enrichment</h3>
    <${Enrichment} facts=${node.facts} onFacts=${() => onFacts(node)} />
    <h3 class="map-h">Inventory</h3>
    ${record ? html`<p class="small">${record.linked ? 'Linked to' : 'Matches'} <${RecordRef} record=${record.inventory} />${record.linked ? null
      : html`<span class="muted"> (by ${MATCH_REASONS[record.reason]?.toLowerCase() ?? record.reason}, not linked)</span>`}</p>` : null}
    <div class="map-links">
      ${inv ? html`<a class="btn btn-sm" href=${`/inventory/${inv.type}/${encodeURIComponent(inv.id)}`}><${Icon} name="inventory" size=${15} />${inv.type === 'assets' ? 'Asset' : 'Endpoint'} in the inventory</a>
          ${inv.type === 'endpoints' ? html`<a class="btn btn-sm" href=${`/snmp/devices?device=${encodeURIComponent(inv.id)}`}><${Icon} name="snmp" size=${15} />SNMP cards</a>` : null}`
        : html`<p class="muted small">Not linked to the inventory. <a href=${`/discovery/sessions/${session.id}/inventory`}>Compare the session with the inventory</a> to create or link it; its SNMP cards come with the record.</p>`}
    </div>
    ${writable ? html`<div class="map-panel-foot">
      <button type="button" class="btn btn-sm btn-danger-ghost" onClick=${() => onRemove(node)}><${Icon} name="trash" size=${15} />Remove from the map</button>
    </div>` : null}
  </section>`;
}

/** A vanished device of the compared scan: what it was. */
export function GhostDetails({ ghost, compare, onClose }) {
  return html`<section class="map-panel" aria-labelledby="map-panel-title">
    <header class="map-panel-head">
      <h2 id="map-panel-title" class="map-panel-title">${ghost.label}</h2>
      <button type="button" class="btn btn-icon btn-sm" onClick=${onClose} aria-label="Close the details" title="Close"><${Icon} name="close" size=${15} /></button>
    </header>
    <div class="chips map-panel-chips"><${Badge} tone="warn">Vanished<//></div>
    <p class="small">The scan of <time datetime=${compare.started_at} title=${dateTime(compare.started_at)}>${relTime(compare.started_at)}</time>
      saw this device; the session does not have it.</p>
    <dl class="dl map-dl">
      <${Row} label="Kind">${DEVICE_KINDS[ghost.kind] ?? ghost.kind}<//>
      <${Row} label="Vendor and model">${[ghost.vendor, ghost.model].filter(Boolean).join(' ') || null}<//>
      <${Row} label="Addresses"><${Addresses} list=${ghost.addresses} max=${6} /><//>
      <${Row} label="MAC">${ghost.mac ? html`<span class="mono">${ghost.mac}</span>` : null}<//>
    </dl>
  </section>`;
}

/** The chosen edge: both ends with their ports, where it was seen; a manual one can be removed. */
export function EdgeDetails({ session, edgeId, writable, onSelect, onRemove, onClose }) {
  const labels = new Map(session.nodes.map((n) => [n.id, n.label]));
  const l3 = edgeId.startsWith('l3:') ? (session.l3_edges ?? []).find((e) => `l3:${e.id}` === edgeId) : null;
  const e = l3 ? null : session.edges.find((x) => `edge:${x.id}` === edgeId);
  if (!e && !l3) return null;
  const end = (id, port) => html`<button type="button" class="map-linkbtn" onClick=${() => onSelect({ type: 'node', id })}>${labels.get(id) ?? id}</button>
    ${port ? html` <span class="mono small">${port}</span>` : null}`;
  return html`<section class="map-panel" aria-labelledby="map-panel-title">
    <header class="map-panel-head">
      <h2 id="map-panel-title" class="map-panel-title">${l3 ? 'Layer-3 edge' : `Edge ${e.id}`}</h2>
      <button type="button" class="btn btn-icon btn-sm" onClick=${onClose} aria-label="Close the details" title="Close"><${Icon} name="close" size=${15} /></button>
    </header>
    ${l3 ? html`<dl class="dl map-dl">
        <${Row} label="From">${end(l3.from)}<//>
        <${Row} label="Through">${end(l3.to)}<//>
        <${Row} label="Destinations"><span class="mono small">${l3.destinations.join(', ')}</span><//>
        <${Row} label="Routes"><a href=${`/discovery/routes?session_id=${session.id}`}>${l3.route_ids.length} documented</a><//>
      </dl>`
      : html`<dl class="dl map-dl">
        <${Row} label="From">${end(e.from, e.from_port)}<//>
        <${Row} label="To">${end(e.to, e.to_port)}<//>
        <${Row} label="Seen in"><${LinkSource} source=${e.source} /> <span class="muted small">${LINK_SOURCES[e.source]?.hint}</span><//>
      </dl>
      ${writable && e.source === 'manual' ? html`<div class="map-panel-foot">
        <button type="button" class="btn btn-sm btn-danger-ghost" onClick=${() => onRemove(e)}><${Icon} name="trash" size=${15} />Remove the edge</button></div>` : null}`}
  </section>`;
}
