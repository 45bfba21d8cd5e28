// One topology session (/discovery/sessions/:id): its figures, subnets, the scan it last took (named by
// subnet and time, linked to its result) and notes; its nodes (what the last merged scan said of each:
// seen, new or missing, and the ones a person added; the inventory record that stands for each, linked
// or only matched; what SSH enrichment learned, in a dialog per node) filtered by that and by text; its
// edges, each end named by its node's
// label, and its layer-3 edges drawn from the documented routes; the monitor parents proposed from it
// (session-parents.js). Rename and notes, merge a newer scan,
// enrich over SSH (followed on the page, ?enrich=<job id>), compare with the inventory (its own page),
// delete. The drawn map is its own page (map.js, /discovery/sessions/:id/map).
import { api } from '../../lib/api.js';
import { confirm } from '../../lib/confirm.js';
import { dateTime, relTime } from '../../lib/format.js';
import { html, useMemo, useState } from '../../lib/html.js';
import { useApi, useReloadOn } from '../../lib/hooks.js';
import { navigate, setQuery } from '../../lib/router.js';
import { can, useSession } from '../../lib/session.js';
import { toast } from '../../lib/toast.js';
import { NODE_SCAN_STATES } from '../../lib/vocabulary.js';
import { Badge } from '../../components/badge.js';
import { Crumbs, SearchBox, StatTiles } from '../../components/controls.js';
import { EmptyState } from '../../components/empty.js';
import { XIcon } from '../../components/extra-icons.js';
import { Icon } from '../../components/icons.js';
import { Card, Page } from '../../components/page.js';
import { Table } from '../../components/table.js';
import { namesByNode } from './map-model.js';
import { nodeCounts, sortByIp } from './model.js';
import { EnrichProgress, enrichJobOf, useEnrichJob } from './enrich.js';
import { EditDialog, MergeDialog } from './session-dialogs.js';
import { EnrichSessionDialog, NodeFactsDialog } from './session-enrich.js';
import { Addresses, KindBadge, LinkSource, none, RecordRef } from './section.js';
import { useLoadedSession } from './session-load.js';
import { ParentProposals } from './session-parents.js';

const FILTERS = [
  { value: '', label: 'All' },
  { value: 'new', label: 'New' },
  { value: 'missing', label: 'Missing' },
  { value: 'manual', label: 'Added by hand' },
];

