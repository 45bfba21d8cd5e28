// Request and response schemas of the scan profiles API (routes.ts). A profile holds no secret: its
// credentials are references to stored SNMP credentials, resolved from the vault at each run.
import { z } from 'zod';
import { parseCron } from '../../../core/cron.js';
import { timeZoneSchema } from '../../../core/time-zone.js';
import { ScanCounts } from '../scan/result.js';

export const ScheduleSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('interval'),
    every: z.number().int().min(1).max(10_080).describe('How often: every N minutes (at least 5) or hours (at most 168)'),
    unit: z.enum(['minutes', 'hours']).default('minutes'),
  }).strict(),
  z.object({
    kind: z.literal('cron'),
    cron: z.string().trim().min(1).max(100)
      .describe('Five fields: minute hour day-of-month month day-of-week, in the profile\'s time zone ("*/15 * * * *", "0 3 * * 1-5")'),
  }).strict(),
]).describe('When it runs: every N minutes or hours from when the schedule was set, or a cron');

const Reference = z.string().trim().min(1).max(100).describe('A stored SNMP credential: UUID or short ID (CR-n)');

const Fields = {
  name: z.string().trim().min(1).max(100),
  subnets: z.array(z.string().trim().min(1).max(64)).min(1, 'Give at least one subnet').max(16)
    .describe('Networks in CIDR notation, each within the allowed ranges and no larger than a scan may be; scanned one after another'),
  snmp_enabled: z.boolean().describe('Identify SNMP agents (false: liveness, names, MACs and ports only)'),
  credentials: z.array(Reference).max(32).nullable()
    .describe('Stored SNMP credentials to try, in order (references only); null: the saved discovery credentials at each run'),
  stages: z.array(z.string().max(40)).min(1).max(40).nullable()
    .describe('The scan stages to run (GET /api/v1sion/profiles lists them); null: all. A stage needs the stages that add what it reads'),
  schedule: ScheduleSchema,
  timezone: timeZoneSchema().describe("The cron's time zone; the probe's when left out"),
  jitter_seconds: z.number().int().min(0).max(3600)
    .describe('Each run starts up to this much after its time (at most half the time between runs), so probes do not all scan at once'),
  session_id: z.uuid().nullable().describe('The session each run merges into; null: the first run saves one named after the profile'),
  enabled: z.boolean(),
  missing_after_minutes: z.number().int().min(0).max(525_600).nullable()
    .describe('A known device of its subnets is reported missing once it has not answered this long… '
      + '(null: discovery.missing_after_minutes)'),
  missing_after_scans: z.number().int().min(1).max(1000).nullable()
    .describe('…and in this many of its runs in a row (null: discovery.missing_after_scans)'),
};

/** The rules across fields, whatever else is wrong (a missing field is the schema's to name). */
function crossFields(input: unknown, ctx: z.RefinementCtx): void {
  const b = input && typeof input === 'object' ? input as Record<string, unknown> : {};
  const s = b.schedule && typeof b.schedule === 'object' ? b.schedule as Record<string, unknown> : {};
  if (s.kind === 'cron' && typeof s.cron === 'string' && s.cron.trim()) {
    try { parseCron(s.cron); } catch (e) { ctx.addIssue({ code: 'custom', path: ['schedule', 'cron'], message: (e as Error).message }); }
  }
  if (s.kind === 'interval' && typeof s.every === 'number' && (s.unit ?? 'minutes') === 'minutes' && s.every < 5) {
    ctx.addIssue({ code: 'custom', path: ['schedule', 'every'], message: 'At least every 5 minutes' });
  }
  if (s.kind === 'interval' && typeof s.every === 'number' && s.unit === 'hours' && s.every > 168) {
    ctx.addIssue({ code: 'custom', path: ['schedule', 'every'], message: 'At most every 168 hours (a week)' });
  }
}
const ALWAYS = { when: () => true };

