// The Templates tab: saved walks (target, stored SNMP credential, OIDs, options) with each one's last
// run; create and edit in a dialog, run now (the values in the walk table), delete with confirmation.
// A template never holds a community or key: it names a credential whose secrets the vault keeps.
import { api } from '../../lib/api.js';
import { confirm } from '../../lib/confirm.js';
import { useForm } from '../../lib/form.js';
import { dateTime, ms, relTime } from '../../lib/format.js';
import { html, useEffect, useState } from '../../lib/html.js';
import { useApi } from '../../lib/hooks.js';
import { can, useSession } from '../../lib/session.js';
import { toast } from '../../lib/toast.js';
import { CREDENTIAL_KINDS, SNMP_WALK_OPTIONS as OPTIONS } from '../../lib/vocabulary.js';
import { Badge } from '../../components/badge.js';
import { EmptyState, ErrorState, Loading } from '../../components/empty.js';
import { Field, FormError, SelectField, TextArea } from '../../components/field.js';
import { Icon } from '../../components/icons.js';
import { Modal } from '../../components/modal.js';
import { Card } from '../../components/page.js';
import { Table } from '../../components/table.js';
import { WalkResult } from './varbinds.js';

/** The credential kinds a template can walk with: the SNMP ones. */
const SNMP_KINDS = CREDENTIAL_KINDS.map((k) => k.value).filter((k) => k.startsWith('snmp_'));

/** The stored SNMP credentials (all three kinds), or the error that kept them from loading. */
export function useSnmpCredentials() {
  const [state, setState] = useState({ items: null, error: null });
  useEffect(() => {
    const ctl = new AbortController();
    Promise.all(SNMP_KINDS.map((kind) => api.get('/api/brain/credentials', { kind, limit: 500 }, { signal: ctl.signal })))
      .then((pages) => setState({ items: pages.flatMap((p) => p.items), error: null }),
        (error) => { if (error?.name !== 'AbortError') setState({ items: null, error }); });
    return () => ctl.abort();
  }, []);
  return state;
}

export const kindLabel = (kind) => kind.replace('snmp_', '');
const oidsOf = (text) => text.split('\n').map((s) => s.trim()).filter(Boolean);
const numberOrNull = (s) => (String(s).trim() === '' ? null : Number(s));

function initialValues(t) {
  const values = {
    name: t?.name ?? '', description: t?.description ?? '', target: t?.target ?? '', port: t?.port == null ? '' : String(t.port),
    credential_id: t?.credential?.id ?? '', oids: (t?.oids ?? ['system']).join('\n'),
  };
  for (const o of OPTIONS) values[`options.${o}`] = t?.options?.[o] == null ? '' : String(t.options[o]);
  return values;
}

/** The request body: everything on create (empty optional fields left out), only what changed on edit. */
function templateBody(vals, t) {
  const options = {};
  for (const o of OPTIONS) {
    const n = numberOrNull(vals[`options.${o}`]);
    if (n !== null) options[o] = n;
  }
  const next = {
    name: vals.name.trim(), description: vals.description.trim() || null, target: vals.target.trim(),
    port: numberOrNull(vals.port), credential_id: vals.credential_id, oids: oidsOf(vals.oids), options,
  };
  if (!t) {
    const body = { name: next.name, target: next.target, credential_id: next.credential_id, oids: next.oids };
    if (next.description) body.description = next.description;
    if (next.port !== null) body.port = next.port;
    if (Object.keys(options).length) body.options = options;
    return body;
  }
  const old = { ...t, credential_id: t.credential?.id ?? t.credential_id };
  const body = {};
  for (const k of Object.keys(next)) if (JSON.stringify(next[k]) !== JSON.stringify(old[k] ?? (k === 'options' ? {} : null))) body[k] = next[k];
  return body;
}

