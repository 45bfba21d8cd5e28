// The links of a record to any other record or to a monitor (runs on, connected to, depends on,
// located in, monitored by), read in the direction that makes sense from this record; add and remove.
// Where the page lists the record's monitors in a card of their own (endpoints, applications), links to
// monitors are shown there, not here again.
import { api } from '../../lib/api.js';
import { useForm } from '../../lib/form.js';
import { html, useState } from '../../lib/html.js';
import { useApi } from '../../lib/hooks.js';
import { toast } from '../../lib/toast.js';
import { LINK_RELATIONS as RELATIONS } from '../../lib/vocabulary.js';
import { EmptyState, ErrorState, Loading } from '../../components/empty.js';
import { XIcon } from '../../components/extra-icons.js';
import { Field, FormError, SelectField } from '../../components/field.js';
import { Icon } from '../../components/icons.js';
import { Card } from '../../components/page.js';
import { useLookup } from './section.js';
import { LINK_TARGETS, recordHref, typeDef } from './types.js';


function sideHref(side) {
  return side.type === 'monitors' ? `/monitors/${side.id}` : recordHref(side.type, side);
}

function AddLink({ type, rec, onDone, onCancel }) {
  const form = useForm({ relation: 'connected_to', 'to.type': 'endpoints', 'to.id': '', note: '' });
  const target = form.values['to.type'];
  const lookup = useLookup(target === 'monitors' ? null : target);
  const monitors = useApi(target === 'monitors' ? '/api/monitors' : null);
  const options = target === 'monitors'
    ? (monitors.data?.monitors ?? []).map((m) => ({ value: m.id, label: m.name }))
    : (lookup.items ?? []).filter((r) => r.id !== rec.id).map((r) => ({ value: r.id, label: `${r.short_id} · ${r.name}` }));
  const canList = target === 'monitors' ? !!monitors.data : lookup.items && lookup.complete;

  const onSubmit = form.submit(async (v) => {
    const body = { from: { type, id: rec.id }, to: { type: v['to.type'], id: v['to.id'].trim() }, relation: v.relation };
    if (v.note.trim()) body.note = v.note.trim();
    await api.post('/api/brain/links', body);
    toast.ok('Link added');
    onDone();
  });
  return html`<form class="link-form" onSubmit=${onSubmit} novalidate>
    <${FormError} form=${form} />
    <div class="grid-2">
      <${SelectField} form=${form} name="relation" label="This record" options=${Object.entries(RELATIONS).map(([value, [label]]) => ({ value, label }))} />
      <${SelectField} form=${form} name="to.type" label="Kind of record" options=${LINK_TARGETS} />
    </div>
    ${canList ? html`<${SelectField} form=${form} name="to.id" label=${target === 'monitors' ? 'Monitor' : typeDef(target)?.one.replace(/^./, (c) => c.toUpperCase())}
        options=${[{ value: '', label: options.length ? 'Choose…' : 'Nothing to link yet' }, ...options]} />`
      : html`<${Field} form=${form} name="to.id" label="Short ID or UUID" placeholder="EP-3" spellcheck="false" />`}
    <${Field} form=${form} name="note" label="Note" placeholder="Optional" />
    <div class="form-actions">
      <button type="button" class="btn" onClick=${onCancel}>Cancel</button>
      <button type="submit" class="btn btn-primary" disabled=${form.busy}>${form.busy ? 'Adding…' : 'Add link'}</button>
    </div>
  </form>`;
}

/** `onChange` runs after a link was added or removed; `monitorsShown`: the page lists linked monitors elsewhere. */
export function LinksCard({ type, rec, writable, onChange, monitorsShown = false }) {
  const links = useApi(`/api/brain/links/${type}/${rec.id}`);
  const items = (links.data?.items ?? []).filter((l) => !monitorsShown || (l.from.id === rec.id ? l.to : l.from).type !== 'monitors');
  const [adding, setAdding] = useState(false);
  const remove = async (l) => {
    try {
      await api.del(`/api/brain/links/${l.id}`);
      toast.ok('Link removed');
      links.reload();
      onChange?.();
    } catch (e) { toast.error(e); }
  };
  const actions = writable && !adding
    ? html`<button type="button" class="btn btn-sm" onClick=${() => setAdding(true)}><${XIcon} name="link" size=${15} />Add link</button>` : null;
  return html`<${Card} title="Links" actions=${actions} pad=${false}>
    ${adding ? html`<div class="card-section"><${AddLink} type=${type} rec=${rec} onCancel=${() => setAdding(false)}
      onDone=${() => { setAdding(false); links.reload(); onChange?.(); }} /></div>` : null}
    ${links.error ? html`<${ErrorState} error=${links.error} retry=${links.reload} />`
      : !links.data ? html`<${Loading} />`
        : !items.length ? (adding ? null : html`<${EmptyState} icon="info" title="No links">
            <p>${monitorsShown ? 'Link this record to what it runs on, connects to or depends on; linked monitors are listed with its monitors.'
              : 'Link this record to what it runs on, connects to, depends on or is monitored by.'}</p><//>`)
          : html`<ul class="rows">
              ${items.map((l) => {
                const outgoing = l.from.id === rec.id;
                const other = outgoing ? l.to : l.from;
                const words = RELATIONS[l.relation]?.[outgoing ? 0 : 1] ?? l.relation;
                return html`<li key=${l.id} class="row">
                  <${XIcon} name=${other.type === 'monitors' ? 'monitors' : typeDef(other.type)?.icon ?? 'inventory'} size=${18} class="muted" />
                  <div class="row-main">
                    <div class="row-sub">${words}</div>
                    <a class="row-title" href=${sideHref(other)}>${other.short_id ? html`<span class="sid">${other.short_id}</span> ` : null}${other.name}</a>
                    ${l.note ? html`<div class="row-sub">${l.note}</div>` : null}
                  </div>
                  ${writable ? html`<button type="button" class="btn btn-sm btn-icon btn-ghost" onClick=${() => remove(l)}
                    aria-label=${`Remove the link to ${other.name}`} title="Remove link"><${Icon} name="trash" size=${15} /></button>` : null}
                </li>`;
              })}
            </ul>`}
  <//>`;
}
