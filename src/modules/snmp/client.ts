// The SNMP client: SnmpReader over net-snmp. v1 walks with GETNEXT, v2c and v3 with GETBULK; a walk is
// bounded by max_varbinds and refuses an agent whose OIDs stop increasing, so it always ends. Every
// operation has its own session (one connected UDP socket), closed on every path. A timeout is examined
// before it is reported: a v1/v2c agent that drops a wrong community, or a v3 agent that drops what it
// cannot decrypt, is told apart from one that is not there (docs/snmp.md, "Walks and errors").
import { performance } from 'node:perf_hooks';
import type { RawVarbind, SnmpReader, SnmpTarget, VarbindType, WalkResult } from './contracts.js';
import { badCommunity, badResponse, isTimeout, mapError, privacyRejected, timeoutError } from './client/errors.js';
import { lookupTarget } from './client/lookup.js';
import { arcs, compareArcs, inSubtree } from './client/oid.js';
import { abortReason, AgentSession } from './client/session.js';
import { checkOids, resolveTarget, walkLimits, type ResolvedTarget } from './client/target.js';
import { isException, rawVarbind } from './client/values.js';
import { HttpError } from '../../core/errors.js';
import type { NsVarbind } from './client/net-snmp.js';

export { SNMP_DEFAULTS, SNMP_LIMITS, desAvailable, normalizeOid, resolveTarget } from './client/target.js';

/**
 * A session kept open across polls of one device (polling/read.ts): v3 discovers the agent's engine and
 * localises its keys once, not at every poll. Each call takes the poll's signal; an abort or a socket
 * failure leaves the session unusable (`usable` false) and the owner opens another. A timeout is
 * reported as snmp_timeout without the probe that explains one-off timeouts (a poller retries anyway).
 */
export interface SnmpPollSession {
  readonly version: SnmpTarget['version'];
  /** Requests (PDUs) sent so far, retries not counted. */
  readonly requests: number;
  readonly usable: boolean;
  /** GET; v1's noSuchName becomes NoSuchObject for that OID, as in get(). */
  get(oids: string[], signal?: AbortSignal): Promise<RawVarbind[]>;
  /** GETNEXT of several OIDs side by side; v1's noSuchName (nothing follows) becomes EndOfMibView. */
  getNext(oids: string[], signal?: AbortSignal): Promise<RawVarbind[]>;
  /** v2c/v3: GETBULK of several OIDs side by side, non-repeaters 0; per OID the varbinds that follow it. */
  getBulk(oids: string[], maxRepetitions: number, signal?: AbortSignal): Promise<RawVarbind[][]>;
  close(): void;
}

export interface SnmpClient extends SnmpReader {
  /** One GETNEXT of the given OIDs: the variable that follows each (EndOfMibView past the end). */
  getNext(target: SnmpTarget, oids: string[], signal?: AbortSignal): Promise<RawVarbind[]>;
}

/** OIDs per GET request; a tooBig answer splits a request further. */
const GET_BATCH = 32;
/** The user a community probe names: any v3 agent answers it with a Report, valid or not. */
const PROBE_USER = 'netprobe-probe';
/** sysUpTime.0, which every agent has: what probes ask for. */
const PROBE_OID = '1.3.6.1.2.1.1.3.0';

const statusOf = (e: unknown) => (e instanceof HttpError && e.code === 'snmp_error' ? e.extra?.error_status : undefined);

/**
 * Runs `body` on a fresh session and closes it. Failures come back as HttpErrors; a timeout before the
 * agent has answered anything is examined with a probe first (see explainTimeout).
 */
async function withSession<T>(target: SnmpTarget, signal: AbortSignal | undefined,
  body: (s: AgentSession, t: ResolvedTarget) => Promise<T>): Promise<T> {
  // The name is resolved before a socket exists: one that does not resolve is a 502 naming it.
  const t = await lookupTarget(resolveTarget(target), signal);
  if (signal?.aborted) throw abortReason(signal);
  const s = new AgentSession(t, signal);
  try {
    return await body(s, t);
  } catch (e) {
    // Request errors were mapped where their OIDs are known; this maps the rest (socket failures).
    if (!isTimeout(e)) throw mapError(t, e, []);
    s.close();
    if (s.answered) throw timeoutError(t);
    throw await explainTimeout(t, signal);
  } finally {
    s.close();
  }
}

/** How an agent met a probe: it answered, it refused with an error-status or a Report, or it was silent. */
type ProbeOutcome =
  | { kind: 'answered' }
  | { kind: 'refused'; error: unknown }
  | { kind: 'silent' }
  | { kind: 'failed'; error: unknown };

