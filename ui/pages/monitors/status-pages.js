// Status pages (GET /api/monitors/status-pages): public pages at /status/<slug> that show chosen monitors'
// states and 90 days of uptime to people who cannot sign in. The list links each page's public address;
// new and edit in a dialog whose fields are the API's: title, address (slug, made from the title until it
// is typed), description, a notice of the page's own, whether maintenance windows touching its monitors are
// announced and whether the probe's logo shows, and groups of monitors, each with the name readers see
// (an alias; empty: the monitor's own). What a page shows and never shows: docs/monitors.md, "Status pages".
import { api } from '../../lib/api.js';
import { confirm } from '../../lib/confirm.js';
import { useForm } from '../../lib/form.js';
import { html, useEffect, useRef, useState } from '../../lib/html.js';
import { useApi } from '../../lib/hooks.js';
import { can, useSession } from '../../lib/session.js';
import { toast } from '../../lib/toast.js';
import { EmptyState, ErrorState, Loading } from '../../components/empty.js';
import { CheckField, Field, FormError, TextArea } from '../../components/field.js';
import { Icon } from '../../components/icons.js';
import { Modal } from '../../components/modal.js';
import { Card, Page } from '../../components/page.js';
import { Table } from '../../components/table.js';
import { MonitorTabs } from './section.js';

/** An address made from a title: "Our services!" -> "our-services". */
export function slugOf(title) {
  return String(title ?? '').normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase().replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '').slice(0, 63).replace(/-+$/, '');
}

const FIELDS = ['title', 'slug', 'description', 'notice', 'show_logo', 'show_maintenance', 'groups'];

function toForm(page) {
  return page ? {
    title: page.title, slug: page.slug, description: page.description, notice: page.notice, show_logo: page.show_logo,
    show_maintenance: page.show_maintenance, groups: page.groups.map((g) => ({ name: g.name, monitors: g.monitors.map((m) => ({ ...m })) })),
  } : { title: '', slug: '', description: '', notice: '', show_logo: true, show_maintenance: true, groups: [{ name: 'Services', monitors: [] }] };
}

/** The request body: every field for a new page, the changed ones for an edit. */
function toBody(values, initial) {
  const out = {};
  for (const k of FIELDS) {
    const v = k === 'groups' ? values.groups.map((g) => ({ name: g.name, monitors: g.monitors.map((m) => ({ id: m.id, alias: m.alias })) }))
      : values[k];
    if (!initial || JSON.stringify(v) !== JSON.stringify(initial[k])) out[k] = v;
  }
  return out;
}

const countOf = (p) => p.groups.reduce((n, g) => n + g.monitors.length, 0);