function TemplateForm({ template, onDone, onCancel }) {
  const editing = !!template;
  const form = useForm(initialValues(template));
  const creds = useSnmpCredentials();
  const onSubmit = form.submit(async (vals) => {
    const body = templateBody(vals, template);
    const saved = editing ? await api.put(`/api/snmp/templates/${template.id}`, body) : await api.post('/api/snmp/templates', body);
    onDone(saved);
  });
  const credOptions = [{ value: '', label: creds.items?.length ? 'Choose a credential' : 'No SNMP credentials yet' },
    ...(creds.items ?? []).map((c) => ({ value: c.id, label: `${c.short_id} · ${c.name} (${kindLabel(c.kind)}${c.port ? `, port ${c.port}` : ''})` }))];

  return html`<${Modal} title=${editing ? `Edit ${template.name}` : 'New template'} onClose=${onCancel} size="lg"
    footer=${html`
      <button type="button" class="btn" onClick=${onCancel}>Cancel</button>
      <button type="submit" form="snmp-template-form" class="btn btn-primary" disabled=${form.busy}>${form.busy ? 'Saving…' : editing ? 'Save' : 'Create template'}</button>`}>
    <form id="snmp-template-form" onSubmit=${onSubmit}>
      <${FormError} form=${form} />
      ${creds.error ? html`<${ErrorState} error=${creds.error} />` : null}
      <div class="grid-2">
        <${Field} form=${form} name="name" label="Name" required autofocus placeholder="Core switch interfaces" />
        <${Field} form=${form} name="description" label="Description" />
      </div>
      <div class="grid-2">
        <${Field} form=${form} name="target" label="Agent" required placeholder="192.0.2.10 or switch1" autocapitalize="none" spellcheck="false" />
        <${Field} form=${form} name="port" label="UDP port" type="number" min="1" max="65535" inputmode="numeric"
          placeholder="From the credential, else 161" />
      </div>
      ${creds.items || creds.error
    // Rendered once the options are there, so the select shows the template's credential.
    ? html`<${SelectField} form=${form} name="credential_id" label="Credential" options=${credOptions} required
        hint="A stored SNMP credential from the inventory; its kind sets the version, the vault keeps its secrets." />`
    : html`<${Loading} label="Loading the SNMP credentials…" />`}
      <${TextArea} form=${form} name="oids" label="Subtrees" rows=${4} spellcheck="false" required
        hint="One per line: numeric OIDs or names from the OID store (system, ifTable, IF-MIB::ifDescr)." />
      <div class="grid-2">
        <${Field} form=${form} name="options.timeout" label="Timeout per answer (seconds)" type="number" min="0.1" max="60" step="0.1" placeholder="2" />
        <${Field} form=${form} name="options.retries" label="Retries" type="number" min="0" max="5" inputmode="numeric" placeholder="1" />
        <${Field} form=${form} name="options.max_repetitions" label="GETBULK repetitions" type="number" min="1" max="200" inputmode="numeric" placeholder="20" />
        <${Field} form=${form} name="options.max_varbinds" label="Most values" type="number" min="1" max="100000" inputmode="numeric" placeholder="10000" />
      </div>
    </form>
  <//>`;
}

function LastRun({ run }) {
  if (!run) return html`<span class="muted">Never</span>`;
  const ok = run.outcome === 'success';
  return html`<div>
    <${Badge} tone=${ok ? 'ok' : 'bad'}>${ok ? 'Success' : 'Failed'}<//>
    <span class="cell-sub" title=${dateTime(run.at)}> ${relTime(run.at)}</span>
    ${ok ? html`<div class="cell-sub">${run.count} ${run.count === 1 ? 'value' : 'values'} in ${ms(run.elapsed_ms)}</div>`
      : html`<div class="cell-sub snmp-clip" title=${run.error}>${run.error}</div>`}
  </div>`;
}

