// The inventory's front page: one search across every type (a short ID such as EP-3 goes straight to
// its record when the search is sent), the count of each type, and the records changed last.
import { api } from '../../lib/api.js';
import { dateTime, relTime } from '../../lib/format.js';
import { html, useState } from '../../lib/html.js';
import { useApi, useDebounced } from '../../lib/hooks.js';
import { navigate, setQuery } from '../../lib/router.js';
import { SEARCH_MATCH_LABELS } from '../../lib/vocabulary.js';
import { Badge } from '../../components/badge.js';
import { SearchBox } from '../../components/controls.js';
import { EmptyState, ErrorState, Loading } from '../../components/empty.js';
import { XIcon } from '../../components/extra-icons.js';
import { Card, Page } from '../../components/page.js';
import { InventoryTabs } from './section.js';
import { asShortId, recordHref, typeDef, TYPES } from './types.js';

/** The search snippet with its [matches] marked. */
function Snippet({ text }) {
  if (!text) return null;
  const parts = text.split(/\[([^\]]*)\]/);
  return html`<span class="snippet">${parts.map((p, i) => (i % 2 ? html`<mark key=${i}>${p}</mark>` : p))}</span>`;
}

function Results({ q }) {
  const r = useApi(q.length >= 2 ? '/api/brain/search' : null, { query: { q } });
  if (q.length < 2) return html`<p class="muted inv-hint">Type at least two characters, or a short ID such as EP-3 and Enter.</p>`;
  if (r.error) return html`<${ErrorState} error=${r.error} />`;
  if (!r.data) return html`<${Loading} label="Searching…" />`;
  if (!r.data.items.length) return html`<${EmptyState} icon="search" title=${`Nothing found for “${q}”`}><p>Search looks at names, addresses, serial numbers, tags, notes and custom fields.</p><//>`;
  return html`<ul class="rows search-results" aria-label="Search results">
    ${r.data.items.map((x) => {
      const def = typeDef(x.type);
      return html`<li key=${x.id} class="row">
        <span class="type-icon" title=${def?.one}><${XIcon} name=${def?.icon ?? 'inventory'} size=${18} /></span>
        <div class="row-main">
          <a class="row-title" href=${recordHref(x.type, x)}><span class="sid">${x.short_id}</span> ${x.name}</a>
          <div class="row-sub"><${Snippet} text=${x.snippet} /></div>
        </div>
        <div class="row-side"><${Badge}>${def?.one ?? x.type}<//> <span class="muted small">${SEARCH_MATCH_LABELS[x.match] ?? ''}</span></div>
      </li>`;
    })}
  </ul>`;
}

export default function InventoryOverviewPage({ query }) {
  const q = (query.q ?? '').trim();
  const shown = useDebounced(q, 250);
  const [missing, setMissing] = useState(null);
  const stats = useApi('/api/brain/stats');
  const recent = useApi('/api/brain/recent', { query: { limit: 12 } });

  const go = async (e) => {
    e.preventDefault();
    setMissing(null);
    const sid = asShortId(q);
    if (!sid) return;
    try {
      const r = await api.get(`/api/brain/resolve/${encodeURIComponent(sid)}`);
      navigate(recordHref(r.type, r.item));
    } catch (err) {
      setMissing(err);
    }
  };

  return html`<${Page} title="Inventory" subtitle="Sites, devices, applications, networks and credentials, with their history and links">
    <${InventoryTabs} active="/inventory" />
    <form class="inv-search" role="search" onSubmit=${go}>
      <${SearchBox} value=${query.q ?? ''} label="Search the inventory" placeholder="Search everything, or go to a short ID like EP-3"
        onInput=${(v) => { setMissing(null); setQuery({ q: v }); }} autocomplete="off" spellcheck="false" class="search-lg" />
      <button type="submit" class="btn btn-primary">Search</button>
    </form>
    ${missing ? html`<${ErrorState} error=${missing} />` : null}
    ${q ? html`<${Card} title="Search results" pad=${false}><${Results} q=${shown} /><//>` : null}
    <ul class="type-grid">
      ${TYPES.map((t) => html`<li key=${t.type}><a href=${`/inventory/${t.type}`} class="type-tile">
        <span class="type-icon"><${XIcon} name=${t.icon} size=${20} /></span>
        <span class="type-text"><span class="type-count">${stats.data ? stats.data[t.type] : '–'}</span><span class="type-label">${t.label}</span></span>
        <span class="type-prefix mono">${t.prefix}</span>
      </a></li>`)}
    </ul>
    <${Card} title="Recently changed" pad=${false}>
      ${recent.error ? html`<${ErrorState} error=${recent.error} retry=${recent.reload} />`
        : !recent.data ? html`<${Loading} />`
          : !recent.data.items.length ? html`<${EmptyState} icon="inventory" title="The inventory is empty">
              <p>Start with a site, then add its locations, endpoints and subnets.</p>
              <p><a class="btn btn-primary" href="/inventory/sites/new">New site</a></p><//>`
            : html`<ul class="rows">${recent.data.items.map((x) => {
              const def = typeDef(x.type);
              return html`<li key=${x.id} class="row">
                <span class="type-icon"><${XIcon} name=${def?.icon ?? 'inventory'} size=${18} /></span>
                <div class="row-main"><a class="row-title" href=${recordHref(x.type, x)}><span class="sid">${x.short_id}</span> ${x.name}</a>
                  <div class="row-sub">${def?.one ?? x.type} · ${x.created_at === x.updated_at ? 'created' : 'changed'}</div></div>
                <time class="row-side muted small" datetime=${x.updated_at} title=${dateTime(x.updated_at)}>${relTime(x.updated_at)}</time>
              </li>`;
            })}</ul>`}
    <//>
  <//>`;
}
