// A chart of a monitor's checks over time on uPlot (the response time, or a named measurement such as a
// ping's loss), which is loaded (with its stylesheet) only when a chart is first shown, so it never
// weighs on the first page load. Down and degraded stretches are shaded behind the line; the line breaks
// where a check has no value. Follows the theme (colours are read from the CSS variables, and the chart
// is redrawn when the system theme changes) and the width of its box.
import { dateTime, ms } from '../lib/format.js';
import { html, useEffect, useRef, useState } from '../lib/html.js';
import { loadStylesheet } from '../lib/stylesheet.js';
import { ErrorState } from './empty.js';

await loadStylesheet(new URL('./chart.css', import.meta.url).pathname);

let uplot;
/** uPlot and its stylesheet, once. */
function loadUplot() {
  uplot ??= Promise.all([
    import('uplot'),
    loadStylesheet(new URL(import.meta.resolve('uplot')).pathname.replace(/\.mjs$/, '.css')),
  ]).then(([m]) => m.default);
  return uplot;
}

const css = (name) => getComputedStyle(document.documentElement).getPropertyValue(name).trim();

/** A #rrggbb theme colour at some opacity, for the canvas. */
function alpha(hex, a) {
  const m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(hex);
  return m ? `rgba(${parseInt(m[1], 16)}, ${parseInt(m[2], 16)}, ${parseInt(m[3], 16)}, ${a})` : hex;
}

/** Shades each stretch from a down or degraded check to the next check, under the axes and line. */
function bandsPlugin(statusRef) {
  return {
    hooks: {
      drawClear: [(u) => {
        const [xs] = u.data;
        const status = statusRef.current;
        const { ctx, bbox } = u;
        const colours = { down: css('--down'), degraded: css('--degraded') };
        ctx.save();
        ctx.globalAlpha = 0.16;
        for (let i = 0; i < xs.length; i++) {
          const c = colours[status[i]];
          if (!c) continue;
          const a = u.valToPos(xs[i], 'x', true);
          // The last check's state holds until now: the right edge of the chart.
          const b = u.valToPos(i + 1 < xs.length ? xs[i + 1] : u.scales.x.max, 'x', true);
          ctx.fillStyle = c;
          ctx.fillRect(a, bbox.top, Math.max(2, b - a), bbox.height);
        }
        ctx.restore();
      }],
    },
  };
}

/**
 * The "degraded above" threshold as a labelled dashed line across the plot: an element over the canvas
 * (so its words can be read, and it follows the theme through CSS), placed at the value on each redraw.
 */
function thresholdPlugin(threshold, format) {
  let line;
  return {
    hooks: {
      // uPlot may draw before its init hook runs: the element is made on the first draw.
      draw: [(u) => {
        if (!line) {
          line = document.createElement('div');
          line.className = `chart-threshold${threshold.tone ? ` chart-threshold-${threshold.tone}` : ''}`;
          line.append(Object.assign(document.createElement('span'), { textContent: `${threshold.label} ${format(threshold.value)}` }));
          u.over.append(line);
        }
        line.style.top = `${Math.round(u.valToPos(threshold.value, 'y'))}px`;
      }],
    },
  };
}

/** What the line shows unless told: response times in ms. */
const RESPONSE = { label: 'Response time', format: ms, missing: 'no answer' };

function options(width, height, statusRef, spanRef, count, series, threshold) {
  const axis = { stroke: css('--muted'), grid: { stroke: css('--border'), width: 1 }, ticks: { stroke: css('--border'), width: 1 }, font: '12px system-ui, sans-serif' };
  const accent = css('--accent');
  return {
    width, height,
    cursor: { y: false, points: { size: 7 } },
    legend: { live: true },
    scales: {
      x: { time: true, range: (_u, min, max) => spanRef.current ?? [min, max] },
      // From 0, or below it for values that go negative (days left on an expired certificate).
      // The threshold stays in view even when every check is well below it.
      y: { range: (_u, min, max) => {
        const top = Math.max(max ?? 0, threshold?.value ?? 0);
        return [min < 0 ? min * 1.15 : 0, top > 0 ? top * 1.15 : 10];
      } },
    },
    axes: [{ ...axis, space: 90 }, { ...axis, size: 62, values: (_u, splits) => splits.map((v) => (v === null ? '' : series.format(v))) }],
    series: [
      { label: 'Time', value: (_u, v) => (v === null ? '—' : dateTime(new Date(v * 1000).toISOString())) },
      {
        label: series.label, stroke: accent, width: 1.75, spanGaps: false,
        fill: alpha(accent, 0.12),
        value: (_u, v, _s, idx) => (idx === null || idx === undefined ? '—' : v === null ? series.missing : series.format(v)),
        // Few checks: mark each one (a single answer has no line to draw).
        points: { show: count <= 60, size: 5 },
      },
    ],
    plugins: [bandsPlugin(statusRef), ...(threshold ? [thresholdPlugin(threshold, series.format)] : [])],
  };
}

/**
 * A chart's box, its uPlot and a counter that moves when the colour scheme changes (the plot is made again in
 * the new colours); the plot follows the box's width and is destroyed with it. Both charts below use it.
 */
function usePlotFrame(height) {
  const box = useRef(null);
  const plot = useRef(null);
  const [theme, setTheme] = useState(0);
  useEffect(() => {
    const mq = matchMedia('(prefers-color-scheme: dark)');
    const changed = () => setTheme((n) => n + 1);
    mq.addEventListener('change', changed);
    const ro = new ResizeObserver(() => {
      const w = box.current?.clientWidth;
      if (plot.current && w && w !== plot.current.width) plot.current.setSize({ width: w, height });
    });
    ro.observe(box.current);
    return () => { mq.removeEventListener('change', changed); ro.disconnect(); plot.current?.destroy(); plot.current = null; };
  }, []);
  return { box, plot, theme };
}

