// Sign-in. A second step asks for the authenticator code when the API answers the step `totp_required`,
// and for a new password when it answers `password_change_required` (a temporary password from password
// recovery); both are 200 answers, so the browser logs no failed request for them. "Forgot your
// password?" asks POST /api/auth/forgot-password for one, or says what to do without e-mail (the
// contracts are in docs/ui.md and docs/auth.md).
import { api } from '../lib/api.js';
import { useForm } from '../lib/form.js';
import { html, useEffect, useState } from '../lib/html.js';
import { navigate, safeNext } from '../lib/router.js';
import { loadSession, useSession } from '../lib/session.js';
import { Field, FormError } from '../components/field.js';
import { BrandLogo, loadIdentity, useIdentity } from '../lib/identity.js';

/** The probe's logo and name, and the administrator's sign-in notice (POST /api/web-identity). */
function Brand({ probeName }) {
  const id = useIdentity();
  return html`<div class="auth-brand"><${BrandLogo} size=${40} /><div><div class="auth-probe">${probeName}</div><div class="muted">netprobe</div></div></div>
    ${id.login_notice ? html`<p class="auth-notice" role="note">${id.login_notice}</p>` : null}`;
}

export default function LoginPage({ query }) {
  const s = useSession();
  useEffect(() => { loadIdentity(); }, []); // accent colour, logo, favicon and notice
  const [totp, setTotp] = useState(false);
  const [change, setChange] = useState(false);
  const [forgot, setForgot] = useState(false);
  const [recovery, setRecovery] = useState(null);
  const [sent, setSent] = useState('');
  const form = useForm({ username: '', password: '', totp_code: '', new_password: '', new_password_confirm: '' });
  const ask = useForm({ account: '' });
  useEffect(() => { document.title = `Sign in · ${s.probeName}`; }, [s.probeName]);
  useEffect(() => { api.get('/api/auth/forgot-password').then(setRecovery, () => setRecovery(null)); }, []);

  const onSubmit = form.submit(async (v) => {
    const body = { username: v.username, password: v.password };
    if (totp) body.totp_code = v.totp_code;
    if (change) {
      if (v.new_password !== v.new_password_confirm) {
        throw { detail: 'The two new passwords differ', errors: [{ path: 'new_password_confirm', message: 'Must match the new password' }] };
      }
      body.new_password = v.new_password;
    }
    const r = await api.post('/api/auth/login', body, { quiet401: true });
    if (r.signed_in === false) {
      if (r.step === 'totp_required') setTotp(true);
      else if (r.step === 'password_change_required') setChange(true);
      else throw { detail: r.detail };
      return;
    }
    await loadSession();
    navigate(safeNext(query.next), { replace: true });
  });

  const onForgot = ask.submit(async (v) => {
    const account = v.account.trim();
    const r = await api.post('/api/auth/forgot-password', account.includes('@') ? { email: account } : { username: account });
    setSent(r.detail);
  });

  if (forgot) {
    return html`<div class="auth-page">
      <form class="auth-card" onSubmit=${onForgot} aria-labelledby="forgot-title">
        <${Brand} probeName=${s.probeName} />
        <h1 id="forgot-title">Forgot your password?</h1>
        <${FormError} form=${ask} />
        ${recovery && !recovery.email_enabled ? html`
          <p>Password recovery by e-mail is off: no mail server is configured.</p>
          <p class="muted" style="white-space:pre-line">${recovery.local_recovery}</p>`
        : sent ? html`<p role="status">${sent}</p>`
        : html`
          <p class="muted">We send a temporary password to the e-mail address of your account. It is valid for
            ${recovery?.temporary_password_minutes ?? 30} minutes; your current password keeps working until you use it.</p>
          <${Field} form=${ask} name="account" label="Username or e-mail address" autocomplete="username" required autofocus
            autocapitalize="none" spellcheck="false" />
          <button type="submit" class="btn btn-primary btn-block" disabled=${ask.busy}>${ask.busy ? 'Sending…' : 'Send a temporary password'}</button>`}
        <button type="button" class="btn btn-link btn-block" onClick=${() => { setForgot(false); setSent(''); ask.reset(); }}>Back to sign-in</button>
      </form>
    </div>`;
  }

  return html`<div class="auth-page">
    <form class="auth-card" onSubmit=${onSubmit} aria-labelledby="login-title">
      <${Brand} probeName=${s.probeName} />
      <h1 id="login-title">${change ? 'Choose a new password' : 'Sign in'}</h1>
      <${FormError} form=${form} />
      ${change ? html`
        <p class="muted">You signed in with a temporary password. Choose a new password (at least 10 characters) to continue.</p>
        <${Field} form=${form} name="new_password" label="New password" type="password" autocomplete="new-password" minlength="10" required autofocus />
        <${Field} form=${form} name="new_password_confirm" label="New password again" type="password" autocomplete="new-password" required />`
      : totp ? html`
        <p class="muted">Enter the six-digit code from your authenticator app, or one of your recovery codes.</p>
        <${Field} form=${form} name="totp_code" label="Authentication code" autocomplete="one-time-code" autocapitalize="none"
          spellcheck="false" pattern="[0-9]{6}|[0-9A-Za-z]{4}(-?[0-9A-Za-z]{4}){3}" maxlength="19" required autofocus />`
      : html`
        <${Field} form=${form} name="username" label="Username" autocomplete="username" required autofocus autocapitalize="none" spellcheck="false" />
        <${Field} form=${form} name="password" label="Password" type="password" autocomplete="current-password" required />`}
      <button type="submit" class="btn btn-primary btn-block" disabled=${form.busy}>${form.busy ? 'Signing in…' : change ? 'Set password and sign in' : totp ? 'Verify' : 'Sign in'}</button>
      ${!totp && !change ? html`<button type="button" class="btn btn-link btn-block" onClick=${() => setForgot(true)}>Forgot your password?</button>` : null}
    </form>
  </div>`;
}
