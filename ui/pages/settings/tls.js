// TLS: the certificate HTTPS serves (GET /api/ssl/status: mode, names, validity with days left, SHA-256
// fingerprint, the listener, ACME renewal), and for administrators a PFX upload (the file as the request
// body, its password in X-PFX-Password) and an ACME order followed live through its job's event stream
// (GET /api/ssl/letsencrypt/:job_id/stream), with cancel.
import { api } from '../../lib/api.js';
import { useForm } from '../../lib/form.js';
import { html, useEffect, useRef, useState } from '../../lib/html.js';
import { useApi } from '../../lib/hooks.js';
import { isAdmin, useSession } from '../../lib/session.js';
import { toast } from '../../lib/toast.js';
import { TLS_MODES, ACME_CHALLENGES, ACME_DIRECTORIES } from '../../lib/vocabulary.js';
import { Badge } from '../../components/badge.js';
import { CopyButton } from '../../components/copy.js';
import { ErrorState, Loading } from '../../components/empty.js';
import { CheckField, Field, FormError, SelectField, TextArea } from '../../components/field.js';
import { Card } from '../../components/page.js';
import { AdminNote, Facts, JobProgress, sendRaw, useJobStream, when } from './parts.js';

const daysTone = (d) => (d <= 7 ? 'bad' : d <= 30 ? 'warn' : 'ok');

