// One monitor: its status ("Failing 1 of 3" its own, apart from "Degraded · Slow"; "Maintenance until
// 14:00" with its window and what the checks say meanwhile) and the open incident, uptime over 24 hours, 7 and 30 days (time-weighted), response times, its newest checks as a
// beat bar (its caption counts the ticks drawn) and the last 24 hours as a time-weighted status bar (each
// hour's share of up and down time on hover or focus), the inventory records it is linked to,
// the chart (the response time, or a measurement its check type declares), incidents, check results and
// events, who was told of its alerts (alerts-card.js), and its configuration. Check now, pause or resume,
// edit and delete; maintenance for 30 min to 4 hours in one click, or the end of the window holding it.
// Follows state changes without a reload.
import { dateTime, duration, ms, relTime } from '../../lib/format.js';
import { html, useEffect, useRef, useState } from '../../lib/html.js';
import { LINK_RELATIONS } from '../../lib/vocabulary.js';
import { useApi } from '../../lib/hooks.js';
import { navigate } from '../../lib/router.js';
import { can, useSession } from '../../lib/session.js';
import { toast } from '../../lib/toast.js';
import { Badge, StatusBadge } from '../../components/badge.js';
import { Crumbs, StatTiles } from '../../components/controls.js';
import { EmptyState, ErrorState, Loading } from '../../components/empty.js';
import { XIcon } from '../../components/extra-icons.js';
import { Icon } from '../../components/icons.js';
import { Card, Page } from '../../components/page.js';
import { BeatBar, StatusBar } from '../../components/status-bar.js';
import { checkNow, deleteMonitor, endMaintenance, startMaintenance, togglePause } from './actions.js';
import { EventsCard, IncidentsCard, ResultsCard } from './history-cards.js';
import { AlertsCard } from './alerts-card.js';
import { describeValues } from '../../lib/schema-form.js';
import { typeLabel, useCheckTypes } from './check-types.js';
import { QUICK_MINUTES, quickLabel } from './maintenance-model.js';
import { applies } from './model.js';
import { PathCard } from './path-card.js';
import { ResponseCard } from './response-card.js';
import './section.js';
import { beatSummary, checkedLabel, describeHour, hourSegments, maintenanceUntil, reasonHint, reasonText, resultBeats, SHOWN_TEXT, shownStatus,
  statusLabel, summarizeHours, uptimeText } from './glance.js';

/**
 * Maintenance in one click: for 30 min to 4 hours (a one-off window for this monitor alone), or, while a
 * window holds it, its end (for every monitor that window holds).
 */
function MaintenanceActions({ m, busy, act }) {
  if (m.maintenance) {
    return html`<div class="hero-maint"><button type="button" class="btn" onClick=${act('maintenance', endMaintenance)} disabled=${!!busy}
      title=${`Ends ${m.maintenance.name} now, for every monitor it holds`}><${XIcon} name="play" size=${16} />End maintenance</button></div>`;
  }
  return html`<div class="hero-maint" role="group" aria-label="Start maintenance">
    <span class="hero-maint-label"><${Icon} name="wrench" size=${16} />Maintenance for</span>
    ${QUICK_MINUTES.map((min) => html`<button key=${min} type="button" class="btn btn-sm" disabled=${!!busy}
      aria-label=${`Maintenance for ${quickLabel(min)}`} onClick=${act('maintenance', (x) => startMaintenance(x, min))}>${quickLabel(min)}</button>`)}
  </div>`;
}

