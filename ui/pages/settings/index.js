// Settings: the sections in groups in a side list, each with its own URL (/settings/<section>), each
// section's module loaded when it is first opened (so /settings weighs only what it shows). On a wide
// screen the list stays beside the section and /settings opens the first one; on a narrow one
// /settings is the list itself and a section shows a link back to it, so every section is one tap away
// at any width. Sections marked admin are hidden from other roles; the API decides anyway.
import { html, useEffect, useState } from '../../lib/html.js';
import { isAdmin, useSession } from '../../lib/session.js';
import { loadStylesheet } from '../../lib/stylesheet.js';
import { EmptyState, ErrorState, Loading } from '../../components/empty.js';
import { Icon } from '../../components/icons.js';
import { Page } from '../../components/page.js';

await loadStylesheet(new URL('./settings.css', import.meta.url).pathname);

/** The groups of the side list, in order: the probe itself, what it connects to, who may use it, you. */
export const GROUPS = [
  { id: 'probe', label: 'This probe' },
  { id: 'connections', label: 'Connections' },
  { id: 'access', label: 'Users and access' },
  { id: 'you', label: 'You' },
];

export const SECTIONS = [
  { id: 'system', group: 'probe', label: 'System', icon: 'dashboard', load: () => import('./system.js') },
  { id: 'probe', group: 'probe', label: 'Probe', icon: 'settings', admin: true, load: () => import('./probe.js') },
  { id: 'update', group: 'probe', label: 'Updates', icon: 'refresh', load: () => import('./update.js') },
  { id: 'config', group: 'probe', label: 'Configuration', icon: 'edit', admin: true, load: () => import('./config.js') },
  { id: 'database', group: 'probe', label: 'Database', icon: 'log', admin: true, load: () => import('./database.js') },
  { id: 'tls', group: 'connections', label: 'TLS', icon: 'lock', load: () => import('./tls.js') },
  { id: 'email', group: 'connections', label: 'E-mail', icon: 'send', admin: true, load: () => import('./email.js') },
  { id: 'access', group: 'connections', label: 'Remote access', icon: 'external', load: () => import('./access.js') },
  { id: 'controller', group: 'connections', label: 'Controller', icon: 'bell', load: () => import('./controller.js') },
  { id: 'users', group: 'access', label: 'Users', icon: 'users', admin: true, load: () => import('./users.js') },
  { id: 'api-keys', group: 'access', label: 'API keys', icon: 'key', load: () => import('./api-keys.js') },
  { id: 'audit', group: 'access', label: 'Audit log', icon: 'log', admin: true, load: () => import('./audit.js') },
  { id: 'account', group: 'you', label: 'Account', icon: 'user', load: () => import('./account.js') },
];

// Below this width the list and a section take turns (settings.css uses the same figure).
const NARROW = '(max-width: 760px)';

/** Whether the media query matches now; follows it as the window is resized. */
function useMedia(query) {
  const [matches, setMatches] = useState(() => matchMedia(query).matches);
  useEffect(() => {
    const mq = matchMedia(query);
    const on = () => setMatches(mq.matches);
    on();
    mq.addEventListener('change', on);
    return () => mq.removeEventListener('change', on);
  }, [query]);
  return matches;
}

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

/** The grouped list of the sections `visible`, the `current` one marked. */
function SectionList({ visible, current }) {
  return html`<nav class="settings-nav" aria-label="Settings sections">
    ${GROUPS.map((g) => {
      const items = visible.filter((x) => x.group === g.id);
      if (!items.length) return null;
      return html`<div class="settings-nav-group" key=${g.id}>
        <div class="settings-nav-title" id=${`settings-group-${g.id}`}>${g.label}</div>
        <ul aria-labelledby=${`settings-group-${g.id}`}>
          ${items.map((x) => html`<li key=${x.id}><a href=${`/settings/${x.id}`} class="settings-nav-item"
            aria-current=${current?.id === x.id ? 'page' : undefined}><${Icon} name=${x.icon} size=${17} /><span>${x.label}</span>
            <${Icon} name="chevron" size=${16} class="settings-nav-more" /></a></li>`)}
        </ul>
      </div>`;
    })}
  </nav>`;
}

export default function SettingsPage({ params, query }) {
  const s = useSession();
  const narrow = useMedia(NARROW);
  const visible = SECTIONS.filter((x) => !x.admin || isAdmin(s));
  // No section in the URL: the first one beside the list, or the list alone on a narrow screen.
  const current = params.section ? visible.find((x) => x.id === params.section) ?? null : narrow ? null : visible[0];
  const landing = narrow && !params.section;
  const body = current ? html`<${SectionLoader} key=${current.id} section=${current} query=${query} />`
    : html`<div class="card"><${EmptyState} icon="lock" title="Not available">
        <p>This section does not exist or needs the administrator role.</p><//></div>`;
  return html`<${Page} title="Settings" subtitle="The probe itself, accounts, API keys and the audit trail">
    ${landing ? html`<${SectionList} visible=${visible} current=${null} />`
      : narrow ? html`<div class="settings-crumb">
            <a href="/settings"><${Icon} name="chevron" size=${16} class="settings-back-icon" />All settings</a>
            ${current ? html`<span class="settings-crumb-here">${current.label}</span>` : null}
          </div>
          <div class="settings-pane">${body}</div>`
        : html`<div class="settings-layout">
            <${SectionList} visible=${visible} current=${current} />
            <div class="settings-pane">${body}</div>
          </div>`}
  <//>`;
}
