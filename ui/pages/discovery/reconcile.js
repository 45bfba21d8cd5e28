// "Compare with inventory" for a scan result or a saved session (POST /api/v1sion/brain/diff, which
// writes nothing): the discovered devices grouped new, matched but not linked, and (linked) changed and
// unchanged, and the inventory endpoints inside the source's subnets that nothing matched (missing: a
// report, nothing is deleted). A changed
// device shows each field discovery keeps, the inventory's value beside the discovered one, hand-set
// fields marked as kept. Per device: Create endpoint, Link to… (an endpoint picker), or confirm the
// match and write its changes; in bulk: "Create all new" (bulk-create, after a confirmation that says
// how many records it makes) and "Link certain matches" (auto-match with apply). Every write shows its
// per-item answers. Loaded on first use.
import { api, ApiError } from '../../lib/api.js';
import { confirm } from '../../lib/confirm.js';
import { useForm } from '../../lib/form.js';
import { count, dateTime, relTime } from '../../lib/format.js';
import { html, useCallback, useEffect, useRef, useState } from '../../lib/html.js';
import { can, useSession } from '../../lib/session.js';
import { toast } from '../../lib/toast.js';
import { BRIDGE_RESULTS, MATCH_REASONS, OWNED_FIELD_LABELS } from '../../lib/vocabulary.js';
import { Badge } from '../../components/badge.js';
import { SearchBox, StatTiles } from '../../components/controls.js';
import { EmptyState, ErrorState, Loading } from '../../components/empty.js';
import { FormError } from '../../components/field.js';
import { Icon } from '../../components/icons.js';
import { Modal } from '../../components/modal.js';
import { Card } from '../../components/page.js';
import { Pager, Table } from '../../components/table.js';
import { EndpointPicker } from './endpoint-picker.js';
import { DIFF_GROUPS, diffGroupOf, diffGroups, diffText, fieldText } from './model.js';
import { Addresses, KindBadge, none, RecordRef } from './section.js';

const PAGE = 50;
const GROUPS = ['new', 'unlinked', 'changed', 'unchanged', 'missing'];
const fieldLabel = (f) => OWNED_FIELD_LABELS[f] ?? f;
const pctOf = (x) => `${Math.round(x * 100)} %`;

/** The diff of a source, loaded again after every write. */
function useDiff(source) {
  const [state, setState] = useState({ data: null, error: null, loading: true });
  const [tick, setTick] = useState(0);
  const key = JSON.stringify(source);
  useEffect(() => {
    const ctl = new AbortController();
    setState((s) => ({ ...s, loading: true }));
    api.post('/api/v1sion/brain/diff', source, { signal: ctl.signal }).then(
      (data) => setState({ data, error: null, loading: false }),
      (error) => { if (error?.name !== 'AbortError') setState((s) => ({ data: s.data, error, loading: false })); },
    );
    return () => ctl.abort();
  }, [key, tick]);
  return { ...state, reload: useCallback(() => setTick((t) => t + 1), []) };
}

/** One field: the inventory's value beside the discovered one, and what a link does with it. */
function Changes({ changes }) {
  const columns = [
    { key: 'field', label: 'Field', render: (c) => html`<span class="cell-title">${fieldLabel(c.field)}</span>` },
    { key: 'inventory', label: 'In the inventory', render: (c) => (fieldText(c.inventory) ? html`<span class="disc-val">${fieldText(c.inventory)}</span>` : html`<span class="muted">Empty</span>`) },
    { key: 'discovered', label: 'Discovered', render: (c) => html`<span class="disc-val disc-val-new">${fieldText(c.discovered) ?? '—'}</span>` },
    { key: 'writes', label: 'When linked', render: (c) => (c.hand_set
      ? html`<${Badge} tone="neutral" title="Set by a person: discovery never overwrites it">Kept: set by hand<//>`
      : c.writes ? html`<${Badge} tone="info" title="Discovery writes it when the device is linked">Writes it<//>` : none) },
  ];
  return html`<div class="disc-changes"><${Table} columns=${columns} rows=${changes} rowKey="field" caption="Fields that differ" /></div>`;
}

