// What a list does to the records ticked in it: add or remove tags, or delete them (a record others reference
// is named first, and deleting then clears those references). One request for all of them; the API takes
// all or none.
import { api, ApiError } from '../../lib/api.js';
import { confirm } from '../../lib/confirm.js';
import { html, useState } from '../../lib/html.js';
import { toast } from '../../lib/toast.js';
import { Icon } from '../../components/icons.js';

const words = (n, def) => `${n} ${n === 1 ? def.one : def.label.toLowerCase()}`;

/**
 * Asks, deletes with `run(detach)`, and when the API answers that others reference what is deleted, names them
 * and asks again before deleting with their references cleared. Resolves true when something was deleted.
 */
export async function deleteAsking({ title, confirmLabel, message, referencedTitle = 'Still referenced', run }) {
  if (!(await confirm({ title, confirmLabel, danger: true, message }))) return false;
  try {
    await run(false);
  } catch (e) {
    if (!(e instanceof ApiError) || e.code !== 'referenced') throw e;
    const detach = await confirm({ title: referencedTitle, confirmLabel: 'Clear the references and delete', danger: true,
      message: html`<p>${e.detail}</p><p>Deleting anyway clears those references (each change is recorded in the record's history).</p>` });
    if (!detach) return false;
    await run(true);
  }
  return true;
}

async function deleteAll(def, ids) {
  const ok = await deleteAsking({ title: `Delete ${words(ids.length, def)}?`, confirmLabel: `Delete ${words(ids.length, def)}`,
    referencedTitle: 'Some are still referenced',
    message: `Their links go with them; their history stays readable. ${def.type === 'credentials' ? 'Their stored secrets are destroyed. ' : ''}This cannot be undone.`,
    run: (detach) => api.post(`/api/brain/${def.type}/bulk-delete`, detach ? { ids, detach } : { ids }) });
  if (ok) toast.ok(`Deleted ${words(ids.length, def)}`);
  return ok;
}

/** The bar over a list while records are ticked; `onDone` reloads the list. */
export function BulkBar({ def, ids, onClear, onDone }) {
  const [tags, setTags] = useState('');
  const [busy, setBusy] = useState(false);
  const list = tags.split(',').map((t) => t.trim()).filter(Boolean);
  const act = async (fn) => {
    setBusy(true);
    try { if (await fn()) onDone(); } catch (e) { toast.error(e); } finally { setBusy(false); }
  };
  const tag = (how) => act(async () => {
    const r = await api.post(`/api/brain/${def.type}/bulk-tag`, { ids, [how]: list });
    toast.ok(`${how === 'add' ? 'Tagged' : 'Untagged'} ${words(r.updated, def)}${r.unchanged ? ` (${r.unchanged} already so)` : ''}`);
    setTags('');
    return true;
  });
  return html`<div class="bulk-bar" role="region" aria-label="Selected records">
    <strong class="bulk-count">${ids.length} selected</strong>
    <input type="text" class="bulk-tags" placeholder="tag, another" aria-label="Tags to add or remove" value=${tags}
      onInput=${(e) => setTags(e.currentTarget.value)} spellcheck="false" />
    <button type="button" class="btn btn-sm" disabled=${busy || !list.length} onClick=${() => tag('add')}>Add tags</button>
    <button type="button" class="btn btn-sm" disabled=${busy || !list.length} onClick=${() => tag('remove')}>Remove tags</button>
    <button type="button" class="btn btn-sm btn-danger" disabled=${busy} onClick=${() => act(() => deleteAll(def, ids))}>
      <${Icon} name="trash" size=${15} />Delete</button>
    <button type="button" class="btn btn-sm btn-ghost" onClick=${onClear}>Clear selection</button>
  </div>`;
}
