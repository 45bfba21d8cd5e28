// Every way a request can fail, as an HttpError with its own code (docs/snmp.md, "Walks and errors").
// Timeouts are explained by the client (a timeout may really be a wrong community or privacy key);
// everything else maps here.
import { HttpError } from '../../../core/errors.js';
import { snmp, type NsRequestFailed, type NsResponseInvalid } from './net-snmp.js';
import type { ResolvedTarget } from './target.js';

const user = (t: ResolvedTarget) => `"${t.v3?.username ?? ''}"`;

export const isTimeout = (e: unknown) => e instanceof snmp.RequestTimedOutError;

/** The agent answered: a response (even with an error-status) or a Report. */
export const isAnswer = (e: unknown) => e instanceof snmp.RequestFailedError || e instanceof snmp.ResponseInvalidError;

export function timeoutError(t: ResolvedTarget): HttpError {
  const tries = t.retries + 1;
  return new HttpError(504, 'snmp_timeout',
    `No answer from the SNMP agent at ${t.where} (${t.timeout_ms} ms per attempt, ${tries} attempt${tries > 1 ? 's' : ''})`);
}

export function badCommunity(t: ResolvedTarget): HttpError {
  return new HttpError(422, 'snmp_bad_community',
    `The agent at ${t.where} answers SNMP but ignored the community: check the community string and that the agent `
    + `accepts ${t.version} requests from this probe's address`);
}

export function privacyRejected(t: ResolvedTarget): HttpError {
  return new HttpError(422, 'snmp_decryption_failed',
    `The agent at ${t.where} accepts user ${user(t)} and its auth key but does not answer its encrypted requests: `
    + 'wrong privacy key or privacy protocol');
}

export function badResponse(t: ResolvedTarget, e: unknown): HttpError {
  const why = e instanceof Error ? e.message : String(e);
  return new HttpError(502, 'snmp_bad_response', `The agent at ${t.where} sent a response that cannot be used: ${why}`);
}

/**
 * The target's host name gave no address. `code` is getaddrinfo's (Node says ENOTFOUND for NXDOMAIN and
 * for a name without addresses), or ETIMEOUT when no answer came within `timeoutMs`.
 */
export function hostNotFound(t: Pick<ResolvedTarget, 'host'>, code: string, timeoutMs?: number): HttpError {
  const name = `The host name "${t.host}"`;
  const detail = code === 'ENOTFOUND' ? `${name} does not resolve: DNS has no address for it (${code})`
    : code === 'EAI_AGAIN' ? `${name} could not be resolved: no DNS server answered (${code}); check the probe's DNS servers`
      : code === 'ETIMEOUT' ? `${name} could not be resolved: no DNS answer within ${(timeoutMs ?? 0) / 1000} s`
        : `${name} could not be resolved (${code})`;
  return new HttpError(502, 'snmp_host_not_found', detail, { extra: { host: t.host, dns_error: code } });
}

/** ICMP errors on the connected socket and name resolution failures. */
export function socketError(t: ResolvedTarget, e: NodeJS.ErrnoException): HttpError {
  switch (e.code) {
    case 'ECONNREFUSED':
      return new HttpError(502, 'snmp_unreachable',
        `Nothing listens for SNMP at ${t.where}: the host reports the UDP port closed (ICMP port unreachable)`);
    case 'EHOSTUNREACH': case 'ENETUNREACH': case 'EHOSTDOWN': case 'ENETDOWN':
      return new HttpError(502, 'snmp_unreachable', `${t.where} cannot be reached (${e.code})`);
    case 'ENOTFOUND': case 'EAI_AGAIN': case 'EAI_NONAME': case 'EAI_NODATA': case 'EAI_FAIL':
      return hostNotFound(t, e.code);
    default:
      return new HttpError(502, 'snmp_unreachable', `${t.where} cannot be reached: ${e.message}`);
  }
}

/** RFC 3416 names of error-status values; net-snmp spells them in PascalCase. */
function statusName(status: number): string {
  const name = snmp.ErrorStatus[status] ?? 'GeneralError';
  return name === 'GeneralError' ? 'genErr' : name[0]!.toLowerCase() + name.slice(1);
}

/** The agent answered with a non-zero error-status; net-snmp's message ends with the varbind's OID. */
export function errorStatus(t: ResolvedTarget, e: NsRequestFailed, oids: string[]): HttpError {
  const name = statusName(e.status);
  const oid = /: (\d+(?:\.\d+)+)$/.exec(e.message)?.[1];
  const index = oid ? oids.indexOf(oid) + 1 : 0;
  const at = index > 0 ? ` at varbind ${index} (${oid})` : '';
  const hint = name === 'authorizationError' ? ': the agent\'s access control refuses these objects to this user or level' : '';
  return new HttpError(502, 'snmp_error', `The agent at ${t.where} answered error-status ${name}(${e.status})${at}${hint}`,
    { extra: { error_status: name, error_index: index } });
}

/** SNMPv3 Reports (RFC 3414 usmStats counters) as net-snmp words them. */
function report(t: ResolvedTarget, e: NsResponseInvalid): HttpError {
  const m = e.message;
  if (m.startsWith('Unknown User Name')) {
    return new HttpError(422, 'snmp_unknown_user', `The agent at ${t.where} does not know the SNMPv3 user ${user(t)}`);
  }
  if (m.startsWith('Wrong Digest')) {
    return new HttpError(422, 'snmp_wrong_key',
      `The agent at ${t.where} rejected the authentication of user ${user(t)}: wrong auth key or auth protocol`);
  }
  if (m.startsWith('Decryption Error')) {
    return new HttpError(422, 'snmp_decryption_failed',
      `The agent at ${t.where} could not decrypt the request of user ${user(t)}: wrong privacy key or privacy protocol`);
  }
  if (m.startsWith('Unsupported Security Level')) {
    return new HttpError(422, 'snmp_unsupported_level',
      `The agent at ${t.where} does not support security level ${t.v3?.level ?? ''} for user ${user(t)}`);
  }
  if (e.code === snmp.ResponseInvalidCode.EAuthFailure) {
    // A Report the library has no name for, or a response whose digest does not verify.
    return m.startsWith('Authentication digest') ? badResponse(t, 'its authentication digest does not verify')
      : new HttpError(502, 'snmp_report', `The agent at ${t.where} answered with an SNMPv3 report: ${m}`);
  }
  if (e.code === snmp.ResponseInvalidCode.EUnexpectedReport || e.code === snmp.ResponseInvalidCode.ENotInTimeWindow) {
    return new HttpError(502, 'snmp_report', `The agent at ${t.where} answered with an SNMPv3 report: ${m}`);
  }
  return badResponse(t, e);
}

/** Any failure other than a timeout; errors that are not about the agent (bugs) pass through unchanged. */
export function mapError(t: ResolvedTarget, e: unknown, oids: string[]): unknown {
  if (e instanceof HttpError) return e;
  if (e instanceof snmp.RequestFailedError) return errorStatus(t, e as NsRequestFailed, oids);
  if (e instanceof snmp.ResponseInvalidError) return report(t, e as NsResponseInvalid);
  if (e instanceof snmp.RequestInvalidError) return new HttpError(400, 'validation_failed', `Invalid SNMP request: ${e.message}`);
  // Socket errors (send, connect, name lookup) carry the failing system call.
  if (e instanceof Error && typeof (e as NodeJS.ErrnoException).syscall === 'string') return socketError(t, e as NodeJS.ErrnoException);
  return e;
}
