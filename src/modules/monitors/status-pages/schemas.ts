// Request and response schemas of the status pages API (routes.ts): a page as its editors see it, and the
// public form readers get, which names nothing the page does not choose to show (no ids, targets, tags
// or messages). See docs/monitors.md, "Status pages".
import { z } from 'zod';

/** Lower-case letters, digits and single hyphens inside: the page's address, /status/<slug>. */
export const SLUG = /^[a-z0-9](?:[a-z0-9]|-(?=[a-z0-9])){0,62}$/;
export const Slug = z.string().regex(SLUG, 'Lower-case letters, digits and hyphens (not first or last), at most 63 characters');

/** Most monitors one page may show: the page stays one small document. */
export const MAX_PAGE_MONITORS = 200;

const PageMonitor = z.object({
  id: z.uuid().describe('The monitor shown'),
  alias: z.string().trim().max(100).default('')
    .describe("The name readers see; empty: the monitor's own name"),
}).strict();

const Group = z.object({
  name: z.string().trim().min(1, 'Name the group').max(100),
  monitors: z.array(PageMonitor).max(MAX_PAGE_MONITORS),
}).strict();

const Fields = {
  slug: Slug.describe('The page\'s address: /status/<slug>'),
  title: z.string().trim().min(1).max(100).describe('The heading readers see'),
  description: z.string().trim().max(500).describe('A line under the title; plain text'),
  groups: z.array(Group).max(20).describe('Sections of the page, each with its chosen monitors in order'),
  show_logo: z.boolean().describe("Show the probe's logo (Settings, branding) above the title when one is uploaded"),
  show_maintenance: z.boolean()
    .describe('Announce maintenance windows that touch the page\'s monitors: open now, or opening within 7 days'),
  notice: z.string().trim().max(500).describe('A notice of your own shown at the top; empty for none; plain text'),
};

/** Every monitor of the page at most once, and at most MAX_PAGE_MONITORS in all (named by field). */
function acrossGroups(input: unknown, ctx: z.RefinementCtx): void {
  const groups = (input as { groups?: unknown })?.groups;
  if (!Array.isArray(groups)) return;
  const seen = new Set<string>();
  let count = 0;
  groups.forEach((g: unknown, i) => {
    const list = (g as { monitors?: unknown })?.monitors;
    if (!Array.isArray(list)) return;
    list.forEach((m: unknown, j) => {
      const id = (m as { id?: unknown })?.id;
      if (typeof id !== 'string') return;
      count++;
      if (seen.has(id)) {
        ctx.addIssue({ code: 'custom', path: ['groups', i, 'monitors', j, 'id'], message: 'This monitor is on the page already' });
      }
      seen.add(id);
    });
  });
  if (count > MAX_PAGE_MONITORS) {
    ctx.addIssue({ code: 'custom', path: ['groups'], message: `At most ${MAX_PAGE_MONITORS} monitors on one page` });
  }
}
const ALWAYS = { when: () => true };

export const CreatePageBody = z.object({
  slug: Fields.slug,
  title: Fields.title,
  description: Fields.description.default(''),
  groups: Fields.groups.default([]),
  show_logo: Fields.show_logo.default(true),
  show_maintenance: Fields.show_maintenance.default(true),
  notice: Fields.notice.default(''),
}).strict().superRefine(acrossGroups, ALWAYS);
export type CreatePage = z.infer<typeof CreatePageBody>;

/** A PUT replaces the fields it names. */
export const UpdatePageBody = z.object({
  slug: Fields.slug.optional(),
  title: Fields.title.optional(),
  description: Fields.description.optional(),
  groups: Fields.groups.optional(),
  show_logo: Fields.show_logo.optional(),
  show_maintenance: Fields.show_maintenance.optional(),
  notice: Fields.notice.optional(),
}).strict().superRefine(acrossGroups, ALWAYS);
export type UpdatePage = z.infer<typeof UpdatePageBody>;

export const PageIdParams = z.object({ id: z.uuid() });
export const SlugParams = z.object({ slug: Slug });
/**
 * A reader's address: any text, as a person may type anything after /status/; one that is no slug is no page
 * (an HTML 404 there, a 404 problem at the API), never a 400 in JSON for a browser.
 */
export const ReaderSlugParams = z.object({ slug: z.string().min(1).max(200) });

export const PageSchema = z.object({
  id: z.string(),
  slug: z.string(),
  url: z.string().describe('Where readers find it: /status/<slug>'),
  title: z.string(),
  description: z.string(),
  groups: z.array(z.object({ name: z.string(), monitors: z.array(z.object({ id: z.string(), alias: z.string() })) })),
  show_logo: z.boolean(),
  show_maintenance: z.boolean(),
  notice: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type PageOut = z.infer<typeof PageSchema>;

// ---- the public form -----------------------------------------------------------------------------

export const PUBLIC_STATES = ['up', 'down', 'degraded', 'maintenance', 'paused', 'unknown'] as const;
export type PublicState = (typeof PUBLIC_STATES)[number];
export const DAY_STATES = ['up', 'degraded', 'down', 'maintenance', 'none'] as const;
export type DayState = (typeof DAY_STATES)[number];

export const PublicPageSchema = z.object({
  title: z.string(),
  description: z.string(),
  logo_url: z.string().nullable().describe('The probe\'s logo when the page shows it'),
  status: z.enum(['up', 'degraded', 'down', 'maintenance', 'unknown']).describe('The worst state of the page\'s monitors'),
  summary: z.string().describe('That state in words ("All systems operational")'),
  notices: z.array(z.object({
    kind: z.enum(['notice', 'maintenance']),
    text: z.string(),
    from: z.string().nullable(),
    to: z.string().nullable(),
    open: z.boolean().describe('A maintenance window open now (else: planned)'),
    monitors: z.array(z.string()).describe('The page\'s names of the monitors it touches'),
  })),
  groups: z.array(z.object({
    name: z.string(),
    monitors: z.array(z.object({
      key: z.string().describe('Stable for the monitor on this page; not its id'),
      name: z.string(),
      status: z.enum(PUBLIC_STATES),
      uptime_90d: z.number().nullable().describe('Percent over the days shown; maintenance time counts in none'),
      days: z.array(z.object({
        date: z.string().describe('UTC day, YYYY-MM-DD'),
        state: z.enum(DAY_STATES),
        uptime: z.number().nullable(),
      })).describe('The last 90 UTC days, oldest first, today last'),
    })),
  })),
  generated_at: z.string().describe('When this document was made (it is rebuilt when a state changes, and at least every 30 s)'),
});
export type PublicPage = z.infer<typeof PublicPageSchema>;
