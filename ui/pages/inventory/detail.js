// One inventory record: its fields (references as links, secrets only as stored or not), custom
// fields and notes, the records that point at it, its monitors with their status (an endpoint's: those on
// its addresses, found without a link, and those linked to it; each once, and not again among the links),
// links, and the change history. Edit and delete (a referenced record can be deleted with its references
// cleared). An endpoint's SNMP cards and interface table run the page's full width below the two columns:
// the interface table's figures do not fit one of them.
import { api } from '../../lib/api.js';
import { dateTime, relTime } from '../../lib/format.js';
import { html, useEffect, useMemo, useState } from '../../lib/html.js';
import { useApi } from '../../lib/hooks.js';
import { navigate } from '../../lib/router.js';
import { can, isAdmin, useSession } from '../../lib/session.js';
import { toast } from '../../lib/toast.js';
import { Badge } from '../../components/badge.js';
import { Crumbs } from '../../components/controls.js';
import { EmptyState, ErrorState, Loading } from '../../components/empty.js';
import { Icon } from '../../components/icons.js';
import { Card, Page } from '../../components/page.js';
import { deleteAsking } from './bulk.js';
import { CredentialUsageCard } from './credential-usage.js';
import { EndpointSnmp, NewMonitorLink } from './endpoint-extras.js';
import { HistoryCard } from './history.js';
import { LinksCard } from './links.js';
import { MonitorStatus } from './monitor-status.js';
import { SubnetAddressesCard } from './subnet-addresses.js';
import { visibleFields } from './record-form.js';
import { kindLabel, recordHref, roleLabel, typeDef, valueLabel } from './types.js';
import { VaultCard } from './vault.js';
import './section.js';

const OWN_CARDS = new Set(['description', 'tags', 'custom_fields', 'notes']);

/** The records this one refers to, by id: {short_id, name, type}. */
function useReferenced(def, rec) {
  const [byId, setById] = useState(new Map());
  const refs = useMemo(() => (rec ? def.fields.filter((f) => f.ref).flatMap((f) => [].concat(rec[f.name] ?? []).map((id) => [f.ref, id])) : []), [rec]);
  useEffect(() => {
    let live = true;
    Promise.all(refs.map(([type, id]) => api.get(`/api/brain/${type}/${id}`).then((r) => [id, { ...r, type }], () => null)))
      .then((list) => { if (live) setById(new Map(list.filter(Boolean))); });
    return () => { live = false; };
  }, [refs]);
  return byId;
}

function Value({ f, rec, refs }) {
  const v = rec[f.name];
  const none = html`<span class="muted">—</span>`;
  const link = (id) => {
    const r = refs.get(id);
    return r ? html`<a href=${recordHref(r.type, r)} class="ref-link"><span class="sid">${r.short_id}</span> ${r.name}</a>` : html`<span class="mono small">${id}</span>`;
  };
  switch (f.kind) {
    case 'secret': return v?.set ? html`<${Badge} tone="ok">Stored<//>` : html`<${Badge} tone="warn">Not set<//>`;
    case 'ref': return v ? link(v) : none;
    case 'refs': return v?.length ? html`<div class="chips">${v.map((id) => html`<span key=${id}>${link(id)}</span>`)}</div>` : none;
    case 'list': return v?.length ? html`<div class="mono">${v.map((x) => html`<div key=${x}>${x}</div>`)}</div>`
      : f.empty ? html`<span class="muted">${f.empty}</span>` : none;
    case 'dhcp': return v?.length ? html`<div class="mono">${v.map((d) => html`<div key=${d.start}>${d.start} – ${d.end}</div>`)}</div>` : none;
    case 'url': return v ? html`<a href=${v} target="_blank" rel="noopener noreferrer" class="mono">${v}</a>` : none;
    case 'email': return v ? html`<a href=${`mailto:${v}`}>${v}</a>` : none;
    // Text of several lines (an address) keeps its line breaks.
    case 'textarea': return v ? html`<span class="inv-lines">${v}</span>` : none;
    case 'select': {
      if (!v) return none;
      if (f.name === 'role') return roleLabel(v);
      if (f.name === 'kind') return kindLabel(v);
      return f.options.find((o) => o.value === v)?.label ?? valueLabel(v);
    }
    default: return v === null || v === undefined || v === '' ? none : f.mono ? html`<span class="mono">${String(v)}</span>` : String(v);
  }
}

/** Records of another type that point at this one (locations of a site, assets of an endpoint…). */
function Related({ rel, rec }) {
  const def = typeDef(rel.type);
  const r = useApi(`/api/brain/${rel.type}`, { query: { [rel.field]: rec.id, limit: 10 } });
  if (r.error) return html`<${Card} title=${rel.label}><${ErrorState} error=${r.error} /><//>`;
  if (!r.data || !r.data.total) return null;
  const more = r.data.total > r.data.items.length;
  return html`<${Card} title=${`${rel.label} (${r.data.total})`} pad=${false}
    actions=${more ? html`<a class="btn btn-sm btn-ghost" href=${`/inventory/${rel.type}?${rel.field}=${rec.short_id}`}>All<${Icon} name="chevron" size=${14} /></a>` : null}>
    <ul class="rows">${r.data.items.map((x) => html`<li key=${x.id} class="row">
      <div class="row-main"><a class="row-title" href=${recordHref(rel.type, x)}><span class="sid">${x.short_id}</span> ${x.name}</a></div>
      <span class="row-side muted small">${def.one}</span>
    </li>`)}</ul>
  <//>`;
}

