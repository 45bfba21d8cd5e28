// The map's dialogs: add a node by hand (label, kind, addresses; placed where the map is looking) and
// add an edge between two nodes with the port at each end. Both are PATCHes of the session (add_nodes,
// add_edges), sent with the positions of the nodes the map placed itself, so the arrangement on screen
// stays as it is. The API's messages land beside the fields (their names are the API's paths).
import { request } from '../../lib/api.js';
import { useForm } from '../../lib/form.js';
import { html } from '../../lib/html.js';
import { DEVICE_KINDS } from '../../lib/vocabulary.js';
import { Field, FormError, SelectField } from '../../components/field.js';
import { Modal } from '../../components/modal.js';
import { manualNodeId } from './map-model.js';

const KIND_OPTIONS = Object.entries(DEVICE_KINDS).map(([value, label]) => ({ value, label }));

const patch = (session, body) => request('PATCH', `/api/v1sion/sessions/${session.id}`, { body });

/** `extra()` gives what else the PATCH carries (positions of nodes not yet saved); `at` where to put the node. */
export function AddNodeDialog({ session, at, extra, onDone, onClose }) {
  const form = useForm({ 'add_nodes.0.label': '', 'add_nodes.0.kind': 'switch', 'add_nodes.0.addresses': '' });
  const onSubmit = form.submit(async (v) => {
    const label = v['add_nodes.0.label'].trim();
    const addresses = v['add_nodes.0.addresses'].split(/[\s,]+/).filter(Boolean);
    const id = manualNodeId(label, new Set(session.nodes.map((n) => n.id)));
    const node = { id, label, kind: v['add_nodes.0.kind'], addresses, position: { x: Math.round(at.x), y: Math.round(at.y) } };
    onDone(await patch(session, { ...extra(), add_nodes: [node] }), `Added ${label}`, id);
  });
  return html`<${Modal} title="Add a node" onClose=${onClose} size="sm"
    footer=${html`<button type="button" class="btn" onClick=${onClose}>Cancel</button>
      <button type="submit" form="map-node-form" class="btn btn-primary" disabled=${form.busy}>${form.busy ? 'Adding…' : 'Add node'}</button>`}>
    <form id="map-node-form" onSubmit=${onSubmit}>
      <${FormError} form=${form} />
      <p class="muted small">A node added by hand stays when newer scans are merged. It appears in the middle of the map; drag it into place.</p>
      <${Field} form=${form} name="add_nodes.0.label" label="Label" required autofocus maxlength="200" />
      <${SelectField} form=${form} name="add_nodes.0.kind" label="Kind" options=${KIND_OPTIONS} />
      <${Field} form=${form} name="add_nodes.0.addresses" label="Addresses" autocomplete="off" spellcheck=${false}
        hint="Optional: IP addresses separated by commas. Monitors on them colour the node's badge." />
    </form>
  <//>`;
}

export function AddEdgeDialog({ session, from, to, extra, onDone, onClose }) {
  const nodes = [...session.nodes].sort((a, b) => a.label.localeCompare(b.label));
  const options = [{ value: '', label: 'Choose a node' }, ...nodes.map((n) => ({ value: n.id, label: `${n.label}${n.addresses[0] ? ` (${n.addresses[0]})` : ''}` }))];
  const form = useForm({ 'add_edges.0.from': from ?? '', 'add_edges.0.from_port': '', 'add_edges.0.to': to ?? '', 'add_edges.0.to_port': '' });
  const onSubmit = form.submit(async (v) => {
    const a = v['add_edges.0.from'];
    const b = v['add_edges.0.to'];
    const errors = [];
    if (!a) errors.push({ path: 'add_edges.0.from', message: 'Choose the node the edge starts at' });
    if (!b) errors.push({ path: 'add_edges.0.to', message: 'Choose the node the edge goes to' });
    if (a && a === b) errors.push({ path: 'add_edges.0.to', message: 'An edge joins two different nodes' });
    if (errors.length) { form.fail({ detail: 'The edge needs two different nodes', errors }); return; }
    const port = (p) => (p.trim() ? p.trim() : null);
    const edge = { from: a, to: b, from_port: port(v['add_edges.0.from_port']), to_port: port(v['add_edges.0.to_port']) };
    onDone(await patch(session, { ...extra(), add_edges: [edge] }), 'Added the edge');
  });
  return html`<${Modal} title="Add an edge" onClose=${onClose} size="sm"
    footer=${html`<button type="button" class="btn" onClick=${onClose}>Cancel</button>
      <button type="submit" form="map-edge-form" class="btn btn-primary" disabled=${form.busy}>${form.busy ? 'Adding…' : 'Add edge'}</button>`}>
    <form id="map-edge-form" onSubmit=${onSubmit}>
      <${FormError} form=${form} />
      <p class="muted small">A cable or link discovery could not see. Ports are optional.</p>
      <div class="map-edge-grid">
        <${SelectField} form=${form} name="add_edges.0.from" label="From node" options=${options} />
        <${Field} form=${form} name="add_edges.0.from_port" label="From port" maxlength="100" autocomplete="off" spellcheck=${false} placeholder="Gi1/0/1" />
        <${SelectField} form=${form} name="add_edges.0.to" label="To node" options=${options} />
        <${Field} form=${form} name="add_edges.0.to_port" label="To port" maxlength="100" autocomplete="off" spellcheck=${false} />
      </div>
    </form>
  <//>`;
}
