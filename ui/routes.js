// Every page of the app, and the main navigation. To add a page: write ui/pages/<name>.js (see
// docs/ui.md), add its route here, and a navigation entry if it is a top-level section.
// Routes are tried in order; a pattern segment starting with ':' is a parameter.

/**
 * @typedef {{
 *   path: string,                       pattern, e.g. /monitors/:id
 *   load: () => Promise<{default: any}>, the page module (loaded on first visit)
 *   public?: boolean,                   reachable without signing in
 *   bare?: boolean,                     rendered without the navigation shell (sign-in, setup)
 *   props?: Record<string, any>,        extra props for the page component
 * }} Route
 */

/** @type {Route[]} */
export const routes = [
  { path: '/', load: () => import('./pages/dashboard.js') },
  { path: '/login', load: () => import('./pages/login.js'), public: true, bare: true },
  { path: '/setup', load: () => import('./pages/setup.js'), public: true, bare: true },
  { path: '/monitors', load: () => import('./pages/monitors/list.js') },
  { path: '/monitors/new', load: () => import('./pages/monitors/form.js') },
  { path: '/monitors/events', load: () => import('./pages/monitors/events.js') },
  { path: '/monitors/maintenance', load: () => import('./pages/monitors/maintenance.js') },
  { path: '/monitors/status-pages', load: () => import('./pages/monitors/status-pages.js') },
  { path: '/monitors/:id', load: () => import('./pages/monitors/detail.js') },
  { path: '/monitors/:id/edit', load: () => import('./pages/monitors/form.js') },
  { path: '/inventory', load: () => import('./pages/inventory/overview.js') },
  { path: '/inventory/:type', load: () => import('./pages/inventory/list.js') },
  { path: '/inventory/:type/new', load: () => import('./pages/inventory/form.js') },
  { path: '/inventory/:type/:id', load: () => import('./pages/inventory/detail.js') },
  { path: '/inventory/:type/:id/edit', load: () => import('./pages/inventory/form.js') },
  { path: '/discovery', load: () => import('./pages/discovery/scan.js') },
  { path: '/discovery/devices', load: () => import('./pages/discovery/devices.js') },
  { path: '/discovery/devices/:id', load: () => import('./pages/discovery/device.js') },
  { path: '/discovery/sessions', load: () => import('./pages/discovery/sessions.js') },
  { path: '/discovery/profiles', load: () => import('./pages/discovery/profiles.js') },
  { path: '/discovery/sessions/:id', load: () => import('./pages/discovery/session.js') },
  { path: '/discovery/sessions/:id/inventory', load: () => import('./pages/discovery/session-inventory.js') },
  { path: '/discovery/sessions/:id/map', load: () => import('./pages/discovery/map.js') },
  { path: '/discovery/ssh-targets', load: () => import('./pages/discovery/ssh-targets.js') },
  { path: '/discovery/ssh-targets/:id', load: () => import('./pages/discovery/ssh-target.js') },
  { path: '/discovery/routes', load: () => import('./pages/discovery/route-list.js') },
  { path: '/snmp', load: () => import('./pages/snmp/index.js') },
  { path: '/snmp/:section', load: () => import('./pages/snmp/index.js') },
  { path: '/snmp/polling/:id', load: () => import('./pages/snmp/poll-device.js') },
  { path: '/snmp/polling/:id/interfaces/:key', load: () => import('./pages/snmp/poll-interface.js') },
  { path: '/alerts', load: () => import('./pages/alerts.js') },
  { path: '/alerts/deliveries', load: () => import('./pages/alerts.js'), props: { view: 'deliveries' } },
  { path: '/webhooks', load: () => import('./pages/webhooks.js') },
  { path: '/settings', load: () => import('./pages/settings/index.js') },
  { path: '/settings/:section', load: () => import('./pages/settings/index.js') },
];

/** The main navigation, in order. `match` is the path prefix that marks the entry as current. */
export const nav = [
  { href: '/', label: 'Dashboard', icon: 'dashboard' },
  { href: '/monitors', label: 'Monitors', icon: 'monitors' },
  { href: '/inventory', label: 'Inventory', icon: 'inventory' },
  { href: '/discovery', label: 'Discovery', icon: 'discovery' },
  { href: '/snmp', label: 'SNMP', icon: 'snmp' },
  { href: '/alerts', label: 'Alerts', icon: 'bell' },
  { href: '/webhooks', label: 'Webhooks', icon: 'webhooks' },
  { href: '/settings', label: 'Settings', icon: 'settings' },
];

export const notFound = () => import('./pages/not-found.js');
