// Client-side routing on the history API. Links are plain <a href="/path">: a document-wide click
// handler turns same-origin clicks into navigations without a reload (the server answers index.html
// for any path without an extension, so a reload or a bookmark lands on the same page).
import { createStore, useStore } from './store.js';

function read() {
  return { path: location.pathname, search: location.search, query: Object.fromEntries(new URLSearchParams(location.search)) };
}

const loc = createStore(read());
addEventListener('popstate', () => loc.set(read()));

/** The current {path, search, query}; re-renders on navigation. */
export const useLocation = () => useStore(loc);
export const currentLocation = () => loc.get();

/** Goes to `to` (a path with an optional query). `replace` does not add a history entry. */
export function navigate(to, { replace = false } = {}) {
  if (to === location.pathname + location.search) return;
  history[replace ? 'replaceState' : 'pushState'](null, '', to);
  loc.set(read());
  if (!replace) scrollTo(0, 0);
}

/** Changes query parameters of the current page (filters, tabs, paging); empty values are removed. */
export function setQuery(patch, { replace = true } = {}) {
  const p = new URLSearchParams(location.search);
  for (const [k, v] of Object.entries(patch)) {
    if (v === undefined || v === null || v === '') p.delete(k);
    else p.set(k, String(v));
  }
  const s = p.toString();
  navigate(location.pathname + (s ? `?${s}` : ''), { replace });
}

/** Params of `path` against a pattern like /monitors/:id, or null when it does not match. */
export function matchPath(pattern, path) {
  const a = pattern.split('/').filter(Boolean);
  const b = path.split('/').filter(Boolean);
  if (a.length !== b.length) return null;
  const params = {};
  for (let i = 0; i < a.length; i++) {
    if (a[i].startsWith(':')) {
      try { params[a[i].slice(1)] = decodeURIComponent(b[i]); } catch { return null; }
    } else if (a[i] !== b[i]) return null;
  }
  return params;
}

/** Same-origin link clicks navigate in place; new-tab clicks, downloads and /api links are left alone. */
export function installLinkHandler() {
  document.addEventListener('click', (e) => {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    const a = e.target instanceof Element ? e.target.closest('a[href]') : null;
    if (!a || a.target || a.hasAttribute('download') || a.origin !== location.origin) return;
    if (a.pathname.startsWith('/api/')) return;
    e.preventDefault();
    navigate(a.pathname + a.search);
  });
}

/** Only local paths are followed after sign-in (never another site). */
export function safeNext(next) {
  return typeof next === 'string' && next.startsWith('/') && !next.startsWith('//') && !next.startsWith('/\\') ? next : '/';
}
