// The session page's "Proposed parents" card: for every monitor whose address is a node of the session, the
// monitor it should depend on (the nearest ping monitor toward the probe), why, and what it has now; Apply one
// or Apply all. A person's parents are never replaced (shown as Kept). Where the probe is can be chosen
// (?probe_at=<node id>) when the session does not hold its address or gateway. Shown to whoever may read monitors;
// the buttons to whoever may change them. docs/discovery.md, "Monitor parents from the topology".
import { api } from '../../lib/api.js';
import { html, useState } from '../../lib/html.js';
import { useApi, useReloadOn } from '../../lib/hooks.js';
import { setQuery } from '../../lib/router.js';
import { can, useSession } from '../../lib/session.js';
import { toast } from '../../lib/toast.js';
import { PARENT_APPLY_OUTCOMES, PARENT_PROPOSAL_STATUSES } from '../../lib/vocabulary.js';
import { Badge } from '../../components/badge.js';
import { EmptyState } from '../../components/empty.js';
import { Card } from '../../components/page.js';
import { Table } from '../../components/table.js';
import { none } from './section.js';

const APPLICABLE = new Set(['new', 'changed']);

function MonitorLinks({ list }) {
  if (!list.length) return none;
  return html`<span class="chips">${list.map((m) => html`<a key=${m.id} href=${`/monitors/${m.id}`}>${m.name}</a>`)}</span>`;
}

function Status({ p }) {
  const st = PARENT_PROPOSAL_STATUSES[p.status];
  return html`<${Badge} tone=${st.tone} title=${st.hint}>${st.label}<//>`;
}

function Now({ p }) {
  if (!p.current.parents.length) return html`<span class="muted">No parents</span>`;
  return html`<div><${MonitorLinks} list=${p.current.parents} />
    <div class="cell-sub">${p.current.set_by === 'person' ? 'Set by a person' : 'From a proposal'}</div></div>`;
}

/** "3 applied, 1 kept": what an apply did, for the toast. */
function summary(results) {
  const n = {};
  for (const r of results) n[r.outcome] = (n[r.outcome] ?? 0) + 1;
  return Object.entries(n).map(([k, v]) => `${v} ${(PARENT_APPLY_OUTCOMES[k] ?? k).toLowerCase()}`).join(', ') || 'Nothing to apply';
}

export function ParentProposals({ session, query }) {
  const s = useSession();
  const readable = can(s, 'monitors:read');
  const writable = can(s, 'monitors:write');
  const path = `/api/v1sion/sessions/${session.id}/parent-proposals`;
  // ?probe_at=<node id>; none: where the server finds the probe (its address, else its gateway).
  const root = query.probe_at ?? '';
  const setRoot = (v) => setQuery({ probe_at: v });
  const got = useApi(readable ? path : null, { query: root ? { root } : undefined });
  // Asked again when the graph changes (a merge, an edge drawn by hand).
  useReloadOn(`${session.updated_at}:${session.edges.length}`, got.reload);
  const [busy, setBusy] = useState(null); // a monitor id, 'all' or null
  if (!readable) return null;

  const apply = async (which) => {
    setBusy(which);
    try {
      const r = await api.post(`${path}/apply`, { monitor_ids: which === 'all' ? 'all' : [which], ...(root ? { root } : {}) });
      toast.ok(summary(r.results));
      got.reload();
    } catch (e) { toast.error(e); } finally { setBusy(null); }
  };

  const data = got.data;
  const open = data ? data.proposals.filter((p) => APPLICABLE.has(p.status)).length : 0;
  const columns = [
    { key: 'monitor', label: 'Monitor', render: (p) => html`<div><a class="cell-title" href=${`/monitors/${p.monitor.id}`}>${p.monitor.name}</a>
      <div class="cell-sub mono">${p.monitor.address}${p.node.label !== p.monitor.address ? ` · ${p.node.label}` : ''}</div></div>` },
    { key: 'parents', label: 'Proposed parents', render: (p) => html`<${MonitorLinks} list=${p.parents} />` },
    { key: 'current', label: 'Now', render: (p) => html`<${Now} p=${p} />` },
    { key: 'status', label: 'Status', render: (p) => html`<${Status} p=${p} />` },
    { key: 'why', label: 'Why', class: 'disc-why', render: (p) => html`<span class="small">${p.why}</span>` },
    ...(writable ? [{ key: 'apply', label: 'Apply', hideLabel: true, render: (p) => (APPLICABLE.has(p.status)
      ? html`<button type="button" class="btn btn-sm" disabled=${busy !== null} onClick=${() => apply(p.monitor.id)}
          aria-label=${`Apply the proposed parents of ${p.monitor.name}`}>Apply</button>` : null) }] : []),
  ];
  const actions = writable && open
    ? html`<button type="button" class="btn btn-sm btn-primary" disabled=${busy !== null} onClick=${() => apply('all')}>Apply all (${open})</button>`
    : null;
  const title = `Proposed parents${data ? ` (${data.proposals.length})` : ''}`;

  const rootPicker = html`<label class="disc-parents-root">
      <span>The probe is at</span>
      <select class="select-sm" value=${root} onChange=${(e) => setRoot(e.currentTarget.value)}>
        <option value="">${data?.root && !root ? data.root.label : 'Where its address or gateway is'}</option>
        ${session.nodes.map((n) => html`<option key=${n.id} value=${n.id}>${n.label}</option>`)}
      </select></label>`;
  let body;
  if (got.error) body = html`<p class="disc-parents-error" role="alert">${got.error.message}</p>`;
  else if (!data) body = html`<p class="disc-parents-note muted">Loading…</p>`;
  else if (data.problem) {
    body = html`<div class="disc-parents-note">${rootPicker}</div>
      <${EmptyState} icon="discovery" title="No proposals"><p>${data.problem}</p><//>`;
  }
  else {
    body = html`<div class="disc-parents-note">
        ${rootPicker}
        <p><span class="muted">${data.root.label}: ${data.root.why}.</span> Each monitor is proposed the ping monitors of the
        nearest node toward the probe; parents a person set are kept.
        ${data.counts.not_in_session ? html` <span class="muted">${data.counts.not_in_session} other monitors watch no node of this session.</span>` : null}</p>
      </div>
      <${Table} columns=${columns} rows=${data.proposals} rowKey=${(p) => p.monitor.id} caption="Proposed parents"
        empty=${html`<${EmptyState} icon="monitors" title="No monitor watches a node of this session">
          <p>Create ping monitors for the switches and hosts of the map; their parents are proposed here.</p><//>`} />`;
  }
  return html`<${Card} title=${title} pad=${false} actions=${actions}>${body}<//>`;
}
