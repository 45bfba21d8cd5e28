// The dashboard: monitor counts by the statuses the monitor pages show (failing apart from degraded,
// maintenance as its own: held on purpose, not a problem),
// what needs attention (down, then failing, then degraded), open incidents, the latest monitor events
// (in the event log's words) and the inventory at a glance. Monitor parts update live. With no monitor yet
// it says so and offers the first steps (add a monitor, scan a subnet, a webhook for alerts) instead of
// an all-clear that would mean nothing.
import { api } from '../lib/api.js';
import { dateTime, duration, ms, relTime } from '../lib/format.js';
import { html, useEffect, useState } from '../lib/html.js';
import { useApi } from '../lib/hooks.js';
import { can, useSession } from '../lib/session.js';
import { INVENTORY_TYPES } from '../lib/vocabulary.js';
import { StatusBadge } from '../components/badge.js';
import { reasonHint, reasonText, severity, SHOWN_LABELS, SHOWN_STATUSES, shownStatus, statusCounts, statusLabel } from './monitors/glance.js';
import { eventMark, eventText } from './monitors/event-view.js';
import { EmptyState, ErrorState, Loading } from '../components/empty.js';
import { Icon } from '../components/icons.js';
import { Card, Page } from '../components/page.js';

const TILES = [
  { key: 'total', label: 'Monitors', href: '/monitors' },
  ...SHOWN_STATUSES.map((s) => ({ key: s, label: SHOWN_LABELS[s], href: `/monitors?status=${s}` })),
];

/** What needs attention, worst first (glance.js severity): down, failing, degraded. */
const ATTENTION = new Set(['down', 'failing', 'degraded']);

function Health({ counts }) {
  if (!counts || !counts.total) return null;
  const n = (k, one, many) => `${counts[k]} ${counts[k] === 1 ? one : many}`;
  const [tone, icon, text] = counts.down ? ['bad', 'alert', n('down', 'monitor is down', 'monitors are down')]
    : counts.failing ? ['failing', 'alert', n('failing', 'monitor is failing checks', 'monitors are failing checks')]
      : counts.degraded ? ['warn', 'alert', n('degraded', 'monitor is degraded', 'monitors are degraded')]
        : counts.unknown ? ['neutral', 'clock', n('unknown', 'monitor is waiting for its first check', 'monitors are waiting for their first check')]
          : ['ok', 'check', counts.maintenance ? 'All monitors outside maintenance are up'
            : counts.paused ? 'All active monitors are up' : 'All monitors are up'];
  return html`<div class=${`health health-${tone}`} role="status">
    <${Icon} name=${icon} size=${22} />
    <div><strong>${text}</strong>
      <span class="muted"> · ${counts.up} up of ${counts.total}${counts.maintenance ? `, ${counts.maintenance} in maintenance` : ''}${counts.paused ? `, ${counts.paused} paused` : ''}</span></div>
  </div>`;
}

function Tiles({ counts }) {
  return html`<div class="tiles">
    ${TILES.map((t) => html`<a key=${t.key} href=${t.href} class=${`tile tile-${t.key}`}>
      <span class="tile-label">${t.key !== 'total' ? html`<span class="dot" aria-hidden="true"></span>` : null}${t.label}</span>
      <span class="tile-value">${counts ? counts[t.key] : '–'}</span>
    </a>`)}
  </div>`;
}

/** No monitor yet: nothing is watched, so no all-clear; the first steps this user may take instead. */
function FirstRun() {
  const s = useSession();
  const steps = [
    can(s, 'monitors:write') && html`<a key="m" href="/monitors/new" class="btn btn-primary"><${Icon} name="plus" />Add your first monitor</a>`,
    can(s, 'v1sion:write') && html`<a key="d" href="/discovery" class="btn"><${Icon} name="discovery" />Run a discovery scan</a>`,
    can(s, 'webhooks:write') && html`<a key="w" href="/webhooks" class="btn"><${Icon} name="webhooks" />Send alerts to a webhook</a>`,
  ].filter(Boolean);
  return html`<${Card} class="first-run">
    <${EmptyState} icon="monitors" title="Nothing is being watched yet"
      action=${steps.length ? html`<div class="empty-actions">${steps}</div>` : null}>
      <p>${steps.length
        ? 'Add a monitor for a host or service you care about (ping, HTTP, TCP, DNS…), or scan a subnet to find what is on it and watch what it finds.'
        : 'No monitor has been added yet. An operator or administrator adds them; this page fills in as soon as they do.'}</p>
    <//>
  <//>`;
}

function Attention({ monitors }) {
  const list = monitors.filter((m) => ATTENTION.has(shownStatus(m))).sort((a, b) => severity(a) - severity(b) || a.name.localeCompare(b.name));
  if (!monitors.length) return html`<${EmptyState} icon="monitors" title="No monitors yet"><p>Monitors that are down, failing or degraded show up here.</p><//>`;
  if (!list.length) {
    return html`<${EmptyState} icon="check" title="Nothing needs attention"><p>No monitor is down, failing or degraded.</p><//>`;
  }
  return html`<ul class="rows">
    ${list.map((m) => html`<li key=${m.id} class="row">
      <${StatusBadge} status=${shownStatus(m)} label=${statusLabel(m)} title=${reasonHint(m) ?? undefined} />
      <div class="row-main">
        <a href=${`/monitors/${m.id}`} class="row-title">${m.name}</a>${reasonText(m) ? html` <span class="muted small">· ${reasonText(m)}</span>` : null}
        <div class="row-sub">${m.last_message || m.target}</div>
      </div>
      <div class="row-side">
        ${m.response_time !== null ? html`<div>${ms(m.response_time)}</div>` : null}
        <div class="muted small" title=${dateTime(m.last_check)}>${relTime(m.last_check)}</div>
      </div>
    </li>`)}
  </ul>`;
}

