// The first-run wizard. Step 1 proves the right to set the probe up (the setup code is the one-time
// administrator password) and creates the real administrator, then signs in as them. Step 2 names the
// probe and sets its time zone and administrator e-mail. The app's guards send a fresh probe here.
import { api } from '../lib/api.js';
import { useForm } from '../lib/form.js';
import { html, useEffect } from '../lib/html.js';
import { navigate } from '../lib/router.js';
import { loadSession, useSession } from '../lib/session.js';
import { toast } from '../lib/toast.js';
import { Field, FormError } from '../components/field.js';
import { Logo } from '../components/icons.js';
import { TimeZoneField } from '../components/time-zone.js';

const STEPS = ['Administrator', 'Probe'];

function Steps({ current }) {
  return html`<ol class="steps" aria-label="Setup steps">
    ${STEPS.map((label, i) => html`<li class=${i < current ? 'done' : i === current ? 'current' : ''}
      aria-current=${i === current ? 'step' : undefined}><span class="step-n">${i + 1}</span>${label}</li>`)}
  </ol>`;
}

function AdminStep() {
  const form = useForm({ setup_code: '', username: '', display_name: '', email: '', password: '', password2: '' });
  const onSubmit = form.submit(async (v) => {
    if (v.password !== v.password2) {
      form.fail({ detail: 'The two passwords differ', errors: [{ path: 'password2', message: 'Does not match the password' }] });
      return;
    }
    await api.post('/api/setup/bootstrap', {
      setup_code: v.setup_code.trim() || undefined,
      username: v.username.trim(),
      password: v.password,
      display_name: v.display_name.trim() || null,
      email: v.email.trim() || null,
    });
    await api.post('/api/auth/login', { username: v.username.trim(), password: v.password });
    await loadSession();
  });
  return html`<form onSubmit=${onSubmit} class="stack">
    <p class="muted">This probe has no administrator yet. Prove you may set it up, then create your own account;
      the one-time administrator is retired.</p>
    <${FormError} form=${form} />
    <${Field} form=${form} name="setup_code" label="Setup code" type="password" autocomplete="off" required autofocus
      hint=${html`The one-time administrator password: in the service log, in <code>initial-admin-password</code> in the data
        directory or, on the appliance, in <code>netprobe-admin-password.txt</code> on the SD card's boot partition.`} />
    <div class="grid-2">
      <${Field} form=${form} name="username" label="Username" autocomplete="username" required autocapitalize="none" spellcheck="false"
        hint="3 to 64 letters, digits, dots, dashes or underscores" />
      <${Field} form=${form} name="display_name" label="Full name" autocomplete="name" />
    </div>
    <${Field} form=${form} name="email" label="E-mail" type="email" autocomplete="email" />
    <div class="grid-2">
      <${Field} form=${form} name="password" label="Password" type="password" autocomplete="new-password" required
        hint="At least 10 characters, not the username" />
      <${Field} form=${form} name="password2" label="Password again" type="password" autocomplete="new-password" required />
    </div>
    <div class="form-actions">
      <button type="submit" class="btn btn-primary" disabled=${form.busy}>${form.busy ? 'Creating…' : 'Create administrator'}</button>
    </div>
  </form>`;
}

function ProbeStep() {
  const s = useSession();
  const browserZone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  const form = useForm({ probe_name: s.probeName, hostname: '', timezone: browserZone, admin_email: s.user?.email ?? '' });
  const onSubmit = form.submit(async (v) => {
    await api.post('/api/setup/save', {
      probe_name: v.probe_name.trim(),
      hostname: v.hostname.trim() || undefined,
      timezone: v.timezone,
      admin_email: v.admin_email.trim() || undefined,
    });
    await loadSession();
    toast.ok('Setup complete');
    navigate('/', { replace: true });
  });
  return html`<form onSubmit=${onSubmit} class="stack">
    <p class="muted">Name this probe as it should appear in alerts and on this page, and set where it lives.</p>
    <${FormError} form=${form} />
    <div class="grid-2">
      <${Field} form=${form} name="probe_name" label="Probe name" required autofocus hint="For example: Plant 2 core switch room" />
      <${Field} form=${form} name="hostname" label="Host name" autocapitalize="none" spellcheck="false"
        hint="Optional. One label: letters, digits and dashes" />
    </div>
    <div class="grid-2">
      <${TimeZoneField} form=${form} name="timezone" />
      <${Field} form=${form} name="admin_email" label="Administrator e-mail" type="email" autocomplete="email"
        hint="Where the probe sends mail about itself" />
    </div>
    <div class="form-actions">
      <button type="submit" class="btn btn-primary" disabled=${form.busy}>${form.busy ? 'Saving…' : 'Finish setup'}</button>
    </div>
  </form>`;
}

export default function SetupPage() {
  const s = useSession();
  useEffect(() => { document.title = `Set up · ${s.probeName}`; }, [s.probeName]);
  const step = s.bootstrapNeeded ? 0 : 1;
  return html`<div class="auth-page">
    <div class="auth-card auth-card-wide">
      <div class="auth-brand"><${Logo} size=${40} /><div><div class="auth-probe">Welcome to netprobe</div>
        <div class="muted">First-run setup</div></div></div>
      <${Steps} current=${step} />
      <h1>${step === 0 ? 'Create the administrator' : 'Name this probe'}</h1>
      ${step === 0 ? html`<${AdminStep} />` : html`<${ProbeStep} key="probe" />`}
    </div>
  </div>`;
}