function Hero({ m, writable, busy, act }) {
  const inc = m.stats.current_incident;
  const shown = shownStatus(m);
  const held = shown === 'maintenance';
  const said = held ? html`<a href="/monitors/maintenance">${m.maintenance.name}</a> holds its alerts` : reasonHint(m) ?? SHOWN_TEXT[shown] ?? '';
  return html`<section class=${`mon-hero hero-${shown}`} aria-label="Current status">
    <div class="hero-main">
      <span class="hero-dot" aria-hidden="true"></span>
      <div class="hero-text">
        <div class="hero-status"><${StatusBadge} status=${shown} label=${statusLabel(m)} />
          ${held ? html`<span class="mon-until">${maintenanceUntil(m)}</span>` : null}
          ${reasonText(m) ? html`<span class=${`mon-reason hero-reason reason-${m.degraded_reason}`}>${reasonText(m)}</span>` : null}
          <span>${said}</span></div>
        <div class="hero-msg">${held && m.status !== 'unknown' ? `Checks still run: ${checkedLabel(m)} · ` : ''}${m.last_message ?? 'No check has finished yet.'}</div>
      </div>
    </div>
    <dl class="hero-facts">
      <div><dt>Last check</dt><dd title=${dateTime(m.last_check)}>${m.last_check ? relTime(m.last_check) : 'Not yet'}</dd></div>
      <div><dt>Checked every</dt><dd>${duration(m.interval)}</dd></div>
      ${inc ? html`<div><dt>Down for</dt><dd class="hero-down">${duration(inc.duration)}</dd></div>` : null}
    </dl>
    ${writable ? html`<${MaintenanceActions} m=${m} busy=${busy} act=${act} />` : null}
  </section>`;
}

function Tiles({ m }) {
  const s = m.stats;
  const cert = s.cert_days_left;
  const tiles = [
    { label: 'Response', value: ms(m.response_time), sub: 'Last check' },
    { label: 'Average', value: ms(s.avg_response_ms_24h), sub: '24 hours' },
    { label: '95th percentile', value: ms(s.p95_response_ms_24h), sub: '24 hours' },
    { label: 'Uptime', value: uptimeText(s.uptime_24h), sub: '24 hours' },
    { label: 'Uptime', value: uptimeText(s.uptime_7d), sub: '7 days' },
    { label: 'Uptime', value: uptimeText(s.uptime_30d), sub: '30 days' },
  ];
  if (cert !== null && cert !== undefined) {
    tiles.push({ label: 'Certificate', value: `${cert} ${Math.abs(cert) === 1 ? 'day' : 'days'}`, sub: cert < 0 ? 'since it expired' : 'until it expires',
      tone: cert < 0 ? 'bad' : cert < 14 ? 'warn' : undefined });
  }
  return html`<${StatTiles} tiles=${tiles} />`;
}

/** Calls `reload` whenever `value` changes after the first render (a new check: fresher figures). */
function useReloadOn(value, reload) {
  const last = useRef(value);
  useEffect(() => {
    if (last.current === value) return;
    last.current = value;
    reload();
  }, [value]);
}

function Bar({ m }) {
  // Time is credited check by check: refreshed with every check the page sees, and polled about as often.
  const t = useApi('/api/monitors/timeline', { query: { ids: m.id }, live: true, every: Math.min(60, Math.max(10, m.interval)) });
  useReloadOn(m.last_check, t.reload);
  if (t.error) return html`<${ErrorState} error=${t.error} retry=${t.reload} />`;
  const hours = t.data?.monitors[0];
  if (!hours) return html`<${Loading} />`;
  const segments = hourSegments(hours.segments, t.data.from, t.data.step);
  const summary = summarizeHours(segments);
  const maintenance = segments.some((x) => x.parts.maintenance > 0);
  return html`<${StatusBar} segments=${segments} describe=${describeHour} label=${summary} axis=${['24 hours ago', 'now']} />
    <p class="small muted bar-note">${summary}. Uptime ${uptimeText(m.stats.uptime_24h)} of the time${maintenance ? ' outside maintenance' : ''}; ${m.stats.checks_24h} scheduled ${m.stats.checks_24h === 1 ? 'check' : 'checks'} (checks by hand count in no figure).</p>`;
}

const BEATS = 60;

