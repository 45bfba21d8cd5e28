// Remote access: out-of-band access through ZeroTier and Tailscale (GET /api/oob/status every 10 s).
// Where a program is not installed, how to install it on this OS (GET /api/oob/install), never an error.
// Administrators join, leave, turn off and on, and forget ZeroTier networks, and bring Tailscale up with
// an auth key or an interactive login (the login link as text and as a QR code drawn in the browser by
// qrcode-generator) and down. A 409 would_cut_off (the request came over that overlay) is asked again as a
// confirmation, and resent with confirm: true. docs/oob.md.
import qrcode from 'qrcode-generator';
import { api } from '../../lib/api.js';
import { confirm } from '../../lib/confirm.js';
import { useForm } from '../../lib/form.js';
import { html, useMemo, useState } from '../../lib/html.js';
import { useApi } from '../../lib/hooks.js';
import { isAdmin, useSession } from '../../lib/session.js';
import { toast } from '../../lib/toast.js';
import { Badge } from '../../components/badge.js';
import { CopyButton } from '../../components/copy.js';
import { ErrorState, Loading } from '../../components/empty.js';
import { Field, FormError } from '../../components/field.js';
import { Icon } from '../../components/icons.js';
import { Card } from '../../components/page.js';
import { Table } from '../../components/table.js';
import { AdminNote, Facts, when } from './parts.js';

/** A QR code of `text` as an SVG of dark modules (drawn here: nothing leaves the browser). */
export function QrCode({ text, label }) {
  const path = useMemo(() => {
    const qr = qrcode(0, 'M');
    qr.addData(text);
    qr.make();
    const n = qr.getModuleCount();
    let d = '';
    for (let r = 0; r < n; r++) for (let c = 0; c < n; c++) if (qr.isDark(r, c)) d += `M${c + 4} ${r + 4}h1v1h-1z`;
    return { d, size: n + 8 };
  }, [text]);
  return html`<div class="qr"><svg viewBox=${`0 0 ${path.size} ${path.size}`} role="img" aria-label=${label} shape-rendering="crispEdges">
    <rect width=${path.size} height=${path.size} fill="#fff" /><path d=${path.d} fill="#000" /></svg></div>`;
}

/** Runs an overlay action; a 409 would_cut_off is shown as a question and the action repeated with confirm: true. */
async function guarded(run, what) {
  try {
    return await run(false);
  } catch (e) {
    if (e?.code !== 'would_cut_off') throw e;
    const ok = await confirm({ title: `${what}?`, danger: true, confirmLabel: `${what} anyway`,
      message: `${e.detail} You are connected over it: this page will stop answering until you reach the probe another way.` });
    if (!ok) return null;
    return run(true);
  }
}

function InstallHint({ hint, name }) {
  if (!hint) return html`<p class="muted">${name} is not installed on this probe.</p>`;
  const commands = hint.commands.join('\n');
  return html`<div class="install-hint" data-testid=${`install-${hint.provider}`}>
    <h3><${Icon} name="info" size=${16} /> ${name} is not installed</h3>
    <p>${hint.summary}${hint.supported ? '' : ' (the vendor ships no package for this system)'}.</p>
    ${hint.commands.length ? html`<div class="small muted">On the probe, as an administrator:</div><pre class="cmd-list">${commands}</pre>` : null}
    ${hint.after.length ? html`<div class="small muted" style="margin-top:8px">Then:</div><pre class="cmd-list">${hint.after.join('\n')}</pre>` : null}
    <div class="hint-actions">
      ${hint.commands.length ? html`<${CopyButton} text=${[...hint.commands, ...hint.after].join('\n')} label="Copy the commands" />` : null}
      <a class="btn btn-sm" href=${hint.docs_url} target="_blank" rel="noopener noreferrer"><${Icon} name="external" size=${14} />${name}'s instructions</a>
    </div>
  </div>`;
}

function LastError({ e }) {
  if (!e) return null;
  return html`<div class="alert alert-warn"><${Icon} name="alert" /><div class="alert-body">
    <strong>The last ${e.action} failed</strong> <span class="muted small">(${when(e.at)})</span><div>${e.detail}</div></div></div>`;
}

// ---- ZeroTier --------------------------------------------------------------------------------------------

const ZT_STATUS_TONE = { OK: 'ok', REQUESTING_CONFIGURATION: 'info', ACCESS_DENIED: 'bad', NOT_FOUND: 'bad', PORT_ERROR: 'bad' };

