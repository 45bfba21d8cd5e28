// Two-factor sign-in for the signed-in account (GET /api/auth/2fa/status). Administrators enrol: the
// current password (POST /api/auth/2fa/enroll), then the QR code the server drew and the secret for
// typing in, a code from the app to confirm (POST /api/auth/2fa/confirm), and the ten recovery codes,
// shown once, to copy or download as a text file. Turning it off takes a current or recovery code (POST /api/auth/2fa/disable). docs/auth.md.
import { api } from '../../lib/api.js';
import { useForm } from '../../lib/form.js';
import { html, useState } from '../../lib/html.js';
import { useApi } from '../../lib/hooks.js';
import { isAdmin, useSession } from '../../lib/session.js';
import { toast } from '../../lib/toast.js';
import { Badge } from '../../components/badge.js';
import { CopyButton } from '../../components/copy.js';
import { DownloadButton } from '../../components/download.js';
import { ErrorState, Loading } from '../../components/empty.js';
import { Field, FormError } from '../../components/field.js';
import { Icon } from '../../components/icons.js';
import { Modal } from '../../components/modal.js';
import { Card } from '../../components/page.js';
import { Facts, when } from './parts.js';

/** The recovery codes as a text file: whose and which probe's they are, how to use them, one code a line. */
function codesFile(codes, username, probe) {
  return [`Recovery codes for ${username} on ${probe} (netprobe), made ${new Date().toISOString().slice(0, 10)}.`,
    'Each code signs you in once instead of a code from your authenticator app.', '', ...codes, ''].join('\n');
}

function EnrollDialog({ onClose, onEnabled }) {
  const s = useSession();
  const [enrolment, setEnrolment] = useState(null);
  const [codes, setCodes] = useState(null);
  const pw = useForm({ current_password: '' });
  const code = useForm({ code: '' });
  const start = pw.submit(async (v) => {
    setEnrolment(await api.post('/api/auth/2fa/enroll', { current_password: v.current_password }));
  });
  const finish = code.submit(async (v) => {
    const r = await api.post('/api/auth/2fa/confirm', { code: v.code.replace(/\s+/g, '') });
    setCodes(r.recovery_codes);
    onEnabled();
  });
  if (codes) {
    return html`<${Modal} title="Save your recovery codes" onClose=${onClose}
      footer=${html`<button type="button" class="btn btn-primary" onClick=${onClose}>I have saved them</button>`}>
      <div class="alert alert-ok"><${Icon} name="check" /><div class="alert-body">Two-factor sign-in is on.</div></div>
      <p>Each code signs you in once if you lose your authenticator. They are shown only now: store them somewhere safe.</p>
      <ul class="recovery-codes" data-testid="recovery-codes">${codes.map((c) => html`<li key=${c}>${c}</li>`)}</ul>
      <div class="codes-actions">
        <${CopyButton} text=${codes.join('\n')} label="Copy the codes" />
        <${DownloadButton} text=${codesFile(codes, s.user?.username ?? 'you', s.probeName)} label="Download"
          name=${`${s.probeName}-${s.user?.username ?? 'account'}-recovery-codes.txt`.replace(/[^\w.-]+/g, '_')} />
      </div>
    <//>`;
  }
  if (!enrolment) {
    return html`<${Modal} title="Turn on two-factor sign-in" onClose=${onClose} size="sm"
      footer=${html`<button type="button" class="btn" onClick=${onClose}>Cancel</button>
        <button type="submit" form="tf-password" class="btn btn-primary" disabled=${pw.busy}>Continue</button>`}>
      <form id="tf-password" onSubmit=${start}>
        <p style="margin-top:0">You will need an authenticator app (for example FreeOTP, Aegis, Google Authenticator or 1Password).</p>
        <${FormError} form=${pw} />
        <${Field} form=${pw} name="current_password" label="Current password" type="password" autocomplete="current-password" required autofocus />
      </form>
    <//>`;
  }
  const qr = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(enrolment.qr_svg)}`;
  return html`<${Modal} title="Scan the code with your app" onClose=${onClose} size="lg"
    footer=${html`<button type="button" class="btn" onClick=${onClose}>Cancel</button>
      <button type="submit" form="tf-confirm" class="btn btn-primary" disabled=${code.busy}>Turn on</button>`}>
    <div class="qr-row">
      <div class="qr"><img src=${qr} alt="QR code of the authenticator link" /></div>
      <div class="qr-text">
        <p style="margin-top:0">Scan the QR code, or type this key into the app (${enrolment.digits} digits, every ${enrolment.period} s, ${enrolment.algorithm}):</p>
        <div class="secret-box"><code data-testid="totp-secret">${enrolment.secret}</code><${CopyButton} text=${enrolment.secret} label="Copy key" /></div>
        <form id="tf-confirm" onSubmit=${finish} style="margin-top:14px">
          <${FormError} form=${code} />
          <${Field} form=${code} name="code" label="Code from the app" inputmode="numeric" autocomplete="one-time-code" required autofocus
            hint="The six digits the app shows now" />
        </form>
      </div>
    </div>
  <//>`;
}

