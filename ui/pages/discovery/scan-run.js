// One scan, followed to its end: the stream (EventSource on GET /api/v1sion/scan/:job_id/stream; the
// session cookie goes with it) fills a progress bar, the current phase and a live host table; Cancel
// stops it (DELETE). When the final message arrives the kept result replaces the live view: hosts,
// devices, links and warnings, the routes its layer-3 devices offered (to import) and how its devices
// compare with the inventory (those two load on first use), and it can be saved as a topology session.
// The finished host table names the inventory record each host stands for (linked, or matched only).
import { api } from '../../lib/api.js';
import { useForm } from '../../lib/form.js';
import { count, dateTime, duration, ms } from '../../lib/format.js';
import { html, useEffect, useMemo, useState } from '../../lib/html.js';
import { useApi } from '../../lib/hooks.js';
import { navigate, setQuery } from '../../lib/router.js';
import { can, useSession } from '../../lib/session.js';
import { toast } from '../../lib/toast.js';
import { SCAN_PHASES, SCAN_STATES } from '../../lib/vocabulary.js';
import { Badge } from '../../components/badge.js';
import { EmptyState, ErrorState, Loading } from '../../components/empty.js';
import { Field, FormError, TextArea } from '../../components/field.js';
import { Icon } from '../../components/icons.js';
import { Modal } from '../../components/modal.js';
import { Card } from '../../components/page.js';
import { Tabs } from '../../components/tabs.js';
import { applyMessages, FINAL_TYPES, initialRun, ipv6Scan, sessionNameFor } from './model.js';
import { DevicesTable, HostsTable, inventoryByIp, LinksTable } from './scan-tables.js';
import { Lazy } from './section.js';

/** Messages that arrive together are applied together, at most this often (a /20 sends thousands). */
const FLUSH_MS = 150;

/**
 * Follows a scan: `run` from the stream (phase, progress, counts, hosts so far, final state) and, once
 * it has ended, `result` (the kept result, or the API's error). `retry` opens the stream again.
 */
export function useScanRun(jobId) {
  const [run, setRun] = useState(null);
  const [result, setResult] = useState({ data: null, error: null });
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    if (!jobId) { setRun(null); setResult({ data: null, error: null }); return undefined; }
    let current = initialRun();
    setRun(current);
    setResult({ data: null, error: null });
    const queue = [];
    let timer = null;
    let ended = false;
    const ctl = new AbortController();
    const update = (fn) => { current = fn(current); setRun(current); };
    const flush = () => {
      clearTimeout(timer);
      timer = null;
      if (queue.length) update((r) => applyMessages(r, queue.splice(0)));
    };
    const loadResult = () => {
      api.get(`/api/v1sion/scan/${encodeURIComponent(jobId)}/result`, undefined, { signal: ctl.signal }).then(
        (data) => setResult({ data, error: null }),
        (error) => { if (error?.name !== 'AbortError') setResult({ data: null, error }); },
      );
    };
    const es = new EventSource(`/api/v1sion/scan/${encodeURIComponent(jobId)}/stream`);
    es.onmessage = (e) => {
      let m;
      try { m = JSON.parse(e.data); } catch { return; }
      queue.push(m);
      if (FINAL_TYPES.has(m.type)) {
        // Closed before the server ends the stream, so the browser does not reconnect.
        ended = true;
        es.close();
        flush();
        loadResult();
      } else if (timer === null) {
        timer = setTimeout(flush, FLUSH_MS);
      }
    };
    es.onopen = () => { if (current.reconnecting) update((r) => ({ ...r, reconnecting: false })); };
    es.onerror = () => {
      if (ended) return;
      if (es.readyState === EventSource.CLOSED) {
        // Refused (an unknown or dropped scan, signed out): the result call says why in the API's words.
        ended = true;
        flush();
        loadResult();
      } else {
        // The connection dropped: the browser reconnects by itself and resumes after the last message.
        update((r) => ({ ...r, reconnecting: true }));
      }
    };
    return () => { ended = true; es.close(); clearTimeout(timer); ctl.abort(); };
  }, [jobId, attempt]);

  return { run, result, retry: () => setAttempt((a) => a + 1) };
}

function Facts({ items }) {
  return html`<dl class="disc-facts">${items.map(([label, value]) => html`<div key=${label}><dt>${label}</dt><dd>${value}</dd></div>`)}</dl>`;
}

