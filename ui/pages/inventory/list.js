// The records of one inventory type: a table with a name search and the type's filters (kept in the
// URL), paging, and a button for a new record. The columns shown are the user's choice; the list goes out as
// CSV (with its filters) and comes in from CSV (checked first); ticked records are tagged or deleted
// together. The credentials list also shows the vault. A short ID in the address (/inventory/EP-3) goes to
// that record.
import { api, qs } from '../../lib/api.js';
import { humanize } from '../../lib/format.js';
import { html, useEffect, useMemo, useState } from '../../lib/html.js';
import { useApi, useDebounced } from '../../lib/hooks.js';
import { navigate, setQuery } from '../../lib/router.js';
import { can, isAdmin, useSession } from '../../lib/session.js';
import { SearchBox } from '../../components/controls.js';
import { EmptyState, ErrorState, Loading } from '../../components/empty.js';
import { Icon } from '../../components/icons.js';
import { Card, Page } from '../../components/page.js';
import { Pager, Table } from '../../components/table.js';
import { BulkBar } from './bulk.js';
import { ColumnChooser, useColumnChoice } from './column-chooser.js';
import { columnsFor } from './columns.js';
import { ImportDialog } from './csv-import.js';
import { InventoryTabs, useLookup } from './section.js';
import { asShortId, recordHref, typeDef } from './types.js';
import { VaultCard } from './vault.js';

const LIMIT = 50;

/** /inventory/EP-3: find the record and go there. */
function ShortIdRedirect({ sid }) {
  const [error, setError] = useState(null);
  useEffect(() => {
    api.get(`/api/brain/resolve/${encodeURIComponent(sid)}`).then((r) => navigate(recordHref(r.type, r.item), { replace: true }), setError);
  }, [sid]);
  return html`<${Page} title=${sid}>${error ? html`<${ErrorState} error=${error} />` : html`<${Card}><${Loading} label=${`Looking up ${sid}…`} /><//>`}<//>`;
}

function Filters({ def, query, lookups }) {
  if (!def.filters.length) return null;
  return def.filters.map((f) => {
    const id = `filter-${f.name}`;
    const set = (e) => setQuery({ [f.name]: e.currentTarget.value, offset: '' });
    if (f.kind === 'text') {
      return html`<input key=${f.name} id=${id} type="search" class="inv-filter" placeholder=${f.label} aria-label=${f.label}
        value=${query[f.name] ?? ''} onChange=${set} spellcheck="false" />`;
    }
    const options = f.kind === 'ref' ? (lookups[f.ref]?.items ?? []).map((r) => ({ value: r.id, label: `${r.short_id} · ${r.name}` })) : f.options;
    return html`<select key=${f.name} id=${id} class="inv-filter" aria-label=${f.label} value=${query[f.name] ?? ''} onChange=${set}>
      <option value="">${`Any ${f.label.toLowerCase()}`}</option>
      ${options.map((o) => html`<option key=${o.value} value=${o.value}>${o.label}</option>`)}
    </select>`;
  });
}

/** A tick per row and one for the page; `selected` holds ids. */
function selectColumn(rows, selected, setSelected) {
  const all = rows.length > 0 && rows.every((r) => selected.has(r.id));
  const flip = (ids, on) => setSelected((s) => { const n = new Set(s); for (const id of ids) if (on) n.add(id); else n.delete(id); return n; });
  return {
    key: 'select', class: 'col-select', hideLabel: true,
    label: html`<input type="checkbox" aria-label="Select every record on this page" checked=${all}
      onChange=${(e) => flip(rows.map((r) => r.id), e.currentTarget.checked)} />`,
    render: (r) => html`<input type="checkbox" aria-label=${`Select ${r.short_id} ${r.name}`} checked=${selected.has(r.id)}
      onChange=${(e) => flip([r.id], e.currentTarget.checked)} />`,
  };
}

