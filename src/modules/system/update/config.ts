// Configuration of self-update from a git source (docs/update.md): spread into the system module's sections
// (../config.ts). The read-only token of a private source is not configuration: POST /api/update/credentials
// keeps it in <data dir>/update-credentials.json (0600), where the root helper reads it too.
import { z } from 'zod';
import { section } from '../../../core/config/schema.js';
import { SOURCE_URL_HINT, sourceUrlProblem } from './source.js';

const SourceUrl = z.string().max(2048).refine((v) => v === '' || sourceUrlProblem(v) === null, SOURCE_URL_HINT);
// A branch name as git accepts it (git check-ref-format), kept to the characters a channel needs.
export const Channel = z.string().min(1).max(200)
  .regex(/^(?!-)(?!.*\.\.)(?!.*\/\/)(?!.*\.lock$)(?!.*\/$)(?!\/)[A-Za-z0-9._/-]+$/, 'Must be a branch name such as stable or release/beta');

const update = section({
  source_url: SourceUrl.default('').describe(
    'Git repository the probe updates from (https://, http://, git://, ssh:// or file://); its user name and token are set with ' +
    'POST /api/update/credentials, never in this URL. Empty: updates are off'),
  channel: Channel.default('stable').describe('The branch of the source that carries the built releases this probe follows'),
  daily_check: z.boolean().default(true).describe(
    'Check the channel once a day (at a jittered time) and raise the update_available alert when a newer release is there'),
  git_timeout_seconds: z.number().int().min(5).max(600).default(30)
    .describe('Listing the branches and checking for an update must finish within this'),
  health_timeout_seconds: z.number().int().min(10).max(1800).default(180).describe(
    'After switching, the new release must answer GET /api/version with its version within this, or the updater rolls back'),
  min_free_mb: z.number().int().min(0).max(100_000).default(150).describe(
    'Free space the update needs beyond the release itself and the database backup, on the release and data file systems'),
  run_timeout_minutes: z.number().int().min(1).max(120).default(20)
    .describe('POST /api/update/run follows the root helper this long before its job gives up waiting (the helper itself goes on)'),
  helper_unit_file: z.string().min(1).max(1024).default('/etc/systemd/system/netprobe-update.path').describe(
    'The path unit that starts the root helper on a request; POST /api/update/run answers 503 while this file does not exist ' +
    '(a development checkout, or an install without the update units)'),
});

export type UpdateConfig = z.infer<typeof update>;

export const updateConfig = { update };

declare module '../../../core/config/schema.js' {
  interface ModuleConfig { update: UpdateConfig }
}