/** The groups as rows: a name each, its monitors in order with the name readers see, and a select that adds one. */
function GroupsField({ form, name, monitors }) {
  const groups = form.values[name] ?? [];
  const parts = form.partErrors(name);
  const errorOf = (part) => parts.find((e) => e.part === part || e.part.startsWith(`${part}.`))?.message;
  const own = form.fieldErrors?.[name];
  form.label?.(name, 'Groups');
  const set = (next) => form.set(name, next);
  const setGroup = (i, g) => set(groups.map((x, k) => (k === i ? g : x)));
  const move = (list, i, d) => { const next = [...list]; [next[i], next[i + d]] = [next[i + d], next[i]]; return next; };
  const nameOf = (id) => monitors.find((m) => m.id === id)?.name ?? 'a deleted monitor';
  const onPage = new Set(groups.flatMap((g) => g.monitors.map((m) => m.id)));
  const free = monitors.filter((m) => !onPage.has(m.id));
  return html`<fieldset class="field field-group sp-groups" aria-invalid=${own ? 'true' : undefined}>
    <legend>Groups</legend>
    <div class="field-hint">Each group is a section of the page. Readers see the name you give a monitor here, else its own name,
      and never its target, tags or messages.</div>
    ${groups.map((g, i) => html`<div class="sp-group" key=${i}>
      <div class="sp-group-head">
        <input type="text" value=${g.name} aria-label=${`Name of group ${i + 1}`} placeholder="Group name" maxlength="100"
          aria-invalid=${errorOf(`${i}.name`) ? 'true' : undefined} onInput=${(e) => setGroup(i, { ...g, name: e.currentTarget.value })} />
        <button type="button" class="btn btn-sm btn-icon btn-ghost" disabled=${i === 0} aria-label=${`Move group ${i + 1} up`} title="Move up"
          onClick=${() => set(move(groups, i, -1))}><${Icon} name="chevron" size=${15} class="sp-up" /></button>
        <button type="button" class="btn btn-sm btn-icon btn-ghost" aria-label=${`Remove group ${i + 1}`} title="Remove group"
          onClick=${() => set(groups.filter((_, k) => k !== i))}><${Icon} name="trash" size=${15} /></button>
      </div>
      ${errorOf(`${i}.name`) ? html`<div class="field-error">${errorOf(`${i}.name`)}</div>` : null}
      ${g.monitors.length ? html`<ul class="sp-monitors">${g.monitors.map((m, j) => html`<li key=${m.id}>
          <span class="sp-mon-name clip" title=${nameOf(m.id)}>${nameOf(m.id)}</span>
          <input type="text" value=${m.alias} placeholder=${nameOf(m.id)} maxlength="100" aria-label=${`Name readers see for ${nameOf(m.id)}`}
            onInput=${(e) => setGroup(i, { ...g, monitors: g.monitors.map((x, k) => (k === j ? { ...x, alias: e.currentTarget.value } : x)) })} />
          <button type="button" class="btn btn-sm btn-icon btn-ghost" disabled=${j === 0} aria-label=${`Move ${nameOf(m.id)} up`} title="Move up"
            onClick=${() => setGroup(i, { ...g, monitors: move(g.monitors, j, -1) })}><${Icon} name="chevron" size=${15} class="sp-up" /></button>
          <button type="button" class="btn btn-sm btn-icon btn-ghost" aria-label=${`Remove ${nameOf(m.id)} from the page`} title="Remove"
            onClick=${() => setGroup(i, { ...g, monitors: g.monitors.filter((_, k) => k !== j) })}><${Icon} name="close" size=${14} /></button>
          ${errorOf(`${i}.monitors.${j}`) ? html`<div class="field-error sp-row-error">${errorOf(`${i}.monitors.${j}`)}</div>` : null}
        </li>`)}</ul>` : html`<div class="muted small sp-none">No monitors in this group yet.</div>`}
      <select value="" aria-label=${`Add a monitor to group ${i + 1}`} disabled=${!free.length}
        onChange=${(e) => { const id = e.currentTarget.value; e.currentTarget.value = ''; if (id) setGroup(i, { ...g, monitors: [...g.monitors, { id, alias: '' }] }); }}>
        <option value="">${free.length ? 'Add a monitor…' : 'Every monitor is on the page'}</option>
        ${free.map((m) => html`<option key=${m.id} value=${m.id}>${m.name}</option>`)}
      </select>
    </div>`)}
    <button type="button" class="btn btn-sm" onClick=${() => set([...groups, { name: '', monitors: [] }])}>
      <${Icon} name="plus" size=${15} />Add group</button>
    ${own ? html`<div class="field-error">${own}</div>` : null}
  </fieldset>`;
}

function PageForm({ page, monitors, onDone, onCancel }) {
  const [initial] = useState(() => toForm(page));
  const form = useForm(initial, { request: page ? `PUT /api/monitors/status-pages/${page.id}` : 'POST /api/monitors/status-pages' });
  const v = form.values;
  // A new page's address follows its title until it is typed in.
  const lastTitle = useRef(v.title);
  useEffect(() => {
    if (!page && (v.slug === '' || v.slug === slugOf(lastTitle.current))) form.set('slug', slugOf(v.title));
    lastTitle.current = v.title;
  }, [v.title]);

  const onSubmit = form.submit(async (vals) => {
    if (!page) {
      onDone(await api.post('/api/monitors/status-pages', toBody(vals)), true);
      return;
    }
    const body = toBody(vals, initial);
    onDone(Object.keys(body).length ? await api.put(`/api/monitors/status-pages/${page.id}`, body) : page, false);
  });

  return html`<${Modal} title=${page ? `Edit ${page.title}` : 'New status page'} onClose=${onCancel} size="lg"
    footer=${html`
      <button type="button" class="btn" onClick=${onCancel}>Cancel</button>
      <button type="submit" form="status-page-form" class="btn btn-primary" disabled=${form.busy}>
        ${form.busy ? 'Saving…' : page ? 'Save' : 'Create page'}</button>`}>
    <form id="status-page-form" class="sp-form" onSubmit=${onSubmit} novalidate>
      <${FormError} form=${form} />
      <div class="grid-2">
        <${Field} form=${form} name="title" label="Title" required placeholder="Example Ltd services" maxlength="100" />
        <${Field} form=${form} name="slug" label="Address" required class="mono-input" spellcheck="false" autocomplete="off"
          hint=${`Readers open ${location.origin}/status/${v.slug || '…'}`} />
      </div>
      <${Field} form=${form} name="description" label="Description" hint="Optional: one line under the title." maxlength="500" />
      <${TextArea} form=${form} name="notice" label="Notice" rows=${2}
        hint="Optional: shown at the top of the page, as plain text (“Phones are answered 08:00–18:00”)." />
      <div class="grid-2">
        <${CheckField} form=${form} name="show_maintenance" label="Announce maintenance"
          hint="Windows that touch the page's monitors, open now or opening within 7 days, with their times (never their names)." />
        <${CheckField} form=${form} name="show_logo" label="Show the logo" hint="The probe's logo (Settings, Appearance), when one is uploaded." />
      </div>
      <${GroupsField} form=${form} name="groups" monitors=${monitors} />
    </form>
  <//>`;
}

