// The topology map of a session (/discovery/sessions/:id/map): its devices as nodes with icons by kind,
// LLDP/CDP/forwarding-table and manual edges with the port at each end, layer-3 edges from documented
// routes. Each node is named by the inventory record that stands for it (GET /api/v1sion/brain/matches,
// for someone who may read the inventory), else by its own label; its ring says whether the host answers
// and its badge how many services on it fail (the monitors on its addresses, polled from GET
// /api/v1sion/monitor/status/by-ip every 5 s and when monitor state changes). Without a saved
// arrangement the first layout is the same on every visit, and on a phone the first view keeps the
// labels readable. Drag to arrange:
// the positions are saved through the session's PATCH (the first move saves the whole arrangement, so a
// reload shows it as it was). Zoom and fit; click a node or edge for its details; add and remove nodes and
// edges by hand; compare with an earlier scan of the subnet (?compare=<job id>; "merge" shows what the
// last merged scan said) with new nodes and vanished ones marked. The nodes are also listed under the
// map with their status, which is what a screen reader reads.
import { api, request } from '../../lib/api.js';
import { confirm } from '../../lib/confirm.js';
import { dateTime, relTime } from '../../lib/format.js';
import { html, useEffect, useMemo, useRef, useState } from '../../lib/html.js';
import { useApi, useInterval } from '../../lib/hooks.js';
import { useMonitorChanges } from '../../lib/live.js';
import { setQuery } from '../../lib/router.js';
import { can, useSession } from '../../lib/session.js';
import { loadStylesheet } from '../../lib/stylesheet.js';
import { toast } from '../../lib/toast.js';
import { Badge } from '../../components/badge.js';
import { Crumbs, SearchBox } from '../../components/controls.js';
import { EmptyState, ErrorState, Loading } from '../../components/empty.js';
import { Icon } from '../../components/icons.js';
import { Card, Page } from '../../components/page.js';
import { Pager, Table } from '../../components/table.js';
import { arrangeNodes, drawGraph, firstView } from './map-graph.js';
import { AddEdgeDialog, AddNodeDialog } from './map-dialogs.js';
import { EdgeDetails, GhostDetails, NodeDetails, ReachBadge, ServicesCell } from './map-details.js';
import { useLoadedSession } from './session-load.js';
import {
  changedPositions, compareWithScan, elementsOf, liveData, mergeMarks, namesByNode, nodeStatus, serviceBadge, statusAddresses,
  statusBatches,
} from './map-model.js';
import { sortByIp } from './model.js';
import { KindBadge, Lazy } from './section.js';

await loadStylesheet(new URL('./map.css', import.meta.url).pathname);

const POLL_MS = 5000;
const SAVE_DELAY_MS = 400;
const LIST_PAGE = 50;
const loadEnrich = () => import('./session-enrich.js');

/** What the monitors say of each node (nodeStatus: worst status, reachability, services), polled. */
function useNodeStatus(nodes) {
  const [byNode, setByNode] = useState(new Map());
  const [tick, setTick] = useState(0);
  const changes = useMonitorChanges(true);
  const addresses = useMemo(() => statusAddresses(nodes), [nodes]);
  const key = addresses.join(',');
  useInterval(() => setTick((t) => t + 1), POLL_MS);
  useEffect(() => {
    if (!addresses.length) { setByNode(new Map()); return undefined; }
    const ctl = new AbortController();
    Promise.all(statusBatches(addresses).map((b) => api.get('/api/v1sion/monitor/status/by-ip', { ips: b.join(',') }, { signal: ctl.signal })))
      .then((answers) => {
        // A body cut short by the abort (a newer poll, leaving the page) reads as null: keep the badges as they are.
        if (ctl.signal.aborted || answers.some((a) => !Array.isArray(a?.addresses))) return;
        const byIp = new Map(answers.flatMap((a) => a.addresses.map((x) => [x.ip, x])));
        setByNode(new Map(nodes.map((n) => [n.id, nodeStatus(n, byIp)])));
      }, () => { /* the next poll tries again; a refusal (status behind sign-in) leaves the badges as they were */ });
    return () => ctl.abort();
  }, [key, tick, changes]);
  return byNode;
}

