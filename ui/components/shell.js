// The frame around every signed-in page: the sidebar with the probe's name, the main navigation and
// the signed-in user with sign-out; on narrow screens a top bar whose menu button opens the sidebar
// as a drawer. Also hosts the toasts and the confirm dialog.
import { html, useEffect, useRef, useState } from '../lib/html.js';
import { navigate, useLocation } from '../lib/router.js';
import { displayName, signOut, useSession } from '../lib/session.js';
import { nav } from '../routes.js';
import { Icon } from './icons.js';
import { BrandLogo, loadIdentity } from '../lib/identity.js';
import { ConfirmHost } from './modal.js';
import { Toasts } from './toasts.js';

const isCurrent = (href, path) => (href === '/' ? path === '/' : path === href || path.startsWith(`${href}/`));

function initials(u) {
  const name = displayName(u).trim();
  const parts = name.split(/[\s._-]+/).filter(Boolean);
  return ((parts[0]?.[0] ?? '?') + (parts.length > 1 ? parts[parts.length - 1][0] : '')).toUpperCase();
}

export function Shell({ children }) {
  const s = useSession();
  const { path } = useLocation();
  const [open, setOpen] = useState(false);
  const main = useRef(null);
  const first = useRef(true);
  useEffect(() => { loadIdentity(); }, [s.probeName]); // accent colour, logo and favicon

  // A new page: close the drawer and move focus to the content, as a page load would.
  useEffect(() => {
    setOpen(false);
    if (first.current) { first.current = false; return; }
    main.current?.focus({ preventScroll: true });
  }, [path]);

  useEffect(() => {
    if (!open) return undefined;
    const onKey = (e) => { if (e.key === 'Escape') setOpen(false); };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, [open]);

  const out = async () => {
    await signOut();
    navigate('/login', { replace: true });
  };

  return html`<div class=${`shell${open ? ' nav-open' : ''}`}>
    <a class="skip-link" href="#main" onClick=${(e) => { e.preventDefault(); main.current?.focus(); }}>Skip to content</a>
    <header class="topbar">
      <button type="button" class="btn btn-icon btn-ghost" aria-label="Menu" aria-expanded=${open ? 'true' : 'false'}
        aria-controls="sidebar" onClick=${() => setOpen(!open)}><${Icon} name=${open ? 'close' : 'menu'} size=${22} /></button>
      <a href="/" class="brand brand-top"><${BrandLogo} size=${26} /><span class="brand-name">${s.probeName}</span></a>
    </header>
    <aside class="sidebar" id="sidebar">
      <a href="/" class="brand">
        <${BrandLogo} size=${32} />
        <span class="brand-text"><span class="brand-name">${s.probeName}</span><span class="brand-sub">netprobe</span></span>
      </a>
      <nav class="nav" aria-label="Main">
        ${nav.map((n) => html`<a key=${n.href} href=${n.href} class="nav-item" aria-current=${isCurrent(n.href, path) ? 'page' : undefined}>
          <${Icon} name=${n.icon} size=${19} /><span>${n.label}</span></a>`)}
      </nav>
      <div class="sidebar-foot">
        <div class="me">
          <span class="avatar" aria-hidden="true">${initials(s.user)}</span>
          <span class="me-text"><span class="me-name">${displayName(s.user)}</span><span class="me-role">${s.user?.role}</span></span>
        </div>
        <button type="button" class="btn btn-icon btn-ghost" onClick=${out} aria-label="Sign out" title="Sign out"><${Icon} name="logout" /></button>
      </div>
    </aside>
    <div class="backdrop" onClick=${() => setOpen(false)} aria-hidden="true"></div>
    <main id="main" ref=${main} tabindex="-1">${children}</main>
    <${Toasts} />
    <${ConfirmHost} />
  </div>`;
}