export default function StatusPagesPage() {
  const s = useSession();
  const writable = can(s, 'monitors:write');
  const pages = useApi('/api/monitors/status-pages');
  const monitors = useApi('/api/monitors');
  const [editing, setEditing] = useState(null);
  const [busy, setBusy] = useState(false);
  const list = monitors.data?.monitors ?? [];

  const remove = (p) => async () => {
    const ok = await confirm({ title: `Delete ${p.title}?`, confirmLabel: 'Delete page', danger: true,
      message: `Its address ${p.url} stops answering at once; the monitors stay as they are.` });
    if (!ok) return;
    setBusy(true);
    try {
      await api.del(`/api/monitors/status-pages/${p.id}`);
      toast.ok(`Deleted ${p.title}`);
      pages.reload();
    } catch (e) { toast.error(e); } finally { setBusy(false); }
  };

  const columns = [
    { key: 'title', label: 'Page', render: (p) => html`<span class="cell-title">${p.title}</span>
      <div class="cell-sub"><a href=${p.url} target="_blank" rel="noopener" class="mono">${p.url}</a></div>
      ${p.description ? html`<div class="cell-sub clip-2" title=${p.description}>${p.description}</div>` : null}` },
    { key: 'monitors', label: 'Monitors', render: (p) => html`<span>${countOf(p)} in ${p.groups.length} ${p.groups.length === 1 ? 'group' : 'groups'}</span>` },
    { key: 'notices', label: 'Notices', render: (p) => html`<div class="chips">
      ${p.show_maintenance ? html`<span class="badge status-maintenance">Maintenance</span>` : null}
      ${p.notice ? html`<span class="badge tone-neutral clip" title=${p.notice}>Own notice</span>` : null}
      ${!p.show_maintenance && !p.notice ? html`<span class="muted">—</span>` : null}</div>` },
    { key: 'actions', label: 'Actions', class: 'actions-col', hideLabel: true, render: (p) => html`<div class="actions">
      <a class="btn btn-sm" href=${p.url} target="_blank" rel="noopener" aria-label=${`Open ${p.title}`}><${Icon} name="external" size=${15} />Open</a>
      ${writable ? html`<button type="button" class="btn btn-sm btn-icon" onClick=${() => setEditing(p)} aria-label=${`Edit ${p.title}`} title="Edit">
          <${Icon} name="edit" size=${15} /></button>
        <button type="button" class="btn btn-sm btn-icon" onClick=${remove(p)} disabled=${busy} aria-label=${`Delete ${p.title}`} title="Delete">
          <${Icon} name="trash" size=${15} /></button>` : null}
    </div>` },
  ];

  const newButton = writable ? html`<button type="button" class="btn btn-primary" onClick=${() => setEditing('new')} disabled=${!monitors.data}>
    <${Icon} name="plus" />New status page</button>` : null;
  const done = (saved, created) => {
    setEditing(null);
    toast.ok(`${created ? 'Created' : 'Saved'} ${saved.title}: readers find it at ${saved.url}`);
    pages.reload();
  };

  return html`<${Page} title="Status pages" subtitle="Public pages with chosen monitors' states and 90 days of uptime; no sign-in needed to read them"
    actions=${newButton}>
    <${MonitorTabs} active="/monitors/status-pages" />
    ${pages.error ? html`<${ErrorState} error=${pages.error} retry=${pages.reload} />`
      : !pages.data ? html`<${Card}><${Loading} /><//>`
        : html`<${Card} pad=${false}>
            <${Table} columns=${columns} rows=${pages.data.items} caption="Status pages"
              empty=${html`<${EmptyState} icon="external" title="No status pages" action=${newButton}>
                <p>A status page shows the monitors you choose to anyone with its address, without signing in: their state now and
                  their uptime over 90 days, and planned maintenance. Never their targets, tags or messages.</p><//>`} />
          <//>`}
    ${editing ? html`<${PageForm} key=${editing === 'new' ? 'new' : editing.id} page=${editing === 'new' ? null : editing}
      monitors=${list} onDone=${done} onCancel=${() => setEditing(null)} />` : null}
  <//>`;
}
