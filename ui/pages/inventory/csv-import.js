// Importing a CSV into one inventory type: pick a file (or paste the text), check it first (the API's dry run
// says, row by row, what would be created or updated and what would be refused and why), then import. The
// import does what the check said; a row refused is left out and the others go in.
import { request } from '../../lib/api.js';
import { peopleMessage } from '../../lib/form.js';
import { html, useState } from '../../lib/html.js';
import { toast } from '../../lib/toast.js';
import { Badge } from '../../components/badge.js';
import { ErrorState } from '../../components/empty.js';
import { Modal } from '../../components/modal.js';
import { Table } from '../../components/table.js';

const ACTIONS = {
  create: ['ok', 'Create'], update: ['info', 'Update'], unchanged: ['neutral', 'Unchanged'], refused: ['bad', 'Refused'],
};

/** Why a row is refused, in people's words: each column with its message, else the problem's detail. */
function reason(row) {
  if (row.action === 'update') return row.fields?.length ? `Changes ${row.fields.join(', ')}` : '';
  if (row.action !== 'refused') return '';
  const errors = row.errors ?? [];
  return errors.length ? errors.map((e) => `${e.path ? `${e.path}: ` : ''}${peopleMessage(e.message)}`).join('; ') : row.detail;
}

const COLUMNS = [
  { key: 'line', label: 'Line', class: 'nowrap', render: (r) => html`<span class="mono">${r.line}</span>` },
  { key: 'action', label: 'What happens', render: (r) => html`<${Badge} tone=${ACTIONS[r.action][0]}>${ACTIONS[r.action][1]}<//>` },
  { key: 'record', label: 'Record', render: (r) => (r.short_id || r.name
    ? html`<span>${r.short_id ? html`<span class="sid">${r.short_id}</span> ` : null}${r.name ?? ''}</span>` : html`<span class="muted">—</span>`) },
  { key: 'why', label: 'Why', render: (r) => html`<span class=${r.action === 'refused' ? 'import-why' : 'muted small'}>${reason(r)}</span>` },
];

function Summary({ result, done }) {
  const parts = [
    [result.created, done ? 'created' : 'would be created'], [result.updated, done ? 'updated' : 'would be updated'],
    [result.unchanged, 'unchanged'], [result.refused, done ? 'refused' : 'would be refused'],
  ].filter(([n]) => n);
  return html`<p class="import-summary" role="status">${parts.length ? parts.map(([n, w]) => `${n} ${w}`).join(' · ') : 'No records in the file.'}</p>`;
}

/** The dialog; `onDone` runs after an import that wrote something. */
export function ImportDialog({ def, onClose, onDone }) {
  const [text, setText] = useState('');
  const [file, setFile] = useState('');
  const [check, setCheck] = useState(null);
  const [result, setResult] = useState(null);
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const send = (dry) => request('POST', `/api/brain/${def.type}/import`, { query: dry ? { dry_run: 'true' } : undefined,
    raw: { body: text, type: 'text/csv' } });
  const run = async (dry) => {
    setBusy(true); setError(null);
    try {
      const r = await send(dry);
      if (dry) setCheck(r);
      else {
        setResult(r);
        if (r.created || r.updated) {
          toast.ok(`Imported ${r.created + r.updated} ${r.created + r.updated === 1 ? def.one : def.label.toLowerCase()}`);
          onDone?.();
        }
      }
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  const pick = async (e) => {
    const f = e.currentTarget.files?.[0];
    if (!f) return;
    setFile(f.name); setText(await f.text()); setCheck(null); setResult(null); setError(null);
  };
  const shown = result ?? check;
  const writes = check ? check.created + check.updated : 0;
  const footer = result
    ? html`<button type="button" class="btn btn-primary" onClick=${onClose}>Close</button>`
    : html`<button type="button" class="btn" onClick=${onClose}>Cancel</button>
      ${check ? html`<button type="button" class="btn btn-primary" disabled=${busy || !writes} onClick=${() => run(false)}>
          ${busy ? 'Importing…' : writes ? `Import ${writes} ${writes === 1 ? def.one : def.label.toLowerCase()}` : 'Nothing to import'}</button>`
        : html`<button type="button" class="btn btn-primary" disabled=${busy || !text.trim()} onClick=${() => run(true)}>
          ${busy ? 'Checking…' : 'Check the file'}</button>`}`;
  return html`<${Modal} title=${`Import ${def.label.toLowerCase()} from CSV`} onClose=${onClose} size="lg" footer=${footer}>
    ${shown ? null : html`<p class="muted">The first row names the columns, as an export of ${def.label.toLowerCase()} has them. A row whose
      <span class="mono">id</span> is a record here updates it; every other row creates a record. References take a name, a short ID or a UUID.
      Nothing changes until you have seen what the file would do.</p>
      <div class="field">
        <label for="import-file">CSV file</label>
        <input id="import-file" class="file-input" type="file" accept=".csv,text/csv" onChange=${pick} />
        ${file ? html`<div class="field-hint">${file}: ${text.split(/\r?\n/).filter((l) => l.trim()).length} lines</div>` : null}
      </div>
      <div class="field">
        <label for="import-text">Or paste it</label>
        <textarea id="import-text" rows="6" class="mono" spellcheck="false" value=${text}
          onInput=${(e) => { setText(e.currentTarget.value); setFile(''); setCheck(null); }}></textarea>
      </div>`}
    ${error ? html`<${ErrorState} error=${error} />` : null}
    ${shown ? html`<${Summary} result=${shown} done=${!!result} />
      <div class="import-rows"><${Table} columns=${COLUMNS} rows=${shown.rows} rowKey="line"
        caption=${result ? 'What the import did' : 'What the import would do'} /></div>
      ${!result ? html`<button type="button" class="btn btn-sm btn-ghost" onClick=${() => setCheck(null)}>Choose another file</button>` : null}` : null}
  <//>`;
}