/** How the device was paired with a record. */
function MatchLine({ it }) {
  const m = it.match;
  if (!m) return null;
  return html`<div class="disc-rc-line">
    <span class="muted">${it.linked ? 'Linked to' : 'Matches'}</span> <${RecordRef} record=${m.inventory} />
    ${!it.linked ? html`<span class="muted"> by ${(MATCH_REASONS[m.reason] ?? m.reason).toLowerCase()}${m.matched_on && m.reason !== 'linked'
      ? html` <span class="mono">${m.matched_on}</span>` : null}</span>` : null}
    ${!it.linked ? html` <${Badge} tone=${m.certain ? 'ok' : 'warn'} title=${m.certain ? 'Certain: Link certain matches links it' : 'Not certain: a person confirms it'}>
      ${m.certain ? 'Certain' : 'Likely'} · ${pctOf(m.confidence)}<//>` : null}
    ${m.agrees?.length ? html`<span class="muted small"> · also agree: ${m.agrees.map((a) => (MATCH_REASONS[a] ?? a).toLowerCase()).join(', ')}</span>` : null}
    ${m.conflicts?.length ? html`<div class="disc-rc-warn"><${Icon} name="alert" size=${14} /> ${m.conflicts.join('; ')}</div>` : null}
  </div>`;
}

function Candidates({ list }) {
  if (!list?.length) return null;
  return html`<div class="disc-rc-line disc-rc-warn-line"><${Icon} name="alert" size=${14} /> <span>Possible duplicates:</span>
    ${list.map((c, i) => html`<span key=${c.id}>${i ? ', ' : ' '}<${RecordRef} record=${c} />
      <span class="muted small"> (${(MATCH_REASONS[c.reason] ?? c.reason).toLowerCase()}${c.note ? `: ${c.note}` : ''})</span></span>`)}
  </div>`;
}

/** Whether a later scan can know the device again: it has a key a link is remembered by (discovered.ts identityKeys). */
const hasIdentity = (d) => !!(d.macs.length || d.serial || d.engine_id || d.chassis_id);

/** One discovered device: what it is, how it matched, what differs, and what can be done. */
function DeviceItem({ it, writable, busy, onCreate, onLink, onPick }) {
  const d = it.device;
  const st = DIFF_GROUPS[diffGroupOf(it)];
  const writes = it.changes.filter((c) => c.writes).length;
  const differ = it.changes.length;
  const facts = [[d.vendor, d.model].filter(Boolean).join(' '), d.serial ? `serial ${d.serial}` : null,
    [d.os, d.os_version].filter(Boolean).join(' ')].filter(Boolean);
  return html`<li class=${`disc-rc-item disc-rc-${diffGroupOf(it)}`}>
    <div class="disc-rc-head">
      <div class="disc-rc-title">
        <h3>${d.name}</h3>
        <${KindBadge} kind=${d.kind} />
        <${Badge} tone=${st?.tone ?? 'neutral'} title=${st?.hint}>${st?.label ?? it.status}<//>
        ${!it.linked && it.status === 'changed' ? html`<${Badge} tone="neutral" title="Fields discovery keeps that differ from the record">
          ${differ} ${differ === 1 ? 'field differs' : 'fields differ'}<//>` : null}
        ${d.seen === 'neighbour' ? html`<${Badge} tone="warn" title="Named by another device's LLDP or CDP table">Neighbour only<//>` : null}
      </div>
      ${writable ? html`<div class="disc-rc-actions">
        ${it.status === 'new' ? html`<button type="button" class="btn btn-sm btn-primary" disabled=${busy} onClick=${() => onCreate(it)}
          aria-label=${`Create endpoint for ${d.name}`}><${Icon} name="plus" size=${15} />Create endpoint</button>` : null}
        ${it.match && !it.linked ? html`<button type="button" class="btn btn-sm btn-primary" disabled=${busy}
          onClick=${() => onLink(it, it.match.inventory)} aria-label=${`Link to ${it.match.inventory.short_id}: ${d.name}`}>
          <${Icon} name="check" size=${15} />Link to ${it.match.inventory.short_id}</button>` : null}
        ${it.match && it.linked && writes ? html`<button type="button" class="btn btn-sm btn-primary" disabled=${busy}
          onClick=${() => onLink(it, it.match.inventory)} aria-label=${`Write ${writes} ${writes === 1 ? 'change' : 'changes'} to ${it.match.inventory.short_id}: ${d.name}`}>
          <${Icon} name="check" size=${15} />Write ${writes} ${writes === 1 ? 'change' : 'changes'}</button>` : null}
        <button type="button" class="btn btn-sm" disabled=${busy} onClick=${() => onPick(it)}
          aria-label=${it.match ? `Link to another record: ${d.name}` : `Link to a record: ${d.name}`}>${it.match ? 'Link to another…' : 'Link to…'}</button>
      </div>` : null}
    </div>
    <div class="disc-rc-meta">
      <${Addresses} list=${d.addresses} max=${4} />
      <div class="disc-rc-facts">
        ${d.macs.length ? html`<div><span class="mono">${d.macs[0]}</span>${d.macs.length > 1 ? html`<span class="muted small"> and ${d.macs.length - 1} more</span>` : null}</div>` : null}
        ${facts.length ? html`<div>${facts.join(' · ')}${d.vendor_from_mac ? html` <span class="muted small">(vendor from the MAC)</span>` : null}</div>` : null}
        ${d.hostnames.length ? html`<div class="mono small">${d.hostnames.join(', ')}</div>` : null}
      </div>
    </div>
    <${MatchLine} it=${it} />
    ${!it.linked && it.match && !hasIdentity(d) ? html`<div class="disc-rc-line muted small">Nothing identifies this device across scans
      (no MAC, serial or SNMP engine ID): each scan matches it by ${MATCH_REASONS[it.match.reason]?.toLowerCase() ?? it.match.reason} again, and a link is kept
      only on a saved session's node.</div>` : null}
    <${Candidates} list=${it.candidates} />
    ${it.status === 'changed' ? html`<${Changes} changes=${it.changes} />` : null}
  </li>`;
}

function MissingList({ items }) {
  const columns = [
    { key: 'inventory', label: 'Endpoint', render: (m) => html`<${RecordRef} record=${m.inventory} />` },
    { key: 'addresses', label: 'Addresses in these subnets', render: (m) => html`<${Addresses} list=${m.addresses} />` },
    { key: 'last_seen', label: 'Last seen by discovery', render: (m) => (m.last_seen
      ? html`<time datetime=${m.last_seen} title=${dateTime(m.last_seen)}>${relTime(m.last_seen)}</time>` : html`<span class="muted">Never</span>`) },
    { key: 'linked', label: 'Linked', render: (m) => (m.linked ? html`<${Badge} tone="info">Linked<//>` : none) },
  ];
  return html`<${Table} columns=${columns} rows=${items} rowKey=${(m) => m.inventory.id} caption="Missing endpoints"
    empty=${html`<${EmptyState} icon="check" title="Nothing missing"><p>Every endpoint with an address in these subnets was seen.</p><//>`} />`;
}

