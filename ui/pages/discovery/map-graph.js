// The drawing of the topology map: Cytoscape.js, imported on first use (the only page that loads it).
// Nodes are icons by kind with the label (the inventory name when a record stands for the node) and
// first address below; the node's ring says whether the host answers (green) or not (red), and a badge
// in the corner counts the services on it that are down (red), failing (fuchsia), degraded (amber) or held by a
// maintenance window (blue), a green dot when all answer: one failing HTTP check does not paint a host
// that answers ping as down. Edges carry the port at each end; layer-3 edges (documented routes) are
// dashed arrows labelled with their destinations.
// The first layout is the same on every visit (seeded, never random); on a small screen the first view
// keeps the labels readable rather than fitting everything. Colours come from the theme's CSS
// variables, read again when the system switches between light and dark.
import { KIND_RING, layoutBox, seedPositions } from './map-model.js';

/** Above this many nodes the first layout is concentric (by kind) instead of force-directed. */
export const FORCE_LAYOUT_MAX = 400;

let cytoscapeModule = null;
/** Cytoscape, imported once. */
export async function loadCytoscape() {
  // Cytoscape adds a <style> element (its container's position: relative) unless an element with this id
  // exists; the page's policy refuses inline styles, so a placeholder stands in and map.css holds the rule.
  if (!document.getElementById('__________cytoscape_stylesheet')) {
    document.head.append(Object.assign(document.createElement('meta'), { id: '__________cytoscape_stylesheet' }));
  }
  cytoscapeModule ??= import('cytoscape').then((m) => m.default);
  return cytoscapeModule;
}

const svgUrl = (body, stroke) => `data:image/svg+xml;utf8,${encodeURIComponent(
  `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="48" height="48" fill="none" stroke="${stroke}" stroke-width="1.6" stroke-linecap="round" stroke-linejoin="round">${body}</svg>`)}`;

/** Line icons by node kind (24 x 24). */
const KIND_ICONS = {
  router: '<circle cx="12" cy="12" r="8.5"/><path d="M8 9.5h6.5M12.5 7.5l2 2-2 2M16 14.5H9.5M11.5 12.5l-2 2 2 2"/>',
  switch: '<rect x="3" y="7" width="18" height="10" rx="2"/><path d="M7 10.5h8M13 9l2 1.5-2 1.5M17 13.5H9M11 12l-2 1.5 2 1.5"/>',
  firewall: '<rect x="3.5" y="5" width="17" height="14" rx="1.5"/><path d="M3.5 9.7h17M3.5 14.3h17M9 5v4.7M15 5v4.7M12 9.7v4.6M7 14.3V19M17 14.3V19"/>',
  access_point: '<path d="M4.5 10a10.5 10.5 0 0 1 15 0M7.3 12.8a6.5 6.5 0 0 1 9.4 0M10 15.5a2.7 2.7 0 0 1 4 0"/><circle cx="12" cy="18.2" r="1"/>',
  server: '<rect x="4.5" y="4" width="15" height="7" rx="1.5"/><rect x="4.5" y="13" width="15" height="7" rx="1.5"/><path d="M8 7.5h.01M8 16.5h.01M12 7.5h4M12 16.5h4"/>',
  host: '<rect x="3.5" y="4.5" width="17" height="11" rx="1.5"/><path d="M9 19.5h6M12 15.5v4"/>',
  unknown: '<circle cx="12" cy="12" r="8.5"/><path d="M9.8 9.5a2.3 2.3 0 1 1 3.2 2.1c-.6.3-1 .8-1 1.5v.6"/><circle cx="12" cy="16.6" r=".5"/>',
};

