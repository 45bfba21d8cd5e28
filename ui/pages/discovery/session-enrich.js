// The session's SSH dialogs: "Enrich over SSH" (POST /api/v1sion/enrich-ssh {session_id, addresses,
// credential_id, port, platform}: each chosen node's first address uses the SSH target of that address and
// port, or a new one made with the stored credential chosen here), and a node's facts as the last
// enrichment left them, whose routes can be documented as routes of that node (source ssh).
import { api } from '../../lib/api.js';
import { useForm } from '../../lib/form.js';
import { html, useMemo } from '../../lib/html.js';
import { DEVICE_KINDS, SSH_PLATFORMS } from '../../lib/vocabulary.js';
import { CheckField, CheckGroup, Field, FormError, SelectField } from '../../components/field.js';
import { Modal } from '../../components/modal.js';
import { enrichAddresses } from './model.js';
import { offeredKey, useImports } from './route-import.js';
import { FactsView } from './ssh-facts.js';
import { CredentialSelect, useSshCredentials } from './ssh-target-form.js';

const MAX = 256;
const INFRA = ['router', 'switch', 'firewall', 'access_point', 'server'];

/** `onStarted(answer)` with the job id and its targets. */
export function EnrichSessionDialog({ session, onStarted, onClose }) {
  const creds = useSshCredentials();
  const kindsPresent = useMemo(() => Object.keys(DEVICE_KINDS).filter((k) => session.nodes.some((n) => (n.kind ?? 'unknown') === k && n.addresses.length)),
    [session.nodes]);
  const infra = kindsPresent.filter((k) => INFRA.includes(k));
  const form = useForm({ credential_id: '', platform: 'auto', port: '22', kinds: infra.length ? infra : kindsPresent, include_missing: false });
  const v = form.values;
  const addresses = enrichAddresses(session.nodes, { kinds: v.kinds, includeMissing: v.include_missing });
  const onSubmit = form.submit(async (vals) => {
    if (!addresses.length) { form.fail({ detail: 'Choose at least one kind of node that has an address.' }); return; }
    const body = { session_id: session.id, addresses: addresses.slice(0, MAX), platform: vals.platform };
    if (vals.credential_id) body.credential_id = vals.credential_id;
    if (vals.port.trim() && Number(vals.port) !== 22) body.port = Number(vals.port);
    onStarted(await api.post('/api/v1sion/enrich-ssh', body));
  });
  const counts = Object.fromEntries(kindsPresent.map((k) => [k, enrichAddresses(session.nodes, { kinds: [k], includeMissing: v.include_missing }).length]));
  const missing = session.nodes.filter((n) => n.scan_state === 'missing' && n.addresses.length).length;
  return html`<${Modal} title="Enrich over SSH" onClose=${onClose} size="lg"
    footer=${html`<button type="button" class="btn" onClick=${onClose}>Cancel</button>
      <button type="submit" form="disc-enrich-form" class="btn btn-primary" disabled=${form.busy || !addresses.length}>
        ${form.busy ? 'Starting…' : `Enrich ${Math.min(addresses.length, MAX)} ${addresses.length === 1 ? 'device' : 'devices'}`}</button>`}>
    <form id="disc-enrich-form" onSubmit=${onSubmit}>
      <${FormError} form=${form} />
      ${form.error?.errors.some((e) => /^(addresses|targets)\b/.test(e.path)) ? html`<ul class="field-error disc-rc-errors">
        ${form.error.errors.filter((e) => /^(addresses|targets)\b/.test(e.path)).map((e, i) => html`<li key=${i}>${e.message}</li>`)}</ul>` : null}
      <p class="muted disc-intro">Logs in to each chosen node's address, runs its platform's read-only commands and keeps what they say on the node
        (host name, OS, model, serial, interfaces, routes, neighbours). A node whose address already has an SSH target uses that
        target and its credential; the others get a new target with the credential chosen here. Host keys are pinned on first use.</p>
      <${CredentialSelect} form=${form} creds=${creds} required=${false}
        hint="For the nodes without an SSH target yet. Its username and password or key stay in the vault." />
      <div class="disc-grid">
        <${SelectField} form=${form} name="platform" label="Platform" options=${SSH_PLATFORMS} class="disc-span-2"
          hint="Of the new targets. Detect automatically: the SSH banner, then uname, then show version." />
        <${Field} form=${form} name="port" label="SSH port" type="number" min="1" max="65535" inputmode="numeric" />
      </div>
      ${kindsPresent.length ? html`<${CheckGroup} form=${form} name="kinds" label="Nodes to enrich" columns=${2}
          options=${kindsPresent.map((k) => ({ value: k, label: `${DEVICE_KINDS[k]} (${counts[k]})` }))}
          hint=${addresses.length > MAX ? `${addresses.length} addresses: the first ${MAX} are enriched.` : `${addresses.length} ${addresses.length === 1 ? 'address' : 'addresses'}, the first of each node.`} />`
        : html`<p class="field-error">No node of this session has an address.</p>`}
      ${missing ? html`<${CheckField} form=${form} name="include_missing" label=${`Also the ${missing} nodes marked missing`}
        hint="The last merged scan did not see them; they may be gone." />` : null}
    </form>
  <//>`;
}

/** A node's facts, and its routes to document as the node's own (source ssh). */
export function NodeFactsDialog({ session, node, writable, onClose }) {
  const imports = useImports();
  const device = { type: 'session_node', session_id: session.id, node_id: node.id };
  const routeImport = writable ? {
    imports, disabled: false,
    onImport: (r) => imports.post(offeredKey(r), {
      destination: r.destination, next_hop: r.gateway ?? null, device, interface: r.interface ?? null,
      metric: Number.isInteger(r.metric) && r.metric >= 0 ? r.metric : null, source: 'ssh',
      note: r.protocol ? `Read over SSH (${r.protocol})` : 'Read over SSH',
    }),
  } : null;
  return html`<${Modal} title=${`${node.label}: what the device said`} onClose=${onClose} size="lg"
    footer=${html`${node.facts.ssh_target_id ? html`<a class="btn" href=${`/discovery/ssh-targets/${node.facts.ssh_target_id}`}>Open its SSH target</a>` : null}
      <button type="button" class="btn btn-primary" onClick=${onClose}>Close</button>`}>
    <${FactsView} facts=${node.facts} routeImport=${routeImport} />
  <//>`;
}