function TypeList({ def, query }) {
  const s = useSession();
  const writable = def.type === 'credentials' ? isAdmin(s) : can(s, 'brain:write');
  const offset = Number(query.offset) || 0;
  const q = useDebounced(query.q ?? '', 250);
  const filters = Object.fromEntries(def.apiFilters.map((f) => [f, query[f]]));
  // Filters set by a link (the assets of a location) have no control: they show as a removable chip.
  const hidden = def.apiFilters.filter((f) => query[f] && !def.filters.some((x) => x.name === f));
  const list = useApi(`/api/brain/${def.type}`, { query: { q: q.trim(), ...filters, limit: LIMIT, offset } });
  // The lookups the columns and filters need (a fixed set of hooks).
  const lookups = {
    sites: useLookup(['locations', 'endpoints', 'subnets'].includes(def.type) ? 'sites' : null),
    locations: useLookup(def.type === 'assets' ? 'locations' : null),
    endpoints: useLookup(def.type === 'applications' ? 'endpoints' : null),
  };
  const filtered = q || def.apiFilters.some((f) => query[f]);
  const newButton = writable ? html`<a class="btn btn-primary" href=${`/inventory/${def.type}/new`}><${Icon} name="plus" />New ${def.one}</a>` : null;
  const columns = useMemo(() => columnsFor(def.type, lookups), [def.type, lookups.sites, lookups.locations, lookups.endpoints]);
  const [shown, setShown] = useColumnChoice(def.type, columns);
  const [selected, setSelected] = useState(new Set());
  const [importing, setImporting] = useState(false);
  // A new page, filter or type starts with nothing ticked.
  useEffect(() => setSelected(new Set()), [def.type, q, offset, def.apiFilters.map((f) => query[f] ?? '').join('\n')]);
  const rows = list.data?.items ?? [];
  const visible = [...(writable ? [selectColumn(rows, selected, setSelected)] : []), ...columns.filter((c) => shown.has(c.key))];
  const exportHref = `/api/brain/${def.type}/export.csv${qs({ q: q.trim(), ...filters })}`;
  const actions = html`${writable ? html`<button type="button" class="btn" onClick=${() => setImporting(true)}>Import CSV</button>` : null}${newButton}`;

  return html`<${Page} title=${def.label} subtitle=${def.blurb} actions=${actions}>
    <${InventoryTabs} active=${`/inventory/${def.type}`} />
    ${def.type === 'credentials' ? html`<${VaultCard} />` : null}
    <${Card} pad=${false}>
      <div class="inv-toolbar">
        <${SearchBox} value=${query.q ?? ''} label=${`Search ${def.label.toLowerCase()} by name`} placeholder="Search by name"
          onInput=${(v) => setQuery({ q: v, offset: '' })} />
        <${Filters} def=${def} query=${query} lookups=${lookups} />
        ${hidden.map((f) => html`<span key=${f} class="chip">${humanize(f.replace(/_id$/, ''))}: ${query[f].length > 20 ? `${query[f].slice(0, 8)}…` : query[f]}
          <button type="button" class="chip-x" aria-label=${`Remove the ${humanize(f)} filter`} title="Remove filter"
            onClick=${() => setQuery({ [f]: '', offset: '' })}><${Icon} name="close" size=${12} /></button></span>`)}
        <div class="inv-list-tools">
          <${ColumnChooser} columns=${columns} shown=${shown} onChange=${setShown} />
          <a class="btn btn-sm" href=${exportHref} download>Export CSV</a>
        </div>
      </div>
      ${selected.size ? html`<${BulkBar} def=${def} ids=${[...selected]} onClear=${() => setSelected(new Set())}
        onDone=${() => { setSelected(new Set()); list.reload(); }} />` : null}
      ${list.error ? html`<div class="inv-note"><${ErrorState} error=${list.error} retry=${list.reload} /></div>`
        : !list.data ? html`<${Loading} />`
          : html`<${Table} columns=${visible} rows=${list.data.items} caption=${def.label}
              empty=${filtered
                ? html`<${EmptyState} icon="search" title=${`No ${def.one} matches`}
                    action=${html`<button type="button" class="btn" onClick=${() => setQuery(Object.fromEntries(['q', 'offset', ...def.apiFilters].map((k) => [k, ''])))}>Clear filters</button>`} />`
                : html`<${EmptyState} icon="inventory" title=${`No ${def.label.toLowerCase()} yet`} action=${newButton}><p>${def.blurb}</p><//>`} />
            <${Pager} total=${list.data.total} limit=${LIMIT} offset=${offset} onChange=${(o) => setQuery({ offset: o || '' }, { replace: false })} />`}
    <//>
    ${importing ? html`<${ImportDialog} def=${def} onClose=${() => setImporting(false)} onDone=${list.reload} />` : null}
  <//>`;
}

export default function InventoryListPage({ params, query }) {
  const def = typeDef(params.type);
  if (def) return html`<${TypeList} def=${def} query=${query} />`;
  const sid = asShortId(params.type);
  if (sid) return html`<${ShortIdRedirect} sid=${sid} />`;
  return html`<${Page} title="Inventory"><${Card}><${EmptyState} icon="search" title="There is no such inventory type"
    action=${html`<a class="btn btn-primary" href="/inventory">Inventory</a>`} /><//><//>`;
}

