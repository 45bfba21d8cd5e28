// The credential vault: whether it is set up and unlocked, and (for administrators) setting it up
// with a passphrase, unlocking and locking it. Credential secrets can only be stored while it is
// unlocked; after a restart it is locked until an administrator unlocks it.
import { api } from '../../lib/api.js';
import { useForm } from '../../lib/form.js';
import { html, useState } from '../../lib/html.js';
import { useApi } from '../../lib/hooks.js';
import { isAdmin, useSession } from '../../lib/session.js';
import { toast } from '../../lib/toast.js';
import { ErrorState } from '../../components/empty.js';
import { Field, FormError } from '../../components/field.js';
import { Icon } from '../../components/icons.js';
import { Modal } from '../../components/modal.js';

function PassphraseDialog({ mode, onDone, onClose }) {
  const setup = mode === 'setup';
  const form = useForm({ passphrase: '', confirm: '' });
  const onSubmit = form.submit(async (v) => {
    if (setup && v.passphrase !== v.confirm) {
      form.fail({ detail: 'The two passphrases differ.', errors: [{ path: 'confirm', message: 'Type the same passphrase again' }] });
      return;
    }
    const status = await api.post(`/api/brain/vault/${setup ? 'setup' : 'unlock'}`, { passphrase: v.passphrase });
    toast.ok(setup ? 'The vault is set up and unlocked' : 'The vault is unlocked');
    onDone(status);
  });
  return html`<${Modal} title=${setup ? 'Set up the vault' : 'Unlock the vault'} onClose=${onClose} size="sm"
    footer=${html`<button type="button" class="btn" onClick=${onClose}>Cancel</button>
      <button type="submit" form="vault-form" class="btn btn-primary" disabled=${form.busy}>
        ${form.busy ? (setup ? 'Setting up…' : 'Unlocking…') : setup ? 'Set up' : 'Unlock'}</button>`}>
    <form id="vault-form" onSubmit=${onSubmit}>
      ${setup ? html`<div class="alert alert-warn"><${Icon} name="alert" /><div class="alert-body">
        The passphrase encrypts every stored secret. It is not stored anywhere and cannot be
        recovered: <strong>losing it loses the secrets</strong> (the credentials themselves remain).</div></div>` : null}
      <${FormError} form=${form} />
      <${Field} form=${form} name="passphrase" label="Passphrase" type="password" required autofocus
        autocomplete=${setup ? 'new-password' : 'current-password'} hint=${setup ? 'At least 12 characters.' : undefined} />
      ${setup ? html`<${Field} form=${form} name="confirm" label="Passphrase again" type="password" required autocomplete="new-password" />` : null}
    </form>
  <//>`;
}

/** The vault's state as a bar with the actions an administrator can take. `onChange` gets the new status. */
export function VaultCard({ onChange }) {
  const s = useSession();
  const admin = isAdmin(s);
  const vault = useApi('/api/brain/vault/status');
  const [dialog, setDialog] = useState(null);
  const [busy, setBusy] = useState(false);
  const st = vault.data;

  const done = (status) => { setDialog(null); vault.reload(); onChange?.(status); };
  const lock = async () => {
    setBusy(true);
    try { done(await api.post('/api/brain/vault/lock')); toast.ok('The vault is locked'); } catch (e) { toast.error(e); } finally { setBusy(false); }
  };

  if (vault.error) return html`<${ErrorState} error=${vault.error} retry=${vault.reload} />`;
  if (!st) return html`<div class="vault vault-loading" aria-busy="true"></div>`;
  const [tone, title, text] = !st.initialized
    ? ['warn', 'The vault is not set up', 'Set it up with a passphrase before storing credential secrets.']
    : st.locked ? ['warn', 'The vault is locked', 'Secrets stay encrypted; storing or using them needs an administrator to unlock it.']
      : ['ok', 'The vault is unlocked', 'Secrets can be stored and used. They are never shown.'];
  return html`<section class=${`vault vault-${tone}`} aria-label="Credential vault" data-vault=${!st.initialized ? 'new' : st.locked ? 'locked' : 'unlocked'}>
    <span class="vault-icon"><${Icon} name="lock" size=${20} /></span>
    <div class="vault-text"><strong>${title}</strong><div class="muted small">${text}</div></div>
    ${admin ? html`<div class="vault-actions">
      ${!st.initialized ? html`<button type="button" class="btn btn-primary" onClick=${() => setDialog('setup')}>Set up the vault</button>`
        : st.locked ? html`<button type="button" class="btn btn-primary" onClick=${() => setDialog('unlock')}>Unlock</button>`
          : html`<button type="button" class="btn" onClick=${lock} disabled=${busy}><${Icon} name="lock" size=${16} />Lock</button>`}
    </div>` : null}
    ${dialog ? html`<${PassphraseDialog} mode=${dialog} onDone=${done} onClose=${() => setDialog(null)} />` : null}
  </section>`;
}
