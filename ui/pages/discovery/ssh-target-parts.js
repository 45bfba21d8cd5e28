// What the SSH target pages share: how a target's platform, credential, pinned host key and last error
// read, and the actions on it: enrich now (POST /api/v1sion/enrich-ssh {targets}), pin the key a refused
// login presented (PUT .../host-key) and clear the pinned one (DELETE .../host-key; both administrators
// only, the API's 403 shows as it comes), and delete.
import { api } from '../../lib/api.js';
import { confirm } from '../../lib/confirm.js';
import { dateTime, relTime } from '../../lib/format.js';
import { html } from '../../lib/html.js';
import { toast } from '../../lib/toast.js';
import { SSH_PLATFORMS } from '../../lib/vocabulary.js';
import { Badge } from '../../components/badge.js';
import { none } from './section.js';

export const platformLabel = (p) => SSH_PLATFORMS.find((x) => x.value === p)?.label ?? p;

/** The platform asked for; with `auto`, what the last enrichment told. */
export function PlatformCell({ t }) {
  if (t.platform !== 'auto') return html`<span>${platformLabel(t.platform)}</span>`;
  if (!t.summary?.platform) return html`<span>${platformLabel('auto')}</span>`;
  return html`<div><span>${platformLabel(t.summary.platform)}</span><div class="cell-sub">Detected automatically</div></div>`;
}

/** The stored credential by reference, with its user; marked when it has been deleted. */
export function CredentialCell({ t }) {
  const c = t.credential;
  if (!c) return html`<${Badge} tone="bad" title="The credential this target names was deleted: choose another">Deleted<//>`;
  return html`<div class="disc-cred"><a href=${`/inventory/credentials/${c.short_id}`}><span class="disc-sid">${c.short_id}</span> ${c.name}</a>
    ${c.username ? html`<div class="cell-sub">${c.username}${c.kind === 'ssh_key' ? ' · key' : ' · password'}</div>` : null}</div>`;
}

const KEY_TYPES = { 'ssh-ed25519': 'Ed25519', 'ssh-rsa': 'RSA', 'rsa-sha2-256': 'RSA', 'rsa-sha2-512': 'RSA', 'ecdsa-sha2-nistp256': 'ECDSA P-256',
  'ecdsa-sha2-nistp384': 'ECDSA P-384', 'ecdsa-sha2-nistp521': 'ECDSA P-521' };

/** "SHA256:abc…xyz" with the whole fingerprint in the tooltip; "Not pinned yet" before the first login. */
export function KeyCell({ t, full = false }) {
  if (!t.host_key) return html`<span class="muted">Not pinned yet</span>`;
  const short = full ? t.host_key : `${t.host_key.slice(0, 14)}…${t.host_key.slice(-4)}`;
  const type = full ? t.host_key_type : KEY_TYPES[t.host_key_type] ?? t.host_key_type;
  return html`<div><span class=${`mono small disc-fp${full ? '' : ' nowrap'}`} title=${t.host_key}>${short}</span>
    ${t.host_key_type ? html`<div class="cell-sub">${type}${t.host_key_pinned_at
      ? html` · pinned <time datetime=${t.host_key_pinned_at} title=${dateTime(t.host_key_pinned_at)}>${relTime(t.host_key_pinned_at)}</time>` : null}</div>` : null}</div>`;
}

/** The last enrichment: when, and what the device is. */
export function LastEnrichedCell({ t }) {
  if (!t.last_enriched_at) return html`<span class="muted">Never</span>`;
  const s = t.summary;
  const what = s ? [s.hostname, [s.vendor, s.model].filter(Boolean).join(' ')].filter(Boolean).join(' · ') : '';
  return html`<div><time datetime=${t.last_enriched_at} title=${dateTime(t.last_enriched_at)}>${relTime(t.last_enriched_at)}</time>
    ${what ? html`<div class="cell-sub">${what}</div>` : null}</div>`;
}

/** The host key refusals, which an administrator settles; other codes read as their words. */
const KEY_ERRORS = { host_key_changed: { label: 'Host key changed', tone: 'bad' }, host_key_unpinned: { label: 'Host key not pinned', tone: 'warn' } };

/** The last failure, in the API's words (a host key refusal says so first). */
export function ErrorCell({ t }) {
  const e = t.last_error;
  if (!e) return none;
  const known = KEY_ERRORS[e.code];
  return html`<div class="disc-err-cell">
    <${Badge} tone=${known?.tone ?? 'bad'}>${known?.label ?? `${e.code.charAt(0).toUpperCase()}${e.code.slice(1).replace(/_/g, ' ')}`}<//>
    <div class="cell-sub clip-2" title=${e.message}>${e.message}</div>
  </div>`;
}

/** Starts an enrichment of these targets; resolves with the job id (errors as a toast, then null). */
export async function enrichTargets(ids) {
  try {
    const r = await api.post('/api/v1sion/enrich-ssh', { targets: ids });
    return r.job_id;
  } catch (e) {
    toast.error(e);
    return null;
  }
}

/** Clears the pinned host key after asking; resolves with the target as the API answered it, or null. */
export async function clearHostKey(t) {
  const ok = await confirm({
    title: `Clear the pinned host key of ${t.name}?`, confirmLabel: 'Clear the pin', danger: true,
    message: html`<p>The next enrichment trusts whatever key ${t.host}:${t.port} presents and pins it. Do this only when the device
      was really replaced or reinstalled: a changed key can also mean someone is in between.</p>
      <p class="mono small disc-fp">${t.host_key}</p>`,
  });
  if (!ok) return null;
  try {
    const saved = await api.del(`/api/v1sion/ssh-targets/${t.id}/host-key`);
    toast.ok(`Cleared the pinned host key of ${t.name}`);
    return saved;
  } catch (e) {
    toast.error(e);
    return null;
  }
}

/** Pins the key a refused login presented, after asking; resolves with the target as the API answered it, or null. */
export async function pinHostKey(t, fingerprint, type) {
  const ok = await confirm({
    title: `Pin this host key for ${t.name}?`, confirmLabel: 'Pin this key',
    message: html`<p>Pin it only if it is the device's own: compare it with what ${t.host} says
      (<span class="mono">ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub</span> on a Linux host). Enrichments then log in to
      ${t.host}:${t.port} while it presents this key, and refuse any other.</p>
      <p class="mono small disc-fp">${fingerprint}${type ? ` (${type})` : ''}</p>`,
  });
  if (!ok) return null;
  try {
    const saved = await api.put(`/api/v1sion/ssh-targets/${t.id}/host-key`, type ? { fingerprint, type } : { fingerprint });
    toast.ok(`Pinned the host key of ${t.name}`);
    return saved;
  } catch (e) {
    toast.error(e);
    return null;
  }
}

/** Deletes a target after asking; resolves true when it is gone. */
export async function deleteTarget(t) {
  if (!(await confirm({ title: `Delete ${t.name}?`, confirmLabel: 'Delete', danger: true,
    message: 'Its pinned host key and what it learned go with it. The credential it names stays in the inventory.' }))) return false;
  try {
    await api.del(`/api/v1sion/ssh-targets/${t.id}`);
    toast.ok(`Deleted ${t.name}`);
    return true;
  } catch (e) {
    toast.error(e);
    return false;
  }
}