export const CreateProfileBody = z.object({
  name: Fields.name,
  subnets: Fields.subnets,
  snmp_enabled: Fields.snmp_enabled.default(true),
  credentials: Fields.credentials.default(null),
  stages: Fields.stages.default(null),
  schedule: Fields.schedule,
  timezone: Fields.timezone.optional(),
  jitter_seconds: Fields.jitter_seconds.default(60),
  session_id: Fields.session_id.default(null),
  enabled: Fields.enabled.default(true),
  missing_after_minutes: Fields.missing_after_minutes.default(null),
  missing_after_scans: Fields.missing_after_scans.default(null),
}).strict().superRefine(crossFields, ALWAYS);
export type CreateProfile = z.infer<typeof CreateProfileBody>;

/** A PUT replaces the fields it names; a new schedule or time zone starts counting from now. */
export const UpdateProfileBody = z.object({
  name: Fields.name.optional(),
  subnets: Fields.subnets.optional(),
  snmp_enabled: Fields.snmp_enabled.optional(),
  credentials: Fields.credentials.optional(),
  stages: Fields.stages.optional(),
  schedule: Fields.schedule.optional(),
  timezone: Fields.timezone.optional(),
  jitter_seconds: Fields.jitter_seconds.optional(),
  session_id: Fields.session_id.optional(),
  enabled: Fields.enabled.optional(),
  missing_after_minutes: Fields.missing_after_minutes.optional(),
  missing_after_scans: Fields.missing_after_scans.optional(),
}).strict().superRefine(crossFields, ALWAYS);
export type UpdateProfile = z.infer<typeof UpdateProfileBody>;

export const ProfileIdParams = z.object({ id: z.uuid() });

export const LastRunSchema = z.object({
  started_at: z.string(),
  finished_at: z.string(),
  trigger: z.enum(['schedule', 'now']).describe('schedule: its time came; now: a person started it'),
  state: z.enum(['completed', 'failed', 'cancelled']).describe('failed: a subnet could not be scanned or merged (error says why)'),
  job_ids: z.array(z.string()).describe('Each subnet\'s scan (its result: GET /api/v1sion/scan/{job_id}/result while kept)'),
  unchanged: z.array(z.string()).describe('Subnets whose result was the same as the run before: not kept again, nothing rewritten'),
  counts: ScanCounts.describe('Summed over the subnets'),
  new_nodes: z.number().int().describe('Nodes the merge added to the session (marked new)'),
  missing_nodes: z.number().int().describe('Nodes of the session this run did not find (marked missing)'),
  updated_nodes: z.number().int().describe('Nodes found again whose addresses, MAC, vendor or kind changed'),
  error: z.string().nullable(),
});
export type LastRun = z.infer<typeof LastRunSchema>;

export const ProfileSchema = z.object({
  id: z.string(),
  name: z.string(),
  subnets: z.array(z.string()),
  snmp_enabled: z.boolean(),
  credentials: z.array(z.string()).nullable().describe('Stored credential UUIDs, or null for the saved discovery credentials'),
  stages: z.array(z.string()).nullable(),
  schedule: ScheduleSchema,
  timezone: z.string(),
  jitter_seconds: z.number().int(),
  session_id: z.string().nullable(),
  enabled: z.boolean(),
  missing_after_minutes: z.number().int().nullable(),
  missing_after_scans: z.number().int().nullable(),
  state: z.enum(['idle', 'waiting', 'running', 'disabled'])
    .describe('waiting: due (or started now) and waiting for the scan before it, or a person\'s, to end; running: scanning'),
  next_run: z.string().nullable().describe('When it runs next, jitter included (null: disabled)'),
  skipped: z.string().nullable().describe('The scheduled time last skipped'),
  last_run: LastRunSchema.nullable(),
  running_job_id: z.string().nullable().describe('The scan running now for it (follow GET /api/v1sion/scan/{job_id}/stream)'),
  created_at: z.string(),
  updated_at: z.string(),
});
export type ProfileOut = z.infer<typeof ProfileSchema>;
