// Request and response schemas of the maintenance windows API (routes.ts), with every cross-field rule
// in the schema so that one 400 names every field at fault.
import { z } from 'zod';
import { timeZoneSchema } from '../../../core/time-zone.js';
import { DAY_NAMES, parseCron } from './schedule.js';

const IsoTime = z.iso.datetime({ offset: true });
const Hhmm = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'A time of day as HH:MM, 00:00 to 23:59');


export const ScheduleSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('once'),
    from: IsoTime.describe('When it opens (ISO 8601)'),
    to: IsoTime.describe('When it closes; after from'),
  }).strict(),
  z.object({
    kind: z.literal('weekly'),
    days: z.array(z.enum(DAY_NAMES)).min(1, 'Choose at least one day').max(7).describe('Days it opens on'),
    start: Hhmm.describe('Local time it opens'),
    end: Hhmm.describe('Local time it closes; at or before start: the next day'),
  }).strict(),
  z.object({
    kind: z.literal('cron'),
    cron: z.string().trim().min(1).max(100)
      .describe('Five fields: minute hour day-of-month month day-of-week; d#n is the nth weekday ("0 6 * * 0#1": first Sunday, 06:00)'),
    duration_min: z.number().int().min(1).max(10_080).describe('How long each occurrence lasts, minutes (at most a week)'),
  }).strict(),
]);

const Fields = {
  name: z.string().trim().min(1).max(100),
  description: z.string().trim().max(1000),
  schedule: ScheduleSchema,
  timezone: timeZoneSchema()
    .describe("Recurring windows' time zone; the probe's when left out"),
  applies_to: z.enum(['all', 'monitors', 'tags']).describe('Every monitor, the monitors named, or the monitors with any of the tags'),
  monitor_ids: z.array(z.uuid()).max(2000),
  tags: z.array(z.string().trim().min(1).max(50)).max(20),
  enabled: z.boolean(),
};

/**
 * The rules across fields, added to the schema's own errors. They run whatever else is wrong (`ALWAYS`: zod
 * skips a refinement after a missing or mistyped field otherwise, and the form would learn of "Choose at
 * least one tag" only on its second submit), so they read the body as it came: it may be no object at all,
 * any field may be absent or of the wrong type, and is then the schema's to name, not theirs.
 */
function crossFields(input: unknown, ctx: z.RefinementCtx): void {
  const record = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' ? v as Record<string, unknown> : {});
  const b = record(input), s = record(b.schedule);
  const text = (v: unknown): v is string => typeof v === 'string';
  if (s.kind === 'once' && text(s.from) && text(s.to) && Date.parse(s.to) <= Date.parse(s.from)) {
    ctx.addIssue({ code: 'custom', path: ['schedule', 'to'], message: 'Must be after the start' });
  }
  if (s.kind === 'cron' && text(s.cron) && s.cron.trim()) {
    try { parseCron(s.cron); } catch (e) { ctx.addIssue({ code: 'custom', path: ['schedule', 'cron'], message: (e as Error).message }); }
  }
  const none = (v: unknown) => !Array.isArray(v) || !v.length;
  if (b.applies_to === 'monitors' && none(b.monitor_ids)) {
    ctx.addIssue({ code: 'custom', path: ['monitor_ids'], message: 'Choose at least one monitor' });
  }
  if (b.applies_to === 'tags' && none(b.tags)) ctx.addIssue({ code: 'custom', path: ['tags'], message: 'Choose at least one tag' });
}
const ALWAYS = { when: () => true };

export const CreateWindowBody = z.object({
  name: Fields.name,
  description: Fields.description.default(''),
  schedule: Fields.schedule,
  timezone: Fields.timezone.optional(),
  applies_to: Fields.applies_to,
  monitor_ids: Fields.monitor_ids.default([]),
  tags: Fields.tags.default([]),
  enabled: Fields.enabled.default(true),
}).strict().superRefine(crossFields, ALWAYS);
export type CreateWindow = z.infer<typeof CreateWindowBody>;

/** A PUT replaces what it names; the rules across fields hold for the result (checked in the service). */
export const UpdateWindowBody = z.object({
  name: Fields.name.optional(),
  description: Fields.description.optional(),
  schedule: Fields.schedule.optional(),
  timezone: Fields.timezone.optional(),
  applies_to: Fields.applies_to.optional(),
  monitor_ids: Fields.monitor_ids.optional(),
  tags: Fields.tags.optional(),
  enabled: Fields.enabled.optional(),
}).strict();
export type UpdateWindow = z.infer<typeof UpdateWindowBody>;

export const WindowIdParams = z.object({ id: z.uuid() });

const Span = z.object({ from: z.string(), to: z.string() });

export const WindowSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  schedule: ScheduleSchema,
  timezone: z.string(),
  applies_to: z.enum(['all', 'monitors', 'tags']),
  monitor_ids: z.array(z.string()),
  tags: z.array(z.string()),
  enabled: z.boolean(),
  state: z.enum(['open', 'scheduled', 'over', 'disabled'])
    .describe('open: holding alerts now; scheduled: opens later; over: a one-off window that has closed'),
  current: Span.nullable().describe('The occurrence open now'),
  next: Span.nullable().describe('The next occurrence to open'),
  created_at: z.string(),
  updated_at: z.string(),
});
export type WindowOut = z.infer<typeof WindowSchema>;

/** What a monitor shows while a window holds its alerts. */
export const MonitorMaintenanceSchema = z.object({
  id: z.string(),
  name: z.string(),
  until: z.string().describe('When the open occurrence closes'),
}).nullable().describe('The maintenance window holding its alerts now, or null');
export type MonitorMaintenance = z.infer<typeof MonitorMaintenanceSchema>;