/**
 * @param {{data: {t: number[], rt: (number|null)[], status: string[]}, span?: [number, number], height?: number, label: string,
 *   series?: {label: string, format: (v: number) => string, missing: string}, threshold?: {value: number, label: string}}} props
 *   t in epoch seconds, oldest first; rt the values (ms unless `series` says otherwise; null: none); status per
 *   check (up, degraded, down); span the time axis from and to (epoch seconds), else the data's own extent;
 *   series what the line is: its name, how a value reads, and what a check without one reads; threshold a value
 *   drawn as a labelled dashed line ("Degraded above 500 ms")
 */
export function ResponseChart({ data, span, height = 240, label, series = RESPONSE, threshold = null }) {
  const { box, plot, theme } = usePlotFrame(height);
  const status = useRef(data.status);
  const spanRef = useRef(span);
  spanRef.current = span;
  const [error, setError] = useState(null);
  status.current = data.status;


  useEffect(() => {
    let live = true;
    loadUplot().then((UPlot) => {
      if (!live || !box.current) return;
      // The options depend on the colours and whether points show; the chart is made again when
      // either changed, otherwise only its data is replaced (keeping the cursor; the span is re-read).
      const key = `${theme}/${data.t.length <= 60}/${series.label}/${threshold?.value}`;
      if (plot.current && plot.current.key === key) { plot.current.setData([data.t, data.rt]); return; }
      plot.current?.destroy();
      plot.current = new UPlot(options(box.current.clientWidth || 600, height, status, spanRef, data.t.length, series, threshold), [data.t, data.rt],
        box.current);
      plot.current.key = key;
    }, (e) => { if (live) setError({ detail: `The chart could not be drawn: ${e.message}` }); });
    return () => { live = false; };
  }, [data, theme, series, threshold?.value]);

  if (error) return html`<${ErrorState} error=${error} />`;
  return html`<div class="chart" ref=${box} role="img" aria-label=${label} style=${`min-height:${height}px`}></div>`;
}

/**
 * Several lines over one time axis on the same uPlot (interface traffic: in and out, each an average and a
 * maximum). A null is a gap in its line, never a zero. `lines` are values drawn across the plot with their
 * words (a month's 95th percentile), in the tone named (a chart-threshold-<tone> class).
 * @param {{t: number[], series: {label: string, values: (number|null)[], color: string, dash?: number[], fill?: boolean, width?: number}[],
 *   format: (v: number) => string, label: string, height?: number, span?: [number, number], max?: number,
 *   lines?: {value: number, label: string, tone?: string}[]}} props
 *   color is a CSS variable's name (--info); span the time axis (epoch seconds); max a fixed top of the y axis (100 for %)
 */
export function SeriesChart({ t, series, format, label, height = 200, span, max, lines = [] }) {
  const { box, plot, theme } = usePlotFrame(height);
  const spanRef = useRef(span);
  spanRef.current = span;
  const [error, setError] = useState(null);


  const data = [t, ...series.map((s) => s.values)];
  useEffect(() => {
    let live = true;
    loadUplot().then((UPlot) => {
      if (!live || !box.current) return;
      const key = `${theme}/${series.map((s) => s.label).join('|')}/${lines.map((l) => `${l.label}${l.value}`).join('|')}/${t.length <= 90}`;
      if (plot.current && plot.current.key === key) { plot.current.setData(data); return; }
      plot.current?.destroy();
      const axis = { stroke: css('--muted'), grid: { stroke: css('--border'), width: 1 }, ticks: { stroke: css('--border'), width: 1 }, font: '12px system-ui, sans-serif' };
      const top = () => Math.max(0, ...lines.map((l) => l.value));
      const opts = {
        width: box.current.clientWidth || 600, height,
        cursor: { y: false, points: { size: 6 } },
        legend: { live: true },
        scales: {
          x: { time: true, range: (_u, lo, hi) => spanRef.current ?? [lo, hi] },
          y: { range: (_u, _lo, hi) => [0, max ?? (Math.max(hi ?? 0, top()) > 0 ? Math.max(hi ?? 0, top()) * 1.15 : 1)] },
        },
        axes: [{ ...axis, space: 90 }, { ...axis, size: 66, values: (_u, splits) => splits.map((v) => (v === null ? '' : format(v))) }],
        series: [
          { label: 'Time', value: (_u, v) => (v === null ? '—' : dateTime(new Date(v * 1000).toISOString())) },
          ...series.map((s) => {
            const c = css(s.color);
            return {
              label: s.label, stroke: c, width: s.width ?? 1.5, dash: s.dash, spanGaps: false,
              fill: s.fill ? alpha(c, 0.12) : undefined,
              value: (_u, v) => (v === null || v === undefined ? '—' : format(v)),
              // Few points: mark each (a lone point between gaps has no line to draw).
              points: { show: t.length <= 90, size: 4 },
            };
          }),
        ],
        plugins: lines.map((l) => thresholdPlugin(l, format)),
      };
      plot.current = new UPlot(opts, data, box.current);
      plot.current.key = key;
    }, (e) => { if (live) setError({ detail: `The chart could not be drawn: ${e.message}` }); });
    return () => { live = false; };
  }, [t, series, theme, lines, max]);

  if (error) return html`<${ErrorState} error=${error} />`;
  return html`<div class="chart" ref=${box} role="img" aria-label=${label} style=${`min-height:${height}px`}></div>`;
}
