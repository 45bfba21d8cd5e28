// The audit log (administrators): who did what, from where, with what outcome. Filters live in the URL
// (?actor=&action=&since=&until=&offset=) so a filtered view can be bookmarked.
import { useForm } from '../../lib/form.js';
import { dateTime, relTime } from '../../lib/format.js';
import { html } from '../../lib/html.js';
import { useApi } from '../../lib/hooks.js';
import { setQuery } from '../../lib/router.js';
import { auditActionLabel, auditTarget } from '../../lib/vocabulary.js';
import { Badge } from '../../components/badge.js';
import { EmptyState, ErrorState, Loading } from '../../components/empty.js';
import { Field } from '../../components/field.js';
import { Card } from '../../components/page.js';
import { Pager, Table } from '../../components/table.js';

const LIMIT = 50;

/** datetime-local value (browser time) from an ISO time, and back. */
function toLocalInput(iso) {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}
const fromLocalInput = (v) => (v ? new Date(v).toISOString() : null);

function details(d) {
  if (!d) return null;
  const text = Object.entries(d).map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`).join(' ');
  return html`<span class="mono small muted clip" title=${text}>${text}</span>`;
}

const COLUMNS = [
  { key: 'at', label: 'Time', class: 'nowrap', render: (e) => html`<time datetime=${e.at} title=${dateTime(e.at)}>${relTime(e.at)}</time>` },
  { key: 'actor', label: 'Actor', class: 'nowrap', render: (e) => (e.actor ? html`<span class="mono">${e.actor}</span>` : html`<span class="muted">—</span>`) },
  // People's words, the raw action and the full target id in the tooltips (the filter takes the raw action).
  { key: 'action', label: 'Action', class: 'nowrap', render: (e) => html`<span title=${e.action}>${auditActionLabel(e.action)}</span>` },
  { key: 'target', label: 'Target', render: (e) => {
    const t = auditTarget(e);
    return t.text === '—' ? html`<span class="muted">—</span>` : html`<span title=${t.title}>${t.text}</span>`;
  } },
  { key: 'outcome', label: 'Outcome', render: (e) => html`<${Badge} tone=${e.outcome === 'success' ? 'ok' : 'bad'}>${e.outcome}<//>` },
  { key: 'ip', label: 'From', class: 'nowrap', render: (e) => html`<span class="mono small">${e.source_ip ?? '—'}</span>` },
  { key: 'details', label: 'Details', render: (e) => details(e.details) ?? html`<span class="muted">—</span>` },
];

export default function AuditSection({ query }) {
  const offset = Number(query.offset) || 0;
  const filters = { actor: query.actor, action: query.action, since: query.since, until: query.until };
  const entries = useApi('/api/audit-log', { query: { ...filters, limit: LIMIT, offset } });
  const form = useForm({ actor: query.actor ?? '', action: query.action ?? '', since: toLocalInput(query.since), until: toLocalInput(query.until) });

  const apply = form.submit(async (v) => {
    setQuery({ actor: v.actor.trim(), action: v.action.trim(), since: fromLocalInput(v.since), until: fromLocalInput(v.until), offset: null });
  });
  const clear = () => {
    form.reset({ actor: '', action: '', since: '', until: '' });
    setQuery({ actor: null, action: null, since: null, until: null, offset: null });
  };
  const filtered = Object.values(filters).some(Boolean);

  // The API names a bad filter by its query path (query.since); show it beside that field.
  const err = entries.error;
  const filterForm = { ...form, errorFor: (name) => err?.errors?.find((x) => x.path === `query.${name}`)?.message };

  return html`<${Card} title="Audit log" pad=${false}>
    <form class="toolbar card-body" onSubmit=${apply} style="margin:0; border-bottom:1px solid var(--border)">
      <${Field} form=${filterForm} name="actor" label="Actor" placeholder="admin" />
      <${Field} form=${filterForm} name="action" label="Action" placeholder="auth.* or user.create" title="An exact action, or a prefix ending in *" />
      <${Field} form=${filterForm} name="since" label="From" type="datetime-local" />
      <${Field} form=${filterForm} name="until" label="Until" type="datetime-local" />
      <div class="field-actions">
        <button type="submit" class="btn btn-primary">Filter</button>
        ${filtered ? html`<button type="button" class="btn" onClick=${clear}>Clear</button>` : null}
      </div>
    </form>
    ${err ? html`<div class="card-body"><${ErrorState} error=${err} retry=${entries.reload} /></div>`
      : !entries.data ? html`<${Loading} />`
        : html`<${Table} columns=${COLUMNS} rows=${entries.data.items} caption="Audit log entries"
            empty=${html`<${EmptyState} icon="log" title=${filtered ? 'No entries match' : 'No entries yet'} />`} />
          <${Pager} total=${entries.data.total} limit=${LIMIT} offset=${offset} onChange=${(o) => setQuery({ offset: o || null }, { replace: false })} />`}
  <//>`;
}