/** One GET of sysUpTime.0 with the probe's settings. */
async function probe(t: ResolvedTarget, probeTarget: SnmpTarget, signal?: AbortSignal): Promise<ProbeOutcome> {
  // The probe goes to the address the operation resolved, not to a second lookup of the name.
  const pt: ResolvedTarget = { ...resolveTarget(probeTarget), address: t.address, transport: t.transport };
  if (signal?.aborted) throw abortReason(signal);
  const s = new AgentSession(pt, signal);
  try {
    await s.get([PROBE_OID]);
    return { kind: 'answered' };
  } catch (e) {
    if (signal?.aborted) throw abortReason(signal);
    if (isTimeout(e)) return { kind: 'silent' };
    return s.answered ? { kind: 'refused', error: mapError(pt, e, [PROBE_OID]) } : { kind: 'failed', error: mapError(t, e, [PROBE_OID]) };
  } finally {
    s.close();
  }
}

/**
 * A request timed out before the agent answered anything. v1/v2c agents (Net-SNMP's included) drop a
 * wrong community without a word, and v3 agents drop a request they cannot decrypt; a timeout alone
 * cannot tell those from a dead agent. One probe can:
 *  - v1/v2c: an SNMPv3 discovery (a noAuthNoPriv GET as an unknown user). Any v3-capable agent answers
 *    it with a Report, so an answer means the agent is there and ignored the community.
 *  - v3 authPriv: the same user at authNoPriv. If the agent accepts that (a response or an error-status),
 *    user and auth key are right and only the encrypted requests go unanswered: the privacy key or
 *    protocol is wrong. A Report (wrong digest, unknown user) is the better answer and is returned.
 * Silence is the timeout it seemed. The probe makes one attempt (no retries).
 */
async function explainTimeout(t: ResolvedTarget, signal?: AbortSignal): Promise<unknown> {
  const base = { host: t.host, port: t.port, timeout_ms: t.timeout_ms, retries: 0 };
  let r: ProbeOutcome;
  if (t.version !== 'v3') {
    r = await probe(t, { ...base, version: 'v3', v3: { username: PROBE_USER, level: 'noAuthNoPriv' } }, signal);
    if (r.kind === 'answered' || r.kind === 'refused') return badCommunity(t);
  } else if (t.v3?.level === 'authPriv') {
    const { priv_protocol: _p, priv_key: _k, ...authOnly } = t.v3;
    r = await probe(t, { ...base, version: 'v3', v3: { ...authOnly, level: 'authNoPriv' } }, signal);
    if (r.kind === 'answered') return privacyRejected(t);
    if (r.kind === 'refused') return r.error instanceof HttpError && r.error.code === 'snmp_error' ? privacyRejected(t) : r.error;
  } else {
    return timeoutError(t);
  }
  return r.kind === 'failed' ? r.error : timeoutError(t);
}

/**
 * One request for `oids` that tolerates v1's all-or-nothing errors: a v1 agent answers noSuchName for
 * the whole request when one OID has no value (or, for GETNEXT, nothing follows it); that OID gets
 * `hole` as its type and the rest is asked again. A tooBig answer splits the request in halves.
 */
async function request(s: AgentSession, t: ResolvedTarget, kind: 'get' | 'getNext', oids: string[],
  hole: VarbindType): Promise<RawVarbind[]> {
  try {
    const vbs: NsVarbind[] = kind === 'get' ? await s.get(oids) : await s.getNext(oids);
    return vbs.map(rawVarbind);
  } catch (e) {
    const mapped = isTimeout(e) ? e : mapError(t, e, oids);
    const status = statusOf(mapped);
    if (status === 'tooBig' && oids.length > 1) {
      const half = Math.ceil(oids.length / 2);
      return [...await request(s, t, kind, oids.slice(0, half), hole), ...await request(s, t, kind, oids.slice(half), hole)];
    }
    // With one OID the agent need not say which varbind it means.
    const given = (mapped as HttpError).extra?.error_index;
    const index = oids.length === 1 ? 1 : typeof given === 'number' ? given : 0;
    if (t.version === 'v1' && status === 'noSuchName' && index > 0) {
      const rest = oids.filter((_, i) => i !== index - 1);
      const got = rest.length ? await request(s, t, kind, rest, hole) : [];
      got.splice(index - 1, 0, { oid: oids[index - 1]!, type: hole, value: null });
      return got;
    }
    throw mapped;
  }
}

async function getAll(s: AgentSession, t: ResolvedTarget, kind: 'get' | 'getNext', oids: string[],
  hole: VarbindType): Promise<RawVarbind[]> {
  const out: RawVarbind[] = [];
  for (let i = 0; i < oids.length; i += GET_BATCH) out.push(...await request(s, t, kind, oids.slice(i, i + GET_BATCH), hole));
  return out;
}