export default function TemplatesSection() {
  const s = useSession();
  const writable = can(s, 'snmp:write');
  const templates = useApi('/api/snmp/templates');
  const [editing, setEditing] = useState(null); // null, 'new' or a template
  const [running, setRunning] = useState(null); // id of the template being run
  const [result, setResult] = useState(null); // {template, result}

  const run = async (t) => {
    setRunning(t.id);
    try {
      setResult({ template: t, result: await api.post(`/api/snmp/templates/${t.id}/run`) });
    } catch (e) {
      toast.error(e);
    } finally {
      setRunning(null);
      templates.reload();
    }
  };

  const remove = async (t) => {
    if (!(await confirm({ title: `Delete ${t.name}?`, message: 'The template and its last run are removed; the credential stays.', confirmLabel: 'Delete', danger: true }))) return;
    try {
      await api.del(`/api/snmp/templates/${t.id}`);
      toast.ok(`Deleted ${t.name}`);
      templates.reload();
    } catch (e) { toast.error(e); }
  };

  const columns = [
    { key: 'name', label: 'Template', render: (t) => html`<div class="cell-title">${t.name}</div>${t.description ? html`<div class="cell-sub">${t.description}</div>` : null}` },
    { key: 'target', label: 'Agent', render: (t) => html`<span class="mono">${t.target}${t.port ? `:${t.port}` : ''}</span> <${Badge}>${t.version}<//>` },
    { key: 'credential', label: 'Credential', class: 'nowrap', render: (t) => (t.credential
      ? html`<a href=${`/inventory/credentials/${t.credential.short_id}`} title=${t.credential.name}>${t.credential.short_id}</a>`
      : html`<${Badge} tone="warn">Deleted<//>`) },
    { key: 'oids', label: 'Subtrees', render: (t) => html`<div class="chips">${t.oids.map((o) => html`<${Badge} key=${o}><span class="mono">${o}</span><//>`)}</div>` },
    { key: 'last_run', label: 'Last run', render: (t) => html`<${LastRun} run=${t.last_run} />` },
    ...(writable ? [{ key: 'actions', label: 'Actions', class: 'actions-col', hideLabel: true, render: (t) => html`<div class="actions">
      <button type="button" class="btn btn-sm" onClick=${() => run(t)} disabled=${running === t.id} aria-label=${`Run ${t.name}`}>
        <${Icon} name="refresh" size=${15} />${running === t.id ? 'Running…' : 'Run'}</button>
      <button type="button" class="btn btn-sm btn-icon" onClick=${() => setEditing(t)} aria-label=${`Edit ${t.name}`} title="Edit"><${Icon} name="edit" size=${15} /></button>
      <button type="button" class="btn btn-sm btn-icon" onClick=${() => remove(t)} aria-label=${`Delete ${t.name}`} title="Delete"><${Icon} name="trash" size=${15} /></button>
    </div>` }] : []),
  ];

  const newButton = writable ? html`<button type="button" class="btn btn-primary btn-sm" onClick=${() => setEditing('new')}><${Icon} name="plus" size=${15} />New template</button>` : null;

  return html`<${Card} title="Walk templates" actions=${newButton} pad=${false}>
    ${templates.error ? html`<${ErrorState} error=${templates.error} retry=${templates.reload} />`
      : !templates.data ? html`<${Loading} />`
        : html`<${Table} columns=${columns} rows=${templates.data.items} caption="Walk templates"
            empty=${html`<${EmptyState} icon="snmp" title="No templates yet" action=${newButton}>
              <p>A template saves a walk (agent, stored credential, subtrees) to run again with one click.</p><//>`} />`}
    ${editing ? html`<${TemplateForm} template=${editing === 'new' ? null : editing} onCancel=${() => setEditing(null)}
      onDone=${(saved) => { setEditing(null); toast.ok(`${editing === 'new' ? 'Created' : 'Saved'} ${saved.name}`); templates.reload(); }} />` : null}
    ${result ? html`<${Modal} title=${`Run of ${result.template.name}`} size="lg" onClose=${() => setResult(null)}
      footer=${html`<button type="button" class="btn btn-primary" onClick=${() => setResult(null)}>Close</button>`}>
      <${WalkResult} result=${result.result} class="walk-result-modal" />
    <//>` : null}
  <//>`;
}
