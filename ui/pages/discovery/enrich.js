// An SSH enrichment followed to its end, wherever one is started (an SSH target, the list of targets, a
// session): the stream (EventSource on GET /api/v1sion/enrich-ssh/:job_id/stream; the session cookie
// goes with it) fills a progress bar and one line per device as it finishes; Cancel stops it (DELETE).
// The job's id lives in the page's URL (?enrich=<id>), so a reload finds it again; once it has ended the
// job's own answer (GET .../:job_id) replaces what the stream said, and the page reloads what changed.
import { api } from '../../lib/api.js';
import { count, ms } from '../../lib/format.js';
import { html, useEffect, useRef, useState } from '../../lib/html.js';
import { toast } from '../../lib/toast.js';
import { ENRICH_TARGET_STATES, SSH_PLATFORMS } from '../../lib/vocabulary.js';
import { Badge } from '../../components/badge.js';
import { ErrorState } from '../../components/empty.js';
import { Icon } from '../../components/icons.js';
import { Card } from '../../components/page.js';
import { applyEnrichMessages, FINAL_TYPES, initialEnrich } from './model.js';

const FLUSH_MS = 150;
export const JOB_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The enrichment job named in the query (?enrich=<id>), or null. */
export const enrichJobOf = (query) => (JOB_ID.test(query.enrich ?? '') ? query.enrich.toLowerCase() : null);

const platformLabel = (p) => SSH_PLATFORMS.find((x) => x.value === p)?.label ?? p;

/**
 * Follows an enrichment: `run` from the stream and, once it has ended, the job's answer; `error` when the
 * job is unknown (the probe restarted, or it is long gone). `onEnded(run)` once, when it has ended.
 */
export function useEnrichJob(jobId, onEnded) {
  const [run, setRun] = useState(null);
  const [error, setError] = useState(null);
  const ended = useRef(onEnded);
  ended.current = onEnded;

  useEffect(() => {
    if (!jobId) { setRun(null); setError(null); return undefined; }
    let current = initialEnrich();
    setRun(current);
    setError(null);
    const queue = [];
    let timer = null;
    let done = false;
    const ctl = new AbortController();
    const path = `/api/v1sion/enrich-ssh/${encodeURIComponent(jobId)}`;
    const update = (fn) => { current = fn(current); setRun(current); };
    const flush = () => {
      clearTimeout(timer);
      timer = null;
      if (queue.length) update((r) => applyEnrichMessages(r, queue.splice(0)));
    };
    const status = () => api.get(path, undefined, { signal: ctl.signal });
    // The job's targets (names, addresses) for the lines not finished yet.
    status().then((s) => update((r) => ({ ...r, targets: s.targets, total: r.total || s.targets.length })), () => {});
    const finish = () => {
      status().then(
        (s) => {
          update((r) => ({ ...r, targets: s.targets, results: s.results.length ? s.results : r.results,
            state: FINAL_TYPES.has(s.state) ? s.state : r.state }));
          ended.current?.(current);
        },
        (e) => { if (e?.name !== 'AbortError') setError(e); },
      );
    };
    const es = new EventSource(`${path}/stream`);
    es.onmessage = (e) => {
      let m;
      try { m = JSON.parse(e.data); } catch { return; }
      queue.push(m);
      if (FINAL_TYPES.has(m.type)) {
        done = true;
        es.close();
        flush();
        finish();
      } else if (timer === null) {
        timer = setTimeout(flush, FLUSH_MS);
      }
    };
    es.onerror = () => {
      if (done) return;
      if (es.readyState === EventSource.CLOSED) {
        // Refused (an unknown job): the job's answer says why in the API's words.
        done = true;
        flush();
        finish();
      }
    };
    return () => { done = true; es.close(); clearTimeout(timer); ctl.abort(); };
  }, [jobId]);

  return { run, error };
}

