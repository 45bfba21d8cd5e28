// Configuration of out-of-band access (section `oob`): where the ZeroTier and Tailscale command-line
// programs are, and how long each call to them may take. Spread into the system module's sections
// (../config.ts); docs/oob.md explains each.
import { z } from 'zod';
import { section } from '../../../core/config/schema.js';

// A program name found on PATH, or an absolute path: never options or shell syntax (it is argv[0]).
const Program = z.string().min(1).max(255)
  .regex(/^(\/[A-Za-z0-9._+-]+)+$|^[A-Za-z0-9._+-]+$/, 'Must be a program name or an absolute path')
  .refine((v) => !v.startsWith('-'), 'Must not start with "-"');
const Dir = z.union([z.literal(''), z.string().max(255).regex(/^(\/[A-Za-z0-9._+-]+)+\/?$/, 'Must be an absolute directory path')]);

const oob = section({
  zerotier_cli: Program.default('zerotier-cli').describe('The zerotier-cli program: a name on PATH or an absolute path'),
  zerotier_home: Dir.default('')
    .describe("ZeroTier One's home directory (zerotier-one.port, authtoken.secret), passed as -D; empty: the program's own " +
      'default (/var/lib/zerotier-one on Linux). The service reads the auth token from its own copy, <data dir>/.zeroTierOneAuthToken'),
  tailscale_cli: Program.default('tailscale').describe('The tailscale program: a name on PATH or an absolute path'),
  command_timeout_seconds: z.number().int().min(1).max(120).default(15)
    .describe('Each status, join, leave or down call to either program must finish within this'),
  tailscale_up_timeout_seconds: z.number().int().min(5).max(600).default(60)
    .describe('`tailscale up` with an auth key waits at most this long for the Running state (passed as --timeout)'),
  tailscale_login_seconds: z.number().int().min(10).max(3600).default(120)
    .describe('An interactive `tailscale up` started for a login URL runs at most this long (--timeout); tailscaled ' +
      'keeps the login open after it ends'),
  tailscale_login_wait_seconds: z.number().int().min(1).max(60).default(10)
    .describe('How long a request waits for tailscaled to hand out a login URL before answering 504'),
});

export type OobConfig = z.infer<typeof oob>;

export const oobConfig = { oob };

declare module '../../../core/config/schema.js' {
  interface ModuleConfig { oob: OobConfig }
}
