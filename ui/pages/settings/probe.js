// Probe (administrators): what the setup wizard asked (name, host name, time zone, administrator
// e-mail), editable afterwards through the same POST /api/setup/save, and the branding the sign-in page
// shows (POST /api/web-identity: accent colour and sign-in notice; the logo and favicon as uploaded files,
// POST/DELETE /api/upload/brand-asset).
import { api } from '../../lib/api.js';
import { confirm } from '../../lib/confirm.js';
import { useForm } from '../../lib/form.js';
import { html, useRef, useState } from '../../lib/html.js';
import { useApi } from '../../lib/hooks.js';
import { identity, loadIdentity, useIdentity } from '../../lib/identity.js';
import { loadSession } from '../../lib/session.js';
import { toast } from '../../lib/toast.js';
import { ErrorState, Loading } from '../../components/empty.js';
import { Field, FormError, TextArea } from '../../components/field.js';
import { Icon, Logo } from '../../components/icons.js';
import { Card } from '../../components/page.js';
import { TimeZoneField } from '../../components/time-zone.js';
import { sendRaw } from './parts.js';

function ProbeSettings({ probe, onSaved }) {
  const initial = { probe_name: probe.name, hostname: probe.hostname, timezone: probe.timezone || 'UTC', admin_email: probe.admin_email };
  const form = useForm(initial);
  const onSubmit = form.submit(async (v) => {
    const saved = await api.post('/api/setup/save', {
      probe_name: v.probe_name.trim(),
      hostname: v.hostname.trim() || undefined,
      timezone: v.timezone,
      admin_email: v.admin_email.trim() || undefined,
    });
    await Promise.all([loadSession(), loadIdentity()]);
    form.reset({ probe_name: saved.probe_name, hostname: saved.hostname, timezone: saved.timezone, admin_email: saved.admin_email });
    toast.ok('Probe settings saved');
    onSaved();
  });
  return html`<${Card} title="Probe">
    <form onSubmit=${onSubmit}>
      <p class="muted" style="margin-top:0">What the setup wizard asked. The name appears in alerts, in the page title and on the sign-in page.</p>
      <${FormError} form=${form} />
      <div class="grid-2">
        <${Field} form=${form} name="probe_name" label="Probe name" required maxlength="100" />
        <${Field} form=${form} name="hostname" label="Host name" autocapitalize="none" spellcheck="false"
          hint="One label: letters, digits and dashes. Leave empty to keep it as it is." />
      </div>
      <div class="grid-2">
        <${TimeZoneField} form=${form} name="timezone" />
        <${Field} form=${form} name="admin_email" label="Administrator e-mail" type="email" autocomplete="email"
          hint="Where the probe sends mail about itself. Leave empty to keep it as it is." />
      </div>
      <div class="form-actions"><button type="submit" class="btn btn-primary" disabled=${form.busy}>Save probe settings</button></div>
    </form>
  <//>`;
}

const HEX = /^#[0-9a-fA-F]{6}$/;

function Branding() {
  const id = useIdentity();
  const form = useForm({ accent_color: id.accent_color, login_notice: id.login_notice });
  const onSubmit = form.submit(async (v) => {
    const saved = await api.post('/api/web-identity', { accent_color: v.accent_color.trim(), login_notice: v.login_notice });
    identity.set(saved);
    await loadIdentity();
    toast.ok('Branding saved');
  });
  const colour = form.values.accent_color.trim();
  return html`<${Card} title="Branding">
    <form onSubmit=${onSubmit}>
      <p class="muted" style="margin-top:0">Shown in the sidebar and on the sign-in page.</p>
      <${FormError} form=${form} />
      <div class="colour-row">
        <${Field} form=${form} name="accent_color" label="Accent colour" placeholder="#0f766e" autocapitalize="none" spellcheck="false"
          hint="#rrggbb; empty for the built-in colour" />
        <label class="swatch-label">Pick
          <input title="Choose a colour" type="color" value=${HEX.test(colour) ? colour : '#0f766e'} aria-label="Colour picker"
            onInput=${(e) => form.set('accent_color', e.currentTarget.value)} />
        </label>
        <button type="button" class="btn" onClick=${() => form.set('accent_color', '')} disabled=${!colour}>Built-in colour</button>
      </div>
      <${TextArea} form=${form} name="login_notice" label="Sign-in notice" rows=${2}
        hint="One line of plain text on the sign-in page, e.g. who to call. Empty for none." />
      <div class="form-actions"><button type="submit" class="btn btn-primary" disabled=${form.busy}>Save branding</button></div>
    </form>
    <h3 style="margin:18px 0 4px;font-size:14.5px">Logo and favicon</h3>
    <p class="muted small" style="margin:0 0 6px">PNG, JPEG, ICO or SVG, at most 1 MiB. SVG files with scripts or external references are refused.</p>
    <${BrandAsset} kind="logo" label="Logo" url=${id.logo_url} />
    <${BrandAsset} kind="favicon" label="Favicon" url=${id.favicon_url} />
  <//>`;
}

const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/x-icon', 'image/vnd.microsoft.icon', 'image/svg+xml'];

function BrandAsset({ kind, label, url }) {
  const input = useRef(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(null);
  const upload = async (e) => {
    const file = e.currentTarget.files?.[0];
    if (!file) return;
    setBusy(true);
    setError(null);
    try {
      // The service types the file from its bytes; a type it does not list is sent as plain bytes.
      const type = IMAGE_TYPES.includes(file.type) ? file.type : 'application/octet-stream';
      await sendRaw('POST', `/api/upload/brand-asset?kind=${kind}`, file, { type });
      await loadIdentity();
      toast.ok(`${label} uploaded`);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
      if (input.current) input.current.value = '';
    }
  };
  const remove = async () => {
    if (!(await confirm({ title: `Remove the ${label.toLowerCase()}?`, message: 'The built-in one is shown again.', confirmLabel: 'Remove' }))) return;
    try {
      await api.del(`/api/upload/brand-asset?kind=${kind}`);
      await loadIdentity();
      toast.ok(`${label} removed`);
    } catch (err) { toast.error(err); }
  };
  const inputId = `brand-${kind}`;
  return html`<div class="brand-asset">
    <div class="asset-preview">${url ? html`<img src=${url} alt=${`Current ${label.toLowerCase()}`} />` : html`<${Logo} size=${32} />`}</div>
    <div class="asset-text">
      <label for=${inputId} style="font-weight:600">${label}</label>
      <div class="muted small">${url ? 'Uploaded' : 'Built-in'}</div>
      <input id=${inputId} ref=${input} class="file-input" type="file" accept="image/png,image/jpeg,image/svg+xml,image/x-icon,image/vnd.microsoft.icon,.ico"
        onChange=${upload} disabled=${busy} />
      ${error ? html`<div class="field-error" role="alert">${error.detail}</div>` : null}
    </div>
    ${url ? html`<button type="button" class="btn btn-sm" onClick=${remove}><${Icon} name="trash" size=${15} />Remove ${label.toLowerCase()}</button>` : null}
  </div>`;
}

export default function ProbeSection() {
  const cfg = useApi('/api/config/json');
  return html`<div class="settings-stack">
    ${cfg.error ? html`<${ErrorState} error=${cfg.error} retry=${cfg.reload} />`
      : !cfg.data ? html`<${Loading} />`
        : html`<${ProbeSettings} probe=${cfg.data.probe} onSaved=${cfg.reload} />`}
    <${Branding} />
  </div>`;
}
