// Account (the signed-in user): name and e-mail (a new address needs the current password: password recovery
// sends to it), a password change (which needs the current password and signs out
// the account's other sessions), and two-factor sign-in (two-factor.js).
import { api } from '../../lib/api.js';
import { useForm } from '../../lib/form.js';
import { html } from '../../lib/html.js';
import { loadSession, useSession } from '../../lib/session.js';
import { toast } from '../../lib/toast.js';
import { Field, FormError } from '../../components/field.js';
import { Card } from '../../components/page.js';
import { TwoFactorCard } from './two-factor.js';

function Profile({ user }) {
  const form = useForm({ display_name: user.display_name ?? '', email: user.email ?? '', current_password: '' });
  const emailChanged = (form.values.email.trim() || null) !== (user.email ?? null);
  const onSubmit = form.submit(async (v) => {
    const body = { display_name: v.display_name.trim() || null, email: v.email.trim() || null };
    if (emailChanged) body.current_password = v.current_password;
    await api.put(`/api/users/${user.id}`, body);
    form.set('current_password', '');
    await loadSession();
    toast.ok(emailChanged && user.email ? `Profile saved; ${user.email} was told of the change` : 'Profile saved');
  });
  return html`<${Card} title="Profile">
    <form onSubmit=${onSubmit}>
      <${FormError} form=${form} />
      <dl class="dl" style="margin-bottom:16px"><dt>Username</dt><dd class="mono">${user.username}</dd><dt>Role</dt><dd>${user.role}</dd></dl>
      <div class="grid-2">
        <${Field} form=${form} name="display_name" label="Full name" autocomplete="name" />
        <${Field} form=${form} name="email" label="E-mail" type="email" autocomplete="email" />
      </div>
      ${emailChanged ? html`<input type="text" name="username" value=${user.username} autocomplete="username" hidden readonly />
        <${Field} form=${form} name="current_password" label="Current password" type="password" autocomplete="current-password" required
          hint="A new e-mail address needs your password: password resets are sent there. The previous address is told." />` : null}
      <div class="form-actions"><button type="submit" class="btn btn-primary" disabled=${form.busy}>Save profile</button></div>
    </form>
  <//>`;
}

function Password({ user }) {
  const empty = { current_password: '', password: '', password2: '' };
  const form = useForm(empty);
  const onSubmit = form.submit(async (v) => {
    if (v.password !== v.password2) {
      form.fail({ detail: 'The two new passwords differ', errors: [{ path: 'password2', message: 'Does not match the new password' }] });
      return;
    }
    await api.put(`/api/users/${user.id}`, { password: v.password, current_password: v.current_password });
    form.reset(empty);
    toast.ok('Password changed; your other sessions were signed out');
  });
  return html`<${Card} title="Password">
    <form onSubmit=${onSubmit}>
      <${FormError} form=${form} />
      <input type="text" name="username" value=${user.username} autocomplete="username" hidden readonly />
      <${Field} form=${form} name="current_password" label="Current password" type="password" autocomplete="current-password" required />
      <div class="grid-2">
        <${Field} form=${form} name="password" label="New password" type="password" autocomplete="new-password" required hint="At least 10 characters" />
        <${Field} form=${form} name="password2" label="New password again" type="password" autocomplete="new-password" required />
      </div>
      <div class="form-actions"><button type="submit" class="btn btn-primary" disabled=${form.busy}>Change password</button></div>
    </form>
  <//>`;
}

export default function AccountSection() {
  const { user } = useSession();
  return html`<${Profile} user=${user} key=${user.id} /><${Password} user=${user} /><${TwoFactorCard} />`;
}