/** What a write did, item by item, in the API's words. */
function Results({ results, names, onClose }) {
  const ref = useRef(null);
  useEffect(() => { ref.current?.focus(); }, [results]);
  const c = results.counts;
  const title = `${results.title}: ${[c.created ? `${c.created} created` : '', c.linked ? `${c.linked} linked` : '',
    c.skipped ? `${c.skipped} skipped` : ''].filter(Boolean).join(', ') || 'nothing to do'}`;
  const columns = [
    { key: 'device', label: 'Device', render: (r) => html`<span class="cell-title">${names.get(r.device_id) ?? r.device_id}</span>` },
    { key: 'status', label: 'Result', render: (r) => html`<${Badge} tone=${BRIDGE_RESULTS[r.status]?.tone ?? 'neutral'}>${BRIDGE_RESULTS[r.status]?.label ?? r.status}<//>` },
    { key: 'inventory', label: 'Record', render: (r) => html`<${RecordRef} record=${r.inventory} />` },
    { key: 'detail', label: 'Details', render: (r) => html`<div class="disc-rc-detail">
      ${r.reason ? html`<div>${r.reason}</div>` : null}
      ${r.errors?.length ? html`<ul class="disc-rc-errors">${r.errors.map((e, i) => html`<li key=${i}><span class="mono small">${e.path}</span>: ${e.message}</li>`)}</ul>` : null}
      ${r.written?.length ? html`<div>Wrote ${r.written.map((w) => fieldLabel(w.field)).join(', ')}</div>` : null}
      ${r.kept?.length ? html`<div class="muted">Kept (set by hand): ${r.kept.map((w) => fieldLabel(w.field)).join(', ')}</div>` : null}
      ${r.relinked_from ? html`<div class="muted">Moved from <${RecordRef} record=${r.relinked_from} /></div>` : null}
      ${!r.reason && !r.errors?.length && !r.written?.length && !r.kept?.length && !r.relinked_from ? none : null}
    </div>` },
  ];
  return html`<section class="card disc-rc-results" aria-labelledby="disc-rc-results-title">
    <header class="card-head"><h2 id="disc-rc-results-title" tabindex="-1" ref=${ref}>${title}</h2>
      <div class="card-actions"><button type="button" class="btn btn-sm" onClick=${onClose}>Dismiss</button></div></header>
    <div class="card-body flush"><${Table} columns=${columns} rows=${results.items} rowKey="device_id" caption="What was done" /></div>
  </section>`;
}