function ZeroTier({ z, hint, admin, reload }) {
  const form = useForm({ network_id: '' });
  const join = form.submit(async (v) => {
    const r = await api.post('/api/oob/zt/join', { network_id: v.network_id.trim() });
    form.reset({ network_id: '' });
    toast.ok(`Joined ${r.network.id}: ${r.network.status === 'OK' ? 'online' : 'waiting for the network to authorise this probe'}`);
    reload();
  });
  const act = async (path, id, what, extra = {}) => {
    try {
      const r = await guarded((c) => api.post(path, { network_id: id, ...extra, ...(c ? { confirm: true } : {}) }), what);
      if (r) { toast.ok(`${what}: ${id}`); reload(); }
    } catch (e) { toast.error(e); }
  };
  const rows = [...z.networks, ...z.remembered.filter((r) => !z.networks.some((n) => n.id === r.id))
    .map((r) => ({ id: r.id, name: r.name, status: 'LEFT', assigned_addresses: [], remembered: true, enabled: r.enabled }))];
  const columns = [
    { key: 'id', label: 'Network', render: (n) => html`<span class="cell-title mono">${n.id}</span>${n.name ? html`<div class="cell-sub">${n.name}</div>` : null}` },
    { key: 'status', label: 'Status', render: (n) => html`<${Badge} tone=${ZT_STATUS_TONE[n.status] ?? 'neutral'}>${n.status === 'LEFT' ? 'Off' : n.status.replace(/_/g, ' ').toLowerCase()}<//>` },
    { key: 'addr', label: 'Addresses', render: (n) => html`<span class="mono small">${n.assigned_addresses.join(', ') || '—'}</span>` },
    ...(admin ? [{ key: 'actions', label: 'Actions', class: 'actions-col', hideLabel: true, render: (n) => html`<div class="actions">
      ${n.status === 'LEFT' ? html`<button type="button" class="btn btn-sm" onClick=${() => act('/api/oob/zt/toggle', n.id, 'Turn on', { enabled: true })}>Turn on</button>`
        : html`<button type="button" class="btn btn-sm" onClick=${() => act('/api/oob/zt/leave', n.id, 'Leave')}>Leave</button>`}
      <button type="button" class="btn btn-sm" onClick=${() => act('/api/oob/zt/forget', n.id, 'Forget')}>Forget</button>
    </div>` }] : []),
  ];
  if (!z.installed) return html`<${InstallHint} hint=${hint} name="ZeroTier" />`;
  return html`<div>
    <${LastError} e=${z.last_error} />
    <${Facts} items=${[
      ['State', html`<${Badge} tone=${z.online ? 'ok' : 'warn'}>${z.state.replace(/_/g, ' ')}<//>`],
      ['Node', z.node ? html`<span class="mono">${z.node.address}</span> <span class="muted">version ${z.node.version}</span>` : '—'],
      ['Auth token copy', z.token_copy ? 'Present' : html`<span class="field-error">Missing: sudo systemctl enable --now netprobe-zerotier-token.path netprobe-zerotier-token.service</span>`],
    ]} />
    <div style="margin:14px -18px 0; border-top:1px solid var(--border)">
      <${Table} columns=${columns} rows=${rows} caption="ZeroTier networks" empty=${html`<p class="muted" style="padding:12px 18px;margin:0">No networks.</p>`} />
    </div>
    ${admin ? html`<form onSubmit=${join} style="margin-top:14px">
      <${FormError} form=${form} />
      <div class="toolbar">
        <${Field} form=${form} name="network_id" label="Network ID" required autocapitalize="none" spellcheck="false" maxlength="16"
          placeholder="8056c2e21c000001" hint="16 hexadecimal digits, from the network's controller" />
        <div class="field-actions"><button type="submit" class="btn btn-primary" disabled=${form.busy}>Join network</button></div>
      </div>
    </form>` : null}
  </div>`;
}

// ---- Tailscale -------------------------------------------------------------------------------------------

function Tailscale({ t, hint, admin, reload }) {
  const [login, setLogin] = useState(null);
  const form = useForm({ auth_key: '', hostname: '' });
  const up = form.submit(async (v) => {
    const body = { ...(v.auth_key.trim() ? { auth_key: v.auth_key.trim() } : {}), ...(v.hostname.trim() ? { hostname: v.hostname.trim() } : {}) };
    const r = await api.post('/api/oob/ts/up', body);
    form.reset({ auth_key: '', hostname: v.hostname });
    setLogin(r.auth_url ? r : null);
    toast.ok(r.backend_state === 'Running' ? 'Tailscale is up' : r.detail);
    reload();
  });
  const down = async () => {
    try {
      const r = await guarded((c) => api.post('/api/oob/ts/down', c ? { confirm: true } : {}), 'Bring Tailscale down');
      if (r) { toast.ok(r.was_running ? 'Tailscale is down' : 'Tailscale was already down'); setLogin(null); reload(); }
    } catch (e) { toast.error(e); }
  };
  const fetchLink = async () => {
    try { const r = await api.get('/api/oob/ts/login-url'); setLogin(r.auth_url ? r : null); if (!r.auth_url) toast.info(r.detail); } catch (e) { toast.error(e); }
  };
  if (!t.installed) return html`<${InstallHint} hint=${hint} name="Tailscale" />`;
  return html`<div>
    <${LastError} e=${t.last_error} />
    <${Facts} items=${[
      ['State', html`<${Badge} tone=${t.online ? 'ok' : t.needs_login ? 'warn' : 'neutral'}>${t.backend_state ?? t.state}<//>`],
      ['Tailnet', t.tailnet ?? undefined],
      ['Name', t.dns_name ?? t.hostname ?? undefined],
      ['Addresses', t.assigned_addresses.length ? html`<span class="mono small">${t.assigned_addresses.join(', ')}</span>` : undefined],
      ['Version', t.version ?? undefined],
      ['Health', t.health.length ? html`<ul style="margin:0;padding-left:18px">${t.health.map((h) => html`<li key=${h}>${h}</li>`)}</ul>` : undefined],
    ]} />
    ${login ? html`<div class="job">
      <div class="job-head"><strong>Log the probe in to your tailnet</strong></div>
      <div class="qr-row">
        <${QrCode} text=${login.auth_url} label="QR code of the Tailscale login link" />
        <div class="qr-text">
          <p style="margin-top:0">Open this link (or scan the code with a phone) and sign in to the tailnet the probe should join.
            Whoever opens it first decides, so do not share it.</p>
          <div class="secret-box"><code class="link-text" data-testid="ts-login-url">${login.auth_url}</code><${CopyButton} text=${login.auth_url} label="Copy link" /></div>
        </div>
      </div>
    </div>` : null}
    ${admin ? html`<form onSubmit=${up} style="margin-top:14px">
      <${FormError} form=${form} />
      <div class="grid-2">
        <${Field} form=${form} name="auth_key" label="Auth key" type="password" autocomplete="off" placeholder="tskey-auth-…"
          hint="Optional. Without one, you get a login link." />
        <${Field} form=${form} name="hostname" label="Name in the tailnet" autocapitalize="none" spellcheck="false" hint="Optional" />
      </div>
      <div class="form-actions">
        ${t.online ? html`<button type="button" class="btn" onClick=${down}>Bring Tailscale down</button>` : null}
        ${t.needs_login || t.login_in_progress ? html`<button type="button" class="btn" onClick=${fetchLink}>Show the login link</button>` : null}
        <button type="submit" class="btn btn-primary" disabled=${form.busy}>${form.busy ? 'Starting…' : 'Bring Tailscale up'}</button>
      </div>
    </form>` : null}
  </div>`;
}

export default function AccessSection() {
  const s = useSession();
  const admin = isAdmin(s);
  const st = useApi('/api/oob/status', { every: 10 });
  const data = st.data;
  const needHints = data && (!data.zerotier.installed || !data.tailscale.installed);
  const install = useApi(needHints ? '/api/oob/install' : null);
  const hints = install.data?.providers;
  if (st.error && !data) return html`<${ErrorState} error=${st.error} retry=${st.reload} />`;
  if (!data) return html`<${Loading} />`;
  return html`<div class="settings-stack">
    <p class="muted" style="margin:0">Reach this probe from outside its network through an overlay network, even behind NAT.</p>
    <${Card} title="ZeroTier"><${ZeroTier} z=${data.zerotier} hint=${hints?.zerotier} admin=${admin} reload=${st.reload} /><//>
    <${Card} title="Tailscale"><${Tailscale} t=${data.tailscale} hint=${hints?.tailscale} admin=${admin} reload=${st.reload} /><//>
    ${admin ? null : html`<${AdminNote}>Only an administrator can join or leave a network.<//>`}
  </div>`;
}
