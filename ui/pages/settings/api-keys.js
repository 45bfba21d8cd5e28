// API keys: the caller's keys (an administrator sees everyone's), create one with scopes and an
// optional expiry — the key itself is shown once, with a copy button — and revoke.
import { api } from '../../lib/api.js';
import { confirm } from '../../lib/confirm.js';
import { useForm } from '../../lib/form.js';
import { dateTime, relTime } from '../../lib/format.js';
import { html, useState } from '../../lib/html.js';
import { useApi } from '../../lib/hooks.js';
import { setQuery } from '../../lib/router.js';
import { can, isAdmin, useSession } from '../../lib/session.js';
import { toast } from '../../lib/toast.js';
import { SCOPE_OPTIONS, scopeLabels } from '../../lib/vocabulary.js';
import { Badge } from '../../components/badge.js';
import { CopyButton } from '../../components/copy.js';
import { EmptyState, ErrorState, Loading } from '../../components/empty.js';
import { CheckGroup, Field, FormError } from '../../components/field.js';
import { Icon } from '../../components/icons.js';
import { Modal } from '../../components/modal.js';
import { Card } from '../../components/page.js';
import { Pager, Table } from '../../components/table.js';

const LIMIT = 100;

function scopeChips(scopes) {
  // People's words ("Inventory: read"); the scope itself in the tooltip.
  if (scopes.includes('admin')) return html`<${Badge} tone="accent" title="admin">${scopeLabels(scopes)[0]}<//>`;
  return html`<div class="chips">${scopeLabels(scopes).map((x) => html`<${Badge} key=${x}>${x}<//>`)}</div>`;
}

function NewKeyForm({ onCreated, onCancel }) {
  const s = useSession();
  const options = SCOPE_OPTIONS.filter((o) => can(s, o.value));
  const form = useForm({ name: '', scopes: ['monitors:read'], expires_in_days: '' });
  const onSubmit = form.submit(async (v) => {
    const days = v.expires_in_days.trim();
    const created = await api.post('/api/api-keys', {
      name: v.name.trim(), scopes: v.scopes, expires_in_days: days ? Number(days) : undefined,
    });
    onCreated(created);
  });
  return html`<${Modal} title="New API key" onClose=${onCancel} size="lg"
    footer=${html`<button type="button" class="btn" onClick=${onCancel}>Cancel</button>
      <button type="submit" form="key-form" class="btn btn-primary" disabled=${form.busy}>Create key</button>`}>
    <form id="key-form" onSubmit=${onSubmit}>
      <${FormError} form=${form} />
      <div class="grid-2">
        <${Field} form=${form} name="name" label="Name" required autofocus placeholder="backup-script" hint="What uses this key" />
        <${Field} form=${form} name="expires_in_days" label="Expires after (days)" type="number" min="1" max="3650" inputmode="numeric"
          hint="Leave empty for a key that does not expire" />
      </div>
      <${CheckGroup} form=${form} name="scopes" label="Scopes" options=${options} columns=${2}
        hint="A key never has more rights than its owner; reading is included in writing." />
    </form>
  <//>`;
}

function CreatedKey({ created, onClose }) {
  return html`<${Modal} title="Your new API key" onClose=${onClose}
    footer=${html`<button type="button" class="btn btn-primary" onClick=${onClose}>Done</button>`}>
    <div class="alert alert-warn"><${Icon} name="alert" /><div class="alert-body">
      Copy the key now. It is shown only this once; the probe keeps only a hash of it.</div></div>
    <div class="secret-box"><code data-testid="new-api-key">${created.key}</code><${CopyButton} text=${created.key} /></div>
    <p class="muted small" style="margin-top:12px">Send it in the <code>X-API-Key</code> header. Name: ${created.name};
      scopes: ${scopeLabels(created.scopes).join(', ')}${created.expires_at ? `; expires ${dateTime(created.expires_at)}` : ''}.</p>
  <//>`;
}

export default function ApiKeysSection({ query }) {
  const s = useSession();
  const admin = isAdmin(s);
  const offset = Number(query.offset) || 0;
  const keys = useApi('/api/api-keys', { query: { limit: LIMIT, offset } });
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState(null);

  const revoke = async (k) => {
    const ok = await confirm({ title: `Revoke ${k.name}?`, danger: true, confirmLabel: 'Revoke key',
      message: 'Scripts using this key stop working at once.' });
    if (!ok) return;
    try {
      await api.del(`/api/api-keys/${k.id}`);
      toast.ok(`Revoked ${k.name}`);
      keys.reload();
    } catch (e) { toast.error(e); }
  };

  const expired = (k) => k.expires_at && new Date(k.expires_at).getTime() < Date.now();
  const columns = [
    { key: 'name', label: 'Key', render: (k) => html`<div class="cell-title">${k.name}</div><div class="cell-sub mono">${k.prefix}…</div>` },
    { key: 'scopes', label: 'Scopes', render: (k) => scopeChips(k.scopes) },
    ...(admin ? [{ key: 'owner', label: 'Owner', render: (k) => html`<span class="mono">${k.owner.username}</span>` }] : []),
    { key: 'created', label: 'Created', render: (k) => html`<span title=${dateTime(k.created_at)}>${relTime(k.created_at)}</span>` },
    { key: 'expires', label: 'Expires', render: (k) => (k.expires_at
      ? html`<${Badge} tone=${expired(k) ? 'bad' : 'neutral'} title=${dateTime(k.expires_at)}>${expired(k) ? 'Expired' : relTime(k.expires_at)}<//>`
      : html`<span class="muted">Never</span>`) },
    { key: 'used', label: 'Last used', render: (k) => (k.last_used_at ? html`<span title=${dateTime(k.last_used_at)}>${relTime(k.last_used_at)}</span>` : html`<span class="muted">Never</span>`) },
    { key: 'actions', label: 'Actions', class: 'actions-col', hideLabel: true, render: (k) => html`<button type="button" class="btn btn-sm"
      onClick=${() => revoke(k)} aria-label=${`Revoke ${k.name}`}><${Icon} name="trash" size=${15} />Revoke</button>` },
  ];

  const newButton = html`<button type="button" class="btn btn-primary btn-sm" onClick=${() => setCreating(true)}><${Icon} name="plus" size=${16} />New API key</button>`;
  return html`<${Card} title=${admin ? 'API keys of all users' : 'Your API keys'} pad=${false} actions=${newButton}>
    ${keys.error ? html`<${ErrorState} error=${keys.error} retry=${keys.reload} />`
      : !keys.data ? html`<${Loading} />`
        : html`<${Table} columns=${columns} rows=${keys.data.items} caption="API keys"
            empty=${html`<${EmptyState} icon="key" title="No API keys">
              <p>Scripts and other tools use an API key (header <code>X-API-Key</code>) instead of signing in.</p><//>`} />
          <${Pager} total=${keys.data.total} limit=${LIMIT} offset=${offset} onChange=${(o) => setQuery({ offset: o || null })} />`}
    ${creating ? html`<${NewKeyForm} onCancel=${() => setCreating(false)}
      onCreated=${(k) => { setCreating(false); setCreated(k); keys.reload(); }} />` : null}
    ${created ? html`<${CreatedKey} created=${created} onClose=${() => setCreated(null)} />` : null}
  <//>`;
}
