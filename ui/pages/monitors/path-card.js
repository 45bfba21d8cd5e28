// The path of a monitor whose results carry hops (a traced route, details.hops): the latest path as a table
// (per hop: address, loss, average/best/worst latency, whether it changed since the check before), the hops
// over the recent checks as a grid (a column per check, a cell per hop coloured by its loss, outlined where
// the hop answered from another address than in the check before), and the monitor's route changes from the
// event log. Drawn from the shape of the results, not from the check type's name (the UI names none).
// The path's segments (LAN, ISP, internet: details.segments, counts from hop 1 and why each boundary lies
// where it does, docs/monitors.md "Segments") label each hop and head the card; older results have none.
import { dateTime, ms, relTime } from '../../lib/format.js';
import { html } from '../../lib/html.js';
import { useApi } from '../../lib/hooks.js';
import { Badge } from '../../components/badge.js';
import { ErrorState, Loading } from '../../components/empty.js';
import { Card } from '../../components/page.js';
import { Table } from '../../components/table.js';

/** Results drawn in the grid: at the default minute a half hour of the path. */
const SHOWN = 30;

const hopsOf = (r) => (Array.isArray(r?.details?.hops) ? r.details.hops : null);
const pathText = (p) => (p ?? []).map((a) => a ?? '?').join(' › ');
const lossTone = (h) => (!h || h.address === null ? 'none' : h.loss_pct >= 100 ? 'bad' : h.loss_pct > 0 ? 'warn' : 'ok');

const SEGMENTS = [{ key: 'lan', label: 'LAN', tone: 'accent' }, { key: 'isp', label: 'ISP', tone: 'info' },
  { key: 'internet', label: 'Internet', tone: 'neutral' }];
/** The segment of hop index i (0-based) under a result's details.segments; null without them. */
const segmentAt = (seg, i) => (!seg ? null : SEGMENTS[i < seg.lan ? 0 : i < seg.lan + seg.isp ? 1 : 2]);
const hopSpan = (from, n) => (n === 1 ? `hop ${from}` : `hops ${from}–${from + n - 1}`);

/** The three segments with their hops, and the reasons for the two boundaries. */
function Segments({ seg }) {
  let from = 1;
  const parts = SEGMENTS.map((x) => { const n = seg[x.key]; const p = { ...x, n, from }; from += n; return p; });
  return html`<ol class="path-segs" aria-label="Segments of the path">
    ${parts.map((x) => html`<li key=${x.key} class="path-seg">
      <${Badge} tone=${x.tone}>${x.label}<//> <span class="small">${x.n ? hopSpan(x.from, x.n) : 'no hop'}</span>
    </li>`)}
  </ol>
  <ul class="path-why small muted">
    <li><strong>LAN:</strong> ${seg.why?.lan}</li>
    <li><strong>ISP:</strong> ${seg.why?.isp}</li>
  </ul>`;
}

/** Whether hop i answered from another address than the same hop of the check before (a hop without an answer: no). */
const changedAt = (hops, before, i) => {
  const a = hops[i]?.address;
  const b = before?.[i]?.address;
  return a != null && b != null && a !== b;
};

