// A sparkline: a few lines drawn small as SVG paths (an interface's traffic of the last hour in a table
// row), on one scale from zero to the highest value. A null breaks its line (a gap, not a zero). Named as
// a whole by `label` (role img), colours from the theme's variables through CSS (spark-<tone>).
import { html } from '../lib/html.js';

const W = 120;
const H = 28;

/** The path of one series: a move at each point after a gap, a line otherwise; a lone point is a short dash. */
function pathOf(values, top) {
  const n = values.length;
  const x = (i) => (n <= 1 ? W : (i * W) / (n - 1));
  const y = (v) => (H - 2 - (top > 0 ? (v / top) * (H - 4) : 0)).toFixed(1);
  let d = '';
  let open = false;
  values.forEach((v, i) => {
    if (v === null || v === undefined || !Number.isFinite(v)) { open = false; return; }
    const lone = !open && (i + 1 >= n || values[i + 1] === null || values[i + 1] === undefined);
    d += `${open ? 'L' : 'M'}${x(i).toFixed(1)} ${y(v)}${lone ? `h${n <= 1 ? -2 : 2}` : ''}`;
    open = true;
  });
  return d;
}

/**
 * @param {{series: {values: (number|null)[], tone: string}[], label: string}} props tone: in or out (snmp.css
 *   colours them), or any spark-<tone> class
 */
export function Sparkline({ series, label }) {
  const top = Math.max(0, ...series.flatMap((s) => s.values.filter((v) => v !== null && Number.isFinite(v))));
  const any = series.some((s) => s.values.some((v) => v !== null));
  return html`<svg class="spark" viewBox=${`0 0 ${W} ${H}`} width=${W} height=${H} role="img" aria-label=${label} preserveAspectRatio="none">
    <line class="spark-base" x1="0" x2=${W} y1=${H - 1.5} y2=${H - 1.5} />
    ${any ? series.map((s) => html`<path class=${`spark-line spark-${s.tone}`} d=${pathOf(s.values, top)} />`) : null}
  </svg>`;
}