/** What the last scan said of a node: seen (a node of its scan, or found again by a merge), new or missing. */
function NodeState({ n, scanned }) {
  const st = NODE_SCAN_STATES[n.scan_state] ?? (!n.manual && scanned ? SEEN : null);
  if (!st && !n.manual) return none;
  return html`<span class="chips">
    ${st ? html`<${Badge} tone=${st.tone} title=${st.hint}>${st.label}<//>` : null}
    ${n.manual ? html`<${Badge} tone="accent" title="Added by a person: every merge keeps it">Manual<//>` : null}
  </span>`;
}

/** What SSH enrichment learned of a node, in a line, and the button that shows all of it. */
function SshCell({ n, onFacts }) {
  const f = n.facts;
  if (!f) return none;
  const model = [f.vendor, f.model].filter(Boolean).join(' ') || [f.os, f.os_version].filter(Boolean).join(' ');
  return html`<div class="disc-ssh-cell">
    <div><span class="mono">${f.hostname ?? 'Enriched'}</span>
      <div class="cell-sub">${model ? `${model} · ` : ''}<time datetime=${f.collected_at} title=${dateTime(f.collected_at)}>${relTime(f.collected_at)}</time></div></div>
    <button type="button" class="btn btn-sm" onClick=${() => onFacts(n)} aria-label=${`Facts of ${n.label} over SSH`}>Facts</button>
  </div>`;
}

const SEEN = { label: 'Seen', tone: 'ok', hint: 'The session\'s last scan saw it' };

/** The inventory record that stands for a node: by name from matches when the inventory may be read, else the link alone. */
function InventoryCell({ n, names }) {
  const it = names?.get(n.id);
  if (it) {
    return html`<div class="disc-inv-cell"><${RecordRef} record=${it.inventory} />
      <div class="cell-sub">${it.linked ? 'Linked' : html`<span class="disc-unlinked" title="A record matches it; link it under Compare with inventory">Matched, not linked</span>`}</div></div>`;
  }
  if (n.inventory) return html`<a href=${`/inventory/${n.inventory.type}/${n.inventory.id}`}>${n.inventory.type === 'assets' ? 'Asset' : 'Endpoint'}</a>`;
  return names ? html`<span class="muted">Not in inventory</span>` : none;
}

function nodeColumns(onFacts, names, scanned) {
  return [
    { key: 'label', label: 'Node', render: (n) => html`<div class="disc-name-cell">
      <span class="cell-title">${n.label}</span><div class="cell-sub mono">${n.id}</div></div>` },
    { key: 'kind', label: 'Kind', render: (n) => html`<${KindBadge} kind=${n.kind} />` },
    { key: 'addresses', label: 'Addresses', render: (n) => html`<${Addresses} list=${n.addresses} />` },
    { key: 'mac', label: 'MAC', render: (n) => (n.mac ? html`<span class="mono">${n.mac}</span>` : none) },
    { key: 'vendor_key', label: 'Vendor profile', render: (n) => (n.vendor_key ? html`<span class="mono small">${n.vendor_key}</span>` : none) },
    { key: 'state', label: 'Last scan', render: (n) => html`<${NodeState} n=${n} scanned=${scanned} />` },
    { key: 'ssh', label: 'SSH', render: (n) => html`<${SshCell} n=${n} onFacts=${onFacts} />` },
    { key: 'inventory', label: 'In inventory', render: (n) => html`<${InventoryCell} n=${n} names=${names} />` },
  ];
}

const nodeText = (n) => [n.label, n.id, n.mac, n.vendor_key, n.kind, ...n.addresses].filter(Boolean).join(' ').toLowerCase();
const edgeNumber = (e) => Number(/\d+$/.exec(e.id)?.[0] ?? 0);

/** node id -> the record that stands for it, for someone who may read the inventory (else null). */
function useNodeNames(session) {
  const allowed = can(useSession(), 'brain:read');
  const m = useApi(allowed ? '/api/v1sion/brain/matches' : null, { query: { session_id: session.id } });
  // Asked again when the nodes change (a merge adds some, a link ties one).
  useReloadOn(session.nodes.map((n) => `${n.id}:${n.inventory?.id ?? ''}`).join(','), m.reload);
  return useMemo(() => (allowed && m.data ? namesByNode(m.data) : null), [m.data, allowed]);
}

function Nodes({ session, query, onFacts }) {
  const counts = nodeCounts(session.nodes);
  const filter = FILTERS.some((f) => f.value === query.state) ? query.state : '';
  const words = (query.q ?? '').toLowerCase().split(/\s+/).filter(Boolean);
  const sorted = useMemo(() => sortByIp(session.nodes, (n) => n.addresses[0] ?? ''), [session.nodes]);
  const names = useNodeNames(session);
  const rows = sorted.filter((n) => (!filter || (filter === 'manual' ? n.manual : n.scan_state === filter))
    && (!words.length || words.every((w) => nodeText(n).includes(w))));
  return html`<${Card} title=${`Nodes (${session.nodes.length})`} pad=${false}>
    <div class="disc-toolbar">
      <${SearchBox} value=${query.q ?? ''} label="Filter the nodes" placeholder="Filter by label, address, MAC or kind" onInput=${(v) => setQuery({ q: v })} />
      <div class="disc-chips" role="group" aria-label="Last scan">
        ${FILTERS.map((f) => html`<button key=${f.value} type="button" class=${`disc-fchip disc-fchip-${f.value || 'all'}`}
          aria-pressed=${filter === f.value ? 'true' : 'false'} onClick=${() => setQuery({ state: f.value })}>
          ${f.label}<span class="disc-fchip-n">${counts[f.value || 'all']}</span></button>`)}
      </div>
    </div>
    <${Table} columns=${nodeColumns(onFacts, names, !!session.scan_job_id)} rows=${rows} caption="Nodes" rowClass=${(n) => (n.scan_state ? `disc-node-${n.scan_state}` : undefined)}
      empty=${session.nodes.length ? html`<${EmptyState} icon="search" title="No node matches"
          action=${html`<button type="button" class="btn" onClick=${() => setQuery({ q: '', state: '' })}>Clear the filters</button>`} />`
        : html`<${EmptyState} icon="discovery" title="No nodes" />`} />
  <//>`;
}

