// An interface's graphs (/snmp/polling/:id/interfaces/:key, GET .../history?range=): the last hour, day,
// week, month or year (the range kept in the URL), each from the history's steps: bits per second in and
// out (the step's average as a line, its maximum dashed), utilisation of the link speed, errors and
// discards per second, and the share of polls that found it up. A step without data is a gap in every
// line, never a zero. The month view draws the 95th percentile in and out and states the API's rule.
import { dateTime, duration, relTime } from '../../lib/format.js';
import { html, useMemo } from '../../lib/html.js';
import { useApi } from '../../lib/hooks.js';
import { loadStylesheet } from '../../lib/stylesheet.js';
import { setQuery } from '../../lib/router.js';
import { IF_STATUSES } from '../../lib/vocabulary.js';
import { Badge } from '../../components/badge.js';
import { SeriesChart } from '../../components/chart.js';
import { ButtonGroup, Crumbs } from '../../components/controls.js';
import { EmptyState, ErrorState, Loading } from '../../components/empty.js';
import { Card, Page } from '../../components/page.js';
import { HISTORY_RANGES, historySeries, ifLabel, perSecond, summary, utilText, whyText } from './polling-model.js';
import { bps } from './units.js';

await loadStylesheet(new URL('./snmp.css', import.meta.url).pathname);

const pctText = (v) => `${Math.round(v)} %`;

/** "Average 12 Mbps · Highest 80 Mbps" for in and out. */
function Stats({ rows, fmt }) {
  return html`<div class="poll-stats">${rows.map((r) => html`<span key=${r.label}><span class="muted">${r.label}</span>${' '}average <strong>${r.s.avg === null ? '—' : fmt(r.s.avg)}</strong>, highest <strong>${r.s.max === null ? '—' : fmt(r.s.max)}</strong></span>`)}</div>`;
}

/** The month's 95th percentile in and out, how many of the expected samples it had, and the API's rule in its words. */
function P95({ p95 }) {
  return html`<div class="poll-p95">
    <div><strong>95th percentile</strong>: in <strong>${bps(p95.in_bps)}</strong>, out <strong>${bps(p95.out_bps)}</strong>
      <span class="muted"> · ${p95.samples.toLocaleString('en-US')} of ${p95.expected.toLocaleString('en-US')} five-minute samples</span></div>
    <div class="muted small">${p95.rule}</div></div>`;
}

