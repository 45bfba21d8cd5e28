// A target's host name is resolved once, before any socket is opened, and the session connects to the
// address. A name that does not resolve is then a clear 502 snmp_host_not_found naming it, and no
// socket ever waits on a lookup of its own (node:dgram hands that failure to connect's callback only).
import dns from 'node:dns';
import { isIP } from 'node:net';
import { HttpError } from '../../../core/errors.js';
import { hostNotFound } from './errors.js';
import { abortReason } from './session.js';
import type { ResolvedTarget } from './target.js';

/** How long a name may take to resolve; getaddrinfo cannot be cancelled, so a late answer is ignored. */
export const LOOKUP_TIMEOUT_MS = 5000;

export type LookupFn = (host: string, family: 0) => Promise<{ address: string; family: number }>;

const systemLookup: LookupFn = (host, family) => dns.promises.lookup(host, { family });

/** The target with `address` set and the transport of its family; rejects with an HttpError or the abort reason. */
export async function lookupTarget(t: ResolvedTarget, signal?: AbortSignal, lookup: LookupFn = systemLookup,
  timeoutMs = LOOKUP_TIMEOUT_MS): Promise<ResolvedTarget> {
  if (isIP(t.host)) return { ...t, address: t.host };
  const found = await lookupHost(t.host, signal, lookup, timeoutMs);
  return { ...t, address: found.address, transport: found.family === 6 ? 'udp6' : 'udp4' };
}

/** A host name's address, within the timeout; 502 snmp_host_not_found naming it otherwise (or the abort reason). */
export async function lookupHost(host: string, signal?: AbortSignal, lookup: LookupFn = systemLookup,
  timeoutMs = LOOKUP_TIMEOUT_MS): Promise<{ address: string; family: number }> {
  if (signal?.aborted) throw abortReason(signal);
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const stop = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(hostNotFound({ host }, 'ETIMEOUT', timeoutMs)), timeoutMs);
    onAbort = () => reject(abortReason(signal!));
    signal?.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([lookup(host, 0), stop]);
  } catch (e) {
    if (signal?.aborted || e instanceof HttpError) throw e;
    throw hostNotFound({ host }, (e as NodeJS.ErrnoException).code ?? 'EAI_FAIL', timeoutMs);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  }
}
