// The values a walk returned (the walk form and a template's run): a summary line, a filter and the
// varbind table with each value's name from the OID store, its type and its display text.
import { ms } from '../../lib/format.js';
import { html, useMemo, useState } from '../../lib/html.js';
import { Badge } from '../../components/badge.js';
import { EmptyState } from '../../components/empty.js';
import { Table } from '../../components/table.js';

const COLUMNS = [
  { key: 'name', label: 'Object', render: (b) => html`<div class="cell-title mono">${b.name}</div><div class="cell-sub mono">${b.oid}</div>` },
  { key: 'type', label: 'Type', class: 'nowrap', render: (b) => html`<span class="muted">${b.type}</span>` },
  { key: 'display', label: 'Value', render: (b) => html`<span class="mono">${b.display}</span>` },
];

/** result: the walk answer {target, version, elapsed_ms, count, truncated, varbinds}. */
export function WalkResult({ result, class: cls = '' }) {
  const [filter, setFilter] = useState('');
  const rows = useMemo(() => {
    const f = filter.trim().toLowerCase();
    return result.varbinds.filter((b) => !f || `${b.name} ${b.oid} ${b.display}`.toLowerCase().includes(f));
  }, [result, filter]);
  return html`<div class=${`walk-result ${cls}`}>
    <div class="walk-summary">
      <span><strong>${result.count}</strong> ${result.count === 1 ? 'value' : 'values'} from <span class="mono">${result.target}</span> (${result.version}) in ${ms(result.elapsed_ms)}</span>
      ${result.truncated ? html`<${Badge} tone="warn">truncated<//>` : null}
      <input type="search" class="walk-filter" placeholder="Filter" aria-label="Filter the values" value=${filter}
        onInput=${(e) => setFilter(e.currentTarget.value)} />
    </div>
    <${Table} columns=${COLUMNS} rows=${rows} rowKey="oid" caption="Walk results"
      empty=${html`<${EmptyState} icon="search" title=${result.count ? 'No value matches the filter' : 'The agent returned no values under these subtrees'} />`} />
  </div>`;
}