/**
 * The inventory record each node stands for (linked, or matched and not linked), for someone who may
 * read the inventory: node id -> matches item. Loaded once per session and after a change of its nodes.
 */
function useInventoryNames(session, allowed) {
  const [names, setNames] = useState(new Map());
  const key = session.nodes.map((n) => `${n.id}:${n.inventory?.id ?? ''}`).join(',');
  useEffect(() => {
    if (!allowed) return undefined;
    const ctl = new AbortController();
    api.get('/api/v1sion/brain/matches', { session_id: session.id }, { signal: ctl.signal })
      .then((m) => { if (!ctl.signal.aborted && m) setNames(namesByNode(m)); }, () => { /* without names the nodes keep their own labels */ });
    return () => ctl.abort();
  }, [session.id, key, allowed]);
  return names;
}

/** Kept scans of the session's subnets, newest first (to compare with). */
function useKeptScans(session) {
  const subnet = session.subnets[0];
  return useApi(subnet ? '/api/v1sion/scan' : null, { query: { subnet, limit: 20 } });
}

function CompareSelect({ session, scans, value, onChange }) {
  const own = scans.data?.items.find((s) => s.job_id === session.scan_job_id);
  const others = (scans.data?.items ?? []).filter((s) => s.job_id !== session.scan_job_id
    && (!own || s.started_at < own.started_at));
  return html`<div class="field map-compare">
    <label for="map-compare">Compare with</label>
    <select id="map-compare" value=${value} onChange=${(e) => onChange(e.currentTarget.value)}>
      <option value="none">Nothing</option>
      <option value="merge">What the last merged scan said</option>
      ${others.map((s) => html`<option key=${s.job_id} value=${s.job_id}>Scan of ${s.subnet}, ${dateTime(s.started_at)}</option>`)}
    </select>
  </div>`;
}

function Legend() {
  return html`<ul class="map-legend" aria-label="Legend">
    <li><span class="map-key map-key-lldp" aria-hidden="true"></span>LLDP or CDP link</li>
    <li><span class="map-key map-key-fdb" aria-hidden="true"></span>Forwarding table</li>
    <li><span class="map-key map-key-manual" aria-hidden="true"></span>Added by hand</li>
    <li><span class="map-key map-key-l3" aria-hidden="true"></span>Layer-3 route</li>
    <li><span class="map-dot map-dot-new" aria-hidden="true"></span>New</li>
    <li><span class="map-dot map-dot-vanished" aria-hidden="true"></span>Vanished</li>
    <li><span class="map-dot map-dot-reach" aria-hidden="true"></span>Answers (ping, or a service)</li>
    <li><span class="map-dot map-dot-unreach" aria-hidden="true"></span>Does not answer ping</li>
    <li><span class="map-badge" aria-hidden="true">2</span>Services on it down (amber: degraded)</li>
  </ul>`;
}

