// Settings: one tab per section, each with its own URL (/settings/<section>), each section's module
// loaded when it is first opened (so /settings weighs only what it shows). The probe's own settings
// (system, probe and branding, TLS, e-mail, updates, remote access, controller, configuration, database)
// come first, then accounts. Sections marked admin are hidden from other roles; the API decides anyway.
import { html, useEffect, useState } from '../../lib/html.js';
import { isAdmin, useSession } from '../../lib/session.js';
import { EmptyState, ErrorState, Loading } from '../../components/empty.js';
import { Page } from '../../components/page.js';
import { Tabs } from '../../components/tabs.js';

export const SECTIONS = [
  { id: 'system', label: 'System', icon: 'dashboard', load: () => import('./system.js') },
  { id: 'probe', label: 'Probe', icon: 'settings', admin: true, load: () => import('./probe.js') },
  { id: 'tls', label: 'TLS', icon: 'lock', load: () => import('./tls.js') },
  { id: 'email', label: 'E-mail', icon: 'send', admin: true, load: () => import('./email.js') },
  { id: 'update', label: 'Updates', icon: 'refresh', load: () => import('./update.js') },
  { id: 'access', label: 'Remote access', icon: 'external', load: () => import('./access.js') },
  { id: 'controller', label: 'Controller', icon: 'bell', load: () => import('./controller.js') },
  { id: 'config', label: 'Configuration', icon: 'edit', admin: true, load: () => import('./config.js') },
  { id: 'database', label: 'Database', icon: 'log', admin: true, load: () => import('./database.js') },
  { id: 'users', label: 'Users', icon: 'users', admin: true, load: () => import('./users.js') },
  { id: 'api-keys', label: 'API keys', icon: 'key', load: () => import('./api-keys.js') },
  { id: 'audit', label: 'Audit log', icon: 'log', admin: true, load: () => import('./audit.js') },
  { id: 'account', label: 'Account', icon: 'user', load: () => import('./account.js') },
];

/** A section's module, loaded on first use; earlier sections stay cached by the browser's module map. */
function SectionLoader({ section, query }) {
  const [mod, setMod] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    let live = true;
    setMod(null);
    setError(null);
    section.load().then((m) => { if (live) setMod(m); },
      (e) => { if (live) setError({ detail: `This section could not be loaded: ${e.message}` }); });
    return () => { live = false; };
  }, [section.id]);
  if (error) return html`<${ErrorState} error=${error} />`;
  if (!mod) return html`<${Loading} />`;
  const Section = mod.default;
  return html`<${Section} query=${query} />`;
}

export default function SettingsPage({ params, query }) {
  const s = useSession();
  const visible = SECTIONS.filter((x) => !x.admin || isAdmin(s));
  const current = visible.find((x) => x.id === params.section) ?? (params.section ? null : visible[0]);
  return html`<${Page} title="Settings" subtitle="The probe itself, accounts, API keys and the audit trail">
    <${Tabs} label="Settings sections" active=${current ? `/settings/${current.id}` : null}
      tabs=${visible.map((x) => ({ href: `/settings/${x.id}`, label: x.label, icon: x.icon }))} />
    ${current ? html`<${SectionLoader} key=${current.id} section=${current} query=${query} />`
      : html`<div class="card"><${EmptyState} icon="lock" title="Not available">
          <p>This section does not exist or needs the administrator role.</p><//></div>`}
  <//>`;
}
