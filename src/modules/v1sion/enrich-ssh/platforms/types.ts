// What a platform file declares: how its commands travel (the transport), the fixed read-only command
// list, the pager-disabling preamble, and the parser from the commands' output to the facts. Nothing here
// ever takes text from an API request: every command is a constant of its platform's file.
import type { ParsedFacts, PlatformName } from '../facts.js';

/**
 * - `script`: one exec channel running `sh -s`, a fixed POSIX script on its input that runs each command
 *   with `timeout` and prints section markers around its output (Linux).
 * - `routeros`: one exec channel whose command is a fixed RouterOS script printing the same markers with
 *   `:put` (RouterOS runs the exec text as console commands).
 * - `shell`: one interactive shell channel on the device's CLI; each command's output is what comes back
 *   before the prompt reappears (Cisco, Junos, ArubaOS-CX, FortiOS: their exec channels run one command).
 */
export type Transport = 'script' | 'routeros' | 'shell';

export interface PlatformCommand {
  /** Section name: letters, digits and underscores. */
  name: string;
  /** The command as the device's CLI reads it (for `script`, the argv joined with spaces). */
  command: string;
  /** `script` only: the argv, each word of [A-Za-z0-9_./:=+-] (checked when the script is built). */
  argv?: readonly string[];
  /** A failure is normal on many devices (a file that is not there, a feature that is off): no warning. */
  optional?: boolean;
}

/** One command's output as the transport collected it. */
export interface Section {
  text: string;
  ok: boolean;
  error: string | null;
  truncated: boolean;
  ms: number | null;
}

export type Sections = Record<string, Section | undefined>;

export interface Platform {
  name: PlatformName;
  label: string;
  transport: Transport;
  /** Appended to the login name (RouterOS `+ct`: no colours, no terminal detection). */
  usernameSuffix?: string;
  /** `shell`: sent first, output discarded (pagers off, a wide terminal). */
  preamble?: readonly string[];
  commands: readonly PlatformCommand[];
  parse(sections: Sections): ParsedFacts;
}