/** The nodes under the map: name (selects it on the map), kind, address, whether it answers, its services, comparison mark. */
function NodeList({ session, ghosts, status, names, marks, selected, onSelect }) {
  const [q, setQ] = useState('');
  const [offset, setOffset] = useState(0);
  const words = q.toLowerCase().split(/\s+/).filter(Boolean);
  const all = useMemo(() => sortByIp([...session.nodes.map((n) => ({ ...n, ghost: false })), ...ghosts.map((g) => ({ ...g, ghost: true }))],
    (n) => n.addresses[0] ?? ''), [session.nodes, ghosts]);
  const nameOf = (n) => names.get(n.id)?.inventory?.name ?? n.label;
  const rows = all.filter((n) => !words.length || words.every((w) => `${nameOf(n)} ${n.label} ${n.addresses.join(' ')} ${n.kind}`.toLowerCase().includes(w)));
  const columns = [
    { key: 'label', label: 'Node', render: (n) => html`<button type="button" class="map-linkbtn cell-title" aria-pressed=${selected === n.id ? 'true' : 'false'}
      onClick=${() => onSelect({ type: 'node', id: n.id })}>${nameOf(n)}</button>
      ${names.get(n.id) && !names.get(n.id).linked ? html`<div class="cell-sub" title="A record matches it; link it on the inventory comparison page">Matched, not linked</div>` : null}` },
    { key: 'kind', label: 'Kind', render: (n) => html`<${KindBadge} kind=${n.kind} />` },
    { key: 'address', label: 'Address', render: (n) => (n.addresses[0] ? html`<span class="mono">${n.addresses[0]}</span>` : html`<span class="muted">—</span>`) },
    { key: 'reach', label: 'Host', render: (n) => {
      const s = status.get(n.id);
      return html`<span class="map-node-status" data-node=${n.id} data-status=${s?.status ?? 'none'} data-reach=${s?.reachability ?? 'none'}><${ReachBadge} status=${s} /></span>`;
    } },
    { key: 'services', label: 'Services', render: (n) => {
      const s = status.get(n.id);
      const b = serviceBadge(s);
      return html`<span class="map-node-services" data-node=${n.id} data-badge=${b ? `${b.tone}:${b.count}` : 'none'}><${ServicesCell} status=${s} /></span>`;
    } },
    { key: 'mark', label: 'Compared', render: (n) => {
      const m = n.ghost ? 'vanished' : marks.get(n.id);
      return m ? html`<${Badge} tone=${m === 'new' ? 'info' : 'warn'}>${m === 'new' ? 'New' : 'Vanished'}<//>` : html`<span class="muted">—</span>`;
    } },
  ];
  return html`<${Card} title=${`Nodes on the map (${session.nodes.length})`} pad=${false}>
    <div class="disc-toolbar">
      <${SearchBox} value=${q} label="Filter the nodes" placeholder="Filter by label, address or kind" onInput=${(v) => { setQ(v); setOffset(0); }} />
    </div>
    <${Table} columns=${columns} rows=${rows.slice(offset, offset + LIST_PAGE)} caption="Nodes on the map"
      empty=${html`<${EmptyState} icon="search" title="No node matches" />`} />
    <${Pager} total=${rows.length} limit=${LIST_PAGE} offset=${offset} onChange=${setOffset} />
  <//>`;
}

/** The structure the drawing depends on (not positions: moving a node does not redraw). */
const structureKey = (session, compare) => JSON.stringify([
  session.nodes.map((n) => [n.id, n.label, n.kind, n.addresses[0], n.manual, n.scan_state]),
  session.edges.map((e) => [e.id, e.from_port, e.to_port]), (session.l3_edges ?? []).map((e) => [e.id, e.label]),
  compare ? [compare.job_id ?? 'merge', compare.vanished?.length ?? 0] : null,
]);