function Certificate({ s }) {
  const mode = TLS_MODES[s.mode] ?? { label: s.mode, tone: 'neutral' };
  return html`<${Facts} items=${[
    ['Source', html`<${Badge} tone=${mode.tone}>${mode.label}<//>`],
    ['Days left', html`<${Badge} tone=${daysTone(s.days_left)}>${s.days_left} ${s.days_left === 1 ? 'day' : 'days'}<//> <span class="muted">until ${when(s.valid_to)}</span>`],
    ['Names', html`<div class="chips">${s.names.map((n) => html`<${Badge} key=${n}>${n}<//>`)}</div>`],
    ['SHA-256 fingerprint', html`<div class="fingerprint" data-testid="tls-fingerprint">${s.fingerprint_sha256}</div>
      <div style="margin-top:6px"><${CopyButton} text=${s.fingerprint_sha256} label="Copy fingerprint" /></div>`],
    ['Subject', s.subject],
    ['Issuer', s.issuer],
    ['Valid from', when(s.valid_from)],
    ['Key', s.key_type],
    ['Serial number', html`<span class="mono small">${s.serial}</span>`],
    ['Chain', `${s.chain_length} ${s.chain_length === 1 ? 'certificate' : 'certificates'}`],
    ['Installed', when(s.installed_at)],
    ['HTTPS', s.https.enabled ? html`Port <span class="mono">${s.https.port}</span> ${s.https.listening
      ? html`<${Badge} tone="ok">Listening<//>` : html`<${Badge} tone="bad">Not listening<//>`}` : 'Off (tls.https_port is 0)'],
    ['HTTP to HTTPS', s.redirect_http ? 'Browsers are sent to HTTPS' : 'Not redirected'],
  ]} />
  ${s.self_signed ? html`<p class="muted small" style="margin-bottom:0">${s.mode === 'self-signed' ? 'The probe made this certificate itself'
    : 'This certificate is signed by itself'}: browsers warn about it. Compare the fingerprint with what the browser shows before you accept it,
    or install a certificate from a CA.</p>` : null}`;
}

function AcmeStatus({ a }) {
  if (!a.configured && !a.last_attempt_at) return html`<p class="muted" style="margin:0">No certificate has been ordered by ACME.</p>`;
  return html`<${Facts} items=${[
    ['Names', a.domains.join(', ') || '—'],
    ['Challenge', a.challenge ? ACME_CHALLENGES[a.challenge] ?? a.challenge : '—'],
    ['Server', a.directory_url ? html`<span class="mono small">${a.directory_url}</span>` : '—'],
    ['Last attempt', a.last_attempt_at ? html`${when(a.last_attempt_at)} (${a.last_attempt_kind === 'renewal' ? 'renewal' : 'order'})` : '—'],
    ['Last success', when(a.last_success_at)],
    ['Next renewal', when(a.next_renewal_at)],
    ['Last error', a.last_error ? html`<span class="field-error">${a.last_error}</span>` : undefined],
  ]} />`;
}

function PfxUpload({ onInstalled }) {
  const form = useForm({ file: null, password: '' });
  const fileRef = useRef(null);
  const onSubmit = form.submit(async (v) => {
    const file = fileRef.current?.files?.[0];
    if (!file) { form.fail({ detail: 'Choose the PFX file first', errors: [{ path: 'file', message: 'Required' }] }); return; }
    const status = await sendRaw('POST', '/api/ssl/upload', file, {
      type: 'application/x-pkcs12', headers: v.password ? { 'X-PFX-Password': v.password } : {},
    });
    form.reset({ file: null, password: '' });
    if (fileRef.current) fileRef.current.value = '';
    toast.ok(`Certificate for ${status.names[0] ?? status.subject} installed`);
    onInstalled(status);
  });
  const err = form.errorFor('file');
  return html`<form onSubmit=${onSubmit}>
    <p class="muted" style="margin-top:0">A PKCS#12 file (.pfx or .p12) with the private key and its certificate. It is installed at once,
      without a restart; new connections get it.</p>
    <${FormError} form=${form} />
    <div class="grid-2">
      <div class="field">
        <label for="pfx-file" class="required">PFX file</label>
        <input id="pfx-file" ref=${fileRef} class="file-input" type="file" accept=".pfx,.p12,application/x-pkcs12"
          aria-invalid=${err ? 'true' : undefined} onChange=${() => form.set('file', fileRef.current?.files?.[0]?.name ?? null)} />
        ${err ? html`<div class="field-error">${err}</div>` : null}
      </div>
      <${Field} form=${form} name="password" label="File password" type="password" autocomplete="off" hint="Empty for a file without one" />
    </div>
    <div class="form-actions"><button type="submit" class="btn btn-primary" disabled=${form.busy}>${form.busy ? 'Installing…' : 'Upload and install'}</button></div>
  </form>`;
}

function describeAcme(m) {
  if (m.type === 'started') return 'Started';
  if (m.type === 'progress' || m.type === 'dns_record') return m.message ?? m.step ?? null;
  return null;
}

function AcmeOrder({ running, onFinished }) {
  const [job, setJob] = useState(running ?? null);
  const form = useForm({
    domains: '', challenge: 'http-01', email: '', directory: 'letsencrypt', directory_url: '', server_ca: '',
    self_check: true, terms_of_service_agreed: false,
  });
  const stream = useJobStream(job ? `/api/ssl/letsencrypt/${job}/stream` : null);
  const done = useRef(null);
  useEffect(() => {
    if (stream.final && done.current !== job) { done.current = job; onFinished(stream.final); }
  }, [stream.final]);
  const onSubmit = form.submit(async (v) => {
    const custom = v.directory === 'custom';
    if (!v.terms_of_service_agreed) {
      form.fail({ detail: 'Agree to the ACME server\'s terms of service first',
        errors: [{ path: 'terms_of_service_agreed', message: 'Required to order a certificate' }] });
      return;
    }
    const r = await api.post('/api/ssl/letsencrypt', {
      domains: v.domains.split(/[\s,]+/).map((d) => d.trim()).filter(Boolean),
      challenge: v.challenge,
      email: v.email.trim(),
      directory_url: custom ? v.directory_url.trim() : v.directory,
      ...(custom && v.server_ca.trim() ? { server_ca: { certificate: v.server_ca.trim() } } : {}),
      self_check: v.self_check,
      terms_of_service_agreed: true,
    });
    setJob(r.job_id);
  });
  const cancel = async () => {
    try { await api.del(`/api/ssl/letsencrypt/${job}`); } catch (e) { toast.error(e); }
  };
  const custom = form.values.directory === 'custom';
  return html`<form onSubmit=${onSubmit}>
    <p class="muted" style="margin-top:0">Let's Encrypt or any ACME server. The certificate is renewed by itself when a third of its lifetime is left.
      http-01 needs port 80 of each name to reach this probe; dns-01 writes a TXT record by RFC 2136 (the tls.rfc2136 settings in the configuration)
      and is the only way for a wildcard.</p>
    <${FormError} form=${form} />
    <${Field} form=${form} name="domains" label="Names" required autocapitalize="none" spellcheck="false" placeholder="probe.example.com"
      hint="One or more fully qualified names, separated by spaces or commas; the first is the common name" />
    <div class="grid-2">
      <${SelectField} form=${form} name="challenge" label="Challenge"
        options=${Object.entries(ACME_CHALLENGES).map(([value, label]) => ({ value, label }))} />
      <${Field} form=${form} name="email" label="Contact e-mail" type="email" hint="Optional: the CA's expiry notices" />
    </div>
    <${SelectField} form=${form} name="directory" label="ACME server"
      options=${[...Object.entries(ACME_DIRECTORIES).map(([value, label]) => ({ value, label })), { value: 'custom', label: 'Another ACME server…' }]} />
    ${custom ? html`<${Field} form=${form} name="directory_url" label="Directory URL" type="url" required placeholder="https://ca.example.net/acme/directory" />
      <${TextArea} form=${form} name="server_ca" label="The server's CA (PEM)" rows=${4}
        hint="For a private ACME server: the CA that signed its own TLS certificate. Empty: the system's trusted CAs." />` : null}
    <${CheckField} form=${form} name="self_check" label="Check the challenge from the probe first" />
    <${CheckField} form=${form} name="terms_of_service_agreed" label="I agree to the ACME server's terms of service" />
    <div class="form-actions"><button type="submit" class="btn btn-primary" disabled=${form.busy || (job && !stream.final)}>Order certificate</button></div>
    ${job ? html`<${JobProgress} title="Certificate order" job=${stream} describe=${describeAcme}
      actions=${stream.final || stream.lost ? html`<button type="button" class="btn btn-sm" onClick=${() => setJob(null)}>Dismiss</button>`
        : html`<button type="button" class="btn btn-sm" onClick=${cancel}>Cancel order</button>`} />` : null}
  </form>`;
}

export default function TlsSection() {
  const s = useSession();
  const admin = isAdmin(s);
  const st = useApi('/api/ssl/status');
  const [fresh, setFresh] = useState(null);
  const status = fresh ?? st.data;
  const finished = (final) => {
    setFresh(null);
    st.reload();
    if (final.type === 'completed') toast.ok('Certificate ordered and installed');
  };
  return html`<div class="settings-stack">
    <${Card} title="Certificate in use">
      ${st.error && !status ? html`<${ErrorState} error=${st.error} retry=${st.reload} />`
        : !status ? html`<${Loading} />` : html`<${Certificate} s=${status} />`}
    <//>
    ${admin ? html`<${Card} title="Upload a certificate (PFX)"><${PfxUpload} onInstalled=${(x) => { setFresh(x); st.reload(); }} /><//>` : null}
    <${Card} title="ACME (Let's Encrypt)">
      ${status ? html`<${AcmeStatus} a=${status.acme} />` : null}
      ${admin ? html`<hr style="border:0;border-top:1px solid var(--border);margin:16px 0" />
          ${status ? html`<${AcmeOrder} running=${status.acme.running_job_id} onFinished=${finished} />` : null}`
        : html`<${AdminNote}>Only an administrator can upload a certificate or order one.<//>`}
    <//>
  </div>`;
}
