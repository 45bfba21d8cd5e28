// The probe's branding from GET /api/web-identity (no sign-in needed): name, accent colour, sign-in
// notice, logo and favicon. Loaded once at start and after a change; the accent colour is applied as the
// --accent custom property through the CSSOM (allowed by the page's style-src 'self' policy), the
// favicon by replacing the icon link's address.
import { api } from './api.js';
import { html } from './html.js';
import { createStore, useStore } from './store.js';
import { Logo } from '../components/icons.js';

/** @typedef {{probe_name: string, accent_color: string, login_notice: string, logo_url: string|null, favicon_url: string|null}} Identity */

/** @type {ReturnType<typeof createStore<Identity>>} */
export const identity = createStore({ probe_name: 'netprobe', accent_color: '', login_notice: '', logo_url: null, favicon_url: null });

export const useIdentity = () => useStore(identity);

function apply(id) {
  const root = document.documentElement.style;
  if (/^#[0-9a-fA-F]{6}$/.test(id.accent_color)) {
    root.setProperty('--accent', id.accent_color);
    root.setProperty('--accent-hover', id.accent_color);
    root.setProperty('--accent-text', id.accent_color);
  } else {
    for (const p of ['--accent', '--accent-hover', '--accent-text']) root.removeProperty(p);
  }
  const link = document.querySelector('link[rel="icon"]');
  if (link) {
    link.setAttribute('href', id.favicon_url ?? '/icon.svg');
    if (id.favicon_url) link.removeAttribute('type'); else link.setAttribute('type', 'image/svg+xml');
  }
}

/** Reads the identity and applies it; a failure keeps the built-in look. */
export async function loadIdentity() {
  try {
    const id = await api.get('/api/web-identity');
    identity.set(id);
    apply(id);
  } catch { /* the built-in name and colours stay */ }
  return identity.get();
}

/** The uploaded logo, or the built-in one. */
export function BrandLogo({ size = 28 }) {
  const id = useIdentity();
  return id.logo_url
    ? html`<img class="logo" src=${id.logo_url} width=${size} height=${size} alt="" style=${{ objectFit: 'contain' }} />`
    : html`<${Logo} size=${size} />`;
}
