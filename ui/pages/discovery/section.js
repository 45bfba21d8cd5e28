// What the discovery pages share: the section's stylesheet (awaited, so a page renders styled), the
// tabs between scanning, the devices known over time, the saved sessions, scheduled scans, SSH targets and
// routes, a part of a page loaded on first use (Lazy), and the small cells the tables have in common.
import { html, useEffect, useState } from '../../lib/html.js';
import { loadStylesheet } from '../../lib/stylesheet.js';
import { DEVICE_KINDS, LINK_SOURCES, ROUTE_SOURCES, SCAN_SOURCES } from '../../lib/vocabulary.js';
import { Badge } from '../../components/badge.js';
import { ErrorState, Loading } from '../../components/empty.js';
import { Tabs } from '../../components/tabs.js';
// The shared controls bring the search box, stat tiles, crumbs and layout helpers (grid-3, …).
import '../../components/controls.js';
import { credentialLabel, PORT_NAMES } from './model.js';

await loadStylesheet(new URL('./discovery.css', import.meta.url).pathname);

export function DiscoveryTabs({ active }) {
  return html`<${Tabs} label="Discovery views" active=${active}
    tabs=${[{ href: '/discovery', label: 'Scan', icon: 'discovery' }, { href: '/discovery/devices', label: 'Known devices', icon: 'search' },
      { href: '/discovery/sessions', label: 'Sessions', icon: 'log' }, { href: '/discovery/profiles', label: 'Scheduled', icon: 'clock' },
      { href: '/discovery/ssh-targets', label: 'SSH targets', icon: 'key' }, { href: '/discovery/routes', label: 'Routes', icon: 'send' }]} />`;
}

/**
 * A part of a page whose module loads on first use (`load` returns the import; `name` is its export), so
 * it weighs nothing until someone opens it. `props` go to the component.
 */
export function Lazy({ load, name, props, label = 'Loading…' }) {
  const [mod, setMod] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    let live = true;
    load().then((m) => { if (live) setMod(m); }, (e) => { if (live) setError({ detail: `This part of the page could not be loaded: ${e.message}` }); });
    return () => { live = false; };
  }, []);
  if (error) return html`<${ErrorState} error=${error} />`;
  if (!mod) return html`<${Loading} label=${label} />`;
  const C = mod[name];
  return html`<${C} ...${props} />`;
}

// ---- cells ---------------------------------------------------------------------------------------------

export const none = html`<span class="muted">—</span>`;

/** A device or node kind. Unknown is quiet; infrastructure stands out. */
export function KindBadge({ kind }) {
  const tone = ['router', 'switch', 'firewall', 'access_point'].includes(kind) ? 'accent' : kind === 'server' ? 'info' : 'neutral';
  return html`<${Badge} tone=${tone}>${DEVICE_KINDS[kind] ?? kind ?? 'Unknown'}<//>`;
}

/** How a host was found: one chip per source, with what it means as the tooltip. */
export function SourceChips({ sources }) {
  if (!sources?.length) return none;
  const order = Object.keys(SCAN_SOURCES);
  const sorted = [...sources].sort((a, b) => order.indexOf(a) - order.indexOf(b));
  return html`<span class="chips">${sorted.map((s) => html`<span key=${s} class=${`disc-src disc-src-${s}`}
    title=${SCAN_SOURCES[s]?.hint}>${SCAN_SOURCES[s]?.label ?? s}</span>`)}</span>`;
}

/** Open TCP ports, each with its usual service as the tooltip. */
export function PortChips({ ports }) {
  if (!ports?.length) return none;
  return html`<span class="chips">${ports.map((p) => html`<span key=${p} class="disc-port" title=${PORT_NAMES[p]}>${p}</span>`)}</span>`;
}

/** A link's source (lldp, cdp, fdb, manual). */
export function LinkSource({ source }) {
  const s = LINK_SOURCES[source];
  return html`<${Badge} tone=${source === 'manual' ? 'accent' : source === 'fdb' ? 'neutral' : 'info'} title=${s?.hint}>${s?.label ?? source}<//>`;
}

/** The credential an agent answered to, by reference (a link to it when it is stored). */
export function CredentialRef({ credential }) {
  const c = credentialLabel(credential);
  if (!c) return none;
  return html`<span class="disc-cred">${c.href ? html`<a href=${c.href}><span class="disc-sid">${c.sid}</span> ${c.text}</a>` : c.text}
    ${c.version ? html` <span class="muted small">${c.version}</span>` : null}</span>`;
}

/** Addresses, one per line; beyond `max` a count of the rest (all of them in the tooltip). */
export function Addresses({ list, max = 3 }) {
  if (!list?.length) return none;
  const more = list.length - max;
  return html`<div class="disc-addrs" title=${more > 0 ? list.join(', ') : undefined}>
    ${list.slice(0, max).map((a) => html`<div key=${a} class="mono">${a}</div>`)}
    ${more > 0 ? html`<div class="cell-sub">and ${more} more</div>` : null}
  </div>`;
}

/** Where a documented route came from (manual, snmp, ssh). */
export function RouteSource({ source }) {
  const s = ROUTE_SOURCES[source];
  return html`<${Badge} tone=${source === 'manual' ? 'accent' : 'info'} title=${s?.hint}>${s?.label ?? source}<//>`;
}

/** An inventory record as "EP-3 core-sw", linked to its page. */
export function RecordRef({ record }) {
  if (!record) return none;
  const type = record.type ?? 'endpoints';
  return html`<a class="disc-rec" href=${`/inventory/${type}/${encodeURIComponent(record.short_id ?? record.id)}`}>${record.short_id
    ? html`<span class="disc-sid">${record.short_id}</span> ` : null}${record.name ?? record.id}</a>`;
}

/** A route's device: a session's node (linked to the session) or an inventory endpoint; marked when deleted since. */
export function RouteDevice({ device }) {
  if (!device) return none;
  if (device.type === 'session_node') {
    return html`<div class="disc-name-cell"><a href=${`/discovery/sessions/${device.session_id}`}>${device.label ?? device.node_id}</a>
      <div class="cell-sub">${device.label === null ? html`<span class="disc-gone">Node removed since</span>` : 'Session node'}</div></div>`;
  }
  return html`<div class="disc-name-cell">${device.name === null
    ? html`<span class="mono small">${device.short_id ?? device.id.slice(0, 8)}</span><div class="cell-sub"><span class="disc-gone">Endpoint deleted since</span></div>`
    : html`<${RecordRef} record=${{ type: 'endpoints', id: device.id, short_id: device.short_id, name: device.name }} /><div class="cell-sub">Endpoint</div>`}</div>`;
}

/** A MAC address with its vendor underneath. */
export function MacCell({ mac, vendor }) {
  if (!mac) return none;
  return html`<div><span class="mono">${mac}</span>${vendor ? html`<div class="cell-sub">${vendor}</div>` : null}</div>`;
}