/** The newest checks, one tick each (Uptime Kuma's heartbeat bar); the caption counts exactly the ticks drawn. */
function Beats({ m }) {
  const r = useApi(`/api/monitors/${m.id}/results`, { query: { limit: BEATS }, live: true, every: 30 });
  useReloadOn(m.last_check, r.reload);
  const items = r.data?.items;
  if (!items) return r.error ? html`<${ErrorState} error=${r.error} retry=${r.reload} />` : html`<${Loading} />`;
  const beats = resultBeats(items);
  const summary = beatSummary(beats);
  return html`<div class="beat-card"><${BeatBar} slots=${BEATS} beats=${beats} label=${summary} /></div>
    <p class="small muted bar-note">${beats.length ? `${summary}. Newest on the right; outlined ticks were checked by hand.` : 'No checks yet.'}</p>`;
}

/** The inventory records the monitor is linked to (read-only; links are made on the record's page). */
function Inventory({ m }) {
  const links = useApi(`/api/brain/links/monitors/${m.id}`, { live: true });
  if (links.error) return html`<${ErrorState} error=${links.error} retry=${links.reload} />`;
  if (!links.data) return html`<${Loading} />`;
  const order = { applications: 0, endpoints: 1 };
  const rows = links.data.items.map((l) => {
    const mine = l.from.type === 'monitors' && l.from.id === m.id;
    const other = mine ? l.to : l.from;
    const words = LINK_RELATIONS[l.relation] ?? [l.relation, l.relation];
    return { id: l.id, other, relation: mine ? words[0] : words[1] };
  }).filter((x) => x.other.type !== 'monitors').sort((a, b) => (order[a.other.type] ?? 9) - (order[b.other.type] ?? 9));
  if (!rows.length) return html`<p class="muted small">Not linked to an application or endpoint. Link it from the record's page in the inventory.</p>`;
  const kind = { applications: 'Application', endpoints: 'Endpoint' };
  return html`<ul class="rows">${rows.map((x) => html`<li key=${x.id} class="row">
    <span class="muted small">${kind[x.other.type] ?? x.other.type}</span>
    <a href=${`/inventory/${x.other.type}/${encodeURIComponent(x.other.short_id ?? x.other.id)}`}>${x.other.name ?? x.other.short_id ?? x.other.id}</a>
    ${x.other.short_id ? html`<span class="mono small muted">${x.other.short_id}</span>` : null}
    <span class="small muted">${x.relation}</span></li>`)}</ul>`;
}

/** The monitor's configuration; its settings described by its check type's schema (once the types are loaded). */
function Config({ m, monitors }) {
  const name = (id) => monitors?.find((x) => x.id === id)?.name ?? id;
  const types = useCheckTypes().data;
  const type = types?.find((t) => t.type === m.check_type);
  const rows = [
    ['Check', html`<${Badge} tone="accent">${typeLabel(types, m.check_type)}<//>`],
    ['Target', html`<span class="mono">${m.target}</span>`],
    ['Interval', duration(m.interval)],
    ['Timeout', duration(m.timeout)],
    ['Failures before down', `${m.failure_threshold} failed ${m.failure_threshold === 1 ? 'check' : 'checks'} in a row`],
    ['Degraded above', m.degraded_ms === null ? '—' : ms(m.degraded_ms)],
  ];
  if (applies(type, 'max_loss_pct')) rows.push(['Degraded above loss', m.max_loss_pct === null ? 'any loss' : `${m.max_loss_pct} %`]);
  if (type) rows.push(...describeValues(type.settings, m.settings));
  rows.push(['Tags', m.tags.length ? html`<div class="chips">${m.tags.map((t) => html`<a key=${t} href=${`/monitors?tag=${encodeURIComponent(t)}`} class="badge tone-neutral">${t}</a>`)}</div>` : '—']);
  rows.push(['Parents', m.parents.length ? html`<div class="chips">${m.parents.map((p) => html`<a key=${p} href=${`/monitors/${p}`} class="badge tone-info">${name(p)}</a>`)}</div>` : '—']);
  rows.push(['Created', dateTime(m.created_at)], ['Changed', dateTime(m.updated_at)]);
  return html`<${Card} title="Configuration"><dl class="dl">${rows.map(([k, v]) => html`<dt key=${`${k}-t`}>${k}</dt><dd key=${`${k}-d`}>${v}</dd>`)}</dl><//>`;
}

