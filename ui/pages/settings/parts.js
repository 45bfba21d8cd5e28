// What the probe's own settings sections share: their stylesheet, byte and figure formats, a gauge, a
// list of facts, requests with a raw body (a PFX, YAML, an image), following a job's server-sent
// events, and the progress of a job.
import { request } from '../../lib/api.js';
import { dateTime } from '../../lib/format.js';
import { html, useEffect, useRef, useState } from '../../lib/html.js';
import { loadStylesheet } from '../../lib/stylesheet.js';
import { Badge } from '../../components/badge.js';
import { Icon } from '../../components/icons.js';

await loadStylesheet(new URL('./settings.css', import.meta.url).pathname);

/** 1536 as "1.5 KiB"; null as an em dash. */
export function bytes(n) {
  if (n === null || n === undefined || !Number.isFinite(n)) return '—';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = Math.abs(n), i = 0;
  while (v >= 1024 && i < units.length - 1) { v /= 1024; i++; }
  const s = i === 0 ? String(Math.round(v)) : v.toFixed(v < 10 ? 1 : 0);
  return `${n < 0 ? '−' : ''}${s} ${units[i]}`;
}

/** The tone of a share in use: warn from 75 %, bad from 90 % (or the limits given). */
export function toneOf(value, warn = 75, bad = 90) {
  if (value === null || value === undefined || !Number.isFinite(value)) return 'none';
  return value >= bad ? 'bad' : value >= warn ? 'warn' : 'ok';
}

/**
 * A small half-ring gauge: `value` 0..100 fills it, `figure` is the text in it. It is an image whose name
 * says label and figure, so a screen reader reads "CPU: 7 %".
 */
export function Gauge({ label, value, figure, sub, tone }) {
  const v = value === null || value === undefined || !Number.isFinite(value) ? null : Math.max(0, Math.min(100, value));
  const t = tone ?? toneOf(v);
  // A half circle of radius 38 from (10, 50) to (86, 50): its length is pi * 38.
  const len = Math.PI * 38;
  const arc = 'M 10 50 A 38 38 0 0 1 86 50';
  return html`<div class=${`gauge gauge-${v === null ? 'none' : t}`} role="img" aria-label=${`${label}: ${figure}${sub ? `, ${sub}` : ''}`}>
    <svg viewBox="0 0 96 58" aria-hidden="true">
      <path class="gauge-track" d=${arc} />
      ${v === null ? null : html`<path class="gauge-value" d=${arc} stroke-dasharray=${`${(len * v) / 100} ${len}`} />`}
    </svg>
    <div class="gauge-figure">${figure}</div>
    <div class="gauge-label">${label}</div>
    ${sub ? html`<div class="gauge-sub">${sub}</div>` : null}
  </div>`;
}

/** A list of facts: items [[label, value]], entries with an undefined value are left out. */
export function Facts({ items, class: cls = '' }) {
  return html`<dl class=${`dl facts ${cls}`}>
    ${items.filter((x) => x && x[1] !== undefined).map(([k, v]) => html`<dt key=${`t-${k}`}>${k}</dt><dd key=${`d-${k}`}>${v ?? '—'}</dd>`)}
  </dl>`;
}

/** A time as "22 Nov 2025, 10:15" with the relative time in its tooltip, or an em dash. */
export const when = (iso) => (iso ? html`<time datetime=${iso} title=${iso}>${dateTime(iso)}</time>` : '—');

/** "Only an administrator can change this." under a read-only view. */
export function AdminNote({ children }) {
  return html`<p class="muted small"><${Icon} name="lock" size=${13} /> ${children ?? 'Only an administrator can change this.'}</p>`;
}

/**
 * A request whose body is sent as it is (a file, YAML text) with its own content type and headers.
 * Resolves to the parsed JSON (or text); throws an ApiError like the API client, with the whole
 * problem document in `problem` (some carry more than detail and errors, e.g. install hints).
 */
export function sendRaw(method, path, body, { type = 'application/octet-stream', headers = {} } = {}) {
  return request(method, path, { raw: { body, type }, headers });
}

/**
 * Saves part of the configuration (POST /api/config/import as JSON): only the keys given change; a secret
 * sent as {set: false} is cleared. Answers {changed, applied_live, restart_required, changes}.
 */
export const patchConfig = (patch) => sendRaw('POST', '/api/config/import', JSON.stringify(patch), { type: 'application/json' });

const FINAL = new Set(['completed', 'failed', 'cancelled']);

/**
 * Follows a job's server-sent events (`url`, or null for none): every message in order, the last
 * progress, and the final message once there is one (completed, failed or cancelled). The stream is
 * closed on the final message, so the browser does not reconnect; `lost` is set when it ends without one
 * (the service restarted, as an update does).
 */
export function useJobStream(url) {
  const [state, setState] = useState({ messages: [], progress: 0, final: null, lost: false });
  const src = useRef(null);
  useEffect(() => {
    setState({ messages: [], progress: 0, final: null, lost: false });
    if (!url) return undefined;
    const es = new EventSource(url);
    src.current = es;
    let errors = 0;
    es.onmessage = (e) => {
      errors = 0;
      let m;
      try { m = JSON.parse(e.data); } catch { return; }
      setState((s) => ({
        messages: [...s.messages, m].slice(-200),
        progress: typeof m.progress === 'number' ? m.progress : s.progress,
        final: FINAL.has(m.type) ? m : s.final,
        lost: false,
      }));
      if (FINAL.has(m.type)) es.close();
    };
    es.onerror = () => {
      // EventSource reconnects by itself (with Last-Event-ID); after a few failures in a row, stop.
      if (++errors >= 3 || es.readyState === EventSource.CLOSED) {
        es.close();
        setState((s) => (s.final ? s : { ...s, lost: true }));
      }
    };
    return () => es.close();
  }, [url]);
  return state;
}

const TONE = { completed: 'ok', failed: 'bad', cancelled: 'warn' };
const WORD = { completed: 'Finished', failed: 'Failed', cancelled: 'Cancelled' };

/** A job's progress: a bar, its steps as they came (`describe(m)` words a message), the outcome. */
export function JobProgress({ title, job, describe, actions }) {
  const steps = job.messages.filter((m) => !FINAL.has(m.type)).map((m) => ({ at: m.at ?? m.time, text: describe(m) })).filter((x) => x.text);
  const final = job.final;
  return html`<div class="job" aria-live="polite">
    <div class="job-head">
      <strong>${title}</strong>
      ${final ? html`<${Badge} tone=${TONE[final.type]}>${WORD[final.type]}<//>`
        : job.lost ? html`<${Badge} tone="warn">Connection lost<//>` : html`<${Badge} tone="info">Running<//>`}
      ${actions}
    </div>
    <progress max="100" value=${final?.type === 'completed' ? 100 : job.progress} aria-label=${`${title}: progress`}></progress>
    ${steps.length ? html`<ol class="job-steps">${steps.map((s, i) => html`<li key=${i}><${Icon} name="check" size=${14} /><span>${s.text}</span></li>`)}</ol>` : null}
    ${final?.type === 'failed' ? html`<div class="alert alert-error" style="margin:10px 0 0"><${Icon} name="alert" /><div class="alert-body">${final.error ?? 'The job failed'}</div></div>` : null}
  </div>`;
}