/** Links a device to a record picked from the inventory (or one of its possible matches). */
function LinkDialog({ it, onLink, onClose }) {
  const d = it.device;
  const suggested = [
    ...(it.match ? [{ ...it.match.inventory, note: `matched on ${(MATCH_REASONS[it.match.reason] ?? it.match.reason).toLowerCase()}` }] : []),
    ...it.candidates.map((c) => ({ ...c, note: `${(MATCH_REASONS[c.reason] ?? c.reason).toLowerCase()}${c.note ? `: ${c.note}` : ''}` })),
  ];
  const [record, setRecord] = useState(suggested[0] ? { type: suggested[0].type, id: suggested[0].id, short_id: suggested[0].short_id, name: suggested[0].name } : null);
  const [apply, setApply] = useState(true);
  const form = useForm({});
  const onSubmit = form.submit(async () => {
    if (!record) { form.fail({ detail: 'Choose the record this device is.' }); return; }
    await onLink(it, record, apply, true);
    onClose();
  });
  return html`<${Modal} title=${`Link ${d.name} to…`} onClose=${onClose} size="lg"
    footer=${html`<button type="button" class="btn" onClick=${onClose}>Cancel</button>
      <button type="submit" form="disc-link-form" class="btn btn-primary" disabled=${form.busy}>${form.busy ? 'Linking…' : 'Link'}</button>`}>
    <form id="disc-link-form" onSubmit=${onSubmit}>
      <${FormError} form=${form} />
      <p class="muted disc-intro">The device (<span class="mono">${d.addresses.slice(0, 2).join(', ') || d.macs[0] || d.device_id}</span>) is remembered as this
        record: later scans and sessions find it again by its identity.</p>
      <${EndpointPicker} value=${record} onChange=${setRecord} label="Inventory record" suggested=${suggested} />
      <label class="check disc-apply">
        <input type="checkbox" checked=${apply} onChange=${(e) => setApply(e.currentTarget.checked)} />
        <span>Write what discovery found (addresses, MACs, vendor, model, serial, OS) where a person did not set it by hand</span>
      </label>
    </form>
  <//>`;
}

/**
 * source: {scan_job_id} or {session_id}. `group` and `onGroup` keep the shown group in the page's URL;
 * `onChanged` runs after each write (a session page reloads its nodes' inventory links).
 */