/** One device's outcome: its state, what it is (or why it failed) and how long it took. */
function Outcome({ r, target }) {
  const st = ENRICH_TARGET_STATES[r?.state];
  const s = r?.summary;
  const what = s ? [s.hostname, [s.vendor, s.model].filter(Boolean).join(' '), [s.os, s.os_version].filter(Boolean).join(' ')]
    .filter(Boolean).join(' · ') : null;
  return html`<li class="disc-enrich-item">
    <div class="disc-enrich-main">
      <a class="disc-enrich-name" href=${`/discovery/ssh-targets/${target.id}`}>${target.name}</a>
      <span class="muted small mono">${target.host}:${target.port}</span>
      ${target.created ? html`<${Badge} tone="accent" title="Made for this enrichment from the session's node">New target<//>` : null}
    </div>
    <div class="disc-enrich-side">
      ${r ? html`<${Badge} tone=${st?.tone ?? 'neutral'}>${st?.label ?? r.state}<//>` : html`<span class="muted small">Waiting…</span>`}
      ${r && Number.isFinite(r.duration_ms) && r.state !== 'cancelled' ? html`<span class="muted small">${ms(r.duration_ms)}</span>` : null}
    </div>
    ${r?.state === 'ok' ? html`<div class="disc-enrich-sub">${what || platformLabel(s?.platform)}${r.nodes?.length
      ? html`<span class="muted"> · facts on ${r.nodes.length === 1 ? 'node' : 'nodes'} ${r.nodes.join(', ')}</span>` : null}</div>` : null}
    ${r?.error ? html`<div class="disc-enrich-sub disc-enrich-error">${r.error.message}</div>` : null}
  </li>`;
}

/**
 * The card of a followed enrichment. `onClose` removes it (shown once it has ended); `title` says what
 * was enriched.
 */
export function EnrichProgress({ jobId, follow, writable, onClose, title = 'SSH enrichment' }) {
  const { run, error } = follow;
  const [cancelling, setCancelling] = useState(false);
  if (error) {
    return html`<div class="disc-enrich-gone"><${ErrorState} error=${error} />
      ${onClose ? html`<button type="button" class="btn btn-sm" onClick=${onClose}>Dismiss</button>` : null}</div>`;
  }
  if (!run) return null;
  const running = run.state === 'running';
  const cancel = async () => {
    setCancelling(true);
    try {
      await api.del(`/api/v1sion/enrich-ssh/${encodeURIComponent(jobId)}`);
      toast.info('Enrichment cancelled: devices that finished keep what was learned');
    } catch (e) {
      toast.error(e);
    } finally {
      setCancelling(false);
    }
  };
  const results = new Map(run.results.map((r) => [r.target_id, r]));
  const targets = run.targets.length ? run.targets
    : run.results.map((r) => ({ id: r.target_id, name: r.name, host: r.host, port: r.port, created: false }));
  const ok = run.results.filter((r) => r.state === 'ok').length;
  const failed = run.results.filter((r) => r.state === 'failed').length;
  const statusId = `enrich-status-${jobId}`;
  const status = running
    ? html`<strong>${run.message || 'Starting'}</strong><span class="muted"> · ${count(run.done)} of ${count(run.total || targets.length)} done</span>`
    : run.state === 'completed' ? html`<strong>Finished</strong><span class="muted"> · ${count(ok)} enriched${failed ? `, ${count(failed)} failed` : ''}</span>`
      : run.state === 'cancelled' ? html`<strong>Cancelled</strong><span class="muted"> · devices that finished keep what was learned</span>`
        : html`<strong>Failed</strong>${run.error ? html`<span class="muted"> · ${run.error}</span>` : null}`;
  const tone = running ? 'running' : run.state === 'completed' ? (failed && !ok ? 'failed' : 'completed') : run.state;
  const actions = html`
    ${running && writable ? html`<button type="button" class="btn btn-sm btn-danger-ghost" onClick=${cancel} disabled=${cancelling}>
      <${Icon} name="close" size=${15} />${cancelling ? 'Cancelling…' : 'Cancel'}</button>` : null}
    ${!running && onClose ? html`<button type="button" class="btn btn-sm" onClick=${onClose}>Dismiss</button>` : null}`;
  return html`<${Card} class=${`disc-run disc-run-${tone} disc-enrich`} title=${title} actions=${actions}>
    <div class="disc-progress-row">
      <progress class="disc-progress" max="100" value=${run.progress} aria-labelledby=${statusId}></progress>
      <span class="disc-pct" aria-hidden="true">${run.progress} %</span>
    </div>
    <div class="disc-status" id=${statusId} role="status">${status}</div>
    ${targets.length ? html`<ul class="disc-enrich-list" aria-label="Devices">${targets.map((t) => html`<${Outcome} key=${t.id} target=${t} r=${results.get(t.id)} />`)}</ul>` : null}
  <//>`;
}
