// What the inventory pages share: the section's stylesheet (awaited, so pages render styled), the
// tabs (overview and one per type), and the lookup of a type's records for reference fields and
// columns (id -> short ID and name).
import { html, useEffect, useMemo, useRef } from '../../lib/html.js';
import { useApi } from '../../lib/hooks.js';
import { loadStylesheet } from '../../lib/stylesheet.js';
import '../../components/controls.js';
import { Tabs } from '../../components/tabs.js';
import { TYPES } from './types.js';

await loadStylesheet(new URL('./inventory.css', import.meta.url).pathname);

export function InventoryTabs({ active }) {
  const box = useRef(null);
  // On a phone the tab strip scrolls: bring the current tab into view.
  useEffect(() => {
    const strip = box.current?.querySelector('.tabs');
    const tab = strip?.querySelector('[aria-current="page"]');
    if (!tab || strip.scrollWidth <= strip.clientWidth) return;
    const offset = tab.getBoundingClientRect().left - strip.getBoundingClientRect().left;
    strip.scrollLeft += offset - (strip.clientWidth - tab.clientWidth) / 2;
  }, [active]);
  return html`<div ref=${box}><${Tabs} label="Inventory types" active=${active}
    tabs=${[{ href: '/inventory', label: 'Overview' }, ...TYPES.map((t) => ({ href: `/inventory/${t.type}`, label: t.label }))]} /></div>`;
}

/** At most this many records are offered in a reference field; beyond, the field takes a short ID. */
export const LOOKUP_LIMIT = 500;

/**
 * The records of a type (null skips), for reference fields and columns.
 * @returns {{items: any[] | null, byId: Map<string, any>, complete: boolean, error: any}}
 */
export function useLookup(type) {
  const r = useApi(type ? `/api/brain/${type}` : null, { query: { limit: LOOKUP_LIMIT } });
  return useMemo(() => ({
    items: r.data?.items ?? null,
    byId: new Map((r.data?.items ?? []).map((x) => [x.id, x])),
    complete: r.data ? r.data.total <= r.data.items.length : false,
    error: r.error,
  }), [r.data, r.error]);
}
