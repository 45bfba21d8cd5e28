// Settings: one tab per section, each with its own URL (/settings/<section>). Users and the audit log
// are for administrators; everyone manages their own account and API keys.
import { html } from '../../lib/html.js';
import { isAdmin, useSession } from '../../lib/session.js';
import { EmptyState } from '../../components/empty.js';
import { Page } from '../../components/page.js';
import { Tabs } from '../../components/tabs.js';
import AccountSection from './account.js';
import ApiKeysSection from './api-keys.js';
import AuditSection from './audit.js';
import UsersSection from './users.js';

const SECTIONS = [
  { id: 'users', label: 'Users', icon: 'users', admin: true, Section: UsersSection },
  { id: 'api-keys', label: 'API keys', icon: 'key', Section: ApiKeysSection },
  { id: 'audit', label: 'Audit log', icon: 'log', admin: true, Section: AuditSection },
  { id: 'account', label: 'Account', icon: 'user', Section: AccountSection },
];

export default function SettingsPage({ params, query }) {
  const s = useSession();
  const visible = SECTIONS.filter((x) => !x.admin || isAdmin(s));
  const current = visible.find((x) => x.id === params.section) ?? (params.section ? null : visible[0]);
  return html`<${Page} title="Settings" subtitle="Accounts, API keys and the audit trail">
    <${Tabs} label="Settings sections" active=${current ? `/settings/${current.id}` : null}
      tabs=${visible.map((x) => ({ href: `/settings/${x.id}`, label: x.label, icon: x.icon }))} />
    ${current ? html`<${current.Section} query=${query} />`
      : html`<div class="card"><${EmptyState} icon="lock" title="Not available">
          <p>This section does not exist or needs the administrator role.</p><//></div>`}
  <//>`;
}
