// What can be done to a monitor from the list and its page: check now, pause or resume, delete (after
// a confirmation), maintenance for a while and its end. Each tells the outcome in a toast and resolves to
// the API's answer; failures are thrown for the caller's toast.error.
import { api } from '../../lib/api.js';
import { confirm } from '../../lib/confirm.js';
import { humanize } from '../../lib/format.js';
import { html } from '../../lib/html.js';
import { toast } from '../../lib/toast.js';
import { quickLabel, quickWindow } from './maintenance-model.js';

/** Runs a check at once; resolves to {result, monitor}. */
export async function checkNow(m) {
  const r = await api.post(`/api/monitors/${m.id}/check`);
  const text = `${m.name}: ${humanize(r.result.status)}${r.result.message ? ` · ${r.result.message}` : ''}`;
  if (r.result.status === 'down') toast.error(text); else toast.ok(text);
  return r;
}

/** Pauses a running monitor or resumes a paused one; resolves to the updated monitor. */
export async function togglePause(m) {
  const r = await api.post(`/api/monitors/${m.id}/pause`);
  toast.ok(r.status === 'paused' ? `Paused ${m.name}` : `Resumed ${m.name}: checking now`);
  return r;
}

/** Deletes after asking; resolves true when deleted. */
export async function deleteMonitor(m) {
  const ok = await confirm({
    title: `Delete ${m.name}?`,
    message: html`<p>Its check results, incidents and statistics are deleted with it; monitors that depend on it lose it as a
      parent. Its entries in the event log stay. This cannot be undone.</p>`,
    confirmLabel: 'Delete monitor', danger: true,
  });
  if (!ok) return false;
  await api.del(`/api/monitors/${m.id}`);
  toast.ok(`Deleted ${m.name}`);
  return true;
}

/** A one-off maintenance window for this monitor alone, from now for `minutes`; resolves to the window. */
export async function startMaintenance(m, minutes) {
  const w = await api.post('/api/monitors/maintenance', quickWindow(m, minutes));
  toast.ok(`${m.name}: maintenance for ${quickLabel(minutes)}, its alerts held`);
  return w;
}

/** Ends the window holding the monitor now (for every monitor it holds); resolves to the window. */
export async function endMaintenance(m) {
  const w = await api.post(`/api/monitors/maintenance/${m.maintenance.id}/end`);
  toast.ok(`Ended ${m.maintenance.name}: alerts go out again`);
  return w;
}