export default function MonitorDetailPage({ params, query }) {
  const s = useSession();
  const writable = can(s, 'monitors:write');
  const r = useApi(`/api/monitors/${encodeURIComponent(params.id)}`, { live: true, every: 15 });
  const monitors = useApi('/api/monitors');
  const [busy, setBusy] = useState(null);
  const m = r.data;

  const act = (what, fn) => async () => {
    setBusy(what);
    try {
      const done = await fn(m);
      if (what === 'delete') { if (done) navigate('/monitors'); return; }
      r.reload();
    } catch (e) { toast.error(e); } finally { setBusy(null); }
  };

  if (r.error && !m) {
    return html`<${Page} title="Monitor">${r.error.status === 404
      ? html`<${Card}><${EmptyState} icon="search" title="This monitor does not exist" action=${html`<a class="btn btn-primary" href="/monitors">All monitors</a>`}>
          <p>It may have been deleted.</p><//><//>`
      : html`<${ErrorState} error=${r.error} retry=${r.reload} />`}<//>`;
  }
  if (!m) return html`<${Page} title="Monitor"><${Card}><${Loading} /><//><//>`;

  const actions = writable ? html`
    <button type="button" class="btn" onClick=${act('check', checkNow)} disabled=${!!busy}>
      <${Icon} name="refresh" size=${16} class=${busy === 'check' ? 'spin' : ''} />${busy === 'check' ? 'Checking…' : 'Check now'}</button>
    <button type="button" class="btn" onClick=${act('pause', togglePause)} disabled=${!!busy}>
      <${XIcon} name=${m.status === 'paused' ? 'play' : 'pause'} size=${16} />${m.status === 'paused' ? 'Resume' : 'Pause'}</button>
    <a class="btn" href=${`/monitors/${m.id}/edit`}><${Icon} name="edit" size=${16} />Edit</a>
    <button type="button" class="btn btn-icon" onClick=${act('delete', deleteMonitor)} disabled=${!!busy} aria-label=${`Delete ${m.name}`} title="Delete">
      <${Icon} name="trash" size=${16} /></button>` : null;

  const subtitle = html`<${Crumbs} items=${[{ href: '/monitors', label: 'Monitors' }, { label: m.target, mono: true }]} />`;
  return html`<${Page} title=${m.name} subtitle=${subtitle} actions=${actions}>
    <${Hero} m=${m} writable=${writable} busy=${busy} act=${act} />
    <${Tiles} m=${m} />
    <${Card} title="Recent checks"><${Beats} m=${m} /><//>
    <${Card} title="Last 24 hours"><${Bar} m=${m} /><//>
    ${can(s, 'brain:read') ? html`<${Card} title="Inventory"><${Inventory} m=${m} /><//>` : null}
    <${ResponseCard} monitor=${m} query=${query} />
    <${PathCard} monitor=${m} />
    <div class="mon-grid">
      <div class="mon-col">
        <${IncidentsCard} id=${m.id} query=${query} />
        <${ResultsCard} id=${m.id} query=${query} interval=${m.interval} />
      </div>
      <div class="mon-col">
        <${EventsCard} id=${m.id} />
        ${can(s, 'webhooks:read') ? html`<${AlertsCard} id=${m.id} />` : null}
        <${Config} m=${m} monitors=${monitors.data?.monitors} />
      </div>
    </div>
  <//>`;
}