const columns = (before, seg) => [
  { key: 'hop', label: 'Hop', class: 'num', render: (h) => h.hop },
  ...(seg ? [{ key: 'segment', label: 'Segment', render: (h) => {
    const x = segmentAt(seg, h.hop - 1);
    return html`<${Badge} tone=${x.tone}>${x.label}<//>`;
  } }] : []),
  { key: 'address', label: 'Address', render: (h) => html`<span class="mono">${h.address ?? '?'}</span>
    ${h.name ? html`<div class="cell-sub">${h.name}</div>` : null}
    ${changedAt([h], [before?.[h.hop - 1]], 0) ? html` <${Badge} tone="warn">changed<//>` : null}` },
  { key: 'loss', label: 'Loss', class: 'num', render: (h) => html`<span class=${`path-loss pl-${lossTone(h)}`}>${h.address === null ? 'no answer' : `${h.loss_pct} %`}</span>` },
  { key: 'avg', label: 'Average', class: 'num', render: (h) => ms(h.avg_ms) },
  { key: 'best', label: 'Best', class: 'num', render: (h) => ms(h.best_ms) },
  { key: 'worst', label: 'Worst', class: 'num', render: (h) => ms(h.worst_ms) },
];

/** Hops over time: newest check on the right, one row per hop. */
function HopGrid({ results, seg }) {
  const cols = [...results].reverse();
  const rows = Math.max(...cols.map((r) => hopsOf(r).length));
  const cell = (r, j, i) => {
    const h = hopsOf(r)[i];
    const changed = j > 0 && changedAt(hopsOf(r), hopsOf(cols[j - 1]), i);
    const what = h ? `${h.address ?? 'no answer'}${h.address ? `, ${h.loss_pct} % loss, ${ms(h.avg_ms)}` : ''}` : 'not reached';
    return html`<span key=${r.at} class=${`path-cell pl-${lossTone(h)}${changed ? ' path-changed' : ''}`}
      title=${`Hop ${i + 1} at ${dateTime(r.at)}: ${what}${changed ? ' (changed)' : ''}`}></span>`;
  };
  return html`<div class="path-grid-wrap" role="img" aria-label=${`Hops over the last ${cols.length} checks, newest on the right`}>
    ${Array.from({ length: rows }, (_, i) => html`<div key=${i} class="path-grid-row">
      <span class=${`path-grid-label muted small${segmentAt(seg, i) ? ` seg-${segmentAt(seg, i).key}` : ''}`}
        title=${segmentAt(seg, i) ? `Hop ${i + 1}: ${segmentAt(seg, i).label} (latest check)` : undefined}>${i + 1}</span>
      <div class="path-grid-cells">${cols.map((r, j) => cell(r, j, i))}</div>
    </div>`)}
  </div>
  <p class="small muted bar-note">Each column is a check, newest on the right; green answered every probe, orange lost some,
    red lost all, grey did not answer; an outlined cell answered from another address than the check before.</p>`;
}

function RouteChanges({ id }) {
  const ev = useApi('/api/monitors/events', { query: { monitor_id: id, kind: 'route_changed', limit: 5 }, live: true });
  if (ev.error) return html`<${ErrorState} error=${ev.error} retry=${ev.reload} />`;
  if (!ev.data) return html`<${Loading} />`;
  if (!ev.data.items.length) return html`<p class="muted small">No route change since the monitor's first check.</p>`;
  return html`<ul class="rows">${ev.data.items.map((e) => html`<li key=${e.id} class="row">
    <div class="row-main"><div class="row-sub small"><span class="mono">${pathText(e.details?.from)}</span> →
      <span class="mono">${pathText(e.details?.to)}</span>${e.details?.alert_held_by ? ` · alert held: ${e.details.alert_held_by.reason}` : ''}</div></div>
    <time class="row-side muted small" datetime=${e.at} title=${dateTime(e.at)}>${relTime(e.at)}</time>
  </li>`)}</ul>`;
}

/** Nothing for a monitor whose results carry no hops. */
export function PathCard({ monitor }) {
  const r = useApi(`/api/monitors/${monitor.id}/results`, { query: { limit: SHOWN }, live: true, every: Math.max(10, Math.min(monitor.interval, 60)) });
  if (r.error) return null; // the results card says it
  const withHops = (r.data?.items ?? []).filter((x) => hopsOf(x)?.length);
  if (!withHops.length) return null;
  const [latest, before] = withHops;
  const seg = latest.details.segments ?? null;
  return html`<${Card} title="Path">
    <p class="small muted">${hopsOf(latest).length} ${hopsOf(latest).length === 1 ? 'hop' : 'hops'} at ${dateTime(latest.at)}${latest.details.address ? html` to <span class="mono">${latest.details.address}</span>` : ''}</p>
    ${seg ? html`<${Segments} seg=${seg} />` : null}
    <${Table} columns=${columns(hopsOf(before), seg)} rows=${hopsOf(latest)} rowKey="hop" caption="The latest path, hop by hop" />
    <h3 class="path-h">Hops over time</h3>
    <${HopGrid} results=${withHops} seg=${seg} />
    <h3 class="path-h">Route changes</h3>
    <${RouteChanges} id=${monitor.id} />
  <//>`;
}