const badgeUrl = (fill, ring, count = 0) => `data:image/svg+xml;utf8,${encodeURIComponent(count
  ? `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 20 20" width="20" height="20"><circle cx="10" cy="10" r="9" fill="${fill}" stroke="${ring}" stroke-width="1.5"/>` +
    `<text x="10" y="14" text-anchor="middle" font-family="system-ui, sans-serif" font-size="${count > 9 ? 9 : 11}" font-weight="700" fill="#fff">${count > 99 ? '99+' : count}</text></svg>`
  : `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16" width="16" height="16"><circle cx="8" cy="8" r="5" fill="${fill}" stroke="${ring}" stroke-width="2"/></svg>`)}`;
const BLANK = `data:image/svg+xml;utf8,${encodeURIComponent('<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>')}`;

/** The theme's colours, as the page's CSS variables give them now. */
export function themeColours(el = document.documentElement) {
  const cs = getComputedStyle(el);
  const v = (name, fallback) => cs.getPropertyValue(name).trim() || fallback;
  return {
    text: v('--text', '#0f172a'), muted: v('--muted', '#64748b'), surface: v('--surface', '#fff'), surface3: v('--surface-3', '#eef2f6'),
    border: v('--border-strong', '#cbd5e1'), accent: v('--accent', '#0f766e'), info: v('--info', '#1d4ed8'),
    up: v('--up', '#15803d'), down: v('--down', '#dc2626'), failing: v('--failing', '#a21caf'), degraded: v('--degraded', '#c2410c'),
    paused: v('--paused', '#475569'), maintenance: v('--maintenance', '#2563eb'),
    unknown: v('--unknown', '#64748b'),
  };
}

/** The map's stylesheet for Cytoscape in the given colours. */
export function graphStyle(c) {
  const icons = Object.fromEntries(Object.entries(KIND_ICONS).map(([k, body]) => [k, svgUrl(body, c.text)]));
  const fills = { down: c.down, failing: c.failing, degraded: c.degraded, maintenance: c.maintenance, up: c.up };
  const badges = new Map();
  // 'down:3' -> a red badge reading 3; 'up:0' -> a green dot. Made once per value.
  const badge = (key) => {
    if (!key) return BLANK;
    if (!badges.has(key)) {
      const [tone, count] = key.split(':');
      badges.set(key, badgeUrl(fills[tone] ?? c.unknown, c.surface, Number(count)));
    }
    return badges.get(key);
  };
  return [
    { selector: 'node', style: {
      shape: 'round-rectangle', width: 46, height: 46, 'background-color': c.surface, 'border-width': 1.5, 'border-color': c.border,
      'background-image': (n) => [icons[n.data('kind')] ?? icons.unknown, badge(n.data('badge'))],
      'background-width': ['70%', '20px'], 'background-height': ['70%', '20px'],
      'background-position-x': ['50%', '125%'], 'background-position-y': ['50%', '-25%'],
      'background-clip': ['node', 'none'], 'background-image-containment': ['inside', 'over'], 'bounds-expansion': 10,
      label: (n) => (n.data('sub') && n.data('sub') !== n.data('label') ? `${n.data('label')}\n${n.data('sub')}` : n.data('label')),
      'text-wrap': 'wrap', 'text-max-width': '140px', 'text-overflow-wrap': 'anywhere', 'text-valign': 'bottom', 'text-margin-y': 5, 'font-size': 11,
      'font-family': 'system-ui, sans-serif', color: c.text, 'text-background-color': c.surface, 'text-background-opacity': 0.85,
      'text-background-padding': '2px', 'text-background-shape': 'round-rectangle', 'min-zoomed-font-size': 6,
    } },
    { selector: 'node.kind-router, node.kind-access_point, node.kind-unknown', style: { shape: 'ellipse' } },
    { selector: 'node[reach = "reachable"]', style: { 'border-width': 2.5, 'border-color': c.up } },
    { selector: 'node[reach = "unreachable"]', style: { 'border-width': 3.5, 'border-color': c.down } },
    { selector: 'node.manual', style: { 'border-style': 'dotted', 'border-width': 2, 'border-color': c.accent } },
    { selector: 'node.mark-new', style: { 'border-width': 3, 'border-color': c.info } },
    { selector: 'node.mark-vanished', style: { 'border-width': 2.5, 'border-style': 'dashed', 'border-color': c.degraded, opacity: 0.6 } },
    { selector: 'node.ghost', style: { 'background-color': c.surface3 } },
    { selector: 'node:selected', style: { 'overlay-color': c.accent, 'overlay-opacity': 0.18, 'overlay-padding': 6, 'border-color': c.accent, 'border-width': 3 } },
    { selector: 'edge', style: {
      width: 2, 'line-color': c.border, 'curve-style': 'bezier', 'font-size': 9, 'font-family': 'system-ui, sans-serif', color: c.muted,
      'source-label': 'data(from_port)', 'target-label': 'data(to_port)', 'source-text-offset': 34, 'target-text-offset': 34,
      'text-background-color': c.surface, 'text-background-opacity': 0.85, 'text-background-padding': '1px', 'min-zoomed-font-size': 7,
    } },
    { selector: 'edge.src-lldp, edge.src-cdp', style: { width: 2.5, 'line-color': c.info } },
    { selector: 'edge.src-manual', style: { 'line-color': c.accent, 'line-style': 'dotted', width: 2.5 } },
    { selector: 'edge.l3', style: {
      'line-style': 'dashed', 'line-color': c.degraded, 'target-arrow-shape': 'triangle', 'target-arrow-color': c.degraded,
      label: 'data(label)', 'font-size': 9, color: c.degraded, 'text-rotation': 'autorotate',
    } },
    { selector: 'edge:selected', style: { width: 4, 'line-color': c.accent, 'target-arrow-color': c.accent } },
  ];
}

/**
 * The layout for nodes without a saved position: force-directed while it stays quick, else rings by
 * kind. Never random: the force layout starts from seedPositions() (set on the nodes before it runs) in
 * a box fixed by the count, so every visit draws the same map.
 */
export function layoutOptions(count, { fit = true } = {}) {
  if (count > FORCE_LAYOUT_MAX) {
    return { name: 'concentric', fit, padding: 30, animate: false, minNodeSpacing: 24, avoidOverlap: true,
      concentric: (n) => KIND_RING[n.data('kind')] ?? 0, levelWidth: () => 1 };
  }
  return { name: 'cose', fit, padding: 30, animate: false, randomize: false, boundingBox: layoutBox(count),
    nodeRepulsion: () => 9000, idealEdgeLength: () => 90, nodeOverlap: 12, numIter: 400, coolingFactor: 0.95, initialTemp: 200,
    componentSpacing: 80 };
}

/**
 * Runs the automatic layout on `nodes` from their seeded positions, with the edges between them (a
 * force layout given nodes alone sees no edge and packs every node as a component of its own).
 */
export function arrangeNodes(nodes) {
  const seeds = seedPositions(nodes.map((n) => ({ id: n.id(), kind: n.data('kind') })));
  nodes.positions((n) => seeds[n.id()]);
  nodes.union(nodes.edgesWith(nodes)).layout(layoutOptions(nodes.length)).run();
}

/** Below this zoom a node's 11 px label is smaller than 8 px: the first view of a large map goes no lower. */
export const READABLE_ZOOM = 0.75;

/**
 * The first view: the whole map when it fits at a readable size; otherwise (a phone, a large map) a
 * readable zoom centred on the node with the most edges (the core of the network, the same on every
 * visit), and the rest a drag away. Fit shows everything on request.
 */
export function firstView(cy) {
  cy.fit(undefined, 30);
  if (cy.zoom() >= READABLE_ZOOM || cy.nodes().empty()) return;
  const core = cy.nodes().reduce((best, n) => (!best || n.degree() > best.degree() || (n.degree() === best.degree() && n.id() < best.id()) ? n : best), null);
  cy.zoom(READABLE_ZOOM);
  cy.center(core);
}

/**
 * Draws `elements` in `container`. `onSelect({type: 'node'|'edge'|null, id})`, `onMoved({id: {x, y}})`
 * after a drag ends (the nodes that moved). Returns the Cytoscape instance.
 * Records the first layout's time as the performance measure "netprobe-map-layout".
 */
export async function drawGraph(container, elements, { editable, onSelect, onMoved }) {
  const cytoscape = await loadCytoscape();
  const colours = themeColours();
  const placed = elements.filter((e) => e.group === 'nodes' && e.data.placed).length;
  const nodeCount = elements.filter((e) => e.group === 'nodes').length;
  performance.mark('netprobe-map-layout-start');
  const cy = cytoscape({
    container, elements, style: graphStyle(colours), wheelSensitivity: 0.3, minZoom: 0.05, maxZoom: 4,
    boxSelectionEnabled: false, autoungrabify: !editable, selectionType: 'single',
    layout: { name: 'preset', fit: true, padding: 30 },
  });
  cy.nodes('.ghost').ungrabify();
  performance.mark('netprobe-map-created');
  if (placed < nodeCount) placeUnplaced(cy);
  performance.mark('netprobe-map-layout-end');
  performance.measure('netprobe-map-layout', 'netprobe-map-layout-start', 'netprobe-map-layout-end');

  cy.on('tap', (e) => {
    if (e.target === cy) onSelect({ type: null, id: null });
    else onSelect({ type: e.target.isNode() ? 'node' : 'edge', id: e.target.id() });
  });
  cy.on('dragfree', 'node', (e) => {
    const moved = {};
    for (const n of e.target.union(cy.nodes(':selected')).filter((x) => x.grabbable() && !x.data('ghost'))) moved[n.id()] = { ...n.position() };
    onMoved(moved);
  });
  const media = window.matchMedia?.('(prefers-color-scheme: dark)');
  const retheme = () => cy.style(graphStyle(themeColours()));
  media?.addEventListener?.('change', retheme);
  cy.on('destroy', () => media?.removeEventListener?.('change', retheme));

  return cy;
}

/** Lays out the nodes without a saved position: all of them from scratch, or some beside the placed ones. */
function placeUnplaced(cy) {
  const unplaced = cy.nodes().filter((n) => !n.data('placed'));
  const placed = cy.nodes().difference(unplaced);
  if (!placed.length) {
    arrangeNodes(unplaced);
    return;
  }
  // Beside the arrangement a person made: a grid under it, which they can drag into place.
  const bb = placed.boundingBox();
  const cols = Math.max(1, Math.ceil(Math.sqrt(unplaced.length)));
  unplaced.layout({ name: 'grid', fit: false, animate: false, cols, avoidOverlap: true,
    boundingBox: { x1: bb.x1, y1: bb.y2 + 80, w: Math.max(bb.w, cols * 90), h: Math.ceil(unplaced.length / cols) * 90 } }).run();
  cy.fit(undefined, 30);
}