/** The next batch after `cursor`: GETBULK for v2c/v3 (halving max-repetitions on tooBig), GETNEXT for v1. */
async function nextBatch(s: AgentSession, t: ResolvedTarget, cursor: string, reps: number): Promise<RawVarbind[]> {
  if (t.version === 'v1') return request(s, t, 'getNext', [cursor], 'EndOfMibView');
  for (let r = reps; ; r = Math.ceil(r / 2)) {
    try {
      return (await s.getBulk(cursor, r)).map(rawVarbind);
    } catch (e) {
      const mapped = isTimeout(e) ? e : mapError(t, e, [cursor]);
      if (statusOf(mapped) !== 'tooBig' || r === 1) throw mapped;
    }
  }
}

async function walkRoots(s: AgentSession, t: ResolvedTarget, roots: string[], maxRepetitions: number,
  maxVarbinds: number): Promise<Omit<WalkResult, 'elapsed_ms'>> {
  const out: RawVarbind[] = [];
  for (const root of roots) {
    const rootArcs = arcs(root);
    let cursor = root;
    let last = rootArcs;
    let found = 0;
    walking: for (;;) {
      // Ask for no more than can still be kept, plus one to learn whether the walk was cut short.
      const batch = await nextBatch(s, t, cursor, Math.min(maxRepetitions, maxVarbinds - out.length + 1));
      if (!batch.length) break;
      for (const vb of batch) {
        const at = arcs(vb.oid);
        if (isException(vb.type) || !inSubtree(rootArcs, at)) break walking;
        if (compareArcs(at, last) <= 0) {
          throw badResponse(t, `OID not increasing: ${vb.oid} came after ${cursor} (the walk was stopped)`);
        }
        if (out.length >= maxVarbinds) return { varbinds: out, truncated: true };
        out.push(vb);
        found++;
        last = at;
        cursor = vb.oid;
      }
    }
    // Like snmpwalk: a root with nothing below it may be an instance itself (sysName.0); GET it.
    if (!found) {
      const [vb] = await request(s, t, 'get', [root], 'NoSuchObject');
      if (vb && !isException(vb.type)) {
        if (out.length >= maxVarbinds) return { varbinds: out, truncated: true };
        out.push(vb);
      }
    }
  }
  return { varbinds: out, truncated: false };
}

/** Opens a session for polling (see SnmpPollSession); the name is resolved once, here. */
export async function openPollSession(target: SnmpTarget, signal?: AbortSignal): Promise<SnmpPollSession> {
  const t = await lookupTarget(resolveTarget(target), signal);
  if (signal?.aborted) throw abortReason(signal);
  const s = new AgentSession(t);
  const run = async <T>(sig: AbortSignal | undefined, oids: string[], body: () => Promise<T>): Promise<T> => {
    const unwatch = sig ? s.watch(sig) : undefined;
    try {
      return await body();
    } catch (e) {
      throw isTimeout(e) ? timeoutError(t) : mapError(t, e, oids);
    } finally {
      unwatch?.();
    }
  };
  return {
    version: t.version,
    get requests() { return s.requests; },
    get usable() { return s.usable; },
    get: (oids, sig) => run(sig, oids, () => request(s, t, 'get', oids, 'NoSuchObject')),
    getNext: (oids, sig) => run(sig, oids, () => request(s, t, 'getNext', oids, 'EndOfMibView')),
    getBulk: (oids, reps, sig) => run(sig, oids, async () => {
      if (t.version === 'v1') throw new Error('GETBULK is not in SNMPv1');
      for (let r = reps; ; r = Math.ceil(r / 2)) {
        try {
          return (await s.getBulkColumns(oids, r)).map((col) => col.map(rawVarbind));
        } catch (e) {
          const mapped = isTimeout(e) ? e : mapError(t, e, oids);
          if (statusOf(mapped) !== 'tooBig' || r === 1) throw mapped;
        }
      }
    }),
    close: () => s.close(),
  };
}

export function createSnmpClient(): SnmpClient {
  return {
    async get(target, oids) {
      const list = checkOids(oids);
      return withSession(target, undefined, (s, t) => getAll(s, t, 'get', list, 'NoSuchObject'));
    },

    async getNext(target, oids, signal) {
      const list = checkOids(oids);
      return withSession(target, signal, (s, t) => getAll(s, t, 'getNext', list, 'EndOfMibView'));
    },

    async walk(target, roots, opts = {}) {
      const list = checkOids(roots);
      const { maxRepetitions, maxVarbinds } = walkLimits(opts);
      const started = performance.now();
      const result = await withSession(target, opts.signal, (s, t) => walkRoots(s, t, list, maxRepetitions, maxVarbinds));
      return { ...result, elapsed_ms: performance.now() - started };
    },
  };
}
