// The public status page as one small HTML document: server-rendered from the public form (view.ts), its
// style inline (allowed by hash in the page's Content-Security-Policy), no script at all, light and dark
// by prefers-color-scheme, and a layout that fits 375 px (below 600 px the bar shows the last 30 days).
// It reloads itself every minute (a meta refresh, answered by 304 while nothing changed).
import { createHash } from 'node:crypto';
import type { PublicPage, PublicState } from './schemas.js';

export const REFRESH_SECONDS = 60;

const STATE_LABEL: Record<PublicState, string> = {
  up: 'Operational', down: 'Down', degraded: 'Degraded', maintenance: 'Maintenance', paused: 'Paused', unknown: 'Unknown',
};
const DAY_CLASS = { up: 'u', degraded: 'g', down: 'd', maintenance: 'm', none: '' } as const;
const DAY_WORD = { up: 'up', degraded: 'degraded', down: 'down', maintenance: 'maintenance', none: 'no data' } as const;

const CSS = `
:root{--bg:#f3f5f8;--card:#fff;--line:#e2e8f0;--text:#0f172a;--muted:#64748b;--none:#e2e8f0;
--up:#15803d;--up-bar:#22c55e;--down:#dc2626;--degraded:#c2410c;--degraded-bar:#f59e0b;--maint:#1747f5;--maint-soft:#e0e8ff;
--paused:#475569;--soft-up:#dcfce7;--soft-down:#fee2e2;--soft-degraded:#ffedd5;color-scheme:light dark}
@media (prefers-color-scheme:dark){:root{--bg:#0a0f16;--card:#111821;--line:#1f2a38;--text:#e6ebf2;--muted:#8a97a8;--none:#263243;
--up:#4ade80;--up-bar:#22c55e;--down:#f87171;--degraded:#fb923c;--degraded-bar:#f59e0b;--maint:#86a0ff;--maint-soft:rgba(134,160,255,.15);
--paused:#94a3b8;--soft-up:rgba(74,222,128,.13);--soft-down:rgba(248,113,113,.14);--soft-degraded:rgba(251,146,60,.14)}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--text);font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif}
main{max-width:860px;margin:0 auto;padding:24px 16px 32px}
header{text-align:center;margin-bottom:20px}
.logo{max-height:56px;max-width:220px;display:block;margin:0 auto 10px}
h1{font-size:26px;margin:0;line-height:1.2;overflow-wrap:anywhere}
header p{margin:6px 0 0;color:var(--muted);overflow-wrap:anywhere}
.overall{display:flex;align-items:center;gap:10px;padding:14px 16px;border-radius:12px;font-weight:600;font-size:17px;margin-bottom:16px}
.overall .dot{width:12px;height:12px;border-radius:50%;background:currentColor;flex:none}
.o-up{background:var(--soft-up);color:var(--up)}.o-down{background:var(--soft-down);color:var(--down)}
.o-degraded{background:var(--soft-degraded);color:var(--degraded)}.o-maintenance{background:var(--maint-soft);color:var(--maint)}
.o-unknown{background:var(--card);color:var(--muted);border:1px solid var(--line)}
.notice{border:1px solid var(--line);border-left:4px solid var(--muted);background:var(--card);border-radius:8px;padding:10px 14px;
margin-bottom:12px;overflow-wrap:anywhere;white-space:pre-line}
.notice.maint{border-left-color:var(--maint)}.notice small{display:block;color:var(--muted);margin-top:2px;white-space:normal}
.group{background:var(--card);border:1px solid var(--line);border-radius:12px;margin-top:16px;overflow:hidden}
.group h2{font-size:15px;margin:0;padding:12px 16px;border-bottom:1px solid var(--line)}
ul{list-style:none;margin:0;padding:0}
li{padding:12px 16px;border-top:1px solid var(--line)}li:first-child{border-top:0}
.row{display:flex;justify-content:space-between;align-items:baseline;gap:12px}
.name{font-weight:600;min-width:0;overflow-wrap:anywhere}
.state{font-size:13px;font-weight:600;white-space:nowrap}
.s-up{color:var(--up)}.s-down{color:var(--down)}.s-degraded{color:var(--degraded)}.s-maintenance{color:var(--maint)}
.s-paused,.s-unknown{color:var(--muted)}
.bars{display:flex;gap:2px;height:30px;margin-top:8px}
.bars i{flex:1;min-width:0;border-radius:2px;background:var(--none)}
.bars .u{background:var(--up-bar)}.bars .g{background:var(--degraded-bar)}.bars .d{background:var(--down)}.bars .m{background:var(--maint)}
.axis{display:flex;justify-content:space-between;gap:8px;color:var(--muted);font-size:12px;margin-top:4px}
.axis .d30{display:none}
.empty{color:var(--muted);padding:12px 16px;margin:0}
footer{color:var(--muted);font-size:13px;text-align:center;margin-top:20px}
footer a{color:inherit}
@media (max-width:600px){.bars i:nth-child(-n+60){display:none}.axis .d90{display:none}.axis .d30{display:inline}h1{font-size:22px}}
`;

