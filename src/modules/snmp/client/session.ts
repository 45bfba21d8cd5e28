// One net-snmp session for one operation (a get or a walk), on a UDP socket connected to the agent.
// Connecting is what makes the kernel report ICMP port unreachable (ECONNREFUSED) to us, and it also
// means only the agent's own address can answer. The session fails every pending request at once when
// the socket reports an error, the agent sends something undecodable, or the caller aborts; close() is
// always called by the owner, and it releases the socket.
import dgram from 'node:dgram';
import { badResponse, isAnswer, socketError } from './errors.js';
import { snmp, type NsCallback, type NsSession, type NsSessionOptions, type NsUser, type NsVarbind } from './net-snmp.js';
import type { ResolvedTarget } from './target.js';

export function abortReason(signal: AbortSignal): Error {
  const r: unknown = signal.reason;
  return r instanceof Error ? r : new DOMException('The operation was aborted', 'AbortError');
}

function nsUser(t: ResolvedTarget): NsUser {
  const v3 = t.v3!;
  const user: NsUser = { name: v3.username, level: snmp.SecurityLevel[v3.level]! };
  if (v3.level !== 'noAuthNoPriv') {
    user.authProtocol = snmp.AuthProtocols[v3.auth_protocol!];
    user.authKey = v3.auth_key;
  }
  if (v3.level === 'authPriv') {
    user.privProtocol = snmp.PrivProtocols[v3.priv_protocol!];
    user.privKey = v3.priv_key;
  }
  return user;
}

// net-snmp caches localized keys under the plaintext pass phrase, forever. Empty that cache whenever no
// v3 session is open, so pass phrases do not outlive the requests that needed them.
let openV3Sessions = 0;
function v3Closed(): void {
  if (--openV3Sessions === 0) snmp.Authentication.authToKeyCache = {};
}

export class AgentSession {
  /** Whether the agent has answered anything (a response, an error-status or a Report) yet. */
  answered = false;
  /** Requests (PDUs) asked of net-snmp so far; its own retries and v3 discovery not counted. */
  requests = 0;
  private readonly session: NsSession;
  private readonly pending = new Set<(e: unknown) => void>();
  private failure: unknown = null;
  private closed = false;
  /** Backstop only: net-snmp's own timers fire first (v3 may need discovery plus a time-sync resend). */
  private readonly backstopMs: number;
  private readonly onAbort?: () => void;

  constructor(readonly target: ResolvedTarget, private readonly signal?: AbortSignal) {
    const t = target;
    this.backstopMs = 3 * t.timeout_ms * (t.retries + 1) + 1000;
    const options: NsSessionOptions = {
      port: t.port, retries: t.retries, timeout: t.timeout_ms, transport: t.transport,
      dgramModule: { createSocket: (type) => this.connectedSocket(type) },
    };
    if (t.version === 'v3') {
      this.session = snmp.createV3Session(t.address ?? t.host, nsUser(t), options);
      openV3Sessions++;
    } else {
      const version = t.version === 'v1' ? snmp.Version1 : snmp.Version2c;
      this.session = snmp.createSession(t.address ?? t.host, t.community!, { ...options, version });
    }
    // net-snmp emits 'error' for a datagram it cannot decode; without a listener that would throw.
    this.session.on('error', (e) => this.fail(badResponse(t, e)));
    if (signal) {
      this.onAbort = () => this.fail(abortReason(signal));
      signal.addEventListener('abort', this.onAbort, { once: true });
    }
  }

  /**
   * net-snmp sends with (buf, offset, length, port, address, cb); a connected socket takes no address.
   * Sends wait for the connect. node:dgram hands a failed connect (a name that does not resolve, an
   * address of the wrong family) to connect's callback only, never to 'error': that fails the session,
   * and every waiting or later send gets the error through its callback instead of going out unconnected.
   */
  private connectedSocket(type: 'udp4' | 'udp6'): dgram.Socket {
    type Cb = (e: Error | null) => void;
    const sock = dgram.createSocket(type);
    const send = sock.send.bind(sock) as (b: Buffer, o: number, l: number, cb: Cb) => void;
    let queue: Cb[] | null = [];
    let connectError: Error | null = null;
    sock.on('error', (e: NodeJS.ErrnoException) => this.fail(socketError(this.target, e)));
    sock.connect(this.target.port, this.target.address ?? this.target.host, (err?: Error) => {
      const q = queue!;
      queue = null;
      if (err) {
        connectError = err;
        this.fail(socketError(this.target, err as NodeJS.ErrnoException));
      }
      for (const go of q) go(connectError);
    });
    (sock as unknown as { send: unknown }).send = (b: Buffer, o: number, l: number, _port: unknown, _addr: unknown, cb: Cb) => {
      const go: Cb = (e) => {
        if (e) { cb(e); return; }
        try {
          send(b, o, l, cb);
        } catch (thrown) {
          cb(thrown as Error); // closed meanwhile: the request fails, nothing throws out of a dgram callback
        }
      };
      if (queue) queue.push(go);
      else go(connectError);
    };
    return sock;
  }

  private fail(e: unknown): void {
    if (this.failure) return;
    this.failure = e;
    for (const reject of [...this.pending]) reject(e);
    this.close();
  }

  private call<T>(start: (cb: NsCallback<T>) => void): Promise<T> {
    if (this.failure) return Promise.reject(this.failure);
    this.requests++;
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      const settle = (f: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(backstop);
        this.pending.delete(failNow);
        f();
      };
      const failNow = (e: unknown) => settle(() => reject(e));
      this.pending.add(failNow);
      const backstop = setTimeout(() => failNow(new snmp.RequestTimedOutError('Request timed out')), this.backstopMs);
      try {
        start((err, result) => {
          if (!err || isAnswer(err)) this.answered = true;
          settle(() => (err ? reject(err) : resolve(result as T)));
        });
      } catch (e) {
        failNow(e);
      }
    });
  }

  get(oids: string[]): Promise<NsVarbind[]> {
    return this.call((cb) => this.session.get(oids, cb));
  }

  getNext(oids: string[]): Promise<NsVarbind[]> {
    return this.call((cb) => this.session.getNext(oids, cb));
  }

  /** GETBULK of one OID: the varbinds that follow it, up to maxRepetitions. */
  async getBulk(oid: string, maxRepetitions: number): Promise<NsVarbind[]> {
    const rows = await this.call<NsVarbind[][]>((cb) => this.session.getBulk([oid], 0, maxRepetitions, cb));
    return rows[0] ?? [];
  }

  /**
   * GETBULK of several OIDs side by side (non-repeaters 0): per OID, the varbinds that follow it. One
   * request carries every column of a table walk (polling/read.ts); the agent may cut the answer short.
   */
  getBulkColumns(oids: string[], maxRepetitions: number): Promise<NsVarbind[][]> {
    return this.call((cb) => this.session.getBulk(oids, 0, maxRepetitions, cb));
  }

  /** Whether the session failed or was closed: a kept session is replaced then. */
  get usable(): boolean {
    return !this.failure && !this.closed;
  }

  /**
   * Fails the session when `signal` aborts, for a session kept across operations that each have their
   * own signal (the constructor's covers the session's whole life). Returns the unwatch.
   */
  watch(signal: AbortSignal): () => void {
    const onAbort = () => this.fail(abortReason(signal));
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    return () => signal.removeEventListener('abort', onAbort);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.onAbort) this.signal!.removeEventListener('abort', this.onAbort);
    if (this.target.version === 'v3') v3Closed();
    try {
      this.session.close();
    } catch {
      // The socket was never started (closed before its first send): nothing to release.
    }
  }
}