/** The progress card: bar, phase, counts, and what happened in the end. */
function Progress({ jobId, subnet, run, result, kept, writable, onSave }) {
  const r = result.data;
  const state = r?.state ?? run.state;
  const running = !r && run.state === 'running';
  const [cancelling, setCancelling] = useState(false);
  const cancel = async () => {
    setCancelling(true);
    try {
      await api.del(`/api/v1sion/scan/${encodeURIComponent(jobId)}`);
      toast.info('Scan cancelled: what it found so far is kept');
    } catch (e) {
      toast.error(e);
    } finally {
      setCancelling(false);
    }
  };
  const counts = r?.counts ?? run.counts;
  const facts = [
    ['Addresses', counts ? count(counts.addresses) : '…'],
    ['Live', counts ? count(counts.live) : '…'],
    // Hosts streamed so far; a result lists every live host, identified or not (a cancelled scan).
    ...(r ? [] : [['Identified', count(run.hosts.size)]]),
    ['SNMP agents', counts ? count(counts.snmp) : '…'],
    ['Devices', r ? count(r.devices.length) : '—'],
    ['Links', r ? count(r.links.length) : run.links ? count(run.links) : '—'],
  ];
  if (Number.isFinite(r?.duration_ms)) facts.push(['Took', r.duration_ms < 60_000 ? ms(r.duration_ms) : duration(r.duration_ms / 1000)]);
  const pct = r ? (state === 'completed' ? 100 : run.progress) : run.progress;
  const statusId = `scan-status-${jobId}`;
  const status = running
    ? html`<strong>${SCAN_PHASES[run.phase] ?? 'Starting'}</strong>${run.message ? html`<span class="muted"> · ${run.message}</span>` : null}`
    : state === 'completed' ? html`<strong>Completed</strong>${r?.finished_at ? html`<span class="muted"> · ${dateTime(r.finished_at)}</span>` : null}`
      : state === 'cancelled' ? html`<strong>Cancelled</strong><span class="muted"> · what it found until then is kept</span>`
        : state === 'failed' ? html`<strong>Failed</strong>${run.error ? html`<span class="muted"> · ${run.error}</span>` : null}`
          : html`<strong>Finishing…</strong>`;
  const actions = html`
    ${running && writable ? html`<button type="button" class="btn btn-sm btn-danger-ghost" onClick=${cancel} disabled=${cancelling}>
      <${Icon} name="close" size=${15} />${cancelling ? 'Cancelling…' : 'Cancel scan'}</button>` : null}
    ${r && kept && writable && r.devices.length ? html`<button type="button" class="btn btn-sm btn-primary" onClick=${onSave}>
      <${Icon} name="plus" size=${15} />Save as topology session</button>` : null}`;
  const tone = SCAN_STATES[state]?.tone ?? 'neutral';
  return html`<${Card} class=${`disc-run disc-run-${state}`} actions=${actions}
    title=${html`<span class="disc-run-title">${subnet ? html`Scan of <span class="mono">${subnet}</span>` : 'Scan'}
      <${Badge} tone=${tone}>${SCAN_STATES[state]?.label ?? state}<//></span>`}>
    <div class="disc-progress-row">
      <progress class="disc-progress" max="100" value=${pct} aria-labelledby=${statusId}></progress>
      <span class="disc-pct" aria-hidden="true">${pct} %</span>
    </div>
    <div class="disc-status" id=${statusId} role="status">${status}</div>
    ${run.reconnecting && running ? html`<div class="alert alert-info" role="status"><${Icon} name="refresh" /><div class="alert-body">The connection dropped; reconnecting and resuming where it stopped…</div></div>` : null}
    <${Facts} items=${facts} />
    ${r?.warnings?.length ? html`<div class="alert alert-warn disc-warnings" role="status"><${Icon} name="alert" />
      <div class="alert-body"><strong>${r.warnings.length === 1 ? 'Warning' : `${r.warnings.length} warnings`}</strong>
        <ul>${r.warnings.map((w, i) => html`<li key=${i}>${w}</li>`)}</ul></div></div>` : null}
  <//>`;
}

/** Saves the result as a topology session and opens it. */
function SaveDialog({ jobId, subnet, onClose }) {
  const form = useForm({ name: sessionNameFor(subnet), notes: '' });
  const onSubmit = form.submit(async (v) => {
    const body = { name: v.name.trim(), scan_job_id: jobId };
    if (v.notes.trim()) body.notes = v.notes.trim();
    const saved = await api.post('/api/v1sion/sessions', body);
    toast.ok(`Saved ${saved.name}: ${saved.nodes.length} nodes, ${saved.edges.length} edges`);
    onClose();
    navigate(`/discovery/sessions/${saved.id}`);
  });
  return html`<${Modal} title="Save as topology session" onClose=${onClose}
    footer=${html`<button type="button" class="btn" onClick=${onClose}>Cancel</button>
      <button type="submit" form="disc-save-form" class="btn btn-primary" disabled=${form.busy}>${form.busy ? 'Saving…' : 'Save session'}</button>`}>
    <form id="disc-save-form" onSubmit=${onSubmit}>
      <${FormError} form=${form} />
      <p class="muted">One node per device and one edge per link. Newer scans of the subnet can be merged into it later.</p>
      <${Field} form=${form} name="name" label="Name" required autofocus maxlength="200" />
      <${TextArea} form=${form} name="notes" label="Notes" rows=${3} hint="Optional: what this network is, who looks after it." />
    </form>
  <//>`;
}

