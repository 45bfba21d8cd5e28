// Which monitors' alerts a channel gets (its `monitors` field): all of them, those with any of chosen
// tags, or chosen monitors. Alerts about no monitor (discovery, system) are chosen by `alert_types` alone.
// Pure: the schema, the stored form, and the decision with its reason for the alert log.
import { z } from 'zod';
import type { AlertMonitor } from './alert.js';

export const ROUTING_MODES = ['all', 'tags', 'monitors'] as const;

const Tag = z.string().trim().min(1).max(50);

export const RoutingSchema = z.discriminatedUnion('mode', [
  z.strictObject({ mode: z.literal('all') }),
  z.strictObject({
    mode: z.literal('tags'),
    tags: z.array(Tag).min(1, 'Choose at least one tag').max(20).describe('A monitor with any of these tags'),
  }),
  z.strictObject({
    mode: z.literal('monitors'),
    ids: z.array(z.uuid()).min(1, 'Choose at least one monitor').max(2000).describe('Monitor ids (GET /api/monitors)'),
  }),
]).describe('Which monitors\' alerts it gets: {"mode": "all"} (default), {"mode": "tags", "tags": [...]} (any of them) or ' +
  '{"mode": "monitors", "ids": [...]}. Alerts about no monitor (discovery, system) are chosen by alert_types alone.');
export type Routing = z.infer<typeof RoutingSchema>;

/** As responses show it: chosen monitors may have run out (each deleted), which leaves the channel no monitor's alerts. */
export const RoutingOutSchema = z.discriminatedUnion('mode', [
  z.object({ mode: z.literal('all') }),
  z.object({ mode: z.literal('tags'), tags: z.array(z.string()) }),
  z.object({ mode: z.literal('monitors'), ids: z.array(z.string()) }),
]).describe('Which monitors\' alerts it gets (all, tags or monitors)');

export const ALL: Routing = Object.freeze({ mode: 'all' });

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/**
 * The stored JSON as a routing. Unreadable is `all`, as every webhook was before routing; chosen monitors
 * stay chosen when none is left (deleted monitors are taken out), so such a channel gets no monitor's alerts.
 */
export function parseRouting(text: string | null | undefined): Routing {
  let v: { mode?: unknown; tags?: unknown; ids?: unknown };
  try { v = JSON.parse(text ?? '') as typeof v; } catch { return ALL; }
  if (v?.mode === 'tags') return { mode: 'tags', tags: strings(v.tags) };
  if (v?.mode === 'monitors') return { mode: 'monitors', ids: strings(v.ids) };
  return ALL;
}

/** The same routing with repeats dropped (a tag or monitor named twice means it once). */
export function normalRouting(r: Routing): Routing {
  if (r.mode === 'tags') return { mode: 'tags', tags: [...new Set(r.tags)] };
  if (r.mode === 'monitors') return { mode: 'monitors', ids: [...new Set(r.ids)] };
  return ALL;
}

const list = (xs: readonly string[]) => xs.join(', ');

/** null when the channel gets alerts about `monitor`, else why not, for a person (the alert log's reason). */
export function notRouted(r: Routing, monitor: Pick<AlertMonitor, 'id' | 'tags'> | null): string | null {
  if (!monitor || r.mode === 'all') return null;
  if (r.mode === 'tags') {
    if (r.tags.some((t) => monitor.tags.includes(t))) return null;
    const its = monitor.tags.length ? `this one is tagged ${list(monitor.tags)}` : 'this one has no tag';
    return `it gets alerts only for monitors tagged ${list(r.tags)}; ${its}`;
  }
  if (r.ids.includes(monitor.id)) return null;
  return r.ids.length ? `it gets alerts only for ${r.ids.length} chosen monitor${r.ids.length === 1 ? '' : 's'}, not this one`
    : 'it gets alerts only for chosen monitors, and every one of them was deleted';
}