/** How a monitor is tied to the record: it watches one of its addresses, or a link says so (then it can be unlinked). */
function MonitorTie({ m, writable, onUnlink }) {
  return html`<span class="muted small">${m.address ? html`on <span class="mono">${m.address}</span>` : null}${m.address && m.links.length ? ' · ' : ''}${
    m.links.length ? 'linked' : ''}</span>
    ${m.links.length && writable ? html`<button type="button" class="btn btn-sm btn-icon btn-ghost" onClick=${() => onUnlink(m)}
      aria-label=${`Remove the link to ${m.name}`} title="Remove link"><${Icon} name="trash" size=${15} /></button>` : null}`;
}

function Monitors({ def, rec, writable, onChange }) {
  const r = useApi(`/api/brain/${def.type}/${rec.id}/monitors`, { live: true });
  const unlink = async (m) => {
    try {
      for (const l of m.links) await api.del(`/api/brain/links/${l.id}`);
      toast.ok(`Unlinked ${m.name}`);
      r.reload();
      onChange();
    } catch (e) { toast.error(e); }
  };
  if (r.error) return html`<${Card} title="Monitors"><${ErrorState} error=${r.error} /><//>`;
  if (!r.data) return html`<${Card} title="Monitors"><${Loading} /><//>`;
  if (!r.data.total) {
    return html`<${Card} title="Monitors"><${EmptyState} icon="monitors" title="Nothing watches it">
      <p>${def.type === 'endpoints' ? 'A monitor whose target is one of its addresses shows here by itself; link one that checks a name or a URL.'
        : 'Link a monitor that checks it.'}</p><//><//>`;
  }
  return html`<${Card} title=${`Monitors (${r.data.total})`} pad=${false}>
    <ul class="rows">${r.data.items.map((m) => html`<li key=${m.id} class="row monitor-row">
      <${MonitorStatus} m=${m} />
      <div class="row-main"><a class="row-title" href=${`/monitors/${m.id}`}>${m.name}</a>
        <div class="row-sub"><span class="mono">${m.target}</span></div></div>
      <div class="row-side monitor-tie">
        <${MonitorTie} m=${m} writable=${writable} onUnlink=${unlink} />
        <span class="muted small" title=${dateTime(m.last_check)}>${m.last_check ? relTime(m.last_check) : ''}</span>
      </div>
    </li>`)}</ul>
  <//>`;
}

/** When the probe last saw an endpoint alive (its `watch`), for its record card. */
function LastSeen({ rec }) {
  const w = rec.watch;
  if (!w?.last_seen) return html`<span class="muted">Never seen</span>`;
  return html`<span title=${dateTime(w.last_seen)}>${relTime(w.last_seen)}</span>
    <span class="muted small"> · ${w.seen_by === 'discovery' ? 'found by a discovery scan' : 'a monitor found it up'}</span>`;
}

function CredentialUses({ rec }) {
  const r = useApi(`/api/brain/credentials/${rec.id}/scan`);
  if (!r.data?.items?.length) return null;
  return html`<${Card} title="Where it was tried" pad=${false}>
    <ul class="rows">${r.data.items.map((u, i) => html`<li key=${i} class="row">
      <${Badge} tone=${u.outcome === 'success' ? 'ok' : 'bad'}>${valueLabel(u.outcome)}<//>
      <div class="row-main"><div class="row-title mono">${u.target}</div><div class="row-sub">${u.protocol}${u.detail ? ` · ${u.detail}` : ''}</div></div>
      <time class="row-side muted small" datetime=${u.at}>${relTime(u.at)}</time>
    </li>`)}</ul>
  <//>`;
}

async function remove(def, rec) {
  const path = `/api/brain/${def.type}/${rec.id}`;
  const ok = await deleteAsking({ title: `Delete ${rec.short_id} ${rec.name}?`, confirmLabel: 'Delete',
    referencedTitle: `${rec.short_id} is still referenced`,
    message: `Its links are removed with it; its history stays readable. ${def.type === 'credentials' ? 'Its stored secrets are destroyed. ' : ''}This cannot be undone.`,
    run: (detach) => api.del(detach ? `${path}?detach=true` : path) });
  if (ok) toast.ok(`Deleted ${rec.short_id} ${rec.name}`);
  return ok;
}