function Edges({ session }) {
  const labels = useMemo(() => new Map(session.nodes.map((n) => [n.id, n.label])), [session.nodes]);
  const rows = useMemo(() => [...session.edges].sort((a, b) => edgeNumber(a) - edgeNumber(b)), [session.edges]);
  const end = (id, port) => html`<div><span class="cell-title">${labels.get(id) ?? id}</span>
    ${port ? html`<div class="cell-sub mono">${port}</div>` : null}</div>`;
  const columns = [
    { key: 'from', label: 'From', render: (e) => end(e.from, e.from_port) },
    { key: 'arrow', label: 'Connects to', hideLabel: true, class: 'disc-arrow-col', render: () => html`<span class="disc-arrow" aria-hidden="true">→</span><span class="sr-only">connects to</span>` },
    { key: 'to', label: 'To', render: (e) => end(e.to, e.to_port) },
    { key: 'source', label: 'Seen in', render: (e) => html`<${LinkSource} source=${e.source} />` },
  ];
  return html`<${Card} title=${`Edges (${session.edges.length})`} pad=${false}>
    <${Table} columns=${columns} rows=${rows} caption="Edges"
      empty=${html`<${EmptyState} icon="discovery" title="No edges">
        <p>Edges come from LLDP, CDP and forwarding tables: a scan with SNMP credentials the switches accept finds them.</p><//>`} />
  <//>`;
}

/** Layer-3 edges: a node's documented routes whose next hop is another node (drawn when the session is read). */
function L3Edges({ session, writable }) {
  const labels = useMemo(() => new Map(session.nodes.map((n) => [n.id, n.label])), [session.nodes]);
  const edges = session.l3_edges ?? [];
  const columns = [
    { key: 'from', label: 'From', render: (e) => html`<span class="cell-title">${labels.get(e.from) ?? e.from}</span>` },
    { key: 'arrow', label: 'Routes through', hideLabel: true, class: 'disc-arrow-col', render: () => html`<span class="disc-arrow" aria-hidden="true">→</span><span class="sr-only">routes through</span>` },
    { key: 'to', label: 'To', render: (e) => html`<span class="cell-title">${labels.get(e.to) ?? e.to}</span>` },
    { key: 'destinations', label: 'Destinations', render: (e) => html`<span class="chips">${e.destinations.map((d) => html`<span key=${d} class="disc-subnet-chip mono">${d}</span>`)}</span>` },
    { key: 'routes', label: 'Routes', class: 'num', render: (e) => e.route_ids.length },
  ];
  const link = html`<a class="btn btn-sm" href=${`/discovery/routes?session_id=${session.id}`}>Routes of this session</a>`;
  return html`<${Card} title=${`Layer-3 edges (${edges.length})`} pad=${false} actions=${link}>
    <${Table} columns=${columns} rows=${edges} caption="Layer-3 edges"
      empty=${html`<${EmptyState} icon="send" title="No layer-3 edges">
        <p>A documented route held by a node whose next hop is another node's address draws an edge here.
          ${writable ? html` Import the routes a scan or SSH enrichment read, or <a href="/discovery/routes">document them</a>.` : null}</p><//>`} />
  <//>`;
}

/** The session's last scan by subnet and time (a link to its result), found among the kept scans. */
function LastScan({ session }) {
  const subnet = session.subnets[0];
  const kept = useApi('/api/v1sion/scan', { query: { limit: 100, ...(subnet ? { subnet } : {}) } });
  if (!session.scan_job_id) return html`<span class="muted">Drawn by hand</span>`;
  const scan = kept.data?.items.find((x) => x.job_id === session.scan_job_id);
  if (scan) {
    return html`<a href=${`/discovery?job=${encodeURIComponent(scan.job_id)}`}>Scan of <span class="mono">${scan.subnet}</span>${', '}<time
      datetime=${scan.started_at} title=${dateTime(scan.started_at)}>${relTime(scan.started_at)}</time></a>`;
  }
  if (!kept.data && !kept.error) return html`<span class="muted">…</span>`;
  return html`<span>A scan${subnet ? html` of <span class="mono">${subnet}</span>` : ''} <span class="muted">(its result is no longer kept)</span></span>`;
}

function About({ session }) {
  return html`<${Card} title="About">
    <dl class="dl">
      <dt>Subnets</dt><dd>${session.subnets.length
        ? html`<span class="chips">${session.subnets.map((n) => html`<span key=${n} class="disc-subnet-chip mono">${n}</span>`)}</span>` : none}</dd>
      <dt>Last scan</dt><dd><${LastScan} session=${session} /></dd>
      <dt>Created</dt><dd><time datetime=${session.created_at} title=${dateTime(session.created_at)}>${relTime(session.created_at)}</time></dd>
      <dt>Changed</dt><dd><time datetime=${session.updated_at} title=${dateTime(session.updated_at)}>${relTime(session.updated_at)}</time></dd>
      <dt>Notes</dt><dd>${session.notes ? html`<div class="disc-notes">${session.notes}</div>` : none}</dd>
    </dl>
  <//>`;
}

