// A status page as readers get it (the public form, PublicPageSchema), made from the page, its monitors in
// memory, their day rollups (storage.days) and the maintenance windows that touch them. Only what the page
// chooses to show goes in: its title, its groups, each monitor's name as the page gives it, its state and its
// days. Never a monitor's id, target, tags, message or settings, never a window's name or description, never
// a monitor the page does not name (test/integration/monitors-status-pages-leak.test.ts).
import { createHash } from 'node:crypto';
import type { LiveMonitor, Registry } from '../live.js';
import type { MaintenanceWindows } from '../maintenance/windows.js';
import { span, when } from '../maintenance/words.js';
import { uptimePct, type Aggregate, type SeriesStore } from '../storage/index.js';
import type { LivePage, StatusPages } from './pages.js';
import type { DayState, PublicPage, PublicState } from './schemas.js';

export const DAYS_SHOWN = 90;
/** Maintenance opening within this long is announced. */
export const NOTICE_HORIZON_MS = 7 * 86_400_000;
const DAY_MS = 86_400_000;
/** A day with down time but at least this uptime is drawn as degraded, not down. */
const DOWN_BELOW_PCT = 99;

export interface ViewDeps {
  registry: Registry;
  storage: SeriesStore;
  maintenance: MaintenanceWindows;
  pages: StatusPages;
  /** The uploaded logo's URL, or null. */
  logoUrl(): string | null;
  /** The probe's time zone: notices give their times in it. */
  timezone(): string;
}

/** Each monitor's days, made apart from the rest: they change slowly and cost a read of the rollups (cache.ts). */
export type DayBars = Map<string, { days: PublicPage['groups'][number]['monitors'][number]['days']; uptime: number | null }>;

/** The state a reader sees: maintenance while a window holds the monitor's alerts, else its status. */
export function publicState(m: LiveMonitor, maintenance: MaintenanceWindows, now: number): PublicState {
  if (m.row.status !== 'paused' && maintenance.openFor(m, now)) return 'maintenance';
  return m.row.status;
}

/** The page's monitors that exist, in page order. */
export function pageMonitors(deps: Pick<ViewDeps, 'registry' | 'pages'>, page: LivePage): LiveMonitor[] {
  const out: LiveMonitor[] = [];
  for (const g of page.groups) for (const e of g.monitors) {
    const m = deps.registry.byId(e.id);
    if (m) out.push(m);
  }
  return out;
}

export function dayBars(deps: Pick<ViewDeps, 'storage'>, monitors: readonly LiveMonitor[], now: number): DayBars {
  const out: DayBars = new Map();
  const first = Math.floor(now / DAY_MS) * DAY_MS - (DAYS_SHOWN - 1) * DAY_MS;
  for (const m of monitors) {
    const aggs = deps.storage.days(m.row.pk, DAYS_SHOWN, now);
    const total: Aggregate = { checks: 0, up: 0, degraded: 0, down: 0, rt_sum: 0, rt_count: 0, rt_min: null, rt_max: null,
      ms_up: 0, ms_degraded: 0, ms_down: 0, ms_maint: 0 };
    const days = aggs.map((a, i) => {
      const date = new Date(first + i * DAY_MS).toISOString().slice(0, 10);
      if (!a) return { date, state: 'none' as DayState, uptime: null };
      total.checks += a.checks; total.up += a.up; total.degraded += a.degraded; total.down += a.down;
      total.ms_up += a.ms_up; total.ms_degraded += a.ms_degraded; total.ms_down += a.ms_down;
      const uptime = uptimePct(a);
      return { date, state: dayState(a, uptime), uptime };
    });
    out.set(m.row.id, { days, uptime: uptimePct(total) });
  }
  return out;
}

/** up: no down or degraded time; degraded: degraded time, or down time with DOWN_BELOW_PCT % or more up; down: less. */
function dayState(a: Aggregate, uptime: number | null): DayState {
  const known = a.ms_up + a.ms_degraded + a.ms_down;
  if (!known && !a.checks) return a.ms_maint ? 'maintenance' : 'none';
  if (uptime === null) return 'none';
  if (known ? a.ms_down === 0 && a.ms_degraded === 0 : a.down === 0 && a.degraded === 0) return 'up';
  return uptime >= DOWN_BELOW_PCT ? 'degraded' : 'down';
}

/** The public form of `page` at `now`, with its days from `bars`. */
export function buildView(deps: ViewDeps, page: LivePage, bars: DayBars, now: number): PublicPage {
  const shownName = new Map<string, string>();
  const groups = page.groups.map((g) => ({
    name: g.name,
    monitors: g.monitors.flatMap((e) => {
      const m = deps.registry.byId(e.id);
      if (!m) return [];
      const name = e.alias || m.row.name;
      shownName.set(m.row.id, name);
      const b = bars.get(m.row.id);
      return [{ key: keyOf(page.row.id, m.row.id), name, status: publicState(m, deps.maintenance, now), uptime_90d: b?.uptime ?? null,
        days: b?.days ?? [] }];
    }),
  }));

  const states = groups.flatMap((g) => g.monitors.map((m) => m.status));
  const notices: PublicPage['notices'] = [];
  if (page.row.notice) notices.push({ kind: 'notice', text: page.row.notice, from: null, to: null, open: false, monitors: [] });
  if (page.row.show_maintenance) {
    const tz = deps.timezone();
    for (const o of deps.maintenance.touching(pageMonitors(deps, page), now, NOTICE_HORIZON_MS)) {
      const names = [...new Set(o.monitors.map((m) => shownName.get(m.row.id)!))];
      notices.push({ kind: 'maintenance', open: o.open, from: new Date(o.from).toISOString(), to: new Date(o.to).toISOString(),
        monitors: names,
        text: o.open ? `Maintenance in progress until ${when(o.to, tz, now)}` : `Planned maintenance ${span(o.from, o.to, tz)}` });
    }
  }
  const overall = overallOf(states);
  return {
    title: page.row.title, description: page.row.description, logo_url: page.row.show_logo ? deps.logoUrl() : null,
    status: overall, summary: SUMMARY[overall](states), notices, groups, generated_at: new Date(now).toISOString(),
  };
}

/** A key for the monitor on this page that says nothing of its id. */
function keyOf(pageId: string, monitorId: string): string {
  return createHash('sha256').update(`${pageId}/${monitorId}`).digest('base64url').slice(0, 12);
}

function overallOf(states: PublicState[]): PublicPage['status'] {
  if (states.includes('down')) return 'down';
  if (states.includes('degraded')) return 'degraded';
  if (states.includes('maintenance')) return 'maintenance';
  if (states.some((s) => s === 'up')) return 'up';
  return 'unknown';
}

const SUMMARY: Record<PublicPage['status'], (states: PublicState[]) => string> = {
  down: (s) => (s.every((x) => x === 'down') ? 'Major outage' : 'Partial outage'),
  degraded: () => 'Degraded performance',
  maintenance: () => 'Maintenance in progress',
  up: () => 'All systems operational',
  unknown: () => 'No status yet',
};