const VIEWS = [
  { id: 'hosts', label: 'Hosts' },
  { id: 'devices', label: 'Devices' },
  { id: 'links', label: 'Links' },
  { id: 'routes', label: 'Offered routes' },
  { id: 'inventory', label: 'Compare with inventory', inventory: true },
];

// The routes and the inventory comparison load on first use: the scan page's first load stays light.
const loadRoutes = () => import('./offered-routes.js');
const loadReconcile = () => import('./reconcile.js');

/**
 * The host table with, once the scan is kept and for someone who may read the inventory, the record each
 * host stands for (loaded each time the table is shown: a write under Compare with inventory shows here).
 */
function ScanHosts({ jobId, finished, ...props }) {
  const s = useSession();
  const allowed = finished && can(s, 'brain:read');
  const m = useApi(allowed ? '/api/v1sion/brain/matches' : null, { query: { scan_job_id: jobId } });
  const byIp = useMemo(() => inventoryByIp(m.data), [m.data]);
  return html`<${HostsTable} ...${props} inventory=${allowed && !m.error ? { byIp, loading: !m.data } : null} />`;
}

const V6_NOTHING = 'No IPv6 node on this link answered the all-nodes echo, and the neighbour cache confirmed none. A prefix this '
  + 'large is not swept: scan a /120 or a longer prefix to try every address.';

/** The followed scan: progress, then the tabs of hosts, devices and links. */
/**
 * `kept`: the scan's result is kept on the probe (what a session and the inventory comparison are made
 * from; a cancelled scan's result is written a moment after it answers).
 */
export function ScanRun({ jobId, subnet, kept, scan, query, writable }) {
  const { run, result, retry } = scan;
  const s = useSession();
  const [saving, setSaving] = useState(false);
  if (!run) return html`<${Card}><${Loading} label="Connecting to the scan…" /><//>`;
  const r = result.data;
  // Comparing with the inventory reads it (brain:read) through a discovery write route (v1sion:write).
  const views = VIEWS.filter((v) => !v.inventory || (writable && can(s, 'brain:read')));
  const view = views.some((v) => v.id === query.view) ? query.view : 'hosts';
  const base = `/discovery?job=${encodeURIComponent(jobId)}`;
  const hosts = r ? r.hosts : [...run.hosts.values()];
  const n = { hosts: hosts.length, devices: r?.devices.length, links: r ? r.links.length : run.links || undefined, routes: r?.routes?.length };
  const shownSubnet = r?.subnet ?? subnet;
  const later = html`<${EmptyState} icon="discovery" title="Not yet"><p>Devices and links are built from the hosts when the scan finishes.</p><//>`;

  return html`
    ${result.error ? html`<${ErrorState} error=${result.error} retry=${retry} />` : null}
    ${result.error && result.error.status !== 409 && !run.hosts.size ? null : html`
      <${Progress} jobId=${jobId} subnet=${shownSubnet} run=${run} result=${result} kept=${kept} writable=${writable} onSave=${() => setSaving(true)} />
      <${Tabs} label="Scan results" active=${view === 'hosts' ? base : `${base}&view=${view}`}
        tabs=${views.map((v) => ({ href: v.id === 'hosts' ? base : `${base}&view=${v.id}`, label: n[v.id] === undefined ? v.label : `${v.label} (${n[v.id]})` }))} />
      ${view === 'inventory' && r && !kept ? html`<${Card}><${Loading} label="Waiting for the result to be kept…" /><//>`
        : view === 'inventory' && r ? html`<${Lazy} key=${jobId} load=${loadReconcile} name="Reconcile" label="Comparing with the inventory…"
          props=${{ source: { scan_job_id: jobId }, group: query.group, onGroup: (g) => setQuery({ group: g }) }} />`
        : html`<${Card} pad=${false} class="disc-table-card">
        ${view === 'hosts' ? html`<${ScanHosts} jobId=${jobId} finished=${!!r && kept} hosts=${hosts}
            nothing=${ipv6Scan(shownSubnet)?.how === 'neighbours' ? V6_NOTHING : null} csvName=${`scan-${(shownSubnet ?? 'hosts').replace(/[^0-9a-f.]+/gi, '-')}.csv`} filter=${query.q ?? ''} offset=${Number(query.offset) || 0}
            onFilter=${(q) => setQuery({ q, offset: '' })} onOffset=${(o) => setQuery({ offset: o || '' }, { replace: false })}
            waiting=${!r && run.state === 'running' ? 'Hosts appear here one by one as they are identified.' : null} />`
          : !r ? later
            : view === 'devices' ? html`<${DevicesTable} devices=${r.devices} />`
              : view === 'routes' ? html`<${Lazy} key=${jobId} load=${loadRoutes} name="OfferedRoutes" props=${{ result: r, writable }} />`
                : html`<${LinksTable} links=${r.links} devices=${r.devices} />`}
      <//>`}`}
    ${saving ? html`<${SaveDialog} jobId=${jobId} subnet=${shownSubnet} onClose=${() => setSaving(false)} />` : null}`;
}