function Record({ def, rec, reload }) {
  const s = useSession();
  const writable = def.type === 'credentials' ? isAdmin(s) : can(s, 'brain:write');
  const refs = useReferenced(def, rec);
  const fields = visibleFields(def, rec).filter((f) => !OWN_CARDS.has(f.name));
  const labels = Object.fromEntries(def.fields.map((f) => [f.name, f.label]));
  const names = new Map([...refs].map(([id, r]) => [id, `${r.short_id} ${r.name}`]));
  const custom = Object.entries(rec.custom_fields ?? {});
  // A new or removed link can change the linked monitors: their card loads again.
  const [links, setLinks] = useState(0);

  const del = async () => {
    try { if (await remove(def, rec)) navigate(`/inventory/${def.type}`); } catch (e) { toast.error(e); }
  };
  const actions = writable ? html`
    ${def.type === 'endpoints' ? html`<${NewMonitorLink} rec=${rec} />` : null}
    <a class="btn" href=${`${recordHref(def.type, rec)}/edit`}><${Icon} name="edit" size=${16} />Edit</a>
    <button type="button" class="btn btn-icon" onClick=${del} aria-label=${`Delete ${rec.name}`} title="Delete"><${Icon} name="trash" size=${16} /></button>`
    : def.type === 'endpoints' ? html`<${NewMonitorLink} rec=${rec} />` : null;
  const crumbs = [{ href: '/inventory', label: 'Inventory' }, { href: `/inventory/${def.type}`, label: def.label }, { label: rec.short_id, mono: true }];

  return html`<${Page} title=${rec.name} subtitle=${html`<${Crumbs} items=${crumbs} />`} actions=${actions}>
    ${def.type === 'credentials' ? html`<${VaultCard} onChange=${reload} />` : null}
    <div class="inv-grid">
      <div class="inv-col">
        <${Card} title=${html`<span class="sid sid-lg">${rec.short_id}</span> ${def.one.replace(/^./, (c) => c.toUpperCase())}`}>
          ${rec.description ? html`<p class="inv-desc">${rec.description}</p>` : null}
          <dl class="dl inv-dl">${fields.map((f) => html`<dt key=${`${f.name}-t`}>${f.label}</dt><dd key=${`${f.name}-d`}><${Value} f=${f} rec=${rec} refs=${refs} /></dd>`)}
            ${def.type === 'endpoints' ? html`<dt>Last seen</dt><dd><${LastSeen} rec=${rec} /></dd>` : null}
            <dt>Tags</dt><dd>${rec.tags.length ? html`<div class="chips">${rec.tags.map((t) => html`<${Badge} key=${t}>${t}<//>`)}</div>` : html`<span class="muted">—</span>`}</dd>
            <dt>Created</dt><dd>${dateTime(rec.created_at)}</dd>
            <dt>Changed</dt><dd>${dateTime(rec.updated_at)}</dd>
          </dl>
        <//>
        ${custom.length ? html`<${Card} title="Custom fields"><dl class="dl">${custom.map(([k, v]) => html`<dt key=${`${k}-t`}>${k}</dt><dd key=${`${k}-d`}>${v === null ? '—' : String(v)}</dd>`)}</dl><//>` : null}
        ${rec.notes ? html`<${Card} title="Notes"><div class="inv-notes">${rec.notes}</div><//>` : null}
        ${def.type === 'subnets' ? html`<${SubnetAddressesCard} rec=${rec} />` : null}
        ${def.related.map((r) => html`<${Related} key=${r.type} rel=${r} rec=${rec} />`)}
      </div>
      <div class="inv-col">
        ${def.monitors ? html`<${Monitors} key=${links} def=${def} rec=${rec} writable=${can(s, 'brain:write')}
          onChange=${() => setLinks((n) => n + 1)} />` : null}
        ${def.type === 'credentials' ? html`<${CredentialUsageCard} rec=${rec} admin=${writable} onChange=${reload} />` : null}
        ${def.type === 'credentials' ? html`<${CredentialUses} rec=${rec} />` : null}
        <${LinksCard} key=${`links-${links}`} type=${def.type} rec=${rec} writable=${can(s, 'brain:write')} monitorsShown=${!!def.monitors}
          onChange=${() => setLinks((n) => n + 1)} />
        <${HistoryCard} key=${`history-${links}`} type=${def.type} id=${rec.id} labels=${labels} names=${names} />
      </div>
    </div>
    ${def.type === 'endpoints' ? html`<${EndpointSnmp} key=${rec.updated_at} rec=${rec} />` : null}
  <//>`;
}

export default function InventoryDetailPage({ params }) {
  const def = typeDef(params.type);
  const r = useApi(def ? `/api/brain/${def.type}/${encodeURIComponent(params.id)}` : null);
  if (!def || (r.error?.status === 404)) {
    return html`<${Page} title="Not found"><${Card}><${EmptyState} icon="search" title=${def ? `There is no ${def.one} ${params.id}` : 'There is no such inventory type'}
      action=${html`<a class="btn btn-primary" href=${def ? `/inventory/${def.type}` : '/inventory'}>${def ? `All ${def.label.toLowerCase()}` : 'Inventory'}</a>`}>
      <p>It may have been deleted; its history is still kept.</p><//><//><//>`;
  }
  if (r.error) return html`<${Page} title=${def.label}><${ErrorState} error=${r.error} retry=${r.reload} /><//>`;
  if (!r.data) return html`<${Page} title=${def.label}><${Card}><${Loading} /><//><//>`;
  return html`<${Record} def=${def} rec=${r.data} reload=${r.reload} />`;
}
