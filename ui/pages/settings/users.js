// Users (administrators): the list, create, edit (name, e-mail, role, disabled, a new password) and
// delete. The API refuses to demote, disable or delete the last administrator and says why.
import { api } from '../../lib/api.js';
import { confirm } from '../../lib/confirm.js';
import { useForm } from '../../lib/form.js';
import { dateTime, relTime } from '../../lib/format.js';
import { html, useState } from '../../lib/html.js';
import { useApi } from '../../lib/hooks.js';
import { setQuery } from '../../lib/router.js';
import { displayName, loadSession, useSession } from '../../lib/session.js';
import { toast } from '../../lib/toast.js';
import { USER_ROLE_TONE as ROLE_TONE, USER_ROLES as ROLES } from '../../lib/vocabulary.js';
import { Badge } from '../../components/badge.js';
import { ErrorState, Loading } from '../../components/empty.js';
import { CheckField, Field, FormError, SelectField } from '../../components/field.js';
import { Icon } from '../../components/icons.js';
import { Modal } from '../../components/modal.js';
import { Card } from '../../components/page.js';
import { Pager, Table } from '../../components/table.js';

const LIMIT = 50;

function UserForm({ user, self, onDone, onCancel }) {
  const editing = !!user;
  const form = useForm({
    username: user?.username ?? '', display_name: user?.display_name ?? '', email: user?.email ?? '',
    role: user?.role ?? 'operator', disabled: user?.disabled ?? false, password: '', current_password: '',
  });
  // Changing an existing address needs the administrator's own password (password recovery sends to it).
  const emailChanged = editing && (form.values.email.trim() || null) !== (user.email ?? null);
  const onSubmit = form.submit(async (v) => {
    const body = { display_name: v.display_name.trim() || null, email: v.email.trim() || null };
    let saved;
    if (editing) {
      if (v.role !== user.role) body.role = v.role;
      if (v.disabled !== user.disabled) body.disabled = v.disabled;
      if (v.password) body.password = v.password;
      if (emailChanged) body.current_password = v.current_password;
      saved = await api.put(`/api/users/${user.id}`, body);
    } else {
      saved = await api.post('/api/users', { ...body, username: v.username.trim(), role: v.role, password: v.password });
    }
    onDone(saved);
  });
  return html`<${Modal} title=${editing ? `Edit ${user.username}` : 'New user'} onClose=${onCancel}
    footer=${html`<button type="button" class="btn" onClick=${onCancel}>Cancel</button>
      <button type="submit" form="user-form" class="btn btn-primary" disabled=${form.busy}>${editing ? 'Save' : 'Create user'}</button>`}>
    <form id="user-form" onSubmit=${onSubmit}>
      <${FormError} form=${form} />
      ${editing ? null : html`<${Field} form=${form} name="username" label="Username" required autofocus autocapitalize="none" spellcheck="false"
        autocomplete="off" hint="3 to 64 letters, digits, dots, dashes or underscores; cannot be changed later" />`}
      <div class="grid-2">
        <${Field} form=${form} name="display_name" label="Full name" autofocus=${editing} />
        <${Field} form=${form} name="email" label="E-mail" type="email" />
      </div>
      ${emailChanged ? html`<${Field} form=${form} name="current_password" label="Your current password" type="password"
        autocomplete="current-password" required hint=${user.email ? 'A new e-mail address needs your own password. The previous address is told.'
          : 'A new e-mail address needs your own password.'} />` : null}
      <${SelectField} form=${form} name="role" label="Role" options=${ROLES} />
      ${self ? html`<p class="muted small">Change your own password under Settings → Account.</p>`
        : html`<${Field} form=${form} name="password" label=${editing ? 'New password' : 'Password'} type="password" autocomplete="new-password"
            required=${!editing} hint=${editing ? 'Leave empty to keep it. Setting one signs the user out everywhere.' : 'At least 10 characters, not the username'} />`}
      ${editing && !self ? html`<${CheckField} form=${form} name="disabled" label="Disabled" hint="A disabled user cannot sign in and their API keys stop working." />` : null}
    </form>
  <//>`;
}

export default function UsersSection({ query }) {
  const s = useSession();
  const offset = Number(query.offset) || 0;
  const users = useApi('/api/users', { query: { limit: LIMIT, offset } });
  const [editing, setEditing] = useState(null);

  const remove = async (u) => {
    const ok = await confirm({ title: `Delete ${u.username}?`, danger: true, confirmLabel: 'Delete user',
      message: 'Their sessions and API keys end at once. Their entries in the audit log stay.' });
    if (!ok) return;
    try {
      await api.del(`/api/users/${u.id}`);
      toast.ok(`Deleted ${u.username}`);
      users.reload();
    } catch (e) { toast.error(e); }
  };

  const columns = [
    { key: 'user', label: 'User', render: (u) => html`<div class="cell-title">${displayName(u)}${u.id === s.user.id ? html` <${Badge} tone="info">you<//>` : null}</div>
      <div class="cell-sub mono">${u.username}</div>` },
    { key: 'email', label: 'E-mail', render: (u) => u.email ?? html`<span class="muted">—</span>` },
    { key: 'role', label: 'Role', render: (u) => html`<${Badge} tone=${ROLE_TONE[u.role]}>${u.role}<//>` },
    { key: 'state', label: 'State', render: (u) => html`<${Badge} tone=${u.disabled ? 'bad' : 'ok'}>${u.disabled ? 'Disabled' : 'Active'}<//>` },
    { key: 'last', label: 'Last sign-in', render: (u) => html`<span title=${dateTime(u.last_login_at)}>${u.last_login_at ? relTime(u.last_login_at) : 'Never'}</span>` },
    { key: 'actions', label: 'Actions', class: 'actions-col', hideLabel: true, render: (u) => html`<div class="actions">
      <button type="button" class="btn btn-sm btn-icon" onClick=${() => setEditing(u)} aria-label=${`Edit ${u.username}`} title="Edit"><${Icon} name="edit" size=${15} /></button>
      <button type="button" class="btn btn-sm btn-icon" onClick=${() => remove(u)} aria-label=${`Delete ${u.username}`} title="Delete"><${Icon} name="trash" size=${15} /></button>
    </div>` },
  ];

  return html`<${Card} title="Users" pad=${false}
    actions=${html`<button type="button" class="btn btn-primary btn-sm" onClick=${() => setEditing('new')}><${Icon} name="plus" size=${16} />New user</button>`}>
    ${users.error ? html`<${ErrorState} error=${users.error} retry=${users.reload} />`
      : !users.data ? html`<${Loading} />`
        : html`<${Table} columns=${columns} rows=${users.data.items} caption="Users" rowClass=${(u) => (u.disabled ? 'row-disabled' : '')} />
          <${Pager} total=${users.data.total} limit=${LIMIT} offset=${offset} onChange=${(o) => setQuery({ offset: o || null })} />`}
    ${editing ? html`<${UserForm} user=${editing === 'new' ? null : editing} self=${editing !== 'new' && editing.id === s.user.id}
      onCancel=${() => setEditing(null)}
      onDone=${async (u) => {
        setEditing(null);
        toast.ok(`${editing === 'new' ? 'Created' : 'Saved'} ${u.username}`);
        users.reload();
        if (u.id === s.user.id) await loadSession();
      }} />` : null}
  <//>`;
}
