// Every way an SSH connection can go wrong, as one SshProblem with a code and a message that says what
// happened and where: the codes, the class, and the translation of ssh2's errors (problemOf).
import type { SshLimits, SshLogin } from './types.js';

export type SshProblemCode =
  | 'host_key_changed' | 'host_key_unpinned' | 'auth_failed' | 'refused' | 'unreachable' | 'timeout' | 'no_banner'
  | 'banner_stalled' | 'closed'
  | 'protocol' | 'channel_refused' | 'cancelled' | 'key_unusable';

export class SshProblem extends Error {
  constructor(readonly code: SshProblemCode, message: string, readonly details: Record<string, unknown> = {}) {
    super(message);
    this.name = 'SshProblem';
  }
}

export const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;
export const printable = (s: string) => s.slice(0, 64).replace(/[^\x20-\x7e]/g, '.');

/** ssh2's errors as problems that say what happened, with where. */
export function problemOf(err: Error & { level?: string; code?: string }, where: string, login: SshLogin, limits: SshLimits,
  ident: string | null): SshProblem {
  const code = err.code ?? '';
  if (err.level === 'client-authentication') {
    const how = login.privateKey !== undefined ? 'key' : 'password';
    return new SshProblem('auth_failed', `${where} refused the login of user "${login.username}" with the stored ${how}`);
  }
  if (err.level === 'client-socket') {
    if (code === 'ECONNREFUSED') {
      return new SshProblem('refused', `${where} refused the connection (nothing listens on port ${login.port})`);
    }
    if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return new SshProblem('unreachable', `${where} is unreachable (${code})`);
    if (code === 'ETIMEDOUT') return new SshProblem('timeout', `${where} did not answer (${code})`);
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return new SshProblem('unreachable', `${login.host} does not resolve (${code})`);
    if (code === 'ECONNRESET' || code === 'EPIPE') {
      return new SshProblem('closed', `${where} reset the connection${ident ? ` after its banner "${ident}"` : ''}`);
    }
    return new SshProblem('unreachable', `${where}: ${err.message}`);
  }
  if (err.level === 'client-timeout') {
    return new SshProblem('timeout', `${where} did not complete the login within ${seconds(limits.connectMs)}`);
  }
  if (/identification|protocol version/i.test(err.message)) {
    return new SshProblem('protocol', `${where} does not speak SSH (${err.message})`);
  }
  if (err.level === 'handshake') {
    return new SshProblem('protocol', `The SSH key exchange with ${where} failed: ${err.message}`);
  }
  return new SshProblem('protocol', `${where}: ${err.message}`);
}
