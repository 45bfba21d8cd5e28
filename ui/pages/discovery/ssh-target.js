// One SSH target (/discovery/ssh-targets/:id): how it is reached (address, platform, credential, tags),
// its pinned host key (cleared by an administrator only), its last error (a changed host key shows both
// fingerprints; a key not pinned, which held back a password, shows the one presented for an administrator
// to pin), "Enrich now" followed on the page (?enrich=<job id>), and everything the last successful
// enrichment learned (ssh-facts.js), whose routes can be documented.
import { dateTime, relTime } from '../../lib/format.js';
import { html, useState } from '../../lib/html.js';
import { useApi } from '../../lib/hooks.js';
import { navigate, setQuery } from '../../lib/router.js';
import { can, isAdmin, useSession } from '../../lib/session.js';
import { toast } from '../../lib/toast.js';
import { Crumbs } from '../../components/controls.js';
import { CopyButton } from '../../components/copy.js';
import { EmptyState, ErrorState, Loading } from '../../components/empty.js';
import { Icon } from '../../components/icons.js';
import { Card, Page } from '../../components/page.js';
import { EnrichProgress, enrichJobOf, useEnrichJob } from './enrich.js';
import { ImportRouteDialog, offeredKey, useImports } from './route-import.js';
import { none } from './section.js';
import { FactsView } from './ssh-facts.js';
import { TargetDialog } from './ssh-target-form.js';
import {
  clearHostKey, CredentialCell, deleteTarget, enrichTargets, KeyCell, LastEnrichedCell, PlatformCell, pinHostKey,
} from './ssh-target-parts.js';

function HostKeyCard({ t, admin, writable, onCleared }) {
  const clear = async () => { const saved = await clearHostKey(t); if (saved) onCleared(saved); };
  return html`<${Card} title="Host key" actions=${t.host_key && admin ? html`<button type="button" class="btn btn-sm btn-danger-ghost" onClick=${clear}>
      <${Icon} name="close" size=${15} />Clear pinned host key</button>` : null}>
    ${t.host_key ? html`<div class="disc-key">
        <${KeyCell} t=${t} full=${true} />
        <${CopyButton} text=${t.host_key} label="Copy fingerprint" />
      </div>
      <p class="muted small disc-key-note">Pinned: a device presenting another key is refused before any credential is offered.
        ${admin ? '' : writable ? 'Only an administrator can clear the pin.' : ''}</p>`
      : html`<p class="muted">Not pinned yet: an administrator's enrichment trusts the key it meets and pins it. Others' enrichments with
          a password credential send no password until an administrator has pinned the key.</p>`}
  <//>`;
}

const when = (e) => html`<span class="muted small"> · <time datetime=${e.at} title=${dateTime(e.at)}>${relTime(e.at)}</time></span>`;

/** A password held back from a host whose key is not pinned: the key it presented, to compare and pin. */
function UnpinnedKey({ t, e, admin, onPinned }) {
  const pin = async () => { const saved = await pinHostKey(t, e.presented, e.presented_type); if (saved) onPinned(saved); };
  if (t.host_key === e.presented) {
    return html`<div class="alert alert-ok disc-last-error" role="status"><${Icon} name="check" />
      <div class="alert-body"><strong>Host key pinned</strong>${when(e)}
        <div>The last enrichment was refused before it was pinned; the next one logs in.</div></div>
    </div>`;
  }
  return html`<div class="alert alert-warn disc-last-error" role="alert"><${Icon} name="lock" />
    <div class="alert-body">
      <strong>The host key is not pinned: no password was sent</strong>${when(e)}
      <p>A password is sent only to a host whose key is pinned. Compare this fingerprint with the device's own
        (<span class="mono">ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub</span>) and pin it.</p>
      <div class="disc-key">
        <dl class="disc-kv disc-kv-keys"><div><dt>Presented</dt>
          <dd class="mono small disc-fp">${e.presented}${e.presented_type ? ` (${e.presented_type})` : ''}</dd></div></dl>
        <${CopyButton} text=${e.presented} label="Copy fingerprint" />
      </div>
      ${admin ? html`<button type="button" class="btn btn-sm btn-primary" onClick=${pin}><${Icon} name="key" size=${15} />Pin this key</button>`
        : html`<p class="small">An administrator can pin it.</p>`}
      <details class="alert-raw"><summary>As the probe said it</summary><span class="small">${e.message}</span></details>
    </div>
  </div>`;
}

/** A failed enrichment; a changed host key shows the pinned and the presented fingerprints. */
function LastError({ t, admin, onSaved }) {
  const e = t.last_error;
  if (!e) return null;
  if (e.code === 'host_key_unpinned' && e.presented && (!t.host_key || t.host_key === e.presented)) {
    return html`<${UnpinnedKey} t=${t} e=${e} admin=${admin} onPinned=${onSaved} />`;
  }
  const changed = e.code === 'host_key_changed';
  const clear = async () => { const saved = await clearHostKey(t); if (saved) onSaved(saved); };
  return html`<div class="alert alert-error disc-last-error" role="alert"><${Icon} name="alert" />
    <div class="alert-body">
      <strong>${changed ? 'The host key changed: enrichment refused' : 'The last enrichment failed'}</strong>${when(e)}
      <div>${e.message}</div>
      ${changed ? html`<dl class="disc-kv disc-kv-keys">
        <div><dt>Pinned</dt><dd class="mono small">${e.pinned ?? t.host_key}</dd></div>
        <div><dt>Presented</dt><dd class="mono small">${e.presented ?? '—'}${e.presented_type ? ` (${e.presented_type})` : ''}</dd></div>
      </dl>
      <p class="small">${admin ? 'If the device was really replaced or reinstalled, clear the pin; the next enrichment pins the new key.'
        : 'If the device was really replaced or reinstalled, an administrator can clear the pin.'}</p>
      ${admin ? html`<button type="button" class="btn btn-sm" onClick=${clear}>Clear pinned host key</button>` : null}` : null}
    </div>
  </div>`;
}

