// The dialogs of a topology session's page: rename it and edit its notes (PATCH with what changed), and
// merge a newer scan into it (PATCH {merge_scan_job_id}), offering the scans the probe keeps (those of
// the session's subnets first) or any job id typed in.
import { request } from '../../lib/api.js';
import { useForm } from '../../lib/form.js';
import { relTime } from '../../lib/format.js';
import { html } from '../../lib/html.js';
import { useApi } from '../../lib/hooks.js';
import { SCAN_STATES } from '../../lib/vocabulary.js';
import { Loading } from '../../components/empty.js';
import { Field, FormError, SelectField, TextArea } from '../../components/field.js';
import { Modal } from '../../components/modal.js';

const patch = (session, body) => request('PATCH', `/api/v1sion/sessions/${session.id}`, { body });

export function EditDialog({ session, onDone, onClose }) {
  const form = useForm({ name: session.name, notes: session.notes });
  const onSubmit = form.submit(async (v) => {
    const body = {};
    if (v.name.trim() !== session.name) body.name = v.name.trim();
    if (v.notes !== session.notes) body.notes = v.notes;
    if (!Object.keys(body).length) { onClose(); return; }
    onDone(await patch(session, body), 'Saved');
  });
  return html`<${Modal} title=${`Edit ${session.name}`} onClose=${onClose}
    footer=${html`<button type="button" class="btn" onClick=${onClose}>Cancel</button>
      <button type="submit" form="disc-edit-form" class="btn btn-primary" disabled=${form.busy}>${form.busy ? 'Saving…' : 'Save'}</button>`}>
    <form id="disc-edit-form" onSubmit=${onSubmit}>
      <${FormError} form=${form} />
      <${Field} form=${form} name="name" label="Name" required autofocus maxlength="200" />
      <${TextArea} form=${form} name="notes" label="Notes" rows=${5} />
    </form>
  <//>`;
}

const OTHER = 'other';

export function MergeDialog({ session, onDone, onClose }) {
  const kept = useApi('/api/v1sion/scan', { query: { limit: 100 } });
  if (!kept.data && !kept.error) return html`<${Modal} title="Merge a newer scan" onClose=${onClose}><${Loading} /><//>`;
  // The kept scans newest first, those of the session's subnets before the others, but the session's own.
  const all = (kept.data?.items ?? []).filter((s) => s.job_id !== session.scan_job_id);
  const mine = (s) => session.subnets.includes(s.subnet);
  return html`<${MergeForm} session=${session} scans=${[...all.filter(mine), ...all.filter((s) => !mine(s))]} onDone=${onDone} onClose=${onClose} />`;
}

function MergeForm({ session, scans, onDone, onClose }) {
  const form = useForm({ choice: scans[0]?.job_id ?? OTHER, merge_scan_job_id: '' });
  const v = form.values;
  const onSubmit = form.submit(async (vals) => {
    const id = vals.choice === OTHER ? vals.merge_scan_job_id.trim() : vals.choice;
    onDone(await patch(session, { merge_scan_job_id: id }), 'Merged');
  });
  const options = [
    ...scans.map((s) => ({ value: s.job_id, label: `${s.subnet} · started ${relTime(s.started_at)} · ${SCAN_STATES[s.state]?.label ?? s.state}` })),
    { value: OTHER, label: 'Another scan, by job id' },
  ];
  return html`<${Modal} title="Merge a newer scan" onClose=${onClose}
    footer=${html`<button type="button" class="btn" onClick=${onClose}>Cancel</button>
      <button type="submit" form="disc-merge-form" class="btn btn-primary" disabled=${form.busy}>${form.busy ? 'Merging…' : 'Merge'}</button>`}>
    <form id="disc-merge-form" onSubmit=${onSubmit}>
      <${FormError} form=${form} />
      <p class="muted">Nodes the scan finds again are updated (addresses, MAC, vendor, kind; labels and inventory links stay);
        devices the session lacks are added and marked <strong>New</strong>; nodes it no longer sees are kept and
        marked <strong>Missing</strong>. Nodes and edges added by hand are never changed.</p>
      ${scans.length ? html`<${SelectField} form=${form} name="choice" label="Scan" options=${options}
        hint="The scans this probe keeps, those of the session's subnets first." />` : null}
      ${v.choice === OTHER ? html`<${Field} form=${form} name="merge_scan_job_id" label="Scan job id" required autofocus
        class="disc-mono-field" autocomplete="off" spellcheck=${false} autocapitalize="none"
        hint="The job id of a scan whose result is kept (the newest are)." />` : null}
    </form>
  <//>`;
}
