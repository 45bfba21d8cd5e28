// Discovery: scan a subnet (/discovery). The form starts a scan; the page then follows it by its job id,
// kept in the URL (/discovery?job=<id>, so a reload or Back finds it again): progress, hosts as they are
// identified, then devices, links and warnings, and "Save as topology session". Without a job, the scans
// the probe keeps (GET /api/v1sion/scan: running ones first, then the kept results, newest first) are
// listed, each one click from its result: the same list in every tab and browser, for every person.
import { count, dateTime, relTime } from '../../lib/format.js';
import { html, useEffect, useState } from '../../lib/html.js';
import { useApi, useReloadOn } from '../../lib/hooks.js';
import { setQuery } from '../../lib/router.js';
import { can, useSession } from '../../lib/session.js';
import { SCAN_STATES } from '../../lib/vocabulary.js';
import { Badge } from '../../components/badge.js';
import { EmptyState, ErrorState, Loading } from '../../components/empty.js';
import { Card, Page } from '../../components/page.js';
import { Pager, Table } from '../../components/table.js';
import { ScanForm } from './scan-form.js';
import { ScanRun, useScanRun } from './scan-run.js';
import { DiscoveryTabs, none } from './section.js';

const JOB_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const PAGE = 20;

const jobHref = (id) => `/discovery?job=${encodeURIComponent(id)}`;

/** The scans running now and the kept results, newest first, paged (offset in the URL). */
function PastScans({ list, offset }) {
  if (list.error) return html`<${ErrorState} error=${list.error} retry=${list.reload} />`;
  if (!list.data) return html`<${Card} title="Scans"><${Loading} /><//>`;
  const rows = [
    ...(offset ? [] : (list.data.running ?? []).map((r) => ({ ...r, state: 'running', finished_at: null, counts: null }))),
    ...list.data.items,
  ];
  const columns = [
    { key: 'subnet', label: 'Subnet', render: (x) => html`<a class="cell-title mono" href=${jobHref(x.job_id)}>${x.subnet}</a>` },
    { key: 'state', label: 'State', render: (x) => html`<${Badge} tone=${SCAN_STATES[x.state]?.tone ?? 'neutral'}>${SCAN_STATES[x.state]?.label ?? x.state}${
      x.state === 'running' && Number.isFinite(x.progress) ? ` · ${x.progress} %` : ''}<//>` },
    { key: 'started_at', label: 'Started', class: 'nowrap', render: (x) => html`<time datetime=${x.started_at} title=${dateTime(x.started_at)}>${relTime(x.started_at)}</time>` },
    { key: 'live', label: 'Live hosts', class: 'num', render: (x) => (x.counts?.live === undefined ? none : count(x.counts.live)) },
    { key: 'devices', label: 'Devices', class: 'num', render: (x) => (x.counts?.devices === undefined ? none : count(x.counts.devices)) },
    { key: 'open', label: 'Result', class: 'actions-col', hideLabel: true, render: (x) => html`<a class="btn btn-sm" href=${jobHref(x.job_id)}
      aria-label=${`${x.state === 'running' ? 'Follow' : 'Open'} the scan of ${x.subnet} started ${relTime(x.started_at)}`}>${x.state === 'running' ? 'Follow' : 'Open'}</a>` },
  ];
  return html`<${Card} title="Scans kept on this probe" pad=${false}>
    <${Table} columns=${columns} rows=${rows} rowKey="job_id" caption="Scans kept on this probe"
      empty=${html`<${EmptyState} icon="discovery" title="No scans yet"><p>The results of the newest scans are kept here for everyone who signs in.</p><//>`} />
    <${Pager} total=${list.data.total} limit=${PAGE} offset=${offset} onChange=${(o) => setQuery({ offset: o || '' }, { replace: false })} />
  <//>`;
}

export default function ScanPage({ query }) {
  const s = useSession();
  const writable = can(s, 'v1sion:write');
  const job = JOB_ID.test(query.job ?? '') ? query.job.toLowerCase() : null;
  const offset = job ? 0 : Number(query.offset) || 0;
  // With a scan on the page the form folds away (on a phone it would push the results down).
  const [formOpen, setFormOpen] = useState(!job);
  const scan = useScanRun(job);
  const running = !!scan.run && scan.run.state === 'running' && !scan.result.data && !scan.result.error;
  // A cancelled scan answers from memory until its result is written: asked every second until it is kept.
  const [awaitKept, setAwaitKept] = useState(false);
  const list = useApi('/api/v1sion/scan', { query: { limit: PAGE, offset }, every: awaitKept ? 1 : 0 });
  const listed = job ? [...(list.data?.running ?? []), ...(list.data?.items ?? [])].find((x) => x.job_id === job) : null;
  const kept = !!job && !!list.data?.items.some((x) => x.job_id === job);
  useEffect(() => { setAwaitKept(!!job && !!scan.result.data && !kept); }, [job, scan.result.data, kept]);
  // The list learns of a scan started or finished here (not on the first render: it has just loaded).
  useReloadOn(`${job}:${running}`, list.reload);

  const started = ({ job_id }) => {
    setFormOpen(false);
    setQuery({ job: job_id, view: '', q: '', offset: '' }, { replace: false });
  };

  return html`<${Page} title="Discovery" subtitle="Find what is on a network, identify it over SNMP and see how it is cabled">
    <${DiscoveryTabs} active="/discovery" />
    ${writable ? html`<${ScanForm} running=${running} onStarted=${started}
        collapsed=${!!job && !formOpen} onToggle=${job ? () => setFormOpen((o) => !o) : null} />`
      : !job ? html`<${Card}><${EmptyState} icon="lock" title="Scanning needs the v1sion:write scope">
          <p>Saved topology sessions can still be read under Sessions, and the kept scans below.</p><//><//>` : null}
    ${job ? html`<${ScanRun} key=${job} jobId=${job} subnet=${listed?.subnet} kept=${kept} scan=${scan} query=${query} writable=${writable} />`
      : html`<${PastScans} list=${list} offset=${offset} />`}
  <//>`;
}
