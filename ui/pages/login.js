// Sign-in. A second step asks for the authenticator code when the API answers `totp_required`
// (the contract for two-factor sign-in is in docs/ui.md).
import { api } from '../lib/api.js';
import { useForm } from '../lib/form.js';
import { html, useEffect, useState } from '../lib/html.js';
import { navigate, safeNext } from '../lib/router.js';
import { loadSession, useSession } from '../lib/session.js';
import { Field, FormError } from '../components/field.js';
import { Logo } from '../components/icons.js';

export default function LoginPage({ query }) {
  const s = useSession();
  const [totp, setTotp] = useState(false);
  const form = useForm({ username: '', password: '', totp_code: '' });
  useEffect(() => { document.title = `Sign in · ${s.probeName}`; }, [s.probeName]);

  const onSubmit = form.submit(async (v) => {
    const body = { username: v.username, password: v.password };
    if (totp) body.totp_code = v.totp_code;
    try {
      await api.post('/api/auth/login', body, { quiet401: true });
    } catch (e) {
      if (e.code === 'totp_required') { setTotp(true); return; }
      throw e;
    }
    await loadSession();
    navigate(safeNext(query.next), { replace: true });
  });

  return html`<div class="auth-page">
    <form class="auth-card" onSubmit=${onSubmit} aria-labelledby="login-title">
      <div class="auth-brand"><${Logo} size=${40} /><div><div class="auth-probe">${s.probeName}</div><div class="muted">netprobe</div></div></div>
      <h1 id="login-title">Sign in</h1>
      <${FormError} form=${form} />
      ${totp ? html`
        <p class="muted">Enter the six-digit code from your authenticator app.</p>
        <${Field} form=${form} name="totp_code" label="Authentication code" inputmode="numeric" autocomplete="one-time-code"
          pattern="[0-9]{6}" maxlength="6" required autofocus />`
      : html`
        <${Field} form=${form} name="username" label="Username" autocomplete="username" required autofocus autocapitalize="none" spellcheck="false" />
        <${Field} form=${form} name="password" label="Password" type="password" autocomplete="current-password" required />`}
      <button type="submit" class="btn btn-primary btn-block" disabled=${form.busy}>${form.busy ? 'Signing in…' : totp ? 'Verify' : 'Sign in'}</button>
    </form>
  </div>`;
}
