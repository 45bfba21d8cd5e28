// SSH targets (/discovery/ssh-targets): the devices SSH enrichment logs in to, by name: address and port,
// platform, the stored credential they name, the pinned host key, when they were last enriched and the
// last error (under the last success). Add, edit and delete in a dialog; "Enrich now" for one or all, followed on the page
// (?enrich=<job id>); search and a tag filter kept in the URL.
import { count } from '../../lib/format.js';
import { html, useState } from '../../lib/html.js';
import { useApi, useDebounced } from '../../lib/hooks.js';
import { navigate, setQuery } from '../../lib/router.js';
import { can, useSession } from '../../lib/session.js';
import { toast } from '../../lib/toast.js';
import { SearchBox } from '../../components/controls.js';
import { EmptyState, ErrorState, Loading } from '../../components/empty.js';
import { Icon } from '../../components/icons.js';
import { Card, Page } from '../../components/page.js';
import { Pager, Table } from '../../components/table.js';
import { EnrichProgress, enrichJobOf, useEnrichJob } from './enrich.js';
import { DiscoveryTabs } from './section.js';
import {
  CredentialCell, deleteTarget, enrichTargets, ErrorCell, KeyCell, LastEnrichedCell, PlatformCell,
} from './ssh-target-parts.js';
import { TargetDialog } from './ssh-target-form.js';

const LIMIT = 100;

export default function SshTargetsPage({ query }) {
  const s = useSession();
  const writable = can(s, 'v1sion:write');
  const offset = Number(query.offset) || 0;
  const q = useDebounced((query.q ?? '').trim(), 250);
  const list = useApi('/api/v1sion/ssh-targets', { query: { q, tag: query.tag, limit: LIMIT, offset } });
  const [dialog, setDialog] = useState(null); // {target?} | null
  const job = enrichJobOf(query);
  const follow = useEnrichJob(job, () => list.reload());
  const running = follow.run?.state === 'running';
  const busy = new Set(running ? (follow.run?.targets ?? []).map((t) => t.id) : []);

  const enrich = async (ids) => {
    const id = await enrichTargets(ids);
    if (id) setQuery({ enrich: id });
  };
  const saved = (t, isNew) => {
    setDialog(null);
    toast.ok(isNew ? `Added ${t.name}` : `Saved ${t.name}`);
    if (isNew) navigate(`/discovery/ssh-targets/${t.id}`); else list.reload();
  };
  const remove = async (t) => { if (await deleteTarget(t)) list.reload(); };

  const columns = [
    { key: 'name', label: 'Target', render: (t) => html`<div class="disc-name-cell disc-target-cell">
      <a href=${`/discovery/ssh-targets/${t.id}`} class="cell-title">${t.name}</a>
      <div class="cell-sub mono">${t.host}:${t.port}</div>
      ${t.tags.length ? html`<div class="chips disc-tags">${t.tags.map((g) => html`<a key=${g} class="disc-tag" href=${`/discovery/ssh-targets?tag=${encodeURIComponent(g)}`}
        aria-label=${`Only targets tagged ${g}`}>${g}</a>`)}</div>` : null}</div>` },
    { key: 'platform', label: 'Platform', render: (t) => html`<${PlatformCell} t=${t} />` },
    { key: 'credential', label: 'Credential', render: (t) => html`<${CredentialCell} t=${t} />` },
    { key: 'host_key', label: 'Host key', render: (t) => html`<${KeyCell} t=${t} />` },
    { key: 'last_enriched_at', label: 'Last enriched', render: (t) => html`<div class="disc-last-cell"><${LastEnrichedCell} t=${t} />
      ${t.last_error ? html`<${ErrorCell} t=${t} />` : null}</div>` },
    ...(writable ? [{ key: 'actions', label: 'Actions', class: 'actions-col', hideLabel: true, render: (t) => html`<div class="actions">
      <button type="button" class="btn btn-sm" onClick=${() => enrich([t.id])} disabled=${busy.has(t.id)}
        aria-label=${`Enrich now: ${t.name}`} title="Log in and read what the device says"><${Icon} name="refresh" size=${15} />Enrich now</button>
      <button type="button" class="btn btn-sm btn-icon" onClick=${() => setDialog({ target: t })} aria-label=${`Edit ${t.name}`} title="Edit"><${Icon} name="edit" size=${15} /></button>
      <button type="button" class="btn btn-sm btn-icon" onClick=${() => remove(t)} aria-label=${`Delete ${t.name}`} title="Delete"><${Icon} name="trash" size=${15} /></button>
    </div>` }] : []),
  ];

  const items = list.data?.items ?? [];
  const actions = writable ? html`
    ${items.length > 1 ? html`<button type="button" class="btn" onClick=${() => enrich(items.map((t) => t.id))} disabled=${running}>
      <${Icon} name="refresh" size=${16} />${list.data.total > items.length ? 'Enrich these' : 'Enrich all'} (${count(items.length)})</button>` : null}
    <button type="button" class="btn btn-primary" onClick=${() => setDialog({})}><${Icon} name="plus" size=${16} />Add target</button>` : null;
  const filtered = q || query.tag;

  return html`<${Page} title="Discovery" subtitle="SSH targets: devices to log in to and read, with a stored credential" actions=${actions}>
    <${DiscoveryTabs} active="/discovery/ssh-targets" />
    ${job ? html`<${EnrichProgress} jobId=${job} follow=${follow} writable=${writable} onClose=${() => setQuery({ enrich: '' })} />` : null}
    <${Card} pad=${false} class="disc-table-card">
      <div class="disc-toolbar">
        <${SearchBox} value=${query.q ?? ''} label="Search targets by name or address" placeholder="Search by name or address"
          onInput=${(v) => setQuery({ q: v, offset: '' })} />
        ${query.tag ? html`<span class="chip">Tag: ${query.tag}<button type="button" class="chip-x" aria-label="Show every tag" title="Remove the filter"
          onClick=${() => setQuery({ tag: '', offset: '' })}><${Icon} name="close" size=${12} /></button></span>` : null}
        ${list.data ? html`<span class="muted small">${count(list.data.total)} ${list.data.total === 1 ? 'target' : 'targets'}</span>` : null}
      </div>
      ${list.error ? html`<div class="disc-note"><${ErrorState} error=${list.error} retry=${list.reload} /></div>`
        : !list.data ? html`<${Loading} />`
          : html`<${Table} columns=${columns} rows=${items} caption="SSH targets" rowClass=${(t) => (t.last_error ? 'disc-row-failed' : undefined)}
              empty=${filtered ? html`<${EmptyState} icon="search" title="No target matches"
                  action=${html`<button type="button" class="btn" onClick=${() => setQuery({ q: '', tag: '', offset: '' })}>Clear the filters</button>`} />`
                : html`<${EmptyState} icon="key" title="No SSH targets yet"
                    action=${writable ? html`<button type="button" class="btn btn-primary" onClick=${() => setDialog({})}><${Icon} name="plus" size=${16} />Add target</button>` : null}>
                    <p>A target is a device to log in to over SSH with a stored credential: enrichment runs a fixed list of read-only
                      commands and keeps its host name, OS, model, serial, interfaces, routes and neighbours. A session's nodes can
                      also be enriched from the session's page.</p><//>`} />
            <${Pager} total=${list.data.total} limit=${LIMIT} offset=${offset} onChange=${(o) => setQuery({ offset: o || '' }, { replace: false })} />`}
    <//>
    ${dialog ? html`<${TargetDialog} target=${dialog.target} onClose=${() => setDialog(null)} onDone=${(t) => saved(t, !dialog.target)} />` : null}
  <//>`;
}
