// Database (administrators): the store's files, memory, checkpoints, retention windows and tables
// (GET /api/system/db-stats: row counts are exact, sizes estimated), and a cleanup now (POST
// /api/system/db-cleanup: retention, checkpoint, compaction; one at a time) with what it freed. docs/system.md.
import { api } from '../../lib/api.js';
import { confirm } from '../../lib/confirm.js';
import { count, duration } from '../../lib/format.js';
import { html, useState } from '../../lib/html.js';
import { useApi } from '../../lib/hooks.js';
import { toast } from '../../lib/toast.js';
import { Badge } from '../../components/badge.js';
import { ErrorState, Loading } from '../../components/empty.js';
import { Icon } from '../../components/icons.js';
import { Card } from '../../components/page.js';
import { Table } from '../../components/table.js';
import { bytes, Facts, Gauge, when } from './parts.js';

const TABLES = [
  { key: 'name', label: 'Table', render: (t) => html`<span class="cell-title mono">${t.name}</span>` },
  { key: 'rows', label: 'Rows', class: 'num', render: (t) => count(t.rows) },
  { key: 'bytes', label: 'Size (estimate)', class: 'num', render: (t) => bytes(t.bytes_estimate) },
];

function Cleanup({ r }) {
  const ret = Object.entries(r.retention).filter(([, n]) => n > 0);
  return html`<div class="alert alert-ok" role="status"><${Icon} name="check" /><div class="alert-body">
    <strong>Cleanup finished in ${r.duration_ms} ms</strong>
    <div>${r.freed_bytes >= 0 ? `${bytes(r.freed_bytes)} freed` : `The store files grew by ${bytes(-r.freed_bytes)} (a first checkpoint writes a snapshot)`}.
      Removed: ${ret.length ? ret.map(([k, n]) => `${count(n)} ${k}`).join(', ') : 'nothing past its retention window'}.</div>
    <div class="small muted">Journal ${bytes(r.checkpoint.journal_bytes_before)} → ${bytes(r.checkpoint.journal_bytes_after)};
      snapshot ${bytes(r.checkpoint.snapshot_bytes_before)} → ${bytes(r.checkpoint.snapshot_bytes_after)}. ${r.compaction.detail}</div>
  </div></div>`;
}

export default function DatabaseSection() {
  const st = useApi('/api/system/db-stats');
  const [busy, setBusy] = useState(false);
  const [last, setLast] = useState(null);
  const d = st.data;
  const clean = async () => {
    if (!(await confirm({ title: 'Clean up the database now?', confirmLabel: 'Clean up',
      message: 'Removes check results, rollups, events and webhook log entries older than their retention windows, writes a checkpoint and compacts the database. It runs on its own regularly too.' }))) return;
    setBusy(true);
    try {
      setLast(await api.post('/api/system/db-cleanup'));
      toast.ok('Database cleaned up');
      st.reload();
    } catch (e) { toast.error(e); } finally { setBusy(false); }
  };
  if (st.error && !d) return html`<${ErrorState} error=${st.error} retry=${st.reload} />`;
  if (!d) return html`<${Loading} />`;
  const used = d.database.bytes ? (100 * (d.database.bytes - d.database.free_bytes)) / d.database.bytes : null;
  const tables = [...d.tables].sort((a, b) => b.rows - a.rows || a.name.localeCompare(b.name));
  return html`<div class="settings-stack">
    <${Card} title="Storage" actions=${html`<button type="button" class="btn btn-sm btn-primary" onClick=${clean} disabled=${busy || d.cleanup.running}>
        ${busy || d.cleanup.running ? 'Cleaning up…' : 'Clean up now'}</button>`}>
      ${d.io_error ? html`<div class="alert alert-error" role="alert"><${Icon} name="alert" /><div class="alert-body">
        <strong>The journal cannot be written</strong><div>${String(d.io_error)}</div></div></div>` : null}
      ${last ? html`<${Cleanup} r=${last} />` : null}
      <div class="gauges" style="margin-bottom:14px">
        <${Gauge} label="Store files" value=${null} figure=${bytes(d.files.total_bytes)} sub=${`${count(d.files.journal_records)} journal records`} />
        <${Gauge} label="Database" value=${used} figure=${bytes(d.database.bytes)} sub=${`${bytes(d.database.free_bytes)} free pages`} tone="ok" />
        <${Gauge} label="Memory" value=${null} figure=${bytes(d.memory.process_rss_bytes)} sub=${`${bytes(d.memory.database_bytes)} of it the database`} />
      </div>
      <${Facts} items=${[
        ['Snapshot', bytes(d.files.snapshot_bytes)],
        ['Journal', `${bytes(d.files.journal_bytes)} (${count(d.files.journal_records)} records since the last checkpoint)`],
        ['Check results', `${bytes(d.files.segment_bytes)} in ${count(d.files.segment_files)} ${d.files.segment_files === 1 ? 'file' : 'files'}`],
        ['Last checkpoint', when(d.checkpoint.last_at)],
        ['Next checkpoint', `when the journal reaches ${bytes(d.checkpoint.due_at_journal_bytes)} or after ${duration(d.checkpoint.due_at_age)}`],
        ['Kept', `raw results ${d.retention.raw_results_hours} h, hourly rollups ${d.retention.hour_rollups_days} d, daily rollups ${d.retention.day_rollups_days} d, webhook log ${d.retention.webhook_log_days} d`],
        ['Automatic cleanup', `every ${d.retention.retention_interval_minutes} min`],
        ['Last cleanup', d.cleanup.last ? html`${when(d.cleanup.last.finished_at)} <span class="muted">(${d.cleanup.last.duration_ms} ms)</span>` : 'Not since the service started'],
        ['State', d.cleanup.running ? html`<${Badge} tone="info">Cleanup running<//>` : undefined],
      ]} />
    <//>
    <${Card} title="Tables" pad=${false}>
      <${Table} columns=${TABLES} rows=${tables} rowKey="name" caption="Database tables" />
    <//>
  </div>`;
}