function Charts({ h, span }) {
  const x = useMemo(() => historySeries(h.points), [h]);
  const bpsSeries = useMemo(() => [
    { label: 'In (average)', values: x.bps.in_avg, color: '--info', fill: true },
    { label: 'In (maximum)', values: x.bps.in_max, color: '--info', dash: [4, 3], width: 1 },
    { label: 'Out (average)', values: x.bps.out_avg, color: '--accent', fill: true },
    { label: 'Out (maximum)', values: x.bps.out_max, color: '--accent', dash: [4, 3], width: 1 },
  ], [x]);
  const utilSeries = useMemo(() => [
    { label: 'In (average)', values: x.util.in_avg, color: '--info' },
    { label: 'In (maximum)', values: x.util.in_max, color: '--info', dash: [4, 3], width: 1 },
    { label: 'Out (average)', values: x.util.out_avg, color: '--accent' },
    { label: 'Out (maximum)', values: x.util.out_max, color: '--accent', dash: [4, 3], width: 1 },
  ], [x]);
  const errSeries = useMemo(() => [
    { label: 'Errors in', values: x.errors.in, color: '--down' },
    { label: 'Errors out', values: x.errors.out, color: '--degraded' },
    { label: 'Discards', values: x.errors.discards, color: '--muted', dash: [4, 3] },
  ], [x]);
  const upSeries = useMemo(() => [{ label: 'Up', values: x.up, color: '--up', fill: true }], [x]);
  const p95 = h.p95;
  const lines = useMemo(() => (p95 ? [
    ...(p95.in_bps !== null ? [{ value: p95.in_bps, label: '95th in', tone: 'info' }] : []),
    ...(p95.out_bps !== null ? [{ value: p95.out_bps, label: '95th out', tone: 'accent' }] : []),
  ] : []), [p95]);

  const inS = summary(x.bps.in_avg, x.bps.in_max), outS = summary(x.bps.out_avg, x.bps.out_max);
  const uIn = summary(x.util.in_avg, x.util.in_max), uOut = summary(x.util.out_avg, x.util.out_max);
  const name = ifLabel(h.interface);
  const range = HISTORY_RANGES.find((r) => r.value === h.range)?.label.toLowerCase() ?? h.range;
  const gaps = h.points.filter((p) => p.in_avg === null && p.out_avg === null).length;
  const errTotal = (a) => a.reduce((s, v) => s + (v ?? 0), 0);
  const upVals = x.up.filter((v) => v !== null);
  const upAvg = upVals.length ? upVals.reduce((s, v) => s + v, 0) / upVals.length : null;

  return html`<div class="poll-charts">
    <${Card} title="Traffic" class="chart-card">
      ${p95 ? html`<${P95} p95=${p95} />` : null}
      <${Stats} fmt=${bps} rows=${[{ label: 'In', s: inS }, { label: 'Out', s: outS }]} />
      <${SeriesChart} t=${x.t} series=${bpsSeries} format=${bps} span=${span} lines=${lines} height=${230}
        label=${`${name}, bits per second over the last ${range}: in average ${bps(inS.avg)}, highest ${bps(inS.max)}; out average ${bps(outS.avg)}, highest ${bps(outS.max)}${
          p95 ? `; 95th percentile in ${bps(p95.in_bps)}, out ${bps(p95.out_bps)}` : ''}${gaps ? `; ${gaps} steps without data` : ''}`} />
    <//>
    <${Card} title="Utilisation" class="chart-card">
      ${h.interface.speed_bps ? html`<${Stats} fmt=${utilText} rows=${[{ label: 'In', s: uIn }, { label: 'Out', s: uOut }]} />
        <${SeriesChart} t=${x.t} series=${utilSeries} format=${pctText} span=${span} max=${100} height=${180}
          label=${`${name}, utilisation of ${bps(h.interface.speed_bps)} over the last ${range}: in average ${utilText(uIn.avg)}, out average ${utilText(uOut.avg)}`} />`
        : html`<p class="muted">The agent does not say the link's speed: no utilisation.</p>`}
    <//>
    <${Card} title="Errors and discards per second" class="chart-card">
      <div class="poll-stats"><span><span class="muted">Errors</span>${' '}in <strong>${perSecond(summary(x.errors.in, x.errors.in).max)}</strong>,
        out <strong>${perSecond(summary(x.errors.out, x.errors.out).max)}</strong> at most</span></div>
      <${SeriesChart} t=${x.t} series=${errSeries} format=${perSecond} span=${span} height=${160}
        label=${`${name}, errors and discards per second over the last ${range}: ${errTotal(x.errors.in) + errTotal(x.errors.out) ? 'some errors' : 'no errors'}${
          errTotal(x.errors.discards) ? ', some discards' : ', no discards'}`} />
    <//>
    <${Card} title="Operational status" class="chart-card">
      <div class="poll-stats"><span><span class="muted">Up</span>${' '}<strong>${upAvg === null ? '—' : `${upAvg.toFixed(upAvg >= 99.95 || upAvg === 0 ? 0 : 1)} %`}</strong> of the polls</span></div>
      <${SeriesChart} t=${x.t} series=${upSeries} format=${pctText} span=${span} max=${100} height=${120}
        label=${`${name}, share of polls that found it up over the last ${range}: ${upAvg === null ? 'no polls' : utilText(upAvg)}`} />
    <//>
  </div>`;
}

export default function PollInterfacePage({ params, query }) {
  const range = HISTORY_RANGES.find((r) => r.value === query.range) ?? HISTORY_RANGES[1];
  const base = `/api/snmp/polling/${encodeURIComponent(params.id)}`;
  const r = useApi(`${base}/interfaces/${encodeURIComponent(params.key)}/history`, { query: { range: range.value }, every: 60 });
  const h = r.data;
  // The axis spans the whole range up to now (an empty stretch is seen as empty, not stretched away).
  const span = useMemo(() => {
    const to = Math.max(Date.now(), h?.points.length ? Date.parse(h.points[h.points.length - 1].t) : 0) / 1000;
    return [Math.floor(to - range.span), Math.ceil(to)];
  }, [h, range.span]);

  const crumbs = (device) => html`<${Crumbs} items=${[{ href: '/snmp/polling', label: 'Polling' },
    device ? { href: `/snmp/polling/${device.id}`, label: device.name } : { href: `/snmp/polling/${params.id}`, label: 'Device' }]} />`;
  if (r.error && !h) return html`<${Page} title="Interface" subtitle=${crumbs(null)}><${ErrorState} error=${r.error} retry=${r.reload} /><//>`;
  const ranges = html`<${ButtonGroup} label="Time range" options=${HISTORY_RANGES} value=${range.value} onChange=${(v) => setQuery({ range: v === 'day' ? '' : v })} />`;
  if (!h) return html`<${Page} title="Interface" subtitle=${crumbs(null)} actions=${ranges}><${Loading} /><//>`;

  const i = h.interface;
  const st = i.oper_status ? IF_STATUSES[i.oper_status] ?? { label: i.oper_status, tone: 'neutral' } : null;
  return html`<${Page} title=${ifLabel(i)} subtitle=${crumbs(h.device)} actions=${ranges} wide>
    <${Card}>
      <div class="poll-ranges">
        ${i.gone_at ? html`<${Badge} tone="neutral">Gone<//>` : st ? html`<${Badge} tone=${st.tone}>${st.label}<//>` : null}
        ${i.admin_status === 'down' ? html`<${Badge} tone="neutral">Disabled<//>` : null}
        ${i.speed_bps ? html`<span>${bps(i.speed_bps)}</span>` : null}
        ${i.alias ? html`<span>${i.alias}</span>` : i.descr && i.descr !== i.name ? html`<span>${i.descr}</span>` : null}
        ${i.watched ? html`<${Badge} tone="info">Watched${i.watched_by === 'lldp' ? ' (uplink)' : ''}<//>` : null}
        ${i.neighbour ? html`<span class="muted">Neighbour ${i.neighbour}</span>` : null}
        ${i.now ? html`<span class="muted">Now: in ${bps(i.now.in_bps)}, out ${bps(i.now.out_bps)}${i.now.why ? ` · ${whyText(i.now.why)}` : ''}</span>` : null}
      </div>
      <p class="muted small poll-p95">
        ${h.range === 'hour' ? `${h.points.length} ${h.points.length === 1 ? 'poll' : 'polls'}`
          : `${h.points.length} ${h.points.length === 1 ? 'step' : 'steps'} of ${duration(h.step_s)}`} over the last ${range.label.toLowerCase()}; the line is each step's average, dashed its maximum; a break is a step without data.
        ${i.oper_since ? html` Status since <time datetime=${i.oper_since} title=${dateTime(i.oper_since)}>${relTime(i.oper_since)}</time>.` : null}
        ${i.renumbered ? html` Renumbered from ifIndex ${i.renumbered.from} ${relTime(i.renumbered.at)} (matched by name).` : null}
        ${i.hc === false ? ' 32-bit counters: wraps are counted.' : ''}
      </p>
    <//>
    ${!h.points.some((p) => p.in_avg !== null || p.out_avg !== null || p.up_share !== null)
      ? html`<${Card}>${h.p95 ? html`<${P95} p95=${h.p95} />` : null}
          <${EmptyState} icon="clock" title="No data in this period yet"><p>Rates come from the second poll on; ${
            h.step_s >= 3600 ? `a ${duration(h.step_s)} step shows once it has ended.` : 'the next poll adds a point.'}</p><//><//>`
      : html`<${Charts} h=${h} span=${span} />`}
  <//>`;
}
