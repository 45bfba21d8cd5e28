// A known device (/discovery/devices/:id): what it is, where it is plugged in now, its addresses and MACs,
// when it was first and last seen, and its history (addresses, ports, names over time; who acknowledged
// it). Acknowledge it, or say whether its absence matters (expected) or never does (transient).
import { dateTime, relTime } from '../../lib/format.js';
import { html, useState } from '../../lib/html.js';
import { useApi } from '../../lib/hooks.js';
import { can, useSession } from '../../lib/session.js';
import { toast } from '../../lib/toast.js';
import { Crumbs } from '../../components/controls.js';
import { EmptyState, ErrorState, Loading } from '../../components/empty.js';
import { Icon } from '../../components/icons.js';
import { Card, Page } from '../../components/page.js';
import { AttachmentText, DeviceStates, PRESENCE_LABELS, updateDevice } from './device-parts.js';
import { DiscoveryTabs, none } from './section.js';

const HISTORY_LABELS = {
  discovered: 'First seen', seen_again: 'Answers again', missing: 'Missing', moved: 'Moved', vlan: 'VLAN changed', addresses: 'Addresses changed',
  address_claimed: 'Address claimed', name: 'Renamed', identity: 'Merged', acknowledged: 'Acknowledged', presence: 'Presence',
};

function Device({ d, writable, onSaved }) {
  const [busy, setBusy] = useState(false);
  // The choice shows at once; a refused change puts the stored one back.
  const [presence, setPresence] = useState(d.presence);
  const patch = async (body, said) => {
    setBusy(true);
    const r = await updateDevice(d.id, body);
    setBusy(false);
    if (r) { onSaved(r); toast.ok(said); } else setPresence(d.presence);
  };
  const crumbs = [{ href: '/discovery', label: 'Discovery' }, { href: '/discovery/devices', label: 'Known devices' }, { label: d.name }];
  const actions = writable && d.states.includes('new') ? html`<button type="button" class="btn btn-primary" disabled=${busy}
    onClick=${() => patch({ acknowledged: true }, `Acknowledged ${d.name}`)}><${Icon} name="check" size=${16} />Acknowledge</button>` : null;
  return html`<${Page} title=${d.name} subtitle=${html`<${Crumbs} items=${crumbs} />`} actions=${actions}>
    <${DiscoveryTabs} active="/discovery/devices" />
    <div class="disc-two">
      <${Card} title="Now">
        <dl class="dl">
          <dt>State</dt><dd><${DeviceStates} d=${d} /></dd>
          <dt>Where</dt><dd><${AttachmentText} a=${d.attachment} /></dd>
          <dt>Addresses</dt><dd class="mono">${d.addresses.length ? d.addresses.join(', ') : none}</dd>
          <dt>MACs</dt><dd class="mono">${d.macs.length ? d.macs.join(', ') : none}</dd>
          <dt>Kind</dt><dd>${d.kind.replace(/_/g, ' ')}</dd>
          <dt>Vendor</dt><dd>${[d.vendor, d.model].filter(Boolean).join(' · ') || none}</dd>
          <dt>First seen</dt><dd><time datetime=${d.first_seen} title=${dateTime(d.first_seen)}>${relTime(d.first_seen)}</time></dd>
          <dt>Last seen</dt><dd><time datetime=${d.last_seen} title=${dateTime(d.last_seen)}>${relTime(d.last_seen)}</time></dd>
          <dt>Inventory</dt><dd>${d.macs[0] || d.addresses[0]
            ? html`<a href=${`/inventory?q=${encodeURIComponent(d.macs[0] ?? d.addresses[0])}`}>Look it up by ${d.macs[0] ? 'MAC' : 'address'}</a>
              <span class="muted small"> · a session's Inventory tab links or creates records for what a scan found</span>` : none}</dd>
        </dl>
      <//>
      <${Card} title="When it is away">
        <fieldset class="dev-presence" disabled=${!writable}>
          <legend class="sr-only">Presence</legend>
          ${Object.entries(PRESENCE_LABELS).map(([value, p]) => html`<label key=${value} class="radio-row">
            <input type="radio" name="presence" value=${value} checked=${presence === value}
              onChange=${() => { setPresence(value); patch({ presence: value }, `${d.name}: ${p.label.toLowerCase()}`); }} />
            <span><strong>${p.label}</strong><span class="muted small"> · ${p.hint}</span></span></label>`)}
        </fieldset>
      <//>
    </div>
    <${Card} title="History" pad=${false}>
      ${d.history.length ? html`<ol class="dev-history">
        ${d.history.map((h, i) => html`<li key=${i}>
          <time datetime=${h.at} title=${dateTime(h.at)}>${dateTime(h.at)}</time>
          <span class="dev-history-kind">${HISTORY_LABELS[h.kind] ?? h.kind}</span>
          <span class="dev-history-text">${h.text}</span></li>`)}
      </ol>` : html`<${EmptyState} icon="log" title="No history yet" />`}
    <//>
  <//>`;
}

export default function DevicePage({ params }) {
  const s = useSession();
  const r = useApi(`/api/v1sion/devices/${encodeURIComponent(params.id)}`);
  const [saved, setSaved] = useState(null);
  const d = saved ?? r.data;
  if (r.error?.status === 404 || r.error?.status === 400) {
    return html`<${Page} title="Not found"><${Card}><${EmptyState} icon="search" title="There is no such device"
      action=${html`<a class="btn btn-primary" href="/discovery/devices">All devices</a>`}><p>Two devices found to be one are kept as one.</p><//><//><//>`;
  }
  if (r.error && !d) return html`<${Page} title="Device"><${ErrorState} error=${r.error} retry=${r.reload} /><//>`;
  if (!d) return html`<${Page} title="Device"><${Card}><${Loading} /><//><//>`;
  return html`<${Device} d=${d} writable=${can(s, 'v1sion:write')} onSaved=${setSaved} />`;
}
