// Create and edit an inventory record of any type: the type's fields grouped in cards, references as
// pickers of the referenced records, and for credentials the vault's state beside the write-only
// secrets. The API's messages appear beside the fields they name (cidr, dhcp_ranges.0.end, …), each once.
import { api } from '../../lib/api.js';
import { useForm } from '../../lib/form.js';
import { html } from '../../lib/html.js';
import { useApi } from '../../lib/hooks.js';
import { navigate } from '../../lib/router.js';
import { can, isAdmin, useSession } from '../../lib/session.js';
import { toast } from '../../lib/toast.js';
import { Crumbs } from '../../components/controls.js';
import { EmptyState, ErrorState, Loading } from '../../components/empty.js';
import { FormError } from '../../components/field.js';
import { Card, Page } from '../../components/page.js';
import { RecordField } from './fields.js';
import { toBody, toForm, visibleFields } from './record-form.js';
import { useLookup } from './section.js';
import { recordHref, typeDef } from './types.js';
import { VaultCard } from './vault.js';

const GROUPS = [
  { id: undefined, title: 'Details' },
  { id: 'where', title: 'Where it is' },
  { id: 'contact', title: 'Contact' },
  { id: 'secrets', title: 'Secrets' },
  { id: 'more', title: 'Tags, custom fields and notes' },
];

/** Lookups for every referenced type of the form (hooks in a fixed order: one per possible type). */
function useLookups(def) {
  const wants = new Set(def.fields.filter((f) => f.ref).map((f) => f.ref));
  const sites = useLookup(wants.has('sites') ? 'sites' : null);
  const locations = useLookup(wants.has('locations') ? 'locations' : null);
  const endpoints = useLookup(wants.has('endpoints') ? 'endpoints' : null);
  const credentials = useLookup(wants.has('credentials') ? 'credentials' : null);
  return { sites, locations, endpoints, credentials };
}

function RecordForm({ def, rec }) {
  const admin = isAdmin(useSession());
  const path = def.type === 'credentials' ? '/api/brain/credentials' : `/api/brain/${def.type}`;
  // Each field is checked as it is left against the server's schema of this request.
  const form = useForm(toForm(def, rec), { request: rec ? `PUT ${path}/${rec.id}` : `POST ${path}` });
  const lookups = useLookups(def);
  const fields = visibleFields(def, form.values);
  const back = rec ? recordHref(def.type, rec) : `/inventory/${def.type}`;

  const onSubmit = form.submit(async (v) => {
    const body = toBody(def, v, rec);
    if (rec && !Object.keys(body).length) { toast.info('Nothing changed'); navigate(back); return; }
    const saved = rec ? await api.put(`${path}/${rec.id}`, body) : await api.post(path, body);
    toast.ok(`${rec ? 'Saved' : 'Created'} ${saved.short_id} ${saved.name}`);
    navigate(recordHref(def.type, saved));
  });

  return html`<form onSubmit=${onSubmit} novalidate class="inv-form">
    <${FormError} form=${form} />
    ${GROUPS.map((g) => {
      const list = fields.filter((f) => f.group === g.id);
      if (!list.length) return null;
      return html`<${Card} key=${g.title} title=${g.title}>
        ${g.id === 'secrets' ? html`<${VaultCard} />` : null}
        <div class="form-grid">${list.map((f) => html`<${RecordField} key=${f.name} form=${form} f=${f} lookups=${lookups} rec=${rec} admin=${admin} />`)}</div>
      <//>`;
    })}
    <div class="form-actions form-actions-bar">
      <a class="btn" href=${back}>Cancel</a>
      <button type="submit" class="btn btn-primary" disabled=${form.busy}>${form.busy ? 'Saving…' : rec ? 'Save changes' : `Create ${def.one}`}</button>
    </div>
  </form>`;
}

export default function InventoryFormPage({ params }) {
  const s = useSession();
  const def = typeDef(params.type);
  const editing = params.id !== undefined;
  const rec = useApi(def && editing ? `/api/brain/${def.type}/${encodeURIComponent(params.id)}` : null);
  if (!def) {
    return html`<${Page} title="Inventory"><${Card}><${EmptyState} icon="search" title="There is no such inventory type"
      action=${html`<a class="btn btn-primary" href="/inventory">Inventory</a>`} /><//><//>`;
  }
  const allowed = def.type === 'credentials' ? isAdmin(s) : can(s, 'brain:write');
  const title = editing ? (rec.data ? `Edit ${rec.data.name}` : `Edit ${def.one}`) : `New ${def.one}`;
  const crumbs = [{ href: '/inventory', label: 'Inventory' }, { href: `/inventory/${def.type}`, label: def.label },
    ...(rec.data ? [{ href: recordHref(def.type, rec.data), label: rec.data.short_id }] : [])];
  return html`<${Page} title=${title} subtitle=${html`<${Crumbs} items=${crumbs} />`}>
    ${!allowed ? html`<${Card}><${EmptyState} icon="lock" title="Not allowed">
        <p>${def.type === 'credentials' ? 'Only administrators change credentials.' : 'Changing the inventory needs the brain:write scope.'}</p><//><//>`
      : rec.error ? html`<${ErrorState} error=${rec.error} retry=${rec.reload} />`
        : editing && !rec.data ? html`<${Card}><${Loading} /><//>`
          : html`<${RecordForm} key=${rec.data?.id ?? 'new'} def=${def} rec=${rec.data ?? null} />`}
  <//>`;
}