/** The open incident of each down monitor (at most ten, the list is for a glance). */
function useOpenIncidents(monitors, version) {
  const [items, setItems] = useState(null);
  const down = monitors.filter((m) => m.status === 'down').slice(0, 10);
  const key = down.map((m) => m.id).join(',');
  useEffect(() => {
    let live = true;
    Promise.all(down.map((m) => api.get(`/api/monitors/${m.id}/incidents`, { limit: 1 })
      .then((r) => (r.items[0] && !r.items[0].closed_at ? { ...r.items[0], monitor: m } : null), () => null)))
      .then((list) => { if (live) setItems(list.filter(Boolean)); });
    return () => { live = false; };
  }, [key, version]);
  return items;
}

function Incidents({ monitors, version }) {
  const items = useOpenIncidents(monitors, version);
  if (!items) return html`<${Loading} />`;
  if (!items.length) return html`<${EmptyState} icon="check" title="No open incidents" />`;
  return html`<ul class="rows">
    ${items.map((i) => html`<li key=${i.id} class="row">
      <span class="incident-mark" aria-hidden="true"></span>
      <div class="row-main">
        <a href=${`/monitors/${i.monitor.id}`} class="row-title">${i.monitor.name}</a>
        <div class="row-sub">${i.message ?? 'Down'} · ${i.failures} failed ${i.failures === 1 ? 'check' : 'checks'}</div>
      </div>
      <time class="row-side" datetime=${i.opened_at} title=${`Down since ${dateTime(i.opened_at)}`}>Down for ${duration(i.duration)}</time>
    </li>`)}
  </ul>`;
}

function Events({ events }) {
  if (!events.items.length) return html`<${EmptyState} icon="log" title="No events yet"><p>Status changes and incidents show up here.</p><//>`;
  return html`<ul class="rows events">
    ${events.items.map((e) => html`<li key=${e.id} class="row">
      <span class=${`event-mark status-${eventMark(e)}`} aria-hidden="true"></span>
      <div class="row-main">
        <div class="row-title">${e.monitor_id && e.kind !== 'deleted' ? html`<a href=${`/monitors/${e.monitor_id}`}>${e.monitor_name}</a>` : e.monitor_name ?? 'All monitors'}</div>
        <div class="row-sub ev-text">${eventText(e)}</div>
      </div>
      <time class="row-side muted small" datetime=${e.at} title=${dateTime(e.at)}>${relTime(e.at)}</time>
    </li>`)}
  </ul>`;
}

function Inventory({ stats }) {
  return html`<ul class="inv-grid">
    ${INVENTORY_TYPES.map(([k, label]) => html`<li key=${k}><a href=${`/inventory/${k}`} class="inv-item">
      <span class="inv-value">${stats[k] ?? 0}</span><span class="inv-label">${label}</span></a></li>`)}
  </ul>`;
}

export default function DashboardPage() {
  // The counts come from the list, as the monitor list counts them: failing apart from degraded.
  const monitors = useApi('/api/monitors', { live: true, every: 30 });
  // Manual checks do not crowd the recent events.
  const events = useApi('/api/monitors/events', { query: { limit: 10, exclude_kind: 'manual_check' }, live: true });
  const inventory = useApi('/api/brain/stats', { every: 60 });
  const list = monitors.data?.monitors ?? [];
  const counts = monitors.data ? { ...statusCounts(list), total: list.length } : null;

  return html`<${Page} title="Dashboard" subtitle="Monitor states update as they change">
    ${monitors.error ? html`<${ErrorState} error=${monitors.error} retry=${monitors.reload} />` : html`
      ${counts?.total === 0 ? html`<${FirstRun} />` : html`<${Health} counts=${counts} />`}
      <${Tiles} counts=${counts} />`}
    <div class="dash-grid">
      <div class="dash-col">
        <${Card} title="Needs attention" pad=${false}
          actions=${html`<a href="/monitors" class="btn btn-sm btn-ghost">All monitors<${Icon} name="chevron" size=${14} /></a>`}>
          ${monitors.error ? html`<${ErrorState} error=${monitors.error} retry=${monitors.reload} />`
            : monitors.data ? html`<${Attention} monitors=${list} />` : html`<${Loading} />`}
        <//>
        <${Card} title="Open incidents" pad=${false}>
          ${monitors.data ? html`<${Incidents} monitors=${list} version=${events.data?.items[0]?.id ?? 0} />` : html`<${Loading} />`}
        <//>
      </div>
      <div class="dash-col">
        <${Card} title="Recent events" pad=${false}>
          ${events.error ? html`<${ErrorState} error=${events.error} retry=${events.reload} />`
            : events.data ? html`<${Events} events=${events.data} />` : html`<${Loading} />`}
        <//>
        <${Card} title="Inventory"
          actions=${html`<a href="/inventory" class="btn btn-sm btn-ghost">Open<${Icon} name="chevron" size=${14} /></a>`}>
          ${inventory.error ? html`<${ErrorState} error=${inventory.error} retry=${inventory.reload} />`
            : inventory.data ? html`<${Inventory} stats=${inventory.data} />` : html`<${Loading} />`}
        <//>
      </div>
    </div>
  <//>`;
}
