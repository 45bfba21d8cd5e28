// What the monitor pages share: the section's stylesheet (awaited, so a page renders styled) and the
// tabs between the monitor list, the event log, the maintenance windows and the status pages.
import { html } from '../../lib/html.js';
import { loadStylesheet } from '../../lib/stylesheet.js';
import { Tabs } from '../../components/tabs.js';
// The shared controls bring the layout helpers (grid-3, form-sub, …) the monitor pages use.
import '../../components/controls.js';

await loadStylesheet(new URL('./monitors.css', import.meta.url).pathname);

export function MonitorTabs({ active }) {
  return html`<${Tabs} label="Monitor views" active=${active}
    tabs=${[{ href: '/monitors', label: 'Monitors', icon: 'monitors' }, { href: '/monitors/events', label: 'Event log', icon: 'log' },
      { href: '/monitors/maintenance', label: 'Maintenance', icon: 'wrench' },
      { href: '/monitors/status-pages', label: 'Status pages', icon: 'external' }]} />`;
}
