// The SSH driver of the enrichment, split along its seams under ssh/: types.ts (login, limits, host key),
// problems.ts (SshProblem and ssh2's errors), keys.ts (fingerprints, private key checks), session.ts (the
// connection, host key pinning, channels), script.ts (marked scripts on one exec channel) and cli.ts
// (interactive CLI shells). This index keeps the public names where importers expect them.
export { cleanTerminal, cliError } from './ssh/cli.js';
export { fingerprintOf, keyProblem, keyTypeOf } from './ssh/keys.js';
export { SshProblem, type SshProblemCode } from './ssh/problems.js';
export { MarkerParser, posixScript, routerosScript } from './ssh/script.js';
export { SshSession, type OpenOptions } from './ssh/session.js';
export type { HostKey, SshLimits, SshLogin } from './ssh/types.js';
