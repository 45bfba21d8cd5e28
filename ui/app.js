// Entry point: loads the session, picks the page for the URL, applies the guards (first-run setup,
// sign-in) and renders the page inside the shell. Pages are loaded on first visit, and only once the
// guards let them show: a signed-out visit loads the sign-in page alone, and asks nothing a signed-out
// browser would see refused (lib/session.js).
import { setUnauthorizedHandler } from './lib/api.js';
import { html, render, useEffect, useState } from './lib/html.js';
import { currentLocation, installLinkHandler, matchPath, navigate, safeNext, useLocation } from './lib/router.js';
import { clearUser, loadSession, useSession } from './lib/session.js';
import { ErrorState, Loading } from './components/empty.js';
import { Shell } from './components/shell.js';
import { Toasts } from './components/toasts.js';
import { notFound, routes } from './routes.js';

function resolve(path) {
  for (const route of routes) {
    const params = matchPath(route.path, path);
    if (params) return { route, params };
  }
  return { route: { path: '*', load: notFound }, params: {} };
}

const modules = new Map();

/** The page module of a route: loaded once, then served from memory. */
function usePageModule(load) {
  const [state, setState] = useState({ load: null, mod: null, error: null });
  const cached = load ? modules.get(load) : undefined;
  useEffect(() => {
    if (!load || modules.has(load)) return undefined;
    let live = true;
    load().then(
      (mod) => { modules.set(load, mod); if (live) setState({ load, mod, error: null }); },
      (error) => { if (live) setState({ load, mod: null, error: { detail: `This page could not be loaded: ${error.message}` } }); },
    );
    return () => { live = false; };
  }, [load]);
  // Never the previous route's module while the next one loads.
  if (cached) return { mod: cached, error: null };
  return state.load === load ? state : { mod: null, error: null };
}

function Redirect({ to }) {
  useEffect(() => navigate(to, { replace: true }), [to]);
  return null;
}

/** Where the guards send this request, or null to show the page. */
function guard(s, route, loc) {
  if (s.bootstrapNeeded) return route.path === '/setup' ? null : '/setup';
  if (!s.user) {
    if (route.public) return route.path === '/setup' ? '/login' : null;
    return `/login?next=${encodeURIComponent(loc.path + loc.search)}`;
  }
  // An administrator finishes the wizard (name, time zone) before anything else.
  if (s.setupNeeded && s.user.role === 'admin') return route.path === '/setup' ? null : '/setup';
  if (route.path === '/login' || route.path === '/setup') return safeNext(loc.query.next);
  return null;
}

function App() {
  const s = useSession();
  const loc = useLocation();
  const [bootError, setBootError] = useState(null);
  const { route, params } = resolve(loc.path);
  // A page the guards send elsewhere is not loaded (a signed-out visit loads only the sign-in page).
  const to = s.loaded ? guard(s, route, loc) : null;
  const { mod, error } = usePageModule(s.loaded && !to ? route.load : null);

  useEffect(() => {
    if (!s.loaded) loadSession().catch(setBootError);
  }, [s.loaded]);

  if (bootError) {
    return html`<div class="boot"><${ErrorState} error=${bootError} retry=${() => { setBootError(null); loadSession().catch(setBootError); }} /></div>`;
  }
  if (!s.loaded) return html`<div class="boot"><${Loading} label="Loading netprobe…" /></div>`;
  if (to) return html`<${Redirect} to=${to} />`;

  const Page = mod?.default;
  const body = error ? html`<div class="page"><${ErrorState} error=${error} retry=${() => location.reload()} /></div>`
    : Page ? html`<${Page} key=${loc.path} params=${params} query=${loc.query} ...${route.props} />`
      : html`<div class="page"><${Loading} /></div>`;
  if (route.bare) return html`${body}<${Toasts} />`;
  return html`<${Shell}>${body}<//>`;
}

// A 401 from any call means the session ended: forget the user and ask to sign in again.
setUnauthorizedHandler(() => {
  const { path, search } = currentLocation();
  clearUser();
  if (path !== '/login') navigate(`/login?next=${encodeURIComponent(path + search)}`, { replace: true });
});

installLinkHandler();
const root = document.getElementById('app');
root.textContent = '';
render(html`<${App} />`, root);
