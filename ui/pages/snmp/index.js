// SNMP: one tab per task, each with its own URL (/snmp/<section>): walk an agent, saved walk templates,
// a device's OID cards, the devices whose interfaces are polled over time (their pages: poll-device.js,
// poll-interface.js), and the vendor profiles that identify devices. /snmp opens the first tab the
// user may use (walking reaches out to a device, so it needs snmp:write).
import { html } from '../../lib/html.js';
import { loadStylesheet } from '../../lib/stylesheet.js';
import { can, useSession } from '../../lib/session.js';
import { EmptyState } from '../../components/empty.js';
import { Page } from '../../components/page.js';
import { Tabs } from '../../components/tabs.js';
import DevicesSection from './devices.js';
import PollingSection from './polling.js';
import TemplatesSection from './templates.js';
import VendorsSection from './vendors.js';
import WalkSection from './walk.js';

await loadStylesheet(new URL('./snmp.css', import.meta.url).pathname);

const SECTIONS = [
  { id: 'walk', label: 'Walk', icon: 'search', write: true, Section: WalkSection },
  { id: 'templates', label: 'Templates', icon: 'log', Section: TemplatesSection },
  { id: 'devices', label: 'Devices', icon: 'inventory', Section: DevicesSection },
  { id: 'polling', label: 'Polling', icon: 'monitors', Section: PollingSection },
  { id: 'vendors', label: 'Vendors', icon: 'snmp', Section: VendorsSection },
];

export default function SnmpPage({ params, query }) {
  const s = useSession();
  const visible = SECTIONS.filter((x) => !x.write || can(s, 'snmp:write'));
  const current = visible.find((x) => x.id === params.section) ?? (params.section ? null : visible[0]);
  return html`<${Page} title="SNMP" subtitle="Walk agents, saved walks, device cards, interfaces polled over time and the vendor profiles that identify devices">
    <${Tabs} label="SNMP sections" active=${current ? `/snmp/${current.id}` : null}
      tabs=${visible.map((x) => ({ href: `/snmp/${x.id}`, label: x.label, icon: x.icon }))} />
    ${current ? html`<${current.Section} query=${query} />`
      : html`<div class="card"><${EmptyState} icon="lock" title="Not available">
          <p>This section does not exist or needs the snmp:write scope.</p><//></div>`}
  <//>`;
}
