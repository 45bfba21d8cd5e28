// Who is signed in, what the probe is called and whether first-run setup is still open. Loaded once
// at start and after sign-in; pages read it with useSession(). The first load asks no question that a
// signed-out browser would see refused (see loadSession).
import { api, request } from './api.js';
import { createStore, useStore } from './store.js';

/**
 * @typedef {{id: string, username: string, display_name: string|null, email: string|null, role: 'admin'|'operator'|'viewer'}} User
 * @typedef {{
 *   loaded: boolean,
 *   user: User | null,
 *   scopes: string[],
 *   probeName: string,
 *   bootstrapNeeded: boolean,
 *   setupNeeded: boolean,
 * }} Session
 */

/** The session store (a Session). */
export const session = createStore({
  loaded: false, user: null, scopes: [], probeName: 'netprobe', bootstrapNeeded: false, setupNeeded: false,
});

export const useSession = () => useStore(session);

/**
 * Reads setup state, the probe's name and the current user (null when not signed in). The user comes from
 * GET /api/auth/session, which answers a signed-out browser with 200 {signed_in: false}: a fresh or
 * signed-out page logs no failed request (GET /api/me would answer 401).
 */
export async function loadSession() {
  const [setup, identity, me] = await Promise.all([
    api.get('/api/setup/needed'),
    api.get('/api/web-identity'),
    request('GET', '/api/auth/session', { quiet401: true }),
  ]);
  const signedIn = me?.signed_in === true;
  session.set({
    loaded: true,
    user: signedIn ? me.user : null,
    scopes: signedIn ? me.scopes : [],
    probeName: identity.probe_name,
    bootstrapNeeded: setup.bootstrap_needed,
    setupNeeded: setup.needed,
  });
  return session.get();
}

/** Forgets the user locally (after a 401 or sign-out). */
export function clearUser() {
  session.set((s) => ({ ...s, user: null, scopes: [] }));
}

export async function signOut() {
  await request('POST', '/api/auth/logout', { quiet401: true }).catch(() => {});
  clearUser();
}

/** Whether the signed-in user holds a scope (the API decides in the end; this only hides controls). */
export function can(s, scope) {
  return s.scopes.includes('admin') || s.scopes.includes(scope) ||
    (scope.endsWith(':read') && s.scopes.includes(scope.replace(':read', ':write')));
}

export const isAdmin = (s) => s.user?.role === 'admin';

/** "Ada Lovelace" or the username. */
export const displayName = (u) => u?.display_name || u?.username || '';
