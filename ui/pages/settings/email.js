// E-mail (administrators): the SMTP settings of the configuration (section smtp, read from
// GET /api/config/json and saved as a patch through POST /api/config/import, so every other key stays
// as it is), a test message with the saved settings (POST /api/dev/emails/test) and the recent outgoing
// messages (GET /api/dev/emails/recent). The password is write-only: left empty it is kept, unless the
// server or port changes (the API drops it then, and the page says to enter it again).
import { api } from '../../lib/api.js';
import { useForm } from '../../lib/form.js';
import { dateTime, relTime } from '../../lib/format.js';
import { html, useState } from '../../lib/html.js';
import { useApi } from '../../lib/hooks.js';
import { noteDroppedSecrets } from '../../lib/secrets.js';
import { useSession } from '../../lib/session.js';
import { toast } from '../../lib/toast.js';
import { MAIL_KIND_TEXT, SMTP_SECURITY } from '../../lib/vocabulary.js';
import { Badge } from '../../components/badge.js';
import { EmptyState, ErrorState, Loading } from '../../components/empty.js';
import { CheckField, Field, FormError, SelectField } from '../../components/field.js';
import { Icon } from '../../components/icons.js';
import { Card } from '../../components/page.js';
import { Table } from '../../components/table.js';
import { patchConfig } from './parts.js';

function SmtpForm({ smtp, onSaved }) {
  const form = useForm({
    'smtp.host': smtp.host, 'smtp.port': String(smtp.port), 'smtp.security': smtp.security, 'smtp.verify_certificate': smtp.verify_certificate,
    'smtp.user': smtp.user, 'smtp.password': '', clear_password: false, 'smtp.from': smtp.from, 'smtp.timeout_seconds': String(smtp.timeout_seconds),
  });
  const passwordSet = smtp.password?.set === true;
  const onSubmit = form.submit(async (v) => {
    const port = Number(v['smtp.port']);
    const timeout = Number(v['smtp.timeout_seconds']);
    const body = {
      host: v['smtp.host'].trim(), port: Number.isFinite(port) && v['smtp.port'] !== '' ? port : v['smtp.port'],
      security: v['smtp.security'], verify_certificate: v['smtp.verify_certificate'], user: v['smtp.user'].trim(), from: v['smtp.from'].trim(),
      timeout_seconds: Number.isFinite(timeout) && v['smtp.timeout_seconds'] !== '' ? timeout : v['smtp.timeout_seconds'],
    };
    if (v.clear_password) body.password = { set: false };
    else if (v['smtp.password']) body.password = v['smtp.password'];
    const r = await patchConfig({ smtp: body });
    form.set('smtp.password', '');
    form.set('clear_password', false);
    toast.ok(r.changed.length ? `E-mail settings saved (${r.changed.length} changed)` : 'Nothing changed');
    noteDroppedSecrets(r);
    onSaved();
  });
  return html`<form onSubmit=${onSubmit}>
    <p class="muted" style="margin-top:0">The server the probe sends mail through: password recovery, test messages and e-mail alert channels
      (Webhooks). Changes apply at once. Leave the server empty to turn e-mail off.</p>
    <${FormError} form=${form} />
    <div class="grid-2">
      <${Field} form=${form} name="smtp.host" label="SMTP server" autocapitalize="none" spellcheck="false" placeholder="mail.example.net" />
      <${Field} form=${form} name="smtp.port" label="Port" type="number" inputmode="numeric" hint="587 for STARTTLS, 465 for TLS" />
    </div>
    <div class="grid-2">
      <${SelectField} form=${form} name="smtp.security" label="Security" options=${SMTP_SECURITY} />
      <${Field} form=${form} name="smtp.from" label="Sender address" autocapitalize="none" spellcheck="false" placeholder="netprobe@example.net" hint="Empty: netprobe@ the host name" />
    </div>
    <${CheckField} form=${form} name="smtp.verify_certificate" label="Check the server's certificate" />
    <div class="grid-2">
      <${Field} form=${form} name="smtp.user" label="User name" autocomplete="off" autocapitalize="none" spellcheck="false" hint="Empty: no login" />
      <${Field} form=${form} name="smtp.password" label="Password" type="password" autocomplete="new-password" disabled=${form.values.clear_password}
        hint=${passwordSet ? 'A password is stored. Leave empty to keep it (a new server or port needs it again).' : 'No password is stored.'} />
    </div>
    ${passwordSet ? html`<${CheckField} form=${form} name="clear_password" label="Forget the stored password" />` : null}
    <${Field} form=${form} name="smtp.timeout_seconds" label="Timeout (seconds)" type="number" inputmode="numeric" />
    <div class="form-actions"><button type="submit" class="btn btn-primary" disabled=${form.busy}>Save e-mail settings</button></div>
  </form>`;
}

