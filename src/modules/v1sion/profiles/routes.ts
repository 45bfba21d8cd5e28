// /api/v1sion/profiles: scan profiles run on a schedule (profiles/service.ts), under the discovery scopes
// (v1sion:read for GET, v1sion:write for the rest). Every change, run now and skip is audited. See
// docs/discovery.md, "Scheduled scans".
import { z } from 'zod';
import { actorOf, reply, route, type AnyRoute } from '../../../core/http/registry.js';
import { CreateProfileBody, ProfileIdParams, ProfileSchema, UpdateProfileBody } from './schemas.js';
import type { ScanProfiles } from './service.js';

export function profileRoutes(profiles: ScanProfiles): AnyRoute[] {
  return [
    route({
      method: 'GET', path: '/api/v1sion/profiles', scope: 'v1sion:read',
      summary: 'Scan profiles, each with its next and last run',
      response: z.object({
        items: z.array(ProfileSchema),
        total: z.number().int(),
        timezone: z.string().describe("The probe's time zone: a profile created without one takes it"),
        stages: z.array(z.object({ name: z.string(), phase: z.string() }))
          .describe('The stages a profile may choose, in the order they run'),
      }),
      handler: () => ({ ...profiles.list(), timezone: profiles.defaultTimezone(), stages: profiles.stages() }),
    }),
    route({
      method: 'POST', path: '/api/v1sion/profiles', scope: 'v1sion:write', status: 201,
      summary: 'Create a scan profile',
      description: 'Subnets scanned on a schedule (every N minutes or hours, or a cron), jittered, one scan at a time: a due ' +
        'profile waits for the run or person\'s scan going on. Each run merges into the profile\'s session. Subnets are checked as ' +
        'a scan checks them (403 range_not_allowed outside discovery.allowed_ranges, naming the subnet); credentials are stored ' +
        'SNMP credentials by reference. Audited.',
      body: CreateProfileBody, response: ProfileSchema,
      handler: async (ctx) => reply(201, await profiles.create(ctx.body, actorOf(ctx))),
    }),
    route({
      method: 'GET', path: '/api/v1sion/profiles/:id', scope: 'v1sion:read',
      summary: 'One scan profile', params: ProfileIdParams, response: ProfileSchema,
      handler: (ctx) => profiles.get(ctx.params.id),
    }),
    route({
      method: 'PUT', path: '/api/v1sion/profiles/:id', scope: 'v1sion:write',
      summary: 'Change a scan profile (the fields given)',
      description: 'A new schedule or time zone counts from now. Audited.',
      params: ProfileIdParams, body: UpdateProfileBody, response: ProfileSchema,
      handler: (ctx) => profiles.update(ctx.params.id, ctx.body, actorOf(ctx)),
    }),
    route({
      method: 'DELETE', path: '/api/v1sion/profiles/:id', scope: 'v1sion:write',
      summary: 'Delete a scan profile',
      description: 'Its session and kept scans stay; a run going on finishes. Audited.',
      params: ProfileIdParams,
      handler: async (ctx) => { await profiles.remove(ctx.params.id, actorOf(ctx)); return undefined; },
    }),
    route({
      method: 'POST', path: '/api/v1sion/profiles/:id/run', scope: 'v1sion:write', status: 202,
      summary: 'Run a scan profile now',
      description: 'Before any due profile, after the run or person\'s scan going on; the schedule stays as it was. ' +
        '409 profile_busy when it is already waiting or running. Audited.',
      params: ProfileIdParams, response: ProfileSchema,
      handler: async (ctx) => reply(202, await profiles.runNow(ctx.params.id, actorOf(ctx))),
    }),
    route({
      method: 'POST', path: '/api/v1sion/profiles/:id/skip', scope: 'v1sion:write',
      summary: 'Skip the next scheduled run',
      description: 'The next run is the one after (skipped says which time was skipped); a run waiting to start is taken out of ' +
        'the queue. 409 when the profile is disabled or running. Audited.',
      params: ProfileIdParams, response: ProfileSchema,
      handler: (ctx) => profiles.skip(ctx.params.id, actorOf(ctx)),
    }),
  ];
}
