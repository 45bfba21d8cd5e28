// Updates: the running release and the update source (GET /api/update/status), the source's branches
// (GET /api/update/branches, once a source is set) to pick the channel from, a check of the channel's tip
// (GET /api/update/check), and for administrators the source and channel (configuration keys
// update.source_url and update.channel), a private source's token, and the run itself (POST
// /api/update/run) followed through its event stream; the outcome, a rollback's log lines included, is
// read back from the status once the service is back. docs/update.md.
import { api } from '../../lib/api.js';
import { confirm } from '../../lib/confirm.js';
import { useForm } from '../../lib/form.js';
import { html, useEffect, useRef, useState } from '../../lib/html.js';
import { useApi } from '../../lib/hooks.js';
import { isAdmin, useSession } from '../../lib/session.js';
import { toast } from '../../lib/toast.js';
import { UPDATE_OUTCOMES } from '../../lib/vocabulary.js';
import { Badge } from '../../components/badge.js';
import { ErrorState, Loading } from '../../components/empty.js';
import { CheckField, Field, FormError, SelectField } from '../../components/field.js';
import { Icon } from '../../components/icons.js';
import { Card } from '../../components/page.js';
import { AdminNote, Facts, JobProgress, patchConfig, useJobStream, when } from './parts.js';

const short = (c) => (c ? c.slice(0, 12) : '—');

