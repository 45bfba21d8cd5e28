// Where a stored credential is used (GET /api/brain/credentials/:id/usage): endpoints that name it as
// their management credential, discovery's list of credentials to try, SSH targets, SNMP walk templates
// and device cards. Names and links only; uses in sections the user may not read are counted, not named.
import { html } from '../../lib/html.js';
import { useApi } from '../../lib/hooks.js';
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
};

export function CredentialUsageCard({ rec }) {
  const r = useApi(`/api/brain/credentials/${rec.id}/usage`);
  const hidden = r.data?.hidden ?? 0;
  return html`<${Card} title=${r.data ? `Where it is used (${r.data.total})` : 'Where it is used'} pad=${false}>
    ${r.error ? html`<div class="card-body"><${ErrorState} error=${r.error} retry=${r.reload} /></div>`
      : !r.data ? html`<${Loading} />`
        : !r.data.total ? html`<${EmptyState} icon="lock" title="Not used yet">
            <p>No endpoint, scan, SSH target or SNMP template names this credential${hidden ? ' that you may see' : ''}.</p><//>`
          : html`<ul class="rows" aria-label="Where the credential is used">${r.data.items.map((u) => {
            const kind = CREDENTIAL_USAGE_KINDS[u.kind] ?? { label: u.kind };
            return html`<li key=${`${u.kind}:${u.id}`} class="row">
              <${Badge} tone="info" title=${kind.hint}>${kind.label}<//>
              <div class="row-main"><a class="row-title" href=${HREF[u.kind]?.(u) ?? '#'}>${u.short_id ? html`<span class="sid">${u.short_id}</span> ` : null}${u.name}</a>
                ${u.detail ? html`<div class="row-sub mono">${u.detail}</div>` : null}</div>
            </li>`;
          })}</ul>`}
    ${hidden ? html`<p class="muted small card-body">${hidden} more in sections you may not read.</p>` : null}
  <//>`;
}
