// Where a stored credential is used (GET /api/brain/credentials/:id/usage): endpoints that name it as
// their management credential, discovery's list of credentials to try, SSH targets, SNMP walk templates
// and device cards. Names and links only; uses in sections the user may not read are counted, not named.
// A use that would send it outside its scope (`outside_scope`) is refused by the probe: it is marked, and
// an administrator can allow it, which adds those destinations to the credential's scope.
import { api } from '../../lib/api.js';
import { html, useState } from '../../lib/html.js';
import { useApi } from '../../lib/hooks.js';
import { toast } from '../../lib/toast.js';
import { CREDENTIAL_USAGE_KINDS } from '../../lib/vocabulary.js';
import { Badge } from '../../components/badge.js';
import { EmptyState, ErrorState, Loading } from '../../components/empty.js';
import { Card } from '../../components/page.js';

/** Where each kind of use is shown in the app. */
const HREF = {
  endpoint: (u) => `/inventory/endpoints/${encodeURIComponent(u.short_id ?? u.id)}`,
  discovery: () => '/discovery',
  ssh_target: (u) => `/discovery/ssh-targets/${encodeURIComponent(u.id)}`,
  snmp_template: () => '/snmp/templates',
  snmp_device: (u) => `/snmp/devices?device=${encodeURIComponent(u.id)}`,
  snmp_polled_device: (u) => `/snmp/polling/${encodeURIComponent(u.id)}`,
  monitor: (u) => `/monitors/${encodeURIComponent(u.id)}`,
};

/** Adds these destinations to the credential's scope (as it is now, not as the page loaded it). */
async function allow(rec, entries) {
  const now = await api.get(`/api/brain/credentials/${rec.id}`);
  const scope = [...(now.scope ?? []), ...entries.filter((e) => !(now.scope ?? []).includes(e))];
  await api.put(`/api/brain/credentials/${rec.id}`, { scope });
  toast.ok(`${rec.short_id} may now be used at ${entries.join(', ')}`);
}

function Use({ u, rec, admin, onAllowed }) {
  const [busy, setBusy] = useState(false);
  const kind = CREDENTIAL_USAGE_KINDS[u.kind] ?? { label: u.kind };
  const outside = u.outside_scope ?? [];
  const onAllow = async () => {
    setBusy(true);
    try { await allow(rec, outside); onAllowed(); } catch (e) { toast.error(e); } finally { setBusy(false); }
  };
  return html`<li class=${`row${outside.length ? ' cred-use-outside' : ''}`}>
    <${Badge} tone=${outside.length ? 'warn' : 'info'} title=${kind.hint}>${kind.label}<//>
    <div class="row-main"><a class="row-title" href=${HREF[u.kind]?.(u) ?? '#'}>${u.short_id ? html`<span class="sid">${u.short_id}</span> ` : null}${u.name}</a>
      ${u.detail ? html`<div class="row-sub mono">${u.detail}</div>` : null}
      ${outside.length ? html`<div class="cred-outside">
        <p class="small">Outside its scope: <span class="mono">${outside.join(', ')}</span>${' '}—
          refused until an administrator adds ${outside.length === 1 ? 'it' : 'them'}.</p>
        ${admin ? html`<button type="button" class="btn btn-sm" onClick=${onAllow} disabled=${busy}
          aria-label=${`Allow ${outside.join(', ')} for ${u.name}`} title=${`Add ${outside.join(', ')} to where this credential may be used`}>Allow</button>` : null}
      </div>` : null}</div>
  </li>`;
}

export function CredentialUsageCard({ rec, admin = false, onChange }) {
  const r = useApi(`/api/brain/credentials/${rec.id}/usage`);
  const hidden = r.data?.hidden ?? 0;
  const refused = r.data?.items.filter((u) => u.outside_scope?.length).length ?? 0;
  return html`<${Card} title=${r.data ? `Where it is used (${r.data.total})` : 'Where it is used'} pad=${false}
    actions=${refused ? html`<${Badge} tone="warn">${refused} outside its scope<//>` : null}>
    ${r.error ? html`<div class="card-body"><${ErrorState} error=${r.error} retry=${r.reload} /></div>`
      : !r.data ? html`<${Loading} />`
        : !r.data.total ? html`<${EmptyState} icon="lock" title="Not used yet">
            <p>No endpoint, scan, SSH target or SNMP template names this credential${hidden ? ' that you may see' : ''}.</p><//>`
          : html`<ul class="rows" aria-label="Where the credential is used">${r.data.items.map((u) => html`<${Use} key=${`${u.kind}:${u.id}`}
              u=${u} rec=${rec} admin=${admin} onAllowed=${() => { r.reload(); onChange?.(); }} />`)}</ul>`}
    ${hidden ? html`<p class="muted small card-body">${hidden} more in sections you may not read.</p>` : null}
  <//>`;
}