function Release({ st }) {
  const last = st.last_run;
  const outcome = last?.result ? UPDATE_OUTCOMES[last.result] ?? { label: last.result, tone: 'neutral' } : null;
  return html`<${Facts} items=${[
    ['Version', html`<strong>${st.running.version}</strong>`],
    ['Commit', html`<span class="mono">${short(st.running.commit)}</span>`],
    ['Installed releases', st.running.installed_releases.length ? st.running.installed_releases.join(', ') : 'Only this one'],
    ['Update helper', st.helper.installed ? html`<${Badge} tone="ok">Installed<//>` : html`<${Badge} tone="warn">Not installed<//> <span class="muted small">(a development checkout or an install without the update units)</span>`],
    ['Release key', st.helper.release_key_pinned ? html`<${Badge} tone="ok">Pinned<//>` : html`<${Badge} tone="warn">Not pinned: every run is refused<//>`],
    ['Last run', last ? html`${outcome ? html`<${Badge} tone=${outcome.tone}>${outcome.label}<//> ` : html`<${Badge} tone="info">Waiting for the helper<//> `}
      ${last.from && last.to ? html`${last.from} → ${last.to} ` : null}<span class="muted">${when(last.finished_at ?? last.requested_at)}</span>` : 'Never'],
  ]} />
  ${last?.detail ? html`<p class="small">${last.detail}</p>` : null}
  ${last?.result === 'rolled_back' && last.log_tail.length ? html`<details open><summary>The new release's last log lines</summary>
    <pre class="log-tail">${last.log_tail.join('\n')}</pre></details>` : null}`;
}

function SourceForm({ st, branches, onSaved }) {
  const form = useForm({ 'update.source_url': st.source.url, 'update.channel': st.source.channel, 'update.daily_check': st.source.daily_check });
  const onSubmit = form.submit(async (v) => {
    const r = await patchConfig({ update: { source_url: v['update.source_url'].trim(), channel: v['update.channel'].trim(),
      daily_check: v['update.daily_check'] } });
    toast.ok(r.changed.length ? 'Update source saved' : 'Nothing changed');
    onSaved();
  });
  const names = branches?.items.map((b) => b.name) ?? [];
  const channel = form.values['update.channel'];
  return html`<form onSubmit=${onSubmit}>
    <${FormError} form=${form} />
    <${Field} form=${form} name="update.source_url" label="Source (git URL)" autocapitalize="none" spellcheck="false"
      placeholder="https://git.example.net/ops/netprobe-releases.git" hint="https://, http://, git://, ssh:// or file://; no user name or token in it" />
    ${names.length ? html`<${SelectField} form=${form} name="update.channel" label="Channel (branch)"
        options=${(names.includes(channel) ? names : [channel, ...names]).map((n) => ({ value: n, label: n === branches.default_branch ? `${n} (default branch)` : n }))} />`
      : html`<${Field} form=${form} name="update.channel" label="Channel (branch)" autocapitalize="none" spellcheck="false"
          hint=${st.source.configured ? 'The branches are listed once the source answers' : 'For example stable or beta'} />`}
    <${CheckField} form=${form} name="update.daily_check" label="Check for a newer release once a day"
      hint="At a jittered time; a newer release raises the update_available alert once" />
    <div class="form-actions"><button type="submit" class="btn btn-primary" disabled=${form.busy}>Save source and channel</button></div>
  </form>`;
}

function Credentials({ st, onSaved }) {
  const form = useForm({ token: '', username: '' });
  const c = st.credentials;
  const onSubmit = form.submit(async (v) => {
    await api.post('/api/update/credentials', { token: v.token, ...(v.username.trim() ? { username: v.username.trim() } : {}) });
    form.reset({ token: '', username: '' });
    toast.ok('Token saved');
    onSaved();
  });
  const clear = async () => {
    try { await api.post('/api/update/credentials', { clear: true }); toast.ok('Token forgotten'); onSaved(); } catch (e) { toast.error(e); }
  };
  return html`<form onSubmit=${onSubmit}>
    <p class="muted" style="margin-top:0">For a private source: a read-only token (GitHub "Contents: read", GitLab deploy token, Gitea read:repository).
      It is stored for this source only and never shown again.
      ${c.set ? html` A token is set${c.username ? ` for ${c.username}` : ''} (${when(c.set_at)})${c.applies_to_source ? '' : ', for another source: it is not sent'}.` : ' No token is set.'}</p>
    <${FormError} form=${form} />
    <div class="grid-2">
      <${Field} form=${form} name="token" label="Token" type="password" autocomplete="off" required />
      <${Field} form=${form} name="username" label="User name" autocomplete="off" hint="Optional: with it the token goes as HTTP Basic" />
    </div>
    <div class="form-actions">
      ${c.set ? html`<button type="button" class="btn" onClick=${clear}>Forget the token</button>` : null}
      <button type="submit" class="btn btn-primary" disabled=${form.busy}>Save token</button>
    </div>
  </form>`;
}

function Check({ st }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(null);
  const [result, setResult] = useState(st.last_check?.result ?? null);
  const run = async () => {
    setBusy(true); setError(null);
    try { setResult(await api.get('/api/update/check')); } catch (e) { setError(e); } finally { setBusy(false); }
  };
  return html`<div>
    <div class="toolbar" style="margin-bottom:8px">
      <button type="button" class="btn" onClick=${run} disabled=${busy || !st.source.configured}><${Icon} name="refresh" size=${15} />${busy ? 'Checking…' : 'Check for an update'}</button>
      ${st.last_check ? html`<span class="muted small">Last checked ${when(st.last_check.at)}${st.source.daily_check && st.source.configured
        ? ' · the probe checks once a day by itself' : ''}</span>` : null}
    </div>
    ${error ? html`<${ErrorState} error=${error} />` : null}
    ${!error && !result && st.last_check && !st.last_check.ok ? html`<div class="alert alert-warn" role="status"><${Icon} name="alert" />
      <div class="alert-body"><strong>The last check failed</strong><div>${st.last_check.error}</div></div></div>` : null}
    ${result ? html`<div class=${`alert ${result.update_available ? 'alert-info' : 'alert-ok'}`} role="status"><${Icon} name=${result.update_available ? 'info' : 'check'} />
      <div class="alert-body"><strong>${result.update_available ? `Version ${result.version} is available` : result.downgrade ? `The channel carries an older release (${result.version})` : 'Up to date'}</strong>
        <div>${result.detail}</div><div class="muted small">${result.signature}</div></div></div>
      ${result.changes.text ? html`<details><summary>Changes</summary><pre class="log-tail">${result.changes.text}</pre></details>`
        : html`<p class="muted small">${result.changes.note}</p>`}` : null}
  </div>`;
}

function describeRun(m) {
  if (m.type === 'requested' || m.type === 'progress') return m.message ?? m.step ?? null;
  return null;
}

function Run({ st, onChanged }) {
  const form = useForm({ allow_downgrade: false, restore_backup: false });
  const [job, setJob] = useState(st.in_progress ? st.job_id : null);
  const stream = useJobStream(job ? `/api/update/run/${job}/stream` : null);
  const seen = useRef(null);
  useEffect(() => {
    // The helper restarts the service: the stream ends without a final message, and the outcome is in the status.
    if ((stream.final || stream.lost) && seen.current !== job) { seen.current = job; onChanged(); }
  }, [stream.final, stream.lost]);
  const onSubmit = form.submit(async (v) => {
    const ok = await confirm({
      title: 'Update the probe now?', confirmLabel: 'Update',
      message: 'The probe checks the release\'s signature, installs it beside this one and restarts: the web interface is gone for a minute. ' +
        'If the new release does not answer in time, the old release and its database are put back (rolled back) and the log of the failed start is shown here.',
    });
    if (!ok) return;
    const r = await api.post('/api/update/run', {
      ...(v.allow_downgrade ? { allow_downgrade: true } : {}), ...(v.restore_backup ? { restore_backup: true } : {}),
    });
    setJob(r.job_id);
  });
  const blocked = !st.source.configured ? 'Set a source first.' : !st.helper.installed ? 'The update helper is not installed on this probe, so an update cannot run.' : null;
  return html`<form onSubmit=${onSubmit}>
    <p class="muted" style="margin-top:0">What happens: the release at the channel's tip is verified against the pinned release key, unpacked beside the
      running one and switched to; the service restarts. If it does not come up within the health timeout, the previous release and its database are
      restored and started again ("rolled back"), and the new release's last log lines are shown above.</p>
    <${FormError} form=${form} />
    <${CheckField} form=${form} name="allow_downgrade" label="Allow a downgrade" hint="Install the tip even when it is older than the running release" />
    ${form.values.allow_downgrade ? html`<${CheckField} form=${form} name="restore_backup" label="Restore the database backup of that release"
      hint="Needed to go back across a database change; data written since that release was left is lost" />` : null}
    ${blocked ? html`<p class="muted small">${blocked}</p>` : null}
    <div class="form-actions"><button type="submit" class="btn btn-primary" disabled=${form.busy || !!blocked || (job && !stream.final && !stream.lost)}>Update now</button></div>
    ${job ? html`<${JobProgress} title="Update" job=${stream} describe=${describeRun}
      actions=${stream.final || stream.lost ? html`<button type="button" class="btn btn-sm" onClick=${() => setJob(null)}>Dismiss</button>` : null} />
      ${stream.lost && !stream.final ? html`<p class="muted small">The service went away to switch releases; the outcome shows above once it is back.</p>` : null}` : null}
  </form>`;
}

export default function UpdateSection() {
  const s = useSession();
  const admin = isAdmin(s);
  const status = useApi('/api/update/status', { every: 15 });
  const st = status.data;
  const branches = useApi(st?.source.configured ? '/api/update/branches' : null);
  const reload = () => { status.reload(); branches.reload(); };
  if (status.error && !st) return html`<${ErrorState} error=${status.error} retry=${status.reload} />`;
  if (!st) return html`<${Loading} />`;
  return html`<div class="settings-stack">
    <${Card} title="Running release"><${Release} st=${st} /><//>
    <${Card} title="Source and channel">
      ${st.source.configured ? html`<${Facts} items=${[
        ['Source', html`<span class="mono small">${st.source.url}</span>`],
        ['Channel', st.source.channel],
        ['Branches', branches.error ? html`<span class="field-error">${branches.error.detail}</span>`
          : branches.data ? branches.data.items.map((b) => b.name).join(', ') || 'None' : 'Reading…'],
      ]} />` : html`<p class="muted" style="margin-top:0">No update source is set: this probe does not update itself.</p>`}
      ${admin ? html`<hr style="border:0;border-top:1px solid var(--border);margin:16px 0" />
        <${SourceForm} key=${`${st.source.url}|${st.source.channel}`} st=${st} branches=${branches.data} onSaved=${reload} />` : html`<${AdminNote} />`}
    <//>
    <${Card} title="Check"><${Check} st=${st} /><//>
    ${admin ? html`<${Card} title="Update"><${Run} st=${st} onChanged=${status.reload} /><//>
      <${Card} title="Private source"><${Credentials} st=${st} onSaved=${reload} /><//>` : null}
  </div>`;
}
