// The SSH target dialog: add one (POST /api/v1sion/ssh-targets) or change one (PUT with the fields that
// changed). A target names a stored credential of kind ssh_password or ssh_key, never a secret; the
// picker lists only those (GET /api/brain/credentials). A host key fingerprint may be pinned in advance
// while nothing is pinned; a pinned key is cleared only by an administrator, on the target's page.
import { api } from '../../lib/api.js';
import { useForm } from '../../lib/form.js';
import { html } from '../../lib/html.js';
import { useApi } from '../../lib/hooks.js';
import { SSH_PLATFORMS } from '../../lib/vocabulary.js';
import { ErrorState } from '../../components/empty.js';
import { TagInput } from '../../components/field-extra.js';
import { Field, FormError, SelectField } from '../../components/field.js';
import { Modal } from '../../components/modal.js';

const SSH_KINDS = { ssh_password: 'password', ssh_key: 'key' };

/**
 * The stored SSH credentials (ssh_password and ssh_key), by name: {items, error, reload}. Each item is the
 * inventory's view (secrets only as {set: true}).
 */
export function useSshCredentials() {
  const pw = useApi('/api/brain/credentials', { query: { kind: 'ssh_password', limit: 500 } });
  const key = useApi('/api/brain/credentials', { query: { kind: 'ssh_key', limit: 500 } });
  const items = pw.data && key.data ? [...pw.data.items, ...key.data.items].sort((a, b) => a.name.localeCompare(b.name)) : null;
  return { items, error: pw.error ?? key.error, reload: () => { pw.reload(); key.reload(); } };
}

/** "CR-4 Lab switches — netops, password" (and what is missing when its secret is not stored). */
export function credentialOption(c) {
  const secret = c.kind === 'ssh_key' ? c.ssh_private_key : c.password;
  const missing = secret && typeof secret === 'object' && secret.set ? '' : ' (no secret stored)';
  return { value: c.id, label: `${c.short_id} ${c.name} — ${c.username ? `${c.username}, ` : ''}${SSH_KINDS[c.kind] ?? c.kind}${missing}` };
}

/** A credential select, or what to do when there is none. */
export function CredentialSelect({ form, creds, name = 'credential_id', hint, required = true }) {
  if (creds.error) return html`<${ErrorState} error=${creds.error} retry=${creds.reload} />`;
  if (!creds.items) return html`<div class="field"><span class="muted small">Loading the SSH credentials…</span></div>`;
  if (!creds.items.length) {
    return html`<div class="alert alert-info disc-no-creds"><div class="alert-body">No SSH credential is stored yet.
      <a href="/inventory/credentials/new">Add an SSH password or key credential</a> in the inventory, then come back.</div></div>`;
  }
  return html`<${SelectField} form=${form} name=${name} label="Credential" required=${required}
    options=${[{ value: '', label: required ? 'Choose a stored SSH credential…' : 'None: only nodes that have an SSH target' }, ...creds.items.map(credentialOption)]}
    hint=${hint ?? 'Its username and password or key stay in the vault; the target only names it.'} />`;
}

function initial(t) {
  return {
    name: t?.name ?? '', host: t?.host ?? '', port: String(t?.port ?? 22), credential_id: t?.credential_id ?? '',
    platform: t?.platform ?? 'auto', tags: t?.tags ?? [], host_key: '',
  };
}

/** `target` to change one, none to add one. `onDone(saved)`. */
export function TargetDialog({ target, onDone, onClose }) {
  const creds = useSshCredentials();
  const form = useForm(initial(target));
  const v = form.values;
  const onSubmit = form.submit(async (vals) => {
    const port = vals.port.trim() === '' ? 22 : Number(vals.port);
    const all = {
      name: vals.name.trim(), host: vals.host.trim(), port, credential_id: vals.credential_id, platform: vals.platform, tags: vals.tags,
    };
    if (vals.host_key.trim()) all.host_key = vals.host_key.trim();
    if (!target) {
      onDone(await api.post('/api/v1sion/ssh-targets', all));
      return;
    }
    const body = {};
    for (const [k, val] of Object.entries(all)) if (JSON.stringify(val) !== JSON.stringify(target[k])) body[k] = val;
    if (!Object.keys(body).length) { onClose(); return; }
    onDone(await api.put(`/api/v1sion/ssh-targets/${target.id}`, body));
  });
  // A credential that is not an SSH one (or is gone) still shows, so an edit does not change it unseen.
  const list = creds.items && target?.credential_id && !creds.items.some((c) => c.id === target.credential_id)
    ? { ...creds, items: [...creds.items, { id: target.credential_id, short_id: target.credential?.short_id ?? '?', name: target.credential?.name ?? 'Deleted credential',
      kind: target.credential?.kind, username: target.credential?.username }] } : creds;
  return html`<${Modal} title=${target ? `Edit ${target.name}` : 'Add an SSH target'} onClose=${onClose} size="lg"
    footer=${html`<button type="button" class="btn" onClick=${onClose}>Cancel</button>
      <button type="submit" form="disc-target-form" class="btn btn-primary" disabled=${form.busy}>${form.busy ? 'Saving…' : target ? 'Save' : 'Add target'}</button>`}>
    <form id="disc-target-form" onSubmit=${onSubmit}>
      <${FormError} form=${form} />
      <div class="disc-grid">
        <${Field} form=${form} name="name" label="Name" required maxlength="200" autofocus placeholder="core-sw1" class="disc-span-2" />
        <${SelectField} form=${form} name="platform" label="Platform" options=${SSH_PLATFORMS}
          hint=${v.platform === 'auto' ? 'Told by the SSH banner, then uname, then show version.' : undefined} />
        <${Field} form=${form} name="host" label="Host" required placeholder="10.0.0.2" autocapitalize="none" spellcheck=${false}
          autocomplete="off" class="disc-span-2 disc-mono-field" hint="An IP address or a host name. Private ranges and the probe's own subnets may be reached." />
        <${Field} form=${form} name="port" label="Port" type="number" min="1" max="65535" inputmode="numeric" />
      </div>
      <${CredentialSelect} form=${form} creds=${list} />
      <${TagInput} form=${form} name="tags" label="Tags" hint="Enter or comma adds one; lists can be filtered by tag." />
      ${!target?.host_key ? html`<${Field} form=${form} name="host_key" label="Expected host key (optional)" class="disc-mono-field"
        placeholder="SHA256:…" autocomplete="off" spellcheck=${false} autocapitalize="none"
        hint="As ssh-keygen -l prints it. Empty: the first successful login pins the key it meets (trust on first use)." />` : null}
    </form>
  <//>`;
}