function Session({ session, query, replace, reload }) {
  const s = useSession();
  const writable = can(s, 'v1sion:write');
  const inventory = writable && can(s, 'brain:read');
  const [dialog, setDialog] = useState(null); // 'edit' | 'merge' | 'enrich' | null
  const [factsOf, setFactsOf] = useState(null);
  const counts = nodeCounts(session.nodes);
  const job = enrichJobOf(query);
  const follow = useEnrichJob(job, () => reload());
  const enriching = follow.run?.state === 'running';
  const enriched = session.nodes.filter((n) => n.facts).length;

  const done = (saved, what) => {
    setDialog(null);
    replace(saved);
    if (what === 'Merged') {
      const c = nodeCounts(saved.nodes);
      toast.ok(`Merged the scan: ${c.new} new, ${c.missing} missing`);
    } else {
      toast.ok(`Saved ${saved.name}`);
    }
  };
  const del = async () => {
    if (!(await confirm({ title: `Delete ${session.name}?`, confirmLabel: 'Delete', danger: true,
      message: `Its ${session.nodes.length} nodes and ${session.edges.length} edges go with it. The scans it came from are not affected.` }))) return;
    try {
      await api.del(`/api/v1sion/sessions/${session.id}`);
      toast.ok(`Deleted ${session.name}`);
      navigate('/discovery/sessions');
    } catch (e) { toast.error(e); }
  };

  const mapLink = html`<a class="btn btn-primary" href=${`/discovery/sessions/${session.id}/map`}><${Icon} name="discovery" size=${16} />Map</a>`;
  const actions = !writable ? mapLink : html`${mapLink}
    <button type="button" class="btn" onClick=${() => setDialog('enrich')} disabled=${enriching}><${Icon} name="key" size=${16} />Enrich over SSH</button>
    ${inventory ? html`<a class="btn" href=${`/discovery/sessions/${session.id}/inventory`}><${Icon} name="inventory" size=${16} />Compare with inventory</a>` : null}
    <button type="button" class="btn" onClick=${() => setDialog('merge')}><${XIcon} name="history" size=${16} />Merge a newer scan</button>
    <button type="button" class="btn" onClick=${() => setDialog('edit')}><${Icon} name="edit" size=${16} />Edit</button>
    <button type="button" class="btn btn-icon" onClick=${del} aria-label=${`Delete ${session.name}`} title="Delete"><${Icon} name="trash" size=${16} /></button>`;
  const crumbs = [{ href: '/discovery', label: 'Discovery' }, { href: '/discovery/sessions', label: 'Sessions' }, { label: session.name }];

  return html`<${Page} title=${session.name} subtitle=${html`<${Crumbs} items=${crumbs} />`} actions=${actions}>
    <${StatTiles} tiles=${[
      { label: 'Nodes', value: counts.all },
      { label: 'Edges', value: session.edges.length },
      { label: 'New', value: counts.new, sub: 'found by the last merge' },
      { label: 'Missing', value: counts.missing, sub: 'not seen by the last merge', tone: counts.missing ? 'warn' : undefined },
      { label: 'Added by hand', value: counts.manual },
      { label: 'Enriched over SSH', value: enriched },
    ]} />
    ${job ? html`<${EnrichProgress} jobId=${job} follow=${follow} writable=${writable} title="SSH enrichment of this session's nodes"
      onClose=${() => setQuery({ enrich: '' })} />` : null}
    <${About} session=${session} />
    <${Nodes} session=${session} query=${query} onFacts=${setFactsOf} />
    <${Edges} session=${session} />
    <${L3Edges} session=${session} writable=${writable} />
    <${ParentProposals} session=${session} query=${query} />
    ${dialog === 'edit' ? html`<${EditDialog} session=${session} onDone=${done} onClose=${() => setDialog(null)} />` : null}
    ${dialog === 'merge' ? html`<${MergeDialog} session=${session} onDone=${done} onClose=${() => setDialog(null)} />` : null}
    ${dialog === 'enrich' ? html`<${EnrichSessionDialog} session=${session} onClose=${() => setDialog(null)}
      onStarted=${(r) => { setDialog(null); setQuery({ enrich: r.job_id }); }} />` : null}
    ${factsOf ? html`<${NodeFactsDialog} session=${session} node=${factsOf} writable=${writable} onClose=${() => setFactsOf(null)} />` : null}
  <//>`;
}

export default function SessionPage({ params, query }) {
  const { session, placeholder, replace, reload } = useLoadedSession(params.id, 'Session');
  return placeholder ?? html`<${Session} session=${session} query=${query} replace=${replace} reload=${reload} />`;
}