function DisableDialog({ onClose, onDone }) {
  const form = useForm({ code: '' });
  const onSubmit = form.submit(async (v) => {
    await api.post('/api/auth/2fa/disable', { code: v.code.trim() });
    onDone();
  });
  return html`<${Modal} title="Turn off two-factor sign-in" onClose=${onClose} size="sm"
    footer=${html`<button type="button" class="btn" onClick=${onClose}>Cancel</button>
      <button type="submit" form="tf-disable" class="btn btn-danger" disabled=${form.busy}>Turn off</button>`}>
    <form id="tf-disable" onSubmit=${onSubmit}>
      <${FormError} form=${form} />
      <${Field} form=${form} name="code" label="Code from the app or a recovery code" autocomplete="one-time-code" required autofocus />
    </form>
  <//>`;
}

export function TwoFactorCard() {
  const s = useSession();
  const st = useApi('/api/auth/2fa/status');
  const [dialog, setDialog] = useState(null);
  const t = st.data;
  const admin = isAdmin(s);
  const close = () => { setDialog(null); st.reload(); };
  const state = !t ? null : t.enabled ? html`<${Badge} tone="ok">On<//>` : t.pending ? html`<${Badge} tone="warn">Started, not confirmed<//>`
    : html`<${Badge} tone="neutral">Off<//>`;
  return html`<${Card} title="Two-factor sign-in">
    ${st.error ? html`<${ErrorState} error=${st.error} retry=${st.reload} />`
      : !t ? html`<${Loading} />`
        : html`
          ${t.required && !t.enabled ? html`<div class="alert alert-warn"><${Icon} name="alert" /><div class="alert-body">
            This probe requires administrators to use two-factor sign-in: turn it on to use the rest of the probe.</div></div>` : null}
          <${Facts} items=${[
            ['State', state],
            ['Since', t.enabled ? when(t.enabled_at) : undefined],
            ['Recovery codes left', t.enabled ? String(t.recovery_codes_left) : undefined],
          ]} />
          <div class="form-actions">
            ${t.enabled ? html`<button type="button" class="btn" onClick=${() => setDialog('disable')}>Turn off two-factor sign-in</button>`
              : admin ? html`<button type="button" class="btn btn-primary" onClick=${() => setDialog('enroll')}>
                  ${t.pending ? 'Start again' : 'Turn on two-factor sign-in'}</button>`
                : html`<p class="muted small" style="margin:0">Only administrators can turn on two-factor sign-in.</p>`}
          </div>`}
    ${dialog === 'enroll' ? html`<${EnrollDialog} onClose=${close} onEnabled=${() => st.reload()} />` : null}
    ${dialog === 'disable' ? html`<${DisableDialog} onClose=${close} onDone=${() => { close(); toast.ok('Two-factor sign-in is off'); }} />` : null}
  <//>`;
}