export function Reconcile({ source, group, onGroup, onChanged }) {
  const s = useSession();
  const writable = can(s, 'brain:write') && can(s, 'v1sion:write');
  const diff = useDiff(source);
  const [q, setQ] = useState('');
  const [offset, setOffset] = useState(0);
  const [busy, setBusy] = useState(false);
  const [results, setResults] = useState(null);
  const [picking, setPicking] = useState(null);

  const d = diff.data;
  if (diff.error && !d) return html`<${ErrorState} error=${diff.error} retry=${diff.reload} />`;
  if (!d) return html`<${Card}><${Loading} label="Comparing with the inventory…" /><//>`;

  const groups = diffGroups(d);
  const counts = { new: groups.new.length, unlinked: groups.unlinked.length, changed: groups.changed.length,
    unchanged: groups.unchanged.length, missing: d.missing.length };
  const shownGroup = GROUPS.includes(group) ? group : GROUPS.find((g) => counts[g]) ?? 'new';
  const names = new Map(d.items.flatMap((it) => it.device.device_ids.map((id) => [id, it.device.name])));
  const words = q.toLowerCase().split(/\s+/).filter(Boolean);
  const list = shownGroup === 'missing'
    ? d.missing.filter((m) => !words.length || words.every((w) => [m.inventory.short_id, m.inventory.name, ...m.addresses].join(' ').toLowerCase().includes(w)))
    : groups[shownGroup].filter((it) => !words.length || words.every((w) => diffText(it).includes(w)));
  const from = Math.min(offset, Math.max(0, list.length - PAGE));
  const certainToLink = d.items.filter((it) => it.match?.certain && !it.linked).length;

  const afterWrite = (r) => { setResults(r); diff.reload(); onChanged?.(); };
  const run = async (fn) => {
    setBusy(true);
    try { await fn(); } catch (e) { toast.error(e); } finally { setBusy(false); }
  };
  const createAll = () => run(async () => {
    const items = groups.new.map((it) => ({ device_id: it.device.device_id }));
    const n = items.length;
    const what = `${n} ${n === 1 ? 'endpoint' : 'endpoints'}`;
    const shown = groups.new.slice(0, 8).map((it) => it.device.name);
    if (!(await confirm({ title: `Create ${what} in the inventory?`, confirmLabel: `Create ${what}`,
      message: html`<p>One endpoint for each new device: ${shown.join(', ')}${n > shown.length ? ` and ${n - shown.length} more` : ''}.</p>
        <p class="muted disc-intro">Each is linked to its device. Devices a record already matches are left out: link those instead.</p>` }))) return;
    const r = await api.post('/api/v1sion/brain/bulk-create', { ...source, items });
    afterWrite({ title: 'Create all new', counts: r.counts, items: r.items });
    toast.ok(`Created ${r.counts.created} ${r.counts.created === 1 ? 'endpoint' : 'endpoints'}${r.counts.skipped ? `, ${r.counts.skipped} skipped` : ''}`);
  });
  const linkCertain = () => run(async () => {
    const r = await api.post('/api/v1sion/brain/auto-match', { ...source, apply: true });
    const items = r.items.map((p) => p.result ?? { device_id: p.device_id, device_ids: [p.device_id], status: p.linked ? 'linked' : 'skipped',
      inventory: p.inventory, written: [], kept: [], relinked_from: null, reason: p.linked ? 'Linked already' : undefined });
    afterWrite({ title: 'Link certain matches', counts: { linked: r.counts.linked, created: 0, skipped: r.counts.skipped }, items });
    toast.ok(`Linked ${r.counts.linked} ${r.counts.linked === 1 ? 'device' : 'devices'}${r.counts.left ? `; ${r.counts.left} left for a person to confirm` : ''}`);
  });
  const create = (it) => run(async () => {
    const post = (force) => api.post('/api/v1sion/brain/create', { ...source, device_id: it.device.device_id, ...(force ? { force: true } : {}) });
    let r;
    try {
      r = await post(false);
    } catch (e) {
      if (!(e instanceof ApiError && e.status === 409 && e.code === 'possible_duplicate')) throw e;
      // The API's words, and the person decides.
      const again = await confirm({ title: `Create ${it.device.name} anyway?`, confirmLabel: 'Create anyway',
        message: html`<p>${e.detail}</p><p class="muted disc-intro">"Link to…" ties the device to the existing record instead.</p>` });
      if (!again) return;
      r = await post(true);
    }
    afterWrite({ title: `Create ${it.device.name}`, counts: { created: 1, linked: 0, skipped: 0 }, items: [r] });
    toast.ok(`Created ${r.inventory?.short_id ?? 'the endpoint'} for ${it.device.name}`);
  });
  /** Links (and writes the owned fields unless asked not to); `fromDialog` lets the dialog show a failure. */
  const link = async (it, record, apply = true, fromDialog = false) => {
    const go = async () => {
      const r = await api.post('/api/v1sion/brain/link', { ...source, device_id: it.device.device_id, inventory: { type: record.type ?? 'endpoints', id: record.id },
        apply_fields: apply });
      afterWrite({ title: `Link ${it.device.name}`, counts: { created: 0, linked: r.status === 'linked' ? 1 : 0, skipped: r.status === 'skipped' ? 1 : 0 }, items: [r] });
      toast.ok(`Linked ${it.device.name} to ${r.inventory?.short_id ?? record.short_id}${r.written?.length ? `: ${r.written.length} ${r.written.length === 1 ? 'field' : 'fields'} written` : ''}`);
    };
    if (fromDialog) return go();
    return run(go);
  };

  return html`<div class="disc-reconcile">
    <${StatTiles} tiles=${[
      { label: DIFF_GROUPS.new.label, value: count(counts.new), sub: DIFF_GROUPS.new.sub },
      { label: DIFF_GROUPS.unlinked.label, value: count(counts.unlinked), sub: DIFF_GROUPS.unlinked.sub, tone: counts.unlinked ? 'warn' : undefined },
      { label: DIFF_GROUPS.changed.label, value: count(counts.changed), sub: DIFF_GROUPS.changed.sub, tone: counts.changed ? 'warn' : undefined },
      { label: DIFF_GROUPS.unchanged.label, value: count(counts.unchanged), sub: DIFF_GROUPS.unchanged.sub },
      { label: 'Missing', value: count(counts.missing), sub: 'endpoints not seen', tone: counts.missing ? 'warn' : undefined },
      { label: 'Certain matches', value: count(d.counts.certain), sub: `${count(certainToLink)} not linked yet` },
    ]} />
    ${results ? html`<${Results} results=${results} names=${names} onClose=${() => setResults(null)} />` : null}
    <${Card} pad=${false} class="disc-table-card"
      title=${`${d.source.type === 'scan' ? `Scan of ${d.source.subnets.join(', ')}` : d.source.name ?? 'Session'} against the inventory`}
      actions=${writable ? html`
        <button type="button" class="btn btn-sm" onClick=${linkCertain} disabled=${busy || !certainToLink}
          title="Link every device whose match is certain (serial, asset tag, engine ID or MAC, no conflict)">
          <${Icon} name="check" size=${15} />Link certain matches${certainToLink ? ` (${certainToLink})` : ''}</button>
        <button type="button" class="btn btn-sm btn-primary" onClick=${createAll} disabled=${busy || !counts.new}>
          <${Icon} name="plus" size=${15} />Create all new${counts.new ? ` (${counts.new})` : ''}</button>` : null}>
      <div class="disc-toolbar">
        <div class="disc-chips" role="group" aria-label="Show">
          ${GROUPS.map((g) => html`<button key=${g} type="button" class=${`disc-fchip disc-fchip-${g}`} aria-pressed=${shownGroup === g ? 'true' : 'false'}
            onClick=${() => { onGroup(g); setOffset(0); }}>${g === 'missing' ? 'Missing' : DIFF_GROUPS[g].label}<span class="disc-fchip-n">${count(counts[g])}</span></button>`)}
        </div>
        <${SearchBox} value=${q} label="Filter the devices" placeholder="Filter by name, address, MAC, serial or record" onInput=${(v) => { setQ(v); setOffset(0); }} />
      </div>
      ${diff.error ? html`<div class="disc-note"><${ErrorState} error=${diff.error} retry=${diff.reload} /></div>` : null}
      ${shownGroup === 'missing' ? html`<${MissingList} items=${list.slice(from, from + PAGE)} />
          ${d.missing.length ? html`<p class="muted small disc-note disc-note-end">A report only: nothing is deleted from the inventory.</p>` : null}`
        : list.length ? html`<ul class="disc-rc-list" aria-label=${`${DIFF_GROUPS[shownGroup].label} devices`}>
            ${list.slice(from, from + PAGE).map((it) => html`<${DeviceItem} key=${it.device.device_id} it=${it} writable=${writable} busy=${busy}
              onCreate=${create} onLink=${link} onPick=${setPicking} />`)}
          </ul>`
          : html`<${EmptyState} icon=${words.length ? 'search' : 'check'} title=${words.length ? 'No device matches the filter'
              : shownGroup === 'new' ? 'No new devices' : shownGroup === 'unlinked' ? 'No device waits for a link'
                : shownGroup === 'changed' ? 'Nothing changed' : 'No unchanged devices'}>
              ${!words.length && shownGroup === 'new' ? html`<p>Every device matches an inventory record.</p>` : null}<//>`}
      <${Pager} total=${list.length} limit=${PAGE} offset=${from} onChange=${setOffset} />
    <//>
    ${picking ? html`<${LinkDialog} it=${picking} onLink=${link} onClose=${() => setPicking(null)} />` : null}
  </div>`;
}
