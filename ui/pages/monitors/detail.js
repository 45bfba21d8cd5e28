// One monitor: its status (and the open incident), uptime over 24 hours, 7 and 30 days, response
// times, the last 24 hours as a status bar, the response-time chart, incidents, check results and
// events, and its configuration. Check now, pause or resume, edit and delete. Follows state changes
// without a reload.
import { dateTime, duration, ms, pct, relTime } from '../../lib/format.js';
import { html, useState } from '../../lib/html.js';
import { STATUS_TEXT } from '../../lib/vocabulary.js';
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
import { StatusBar } from '../../components/status-bar.js';
import { checkNow, deleteMonitor, togglePause } from './actions.js';
import { EventsCard, IncidentsCard, ResultsCard } from './history-cards.js';
import { checkType } from './model.js';
import { ResponseCard } from './response-card.js';
import './section.js';
import { useStatusEvents } from './status-events.js';
import { barWindow, describeParts, statusChanges, statusSegments, summarize } from './timeline.js';

function Hero({ m }) {
  const inc = m.stats.current_incident;
  return html`<section class=${`mon-hero hero-${m.status}`} aria-label="Current status">
    <div class="hero-main">
      <span class="hero-dot" aria-hidden="true"></span>
      <div class="hero-text">
        <div class="hero-status"><${StatusBadge} status=${m.status} /> <span>${STATUS_TEXT[m.status] ?? ''}</span></div>
        <div class="hero-msg">${m.last_message ?? 'No check has finished yet.'}</div>
      </div>
    </div>
    <dl class="hero-facts">
      <div><dt>Last check</dt><dd title=${dateTime(m.last_check)}>${m.last_check ? relTime(m.last_check) : 'Not yet'}</dd></div>
      <div><dt>Checked every</dt><dd>${duration(m.interval)}</dd></div>
      ${inc ? html`<div><dt>Down for</dt><dd class="hero-down">${duration(inc.duration)}</dd></div>` : null}
    </dl>
  </section>`;
}

function Tiles({ m }) {
  const s = m.stats;
  const cert = s.cert_days_left;
  const tiles = [
    { label: 'Response', value: ms(m.response_time), sub: 'Last check' },
    { label: 'Average', value: ms(s.avg_response_ms_24h), sub: '24 hours' },
    { label: '95th percentile', value: ms(s.p95_response_ms_24h), sub: '24 hours' },
    { label: 'Uptime', value: pct(s.uptime_24h), sub: '24 hours' },
    { label: 'Uptime', value: pct(s.uptime_7d), sub: '7 days' },
    { label: 'Uptime', value: pct(s.uptime_30d), sub: '30 days' },
  ];
  if (cert !== null && cert !== undefined) {
    tiles.push({ label: 'Certificate', value: `${cert} ${Math.abs(cert) === 1 ? 'day' : 'days'}`, sub: cert < 0 ? 'since it expired' : 'until it expires',
      tone: cert < 0 ? 'bad' : cert < 14 ? 'warn' : undefined });
  }
  return html`<${StatTiles} tiles=${tiles} />`;
}

function Bar({ m }) {
  const events = useStatusEvents(m.id);
  if (events.error) return html`<${ErrorState} error=${events.error} />`;
  if (!events.events) return html`<${Loading} />`;
  const segments = statusSegments(m, statusChanges(events.events, m.id), barWindow(events.now, 48), events.now, events.knownFrom);
  return html`<${StatusBar} segments=${segments} describe=${describeParts} label=${summarize(segments)} axis=${['24 hours ago', 'now']} />
    <p class="small muted bar-note">${summarize(segments)}. ${m.stats.checks_24h} checks in the last 24 hours.</p>`;
}

function Config({ m, monitors }) {
  const name = (id) => monitors?.find((x) => x.id === id)?.name ?? id;
  const s = m.settings ?? {};
  const rows = [
    ['Check', html`<${Badge} tone="accent">${checkType(m.check_type).label}<//>`],
    ['Target', html`<span class="mono">${m.target}</span>`],
    ['Interval', duration(m.interval)],
    ['Timeout', duration(m.timeout)],
    ['Down after', `${m.failure_threshold} failed ${m.failure_threshold === 1 ? 'check' : 'checks'} in a row`],
    ['Degraded above', m.degraded_ms === null ? '—' : ms(m.degraded_ms)],
  ];
  if (m.check_type === 'ping') rows.push(['Degraded above loss', m.max_loss_pct === null ? 'any loss' : `${m.max_loss_pct} %`]);
  if (m.check_type === 'http') {
    rows.push(['Request', `${s.method} · accepts ${(s.accepted_status ?? []).join(', ')}${s.auth ? ` · ${s.auth.type} authentication` : ''}`]);
    if (s.keyword) rows.push(['Keyword', `${s.keyword} (${s.keyword_mode})`]);
    if (s.json_path) rows.push(['JSON', `${s.json_path} = ${s.json_expected ?? '(any)'}`]);
  }
  if (m.check_type === 'dns') rows.push(['Query', `${s.record_type} via ${s.resolver ?? 'the system resolvers'}${s.expected ? ` · expects ${s.expected}` : ''}`]);
  if (m.check_type === 'tcp') rows.push(['TLS', s.tls ? `yes${s.servername ? ` (${s.servername})` : ''}${s.verify_tls ? '' : ', not verified'}` : 'no']);
  rows.push(['Tags', m.tags.length ? html`<div class="chips">${m.tags.map((t) => html`<a key=${t} href=${`/monitors?tag=${encodeURIComponent(t)}`} class="badge tone-neutral">${t}</a>`)}</div>` : '—']);
  rows.push(['Parents', m.parents.length ? html`<div class="chips">${m.parents.map((p) => html`<a key=${p} href=${`/monitors/${p}`} class="badge tone-info">${name(p)}</a>`)}</div>` : '—']);
  rows.push(['Created', dateTime(m.created_at)], ['Changed', dateTime(m.updated_at)]);
  return html`<${Card} title="Configuration"><dl class="dl">${rows.map(([k, v]) => html`<dt key=${`${k}-t`}>${k}</dt><dd key=${`${k}-d`}>${v}</dd>`)}</dl><//>`;
}

export default function MonitorDetailPage({ params, query }) {
  const s = useSession();
  const writable = can(s, 'monitors:write');
  const r = useApi(`/api/monitors/${encodeURIComponent(params.id)}`, { live: true, every: 30 });
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
    <${Hero} m=${m} />
    <${Tiles} m=${m} />
    <${Card} title="Last 24 hours"><${Bar} m=${m} /><//>
    <${ResponseCard} monitor=${m} query=${query} />
    <div class="mon-grid">
      <div class="mon-col">
        <${IncidentsCard} id=${m.id} query=${query} />
        <${ResultsCard} id=${m.id} query=${query} interval=${m.interval} />
      </div>
      <div class="mon-col">
        <${EventsCard} id=${m.id} />
        <${Config} m=${m} monitors=${monitors.data?.monitors} />
      </div>
    </div>
  <//>`;
}
