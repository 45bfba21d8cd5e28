// The Vendors tab: the built-in vendor profiles in match order (how devices are recognised, which
// operating systems a profile tells apart).
import { html } from '../../lib/html.js';
import { useApi } from '../../lib/hooks.js';
import { Badge } from '../../components/badge.js';
import { ErrorState, Loading } from '../../components/empty.js';
import { Card } from '../../components/page.js';
import { Table } from '../../components/table.js';

/** The operating systems a profile tells apart (two variants may share one OS name). */
function variantChips(v) {
  const names = [...new Set((v.variants ?? []).map((x) => x.os ?? x.key))];
  return names.length ? html`<div class="chips">${names.map((n) => html`<${Badge} key=${n}>${n}<//>`)}</div>` : '—';
}

const COLUMNS = [
  { key: 'name', label: 'Vendor', render: (v) => html`<div class="cell-title">${v.name}</div><div class="cell-sub">${v.manufacturer}</div>` },
  { key: 'kind', label: 'Kind', render: (v) => html`<${Badge} tone="accent">${v.kind}<//>` },
  { key: 'variants', label: 'Variants', render: variantChips },
  { key: 'description', label: 'Recognises', render: (v) => html`<span class="muted">${v.description}</span>` },
];

export default function VendorsSection() {
  const vendors = useApi('/api/snmp/vendors');
  return html`<${Card} title="Vendor profiles" pad=${false}>
    ${vendors.error ? html`<${ErrorState} error=${vendors.error} retry=${vendors.reload} />`
      : vendors.data ? html`<${Table} columns=${COLUMNS} rows=${vendors.data.items} rowKey="key" caption="SNMP vendor profiles" />`
        : html`<${Loading} />`}
  <//>`;
}
