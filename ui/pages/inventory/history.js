// A record's change history, newest first: who changed which fields from what to what. Secrets show
// only that they changed; references show the short ID and name of the record when it is known.
import { dateTime, humanize, relTime } from '../../lib/format.js';
import { html, useState } from '../../lib/html.js';
import { useApi } from '../../lib/hooks.js';
import { HISTORY_ACTION_TONE } from '../../lib/vocabulary.js';
import { Badge } from '../../components/badge.js';
import { EmptyState, ErrorState, Loading } from '../../components/empty.js';
import { Card } from '../../components/page.js';
import { Pager } from '../../components/table.js';

const LIMIT = 10;

function show(v, names) {
  if (v === null || v === undefined) return html`<span class="muted">—</span>`;
  if (Array.isArray(v)) return v.length ? v.map((x, i) => html`${i ? ', ' : ''}${show(x, names)}`) : html`<span class="muted">—</span>`;
  if (typeof v === 'object' && 'start' in v && 'end' in v) return html`<span class="mono">${v.start} – ${v.end}</span>`;
  if (typeof v === 'object') return html`<span class="mono">${Object.entries(v).map(([k, x]) => `${k}: ${typeof x === 'object' ? JSON.stringify(x) : x}`).join(', ')}</span>`;
  const ref = names.get(v);
  return ref ? html`<span title=${v}>${ref}</span>` : String(v);
}

/** `labels` maps field names to their labels; `names` maps referenced ids to "EP-3 core-sw1". */
export function HistoryCard({ type, id, labels, names }) {
  const [offset, setOffset] = useState(0);
  const h = useApi(`/api/brain/history/${type}/${id}`, { query: { limit: LIMIT, offset } });
  return html`<${Card} title="History" pad=${false}>
    ${h.error ? html`<${ErrorState} error=${h.error} retry=${h.reload} />`
      : !h.data ? html`<${Loading} />`
        : !h.data.items.length ? html`<${EmptyState} icon="log" title="No changes recorded" />`
          : html`<ol class="history">
              ${h.data.items.map((e) => html`<li key=${e.id} class="hist">
                <div class="hist-head">
                  <${Badge} tone=${HISTORY_ACTION_TONE[e.action] ?? 'neutral'}>${humanize(e.action)}<//>
                  <span class="hist-actor">${e.actor}</span>
                  <time class="muted small" datetime=${e.at} title=${dateTime(e.at)}>${relTime(e.at)}</time>
                </div>
                ${e.note ? html`<div class="small muted">${e.note}</div>` : null}
                ${e.action !== 'delete' ? html`<dl class="hist-changes">
                  ${Object.entries(e.changes ?? {}).map(([k, c]) => html`<div key=${k}>
                    <dt>${labels[k] ?? humanize(k)}</dt>
                    <dd>${e.action === 'create' ? show(c.to, names) : html`${show(c.from, names)} <span class="arrow" aria-label="to">→</span> ${show(c.to, names)}`}</dd>
                  </div>`)}
                </dl>` : null}
              </li>`)}
            </ol>
            <${Pager} total=${h.data.total} limit=${LIMIT} offset=${offset} onChange=${setOffset} />`}
  <//>`;
}