function Target({ t, query, replace, reload }) {
  const s = useSession();
  const writable = can(s, 'v1sion:write');
  const admin = isAdmin(s);
  const [editing, setEditing] = useState(false);
  const [importing, setImporting] = useState(null);
  const imports = useImports();
  const job = enrichJobOf(query);
  const follow = useEnrichJob(job, () => reload());
  const running = follow.run?.state === 'running';

  const enrich = async () => {
    const id = await enrichTargets([t.id]);
    if (id) setQuery({ enrich: id });
  };
  const remove = async () => { if (await deleteTarget(t)) navigate('/discovery/ssh-targets'); };
  const actions = writable ? html`
    <button type="button" class="btn btn-primary" onClick=${enrich} disabled=${running}><${Icon} name="refresh" size=${16} />${running ? 'Enriching…' : 'Enrich now'}</button>
    <button type="button" class="btn" onClick=${() => setEditing(true)}><${Icon} name="edit" size=${16} />Edit</button>
    <button type="button" class="btn btn-icon" onClick=${remove} aria-label=${`Delete ${t.name}`} title="Delete"><${Icon} name="trash" size=${16} /></button>` : null;
  const crumbs = [{ href: '/discovery', label: 'Discovery' }, { href: '/discovery/ssh-targets', label: 'SSH targets' }, { label: t.name }];
  const routeImport = writable ? {
    imports, disabled: false,
    onImport: (r) => setImporting(r),
  } : null;

  return html`<${Page} title=${t.name} subtitle=${html`<${Crumbs} items=${crumbs} />`} actions=${actions}>
    <${LastError} t=${t} admin=${admin} onSaved=${replace} />
    ${job ? html`<${EnrichProgress} jobId=${job} follow=${follow} writable=${writable} onClose=${() => setQuery({ enrich: '' })} />` : null}
    <div class="disc-two">
      <${Card} title="Connection">
        <dl class="dl">
          <dt>Address</dt><dd class="mono">${t.host}:${t.port}</dd>
          <dt>Platform</dt><dd><${PlatformCell} t=${t} /></dd>
          <dt>Credential</dt><dd><${CredentialCell} t=${t} /></dd>
          <dt>Tags</dt><dd>${t.tags.length ? html`<span class="chips">${t.tags.map((g) => html`<a key=${g} class="disc-tag"
            href=${`/discovery/ssh-targets?tag=${encodeURIComponent(g)}`}>${g}</a>`)}</span>` : none}</dd>
          <dt>Last enriched</dt><dd><${LastEnrichedCell} t=${t} /></dd>
          <dt>Added</dt><dd><time datetime=${t.created_at} title=${dateTime(t.created_at)}>${relTime(t.created_at)}</time></dd>
        </dl>
      <//>
      <${HostKeyCard} t=${t} admin=${admin} writable=${writable} onCleared=${replace} />
    </div>
    <${Card} title="What the device said" pad=${!!t.facts}>
      ${t.facts ? html`<${FactsView} facts=${t.facts} routeImport=${routeImport} />`
        : html`<${EmptyState} icon="key" title="Not enriched yet"
            action=${writable ? html`<button type="button" class="btn btn-primary" onClick=${enrich} disabled=${running}><${Icon} name="refresh" size=${16} />Enrich now</button>` : null}>
            <p>Enrichment logs in with the credential, runs the platform's read-only commands and keeps what they say here.</p><//>`}
    <//>
    ${editing ? html`<${TargetDialog} target=${t} onClose=${() => setEditing(false)}
      onDone=${(saved) => { setEditing(false); replace(saved); toast.ok(`Saved ${saved.name}`); }} />` : null}
    ${importing ? html`<${ImportRouteDialog} route=${importing} source="ssh" deviceName=${t.name} suggestQuery=${t.host}
      onImport=${(body) => imports.post(offeredKey(importing), body)} onClose=${() => setImporting(null)} />` : null}
  <//>`;
}

export default function SshTargetPage({ params, query }) {
  const r = useApi(`/api/v1sion/ssh-targets/${encodeURIComponent(params.id)}`);
  // A PUT or a cleared pin answers the whole target: shown at once.
  const [saved, setSaved] = useState(null);
  const t = saved && saved.updated_at >= (r.data?.updated_at ?? '') ? saved : r.data;
  if (r.error?.status === 404) {
    return html`<${Page} title="Not found"><${Card}><${EmptyState} icon="search" title="There is no such SSH target"
      action=${html`<a class="btn btn-primary" href="/discovery/ssh-targets">All SSH targets</a>`}><p>It may have been deleted.</p><//><//><//>`;
  }
  if (r.error && !t) return html`<${Page} title="SSH target"><${ErrorState} error=${r.error} retry=${r.reload} /><//>`;
  if (!t) return html`<${Page} title="SSH target"><${Card}><${Loading} /><//><//>`;
  return html`<${Target} t=${t} query=${query} replace=${setSaved} reload=${() => { setSaved(null); r.reload(); }} />`;
}