export const STYLE_HASH = `sha256-${createHash('sha256').update(CSS).digest('base64')}`;

/** The page's Content-Security-Policy: its own style, images from the probe (the logo), nothing else, never framed. */
export const PAGE_CSP = `default-src 'none'; style-src '${STYLE_HASH}'; img-src 'self'; base-uri 'none'; form-action 'none'; ` +
  "frame-ancestors 'none'";

const ESC: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
/** Text and attribute values escaped: every text on the page is someone's input. */
export const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => ESC[c]!);

function bars(days: PublicPage['groups'][number]['monitors'][number]['days']): string {
  let out = '';
  for (const d of days) {
    const cls = DAY_CLASS[d.state];
    // Days without data carry no title: most of a new page's 90 days, kept short.
    out += cls ? `<i class=${cls} title="${d.date}: ${d.uptime === null ? DAY_WORD[d.state] : `${d.uptime} % up`}"></i>` : '<i></i>';
  }
  return out;
}

/** The whole document for `v`; `jsonPath` is where the same page is as JSON. */
export function renderPage(v: PublicPage, jsonPath: string): string {
  const parts: string[] = [];
  parts.push(`<!doctype html><html lang="en"><head><meta charset="utf-8">`,
    `<meta name="viewport" content="width=device-width, initial-scale=1"><meta http-equiv="refresh" content="${REFRESH_SECONDS}">`,
    `<title>${esc(v.title)}</title><link rel="alternate" type="application/json" href="${esc(jsonPath)}">`,
    `<style>${CSS}</style></head><body><main><header>`);
  if (v.logo_url) parts.push(`<img class="logo" src="${esc(v.logo_url)}" alt="">`);
  parts.push(`<h1>${esc(v.title)}</h1>`);
  if (v.description) parts.push(`<p>${esc(v.description)}</p>`);
  parts.push(`</header><div class="overall o-${v.status}" role="status">`,
    `<span class="dot" aria-hidden="true"></span>${esc(v.summary)}</div>`);
  for (const n of v.notices) {
    parts.push(`<div class="notice${n.kind === 'maintenance' ? ' maint' : ''}"><strong>${esc(n.text)}</strong>`);
    if (n.monitors.length) parts.push(`<small>Affects ${esc(n.monitors.join(', '))}</small>`);
    parts.push('</div>');
  }
  for (const g of v.groups) {
    parts.push(`<section class="group"><h2>${esc(g.name)}</h2>`);
    if (!g.monitors.length) parts.push('<p class="empty">Nothing to show yet.</p>');
    else {
      parts.push('<ul>');
      for (const m of g.monitors) {
        const up = m.uptime_90d === null ? 'no data yet' : `${m.uptime_90d} % up`;
        parts.push(`<li><div class="row"><span class="name">${esc(m.name)}</span>`,
          `<span class="state s-${m.status}">${STATE_LABEL[m.status]}</span></div>`,
          `<div class="bars" role="img" aria-label="${esc(`${m.name}: last ${m.days.length} days, ${up}`)}">${bars(m.days)}</div>`,
          `<div class="axis"><span class="d90">${m.days.length} days ago</span><span class="d30">30 days ago</span>`,
          `<span>${up}</span><span>Today</span></div></li>`);
      }
      parts.push('</ul>');
    }
    parts.push('</section>');
  }
  const at = v.generated_at.replace('T', ' ').slice(0, 16);
  parts.push(`<footer>Updated ${at} UTC · days are UTC days · <a href="${esc(jsonPath)}">JSON</a></footer>`, '</main></body></html>');
  return parts.join('');
}

/** The page readers get for an address that names no page. */
export function renderMissing(): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<title>No such status page</title><style>${CSS}</style></head><body><main><header><h1>No such status page</h1>` +
    '<p>Check the address, or ask whoever gave it to you.</p></header></main></body></html>';
}