function TestMessage({ configured, onSent }) {
  const s = useSession();
  const form = useForm({ to: '' });
  const [result, setResult] = useState(null);
  const onSubmit = form.submit(async (v) => {
    setResult(null);
    const r = await api.post('/api/dev/emails/test', v.to.trim() ? { to: v.to.trim() } : {});
    setResult(r);
    toast.ok(`Test message sent to ${r.to}`);
  });
  const send = async (e) => { await onSubmit(e); onSent(); };
  return html`<form onSubmit=${send}>
    <${FormError} form=${form} />
    ${configured ? null : html`<p class="muted">Save an SMTP server first.</p>`}
    <div class="toolbar">
      <${Field} form=${form} name="to" label="Send to" type="email" placeholder=${s.user?.email || 'you@example.net'}
        hint="Empty: your own address, then the administrator e-mail" />
      <div class="field-actions"><button type="submit" class="btn" disabled=${form.busy || !configured}>
        <${Icon} name="send" size=${15} />${form.busy ? 'Sending…' : 'Send a test message'}</button></div>
    </div>
    ${result ? html`<div class="alert alert-ok" role="status"><${Icon} name="check" /><div class="alert-body">
      Sent to ${result.to} in ${result.duration_ms} ms.</div></div>` : null}
  </form>`;
}

const RECENT = [
  { key: 'at', label: 'When', render: (m) => html`<span title=${dateTime(m.at)}>${relTime(m.at)}</span>` },
  { key: 'to', label: 'To', render: (m) => html`<span class="cell-title">${m.to}</span><div class="cell-sub">${m.subject}</div>` },
  { key: 'kind', label: 'Kind', render: (m) => MAIL_KIND_TEXT[m.kind] ?? m.kind },
  { key: 'outcome', label: 'Outcome', render: (m) => (m.outcome === 'sent' ? html`<${Badge} tone="ok">Sent<//>`
    : html`<${Badge} tone="bad" title=${m.error?.message}>Failed: ${m.error?.code}<//><div class="cell-sub">${m.error?.message}</div>`) },
];

export default function EmailSection() {
  const cfg = useApi('/api/config/json');
  const recent = useApi('/api/dev/emails/recent');
  const smtp = cfg.data?.smtp;
  return html`<div class="settings-stack">
    <${Card} title="SMTP server">
      ${cfg.error ? html`<${ErrorState} error=${cfg.error} retry=${cfg.reload} />`
        : !smtp ? html`<${Loading} />` : html`<${SmtpForm} smtp=${smtp} onSaved=${cfg.reload} />`}
    <//>
    <${Card} title="Test message">
      <${TestMessage} configured=${!!smtp?.host} onSent=${recent.reload} />
    <//>
    <${Card} title="Recent messages" pad=${false}>
      ${recent.error ? html`<${ErrorState} error=${recent.error} retry=${recent.reload} />`
        : !recent.data ? html`<${Loading} />`
          : html`<${Table} columns=${RECENT} rows=${recent.data.items} caption="Recent outgoing e-mail"
              empty=${html`<${EmptyState} icon="send" title="Nothing sent since the service started" />`} />`}
    <//>
  </div>`;
}