function MapView({ session, replace, query }) {
  const s = useSession();
  const writable = can(s, 'v1sion:write');
  const box = useRef(null);
  const cyRef = useRef(null);
  const saved = useRef({});
  const pending = useRef({});
  const timer = useRef(null);
  const [ready, setReady] = useState(false);
  const [drawError, setDrawError] = useState(null);
  const [selected, setSelected] = useState({ type: null, id: null });
  const [saveState, setSaveState] = useState('');
  const [dialog, setDialog] = useState(null); // 'node' | 'edge' | null
  const [factsOf, setFactsOf] = useState(null);
  const [result, setResult] = useState(null);
  const scans = useKeptScans(session);
  const hasMerge = session.nodes.some((n) => n.scan_state);
  const compareId = query.compare ?? (hasMerge ? 'merge' : 'none');
  const [compared, setCompared] = useState(null); // the compared scan's result
  const compare = useMemo(() => (compareId === 'none' ? null
    : compareId === 'merge' ? { marks: mergeMarks(session), vanished: [], job_id: 'merge' }
      : compared?.job_id === compareId ? compareWithScan(session, compared) : null), [compareId, compared, session.nodes]);

  // What was saved: the positions the server has.
  useEffect(() => {
    saved.current = Object.fromEntries(session.nodes.filter((n) => n.position).map((n) => [n.id, n.position]));
  }, [session]);

  // A kept scan to compare with: its result, loaded once per choice.
  useEffect(() => {
    if (compareId === 'none' || compareId === 'merge' || compared?.job_id === compareId) return undefined;
    const ctl = new AbortController();
    api.get(`/api/v1sion/scan/${encodeURIComponent(compareId)}/result`, undefined, { signal: ctl.signal })
      .then(setCompared, (e) => { if (e?.name !== 'AbortError') { toast.error(e); setQuery({ compare: 'none' }); } });
    return () => ctl.abort();
  }, [compareId]);

  // The session's own scan result, for a node's identification (loaded when a node is first chosen).
  useEffect(() => {
    if (selected.type !== 'node' || result || !session.scan_job_id) return;
    api.get(`/api/v1sion/scan/${encodeURIComponent(session.scan_job_id)}/result`).then(setResult, () => setResult({ devices: [], hosts: [] }));
  }, [selected.type]);

  const status = useNodeStatus(session.nodes);
  const names = useInventoryNames(session, can(s, 'brain:read'));
  const marks = compare?.marks ?? new Map();
  const ghosts = compare?.vanished ?? [];
  const key = structureKey(session, compare);

  // Draw (again when the structure changes), keeping the view where it was.
  useEffect(() => {
    let live = true;
    const before = cyRef.current;
    const view = before ? { zoom: before.zoom(), pan: { ...before.pan() } } : null;
    // Nodes the map placed itself (not saved yet) keep where they are on screen.
    const shown = before ? Object.fromEntries(before.nodes().map((n) => [n.id(), { ...n.position() }])) : {};
    const positioned = { ...session, nodes: session.nodes.map((n) => (n.position || !shown[n.id] ? n : { ...n, position: shown[n.id] })) };
    const elements = elementsOf(positioned, { marks, ghosts, status, names });
    drawGraph(box.current, elements, { editable: writable, onSelect: setSelected, onMoved: queueSave }).then((cy) => {
      if (!live) { cy.destroy(); return; }
      if (before && !before.destroyed()) before.destroy();
      cyRef.current = cy;
      if (view) { cy.zoom(view.zoom); cy.pan(view.pan); } else firstView(cy);
      setReady(true);
    }, (e) => { if (live) setDrawError({ detail: `The map could not be drawn: ${e.message}` }); });
    return () => { live = false; };
  }, [key]);
  useEffect(() => () => { cyRef.current?.destroy(); cyRef.current = null; clearTimeout(timer.current); }, []);

  // Names, rings and badges follow the polled status and the inventory's names without redrawing.
  useEffect(() => {
    const cy = cyRef.current;
    if (!cy) return;
    cy.batch(() => {
      for (const n of session.nodes) {
        const el = cy.getElementById(n.id);
        if (el.empty()) continue;
        for (const [k, v] of Object.entries(liveData(n, status.get(n.id) ?? null, names.get(n.id)))) if (el.data(k) !== v) el.data(k, v);
      }
    });
  }, [status, names, ready]);

  // The chosen element is selected on the map too (a click in the list, a neighbour's name).
  useEffect(() => {
    const cy = cyRef.current;
    if (!cy) return;
    cy.$(':selected').unselect();
    if (selected.id) {
      const el = cy.getElementById(selected.id);
      if (!el.empty()) { el.select(); if (selected.type === 'node' && !el.visible()) cy.center(el); }
    }
  }, [selected, ready]);

  /** Every node's position on screen: what a first save, or an arrangement, sends. */
  const allPositions = () => Object.fromEntries((cyRef.current?.nodes() ?? []).filter((n) => !n.data('ghost')).map((n) => [n.id(), { ...n.position() }]));
  /** The positions the server does not have yet (the map placed those nodes itself). */
  const unsavedPositions = () => {
    const all = allPositions();
    const out = {};
    for (const [id, p] of Object.entries(all)) if (!saved.current[id]) out[id] = p;
    return changedPositions({}, out);
  };
  const extra = () => {
    const positions = unsavedPositions();
    return Object.keys(positions).length ? { positions } : {};
  };

  async function flush() {
    timer.current = null;
    const moved = pending.current;
    pending.current = {};
    const positions = changedPositions(saved.current, { ...unsavedPositions(), ...moved });
    if (!Object.keys(positions).length) return;
    setSaveState('Saving the layout…');
    try {
      const next = await request('PATCH', `/api/v1sion/sessions/${session.id}`, { body: { positions } });
      Object.assign(saved.current, positions);
      replace(next);
      setSaveState(`Layout saved ${new Date().toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' })}`);
    } catch (e) {
      setSaveState('');
      toast.error(e);
    }
  }
  function queueSave(moved) {
    if (!writable) return;
    Object.assign(pending.current, moved);
    clearTimeout(timer.current);
    timer.current = setTimeout(flush, SAVE_DELAY_MS);
  }

  const zoomBy = (f) => {
    const cy = cyRef.current;
    if (!cy) return;
    cy.zoom({ level: cy.zoom() * f, renderedPosition: { x: cy.width() / 2, y: cy.height() / 2 } });
  };
  const fit = () => cyRef.current?.fit(undefined, 30);
  const arrange = async () => {
    const cy = cyRef.current;
    if (!cy) return;
    if (writable && Object.keys(saved.current).length && !(await confirm({ title: 'Arrange the map again?', confirmLabel: 'Arrange',
      message: 'Every node is placed again automatically, and the new arrangement replaces the saved one.' }))) return;
    arrangeNodes(cy.nodes());
    if (writable) { Object.assign(pending.current, allPositions()); await flush(); }
  };

  const done = (next, message, select) => {
    setDialog(null);
    replace(next);
    toast.ok(message);
    if (select) setSelected({ type: 'node', id: select });
  };
  const removeNode = async (node) => {
    const scanned = !node.manual;
    if (!(await confirm({ title: `Remove ${node.label} from the map?`, confirmLabel: 'Remove', danger: true,
      message: `Its edges go with it.${scanned ? ' A newer scan merged into the session finds it again as a new node.' : ''}` }))) return;
    try {
      replace(await request('PATCH', `/api/v1sion/sessions/${session.id}`, { body: { ...extra(), remove_nodes: [node.id] } }));
      setSelected({ type: null, id: null });
      toast.ok(`Removed ${node.label}`);
    } catch (e) { toast.error(e); }
  };
  const removeEdge = async (edge) => {
    if (!(await confirm({ title: 'Remove this edge?', confirmLabel: 'Remove', danger: true, message: 'The edge drawn by hand is removed from the session.' }))) return;
    try {
      replace(await request('PATCH', `/api/v1sion/sessions/${session.id}`, { body: { ...extra(), remove_edges: [edge.id] } }));
      setSelected({ type: null, id: null });
      toast.ok('Removed the edge');
    } catch (e) { toast.error(e); }
  };
  const centre = () => {
    const e = cyRef.current?.extent();
    return e ? { x: (e.x1 + e.x2) / 2, y: (e.y1 + e.y2) / 2 } : { x: 0, y: 0 };
  };

  const node = selected.type === 'node' ? session.nodes.find((n) => n.id === selected.id) : null;
  const ghost = selected.type === 'node' && !node ? ghosts.find((g) => g.id === selected.id) : null;
  const newCount = [...marks.values()].filter((m) => m === 'new').length;
  const goneCount = [...marks.values()].filter((m) => m === 'vanished').length + ghosts.length;

  const panel = node ? html`<${NodeDetails} session=${session} node=${node} status=${status.get(node.id) ?? null} record=${names.get(node.id)}
        mark=${marks.get(node.id) ?? null}
        result=${result} writable=${writable} onSelect=${setSelected} onRemove=${removeNode} onFacts=${setFactsOf}
        onClose=${() => setSelected({ type: null, id: null })} />`
    : ghost ? html`<${GhostDetails} ghost=${ghost} compare=${compare} onClose=${() => setSelected({ type: null, id: null })} />`
      : selected.type === 'edge' ? html`<${EdgeDetails} session=${session} edgeId=${selected.id} writable=${writable} onSelect=${setSelected}
          onRemove=${removeEdge} onClose=${() => setSelected({ type: null, id: null })} />`
        : html`<section class="map-panel map-panel-empty"><p class="muted">Choose a node or an edge to see its details.${writable
          ? ' Drag nodes to arrange the map: the layout is saved.' : ''}</p><${Legend} /></section>`;

  return html`
    <div class="map-toolbar" role="toolbar" aria-label="Map">
      <div class="map-tools">
        <button type="button" class="btn btn-icon btn-sm" onClick=${() => zoomBy(1.25)} aria-label="Zoom in" title="Zoom in"><${Icon} name="plus" size=${16} /></button>
        <button type="button" class="btn btn-icon btn-sm" onClick=${() => zoomBy(0.8)} aria-label="Zoom out" title="Zoom out"><span class="map-minus" aria-hidden="true">−</span></button>
        <button type="button" class="btn btn-sm" onClick=${fit}>Fit</button>
        <button type="button" class="btn btn-sm" onClick=${arrange}>Arrange again</button>
        ${writable ? html`<button type="button" class="btn btn-sm" onClick=${() => setDialog('node')}><${Icon} name="plus" size=${15} />Node</button>
          <button type="button" class="btn btn-sm" onClick=${() => setDialog('edge')} disabled=${session.nodes.length < 2}><${Icon} name="plus" size=${15} />Edge</button>` : null}
      </div>
      <${CompareSelect} session=${session} scans=${scans} value=${compareId} onChange=${(v) => setQuery({ compare: v })} />
    </div>
    ${compare && (newCount || goneCount) ? html`<p class="map-compare-sum small" role="status">
      <${Badge} tone="info">${newCount} new<//> <${Badge} tone="warn">${goneCount} vanished<//>
      ${compare.job_id === 'merge' ? ' since the scan merged before the last one' : html` since the scan of <time datetime=${compare.started_at}>${relTime(compare.started_at)}</time>`}</p>` : null}
    <div class="map-layout">
      <div class="map-stage">
        ${drawError ? html`<${ErrorState} error=${drawError} />` : null}
        <div class="map-canvas" ref=${box} role="img" aria-label=${`Topology map of ${session.name}: ${session.nodes.length} nodes, ${session.edges.length} edges. The nodes are listed below the map.`}></div>
        ${!ready && !drawError ? html`<div class="map-loading"><${Loading} label="Drawing the map…" /></div>` : null}
        <div class="map-save muted small" role="status" aria-live="polite">${saveState}</div>
      </div>
      ${panel}
    </div>
    <${NodeList} session=${session} ghosts=${ghosts} status=${status} names=${names} marks=${marks} selected=${selected.id} onSelect=${setSelected} />
    ${dialog === 'node' ? html`<${AddNodeDialog} session=${session} at=${centre()} extra=${extra} onDone=${done} onClose=${() => setDialog(null)} />` : null}
    ${dialog === 'edge' ? html`<${AddEdgeDialog} session=${session} from=${node?.id} extra=${extra} onDone=${done} onClose=${() => setDialog(null)} />` : null}
    ${factsOf ? html`<${Lazy} load=${loadEnrich} name="NodeFactsDialog" props=${{ session, node: factsOf, writable, onClose: () => setFactsOf(null) }} />` : null}`;
}

export default function MapPage({ params, query }) {
  const { session, placeholder, replace: setSaved } = useLoadedSession(params.id, 'Topology map');
  if (placeholder) return placeholder;
  const crumbs = [{ href: '/discovery/sessions', label: 'Sessions' }, { href: `/discovery/sessions/${session.id}`, label: session.name }, { label: 'Map' }];
  return html`<${Page} title=${`Map of ${session.name}`} subtitle=${html`<${Crumbs} items=${crumbs} />`}>
    <${MapView} session=${session} replace=${setSaved} query=${query} />
  <//>`;
}
