// Discovery: scan a subnet (/discovery). The form starts a scan; the page then follows it by its job id,
// kept in the URL (/discovery?job=<id>, so a reload or Back finds it again): progress, hosts as they are
// identified, then devices, links and warnings, and "Save as topology session". Without a job, the scans
// started in this browser tab are listed to open again.
import { dateTime, relTime } from '../../lib/format.js';
import { html, useState } from '../../lib/html.js';
import { setQuery } from '../../lib/router.js';
import { can, useSession } from '../../lib/session.js';
import { SCAN_STATES } from '../../lib/vocabulary.js';
import { Badge } from '../../components/badge.js';
import { EmptyState } from '../../components/empty.js';
import { Icon } from '../../components/icons.js';
import { Card, Page } from '../../components/page.js';
import { ScanForm } from './scan-form.js';
import { ScanRun, useScanRun } from './scan-run.js';
import { DiscoveryTabs, recentScans, rememberScan } from './section.js';

const JOB_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function RecentScans({ scans }) {
  if (!scans.length) return null;
  return html`<${Card} title="Scans in this browser tab" pad=${false}>
    <ul class="rows">${scans.map((s) => html`<li key=${s.job_id} class="row">
      <${Icon} name="discovery" />
      <div class="row-main">
        <a class="row-title mono" href=${`/discovery?job=${encodeURIComponent(s.job_id)}`}>${s.subnet || s.job_id}</a>
        <div class="row-sub"><time datetime=${s.started_at} title=${dateTime(s.started_at)}>Started ${relTime(s.started_at)}</time></div>
      </div>
      <span class="row-side"><${Badge} tone=${SCAN_STATES[s.state]?.tone ?? 'neutral'}>${SCAN_STATES[s.state]?.label ?? s.state}<//></span>
    </li>`)}</ul>
  <//>`;
}

export default function ScanPage({ query }) {
  const s = useSession();
  const writable = can(s, 'v1sion:write');
  const job = JOB_ID.test(query.job ?? '') ? query.job.toLowerCase() : null;
  // Read once per render: the list changes when a scan starts or ends, and both re-render the page.
  const recent = recentScans();
  const known = job ? recent.find((x) => x.job_id === job) : null;
  const [initialSubnet] = useState(() => known?.subnet ?? '');
  // With a scan on the page the form folds away (on a phone it would push the results down).
  const [formOpen, setFormOpen] = useState(!job);
  const scan = useScanRun(job);
  const running = !!scan.run && scan.run.state === 'running' && !scan.result.data && !scan.result.error;

  const started = ({ job_id, subnet }) => {
    rememberScan({ job_id, subnet, started_at: new Date().toISOString(), state: 'running' });
    setFormOpen(false);
    setQuery({ job: job_id, view: '', q: '', offset: '' }, { replace: false });
  };

  return html`<${Page} title="Discovery" subtitle="Find what is on a network, identify it over SNMP and see how it is cabled">
    <${DiscoveryTabs} active="/discovery" />
    ${writable ? html`<${ScanForm} initialSubnet=${initialSubnet} running=${running} onStarted=${started}
        collapsed=${!!job && !formOpen} onToggle=${job ? () => setFormOpen((o) => !o) : null} />`
      : !job ? html`<${Card}><${EmptyState} icon="lock" title="Scanning needs the v1sion:write scope">
          <p>Saved topology sessions can still be read under Sessions.</p><//><//>` : null}
    ${job ? html`<${ScanRun} key=${job} jobId=${job} subnet=${known?.subnet} scan=${scan} query=${query} writable=${writable} />`
      : html`<${RecentScans} scans=${recent} />`}
  <//>`;
}
