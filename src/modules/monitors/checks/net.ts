// Network plumbing shared by the http and tcp checks: an overall deadline that also follows the
// caller's abort signal, TCP (+ TLS) connections with per-phase timings, certificate summaries, and
// one-line messages for the errors a person reading a monitor's status should understand.

import net from 'node:net';
import tls from 'node:tls';
import { performance } from 'node:perf_hooks';

/** Round to microseconds: enough for loopback RTTs, short enough for JSON. */
export const ms = (x: number): number => Math.round(x * 1000) / 1000;

export type Phase = 'dns' | 'connect' | 'tls' | 'request' | 'response' | 'body' | 'query' | 'ping';

const PHASE_TEXT: Record<Phase, string> = {
  dns: 'resolving the host name',
  connect: 'connecting',
  tls: 'during the TLS handshake',
  request: 'sending the request',
  response: 'waiting for the response',
  body: 'reading the response body',
  query: 'waiting for the DNS answer',
  ping: 'waiting for ping replies',
};

/**
 * The check's overall time budget (ctx.timeout seconds) merged with the caller's signal. `signal`
 * aborts on either; `failure()` tells which, so a timeout reads "timed out after 5 s while connecting"
 * and a deleted monitor reads "check aborted".
 */
export class Deadline {
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
  phase: Phase = 'connect';
  /** The name being resolved in the 'dns' phase, so a timeout there says which one. */
  lookupHost?: string;
  private readonly ac = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private timedOut = false;
  private readonly outer?: AbortSignal;
  private readonly onOuter = () => this.ac.abort(new Error('check aborted'));

  constructor(timeoutSec: number, outer?: AbortSignal) {
    this.timeoutMs = budgetMs(timeoutSec);
    this.signal = this.ac.signal;
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.ac.abort(new Error('timed out'));
    }, this.timeoutMs);
    this.outer = outer;
    if (outer?.aborted) this.onOuter();
    else outer?.addEventListener('abort', this.onOuter, { once: true });
  }

  get expired(): boolean { return this.timedOut; }
  get aborted(): boolean { return this.ac.signal.aborted; }

  /** The message for a failure: the deadline's own reason when it fired, else the error's. */
  failure(err: unknown): string {
    if (this.timedOut) {
      return timeoutMessage(this.timeoutMs, this.phase, this.phase === 'dns' ? this.lookupHost : undefined);
    }
    if (this.ac.signal.aborted) return 'check aborted';
    return errorMessage(err);
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.outer?.removeEventListener('abort', this.onOuter);
  }
}

/** A check's time budget in ms: ctx.timeout seconds, 10 s when that is not a positive number. */
export const budgetMs = (timeoutSec: number): number => (Number.isFinite(timeoutSec) && timeoutSec > 0 ? timeoutSec * 1000 : 10_000);

/** "timed out after 5 s while connecting" (and the name being resolved in the 'dns' phase). */
export function timeoutMessage(timeoutMs: number, phase: Phase, lookupHost?: string): string {
  return `timed out after ${fmtSeconds(timeoutMs)} ${lookupHost ? `${PHASE_TEXT.dns} ${lookupHost}` : PHASE_TEXT[phase]}`;
}

function fmtSeconds(msVal: number): string {
  const s = msVal / 1000;
  return `${Number.isInteger(s) ? s : s.toFixed(1)} s`;
}

const ERRNO_TEXT: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset by peer',
  ECONNABORTED: 'connection aborted',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  EHOSTDOWN: 'host is down',
  ETIMEDOUT: 'connection timed out',
  EPIPE: 'connection closed by peer while sending',
  EADDRNOTAVAIL: 'address not available',
  ENOTFOUND: 'host name not found',
  EAI_AGAIN: 'host name lookup failed temporarily (DNS server not answering?)',
  EAI_NODATA: 'host name has no address',
  EAI_FAIL: 'host name lookup failed',
  ERR_SSL_WRONG_VERSION_NUMBER: 'TLS handshake failed: wrong version number (is this port speaking TLS?)',
  ERR_SSL_PACKET_LENGTH_TOO_LONG: 'TLS handshake failed: the peer does not speak TLS',
  ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION: 'TLS handshake failed: no common protocol version',
  ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE: 'TLS handshake failed: handshake failure alert from the server',
  ERR_SSL_UNSUPPORTED_PROTOCOL: 'TLS handshake failed: unsupported protocol version',
};

/** One line for a person: "connection refused", "host name not found (nosuch.example)". */
export function errorMessage(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const e = err as NodeJS.ErrnoException & { hostname?: string; reason?: string };
  const code = e.code ?? '';
  if (code in ERRNO_TEXT) {
    const base = ERRNO_TEXT[code]!;
    if (code.startsWith('E') && e.hostname && code !== 'ECONNREFUSED') return `${base} (${e.hostname})`;
    return base;
  }
  if (code.startsWith('HPE_')) return `invalid HTTP response: ${e.reason ?? e.message} (${code})`;
  if (code.startsWith('ERR_SSL_')) return `TLS error: ${e.reason ?? e.message} (${code})`;
  if (e.message === 'socket hang up') return 'connection closed by the server without a response';
  return code ? `${e.message} (${code})` : e.message;
}

/** The certificate facts a check records. days_left is negative once it has expired. */
export interface CertInfo {
  subject_cn: string | null;
  issuer: string | null;
  subject_alt_names: string | null;
  valid_from: string | null;
  valid_to: string | null;
  days_left: number | null;
  fingerprint256: string | null;
  serial_number: string | null;
  self_signed: boolean;
}

const first = (v: string | string[] | undefined): string | null =>
  v === undefined ? null : Array.isArray(v) ? (v[0] ?? null) : v;

function isoDate(s: string | undefined): string | null {
  if (!s) return null;
  const t = Date.parse(s);
  return Number.isNaN(t) ? null : new Date(t).toISOString();
}

export function certInfo(cert: tls.PeerCertificate | undefined, now = Date.now()): CertInfo | null {
  if (!cert || Object.keys(cert).length === 0) return null;
  const validTo = isoDate(cert.valid_to);
  const issuer = cert.issuer
    ? (first(cert.issuer.CN) ?? first(cert.issuer.O) ?? null)
    : null;
  return {
    subject_cn: cert.subject ? first(cert.subject.CN) : null,
    issuer,
    subject_alt_names: cert.subjectaltname ?? null,
    valid_from: isoDate(cert.valid_from),
    valid_to: validTo,
    // Whole days, rounded down: 0 means "expires within a day", -1 "expired up to a day ago".
    days_left: validTo ? Math.floor((Date.parse(validTo) - now) / 86_400_000) : null,
    fingerprint256: cert.fingerprint256 ?? null,
    serial_number: cert.serialNumber ?? null,
    self_signed: !!cert.issuer && !!cert.subject && JSON.stringify(cert.issuer) === JSON.stringify(cert.subject),
  };
}

const VERIFY_TEXT: Record<string, string> = {
  CERT_HAS_EXPIRED: 'certificate has expired',
  CERT_NOT_YET_VALID: 'certificate is not yet valid',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'self-signed certificate',
  SELF_SIGNED_CERT_IN_CHAIN: 'self-signed certificate in the chain',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'unable to verify the certificate (incomplete chain?)',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'issuer certificate is not trusted or missing',
  UNABLE_TO_GET_ISSUER_CERT: 'issuer certificate is missing',
  CERT_REVOKED: 'certificate has been revoked',
  CERT_SIGNATURE_FAILURE: 'certificate signature is invalid',
  ERR_TLS_CERT_ALTNAME_INVALID: 'certificate does not match the host name',
};

/**
 * Why a certificate was not accepted, expiry first because it is the most common and most actionable
 * cause (OpenSSL reports "self-signed" before "expired" for an untrusted expired certificate).
 */
export function verifyFailureMessage(code: string, cert: CertInfo | null): string {
  const why = `${VERIFY_TEXT[code] ?? code} (${code})`;
  if (cert?.days_left != null && cert.days_left < 0 && cert.valid_to) {
    const ago = -cert.days_left - 1;
    const agoText = ago === 0 ? 'less than a day ago' : `${ago} day${ago === 1 ? '' : 's'} ago`;
    const expired = `TLS certificate expired on ${cert.valid_to.slice(0, 10)} (${agoText})`;
    return code === 'CERT_HAS_EXPIRED' ? expired : `${expired}; also: ${why}`;
  }
  return `TLS certificate not accepted: ${why}`;
}

export interface TlsInfo {
  authorized: boolean;
  authorization_error: string | null;
  protocol: string | null;
  cipher: string | null;
  alpn: string | null;
  cert: CertInfo | null;
}

/**
 * Milliseconds per phase, each from the moment the probe handed the kernel its part (the lookup, the
 * connect() call, the TLS handshake's start) to the socket event that answers it: the network's time,
 * not the probe's own work between phases. null where the phase did not happen (no DNS for an IP, no TLS).
 */
export interface ConnectTimings { dns_ms: number | null; connect_ms: number; tls_ms: number | null }

/** The network's time of a connection: its phases added up (a check's response time starts with it). */
export const connectionTime = (t: ConnectTimings): number => ms((t.dns_ms ?? 0) + t.connect_ms + (t.tls_ms ?? 0));

export interface Connection {
  socket: net.Socket;
  timings: ConnectTimings;
  remote_address: string | null;
  remote_port: number | null;
  tls: TlsInfo | null;
}

export interface ConnectOptions {
  host: string;
  port: number;
  tls?: { servername?: string; alpn?: string[] };
  deadline: Deadline;
}

/**
 * One TLS context for every check's connections (the CA store, default ciphers; verification is the
 * caller's decision and ALPN is per connection): tls.connect() builds one per call otherwise, about
 * 0.3 ms of CPU that would be counted in the handshake's time.
 */
let sharedContext: tls.SecureContext | undefined;
const secureContext = (): tls.SecureContext => (sharedContext ??= tls.createSecureContext());

/**
 * TCP connect, then optionally a TLS handshake, each timed. TLS always completes with
 * rejectUnauthorized off so the certificate can be recorded even when it is bad; the caller decides
 * whether an unauthorised peer fails the check, before it sends anything (credentials) on the socket.
 * Rejects with the socket's error or the deadline's reason; never leaves a socket open on failure.
 */
export function connect(opts: ConnectOptions): Promise<Connection> {
  const { deadline } = opts;
  return new Promise<Connection>((resolve, reject) => {
    const t0 = performance.now();
    let tDns: number | null = null;
    /** When connect() was called: the 'connectionAttempt' event (Node >= 20.12), else the best earlier mark. */
    let tAttempt = 0;
    let tConn = 0;
    let tTlsStart = 0;
    let current: net.Socket;
    let settled = false;

    const fail = (err: unknown) => {
      if (settled) return;
      settled = true;
      deadline.signal.removeEventListener('abort', onAbort);
      current.destroy();
      sock.destroy();
      reject(err);
    };
    const onAbort = () => fail(deadline.signal.reason);

    deadline.phase = net.isIP(opts.host) ? 'connect' : 'dns';
    if (deadline.phase === 'dns') deadline.lookupHost = opts.host;
    const sock = net.connect({ host: opts.host, port: opts.port });
    // For an IP address, Node calls connect() on the next tick; for a name, right after 'lookup'.
    tAttempt = performance.now();
    current = sock;
    sock.on('error', fail);
    sock.once('lookup', (err: Error | null) => {
      if (err) return;
      tDns = tAttempt = performance.now();
      deadline.phase = 'connect';
    });
    // Once per address tried (happy eyeballs): the last one is the one that connected.
    sock.on('connectionAttempt', () => { tAttempt = performance.now(); });
    deadline.signal.addEventListener('abort', onAbort, { once: true });
    if (deadline.signal.aborted) { onAbort(); return; }

    const done = (socket: net.Socket, info: TlsInfo | null, tTls: number | null) => {
      if (settled) return;
      settled = true;
      deadline.signal.removeEventListener('abort', onAbort);
      // From here the caller owns the socket; a late error must not become an uncaught exception.
      for (const s of new Set([socket, sock])) { s.removeListener('error', fail); s.on('error', () => {}); }
      resolve({
        socket,
        timings: {
          dns_ms: tDns === null ? null : ms(tDns - t0),
          connect_ms: ms(tConn - tAttempt),
          tls_ms: tTls === null ? null : ms(tTls - tTlsStart),
        },
        remote_address: sock.remoteAddress ?? null,
        remote_port: sock.remotePort ?? null,
        tls: info,
      });
    };

    sock.once('connect', () => {
      tConn = performance.now();
      if (!opts.tls) { done(sock, null, null); return; }
      deadline.phase = 'tls';
      // SNI must be a host name, never an IP literal (RFC 6066).
      const servername = opts.tls.servername ?? (net.isIP(opts.host) ? undefined : opts.host);
      tTlsStart = performance.now();
      const ts = tls.connect({
        socket: sock,
        host: opts.tls.servername ?? opts.host, // the name the certificate is checked against
        servername,
        rejectUnauthorized: false,
        ALPNProtocols: opts.tls.alpn,
        secureContext: secureContext(),
      });
      current = ts;
      ts.on('error', fail);
      ts.once('secureConnect', () => {
        const tTls = performance.now();
        const cipher = ts.getCipher();
        done(ts, {
          authorized: ts.authorized,
          authorization_error: ts.authorized ? null : String(ts.authorizationError ?? 'UNKNOWN'),
          protocol: ts.getProtocol() ?? null,
          cipher: cipher?.name ?? null,
          alpn: typeof ts.alpnProtocol === 'string' ? ts.alpnProtocol : null,
          cert: certInfo(ts.getPeerCertificate()),
        }, tTls);
      });
    });
  });
}

/**
 * End a connection the way a well-behaved client does (TLS close_notify, then FIN) rather than
 * resetting it: an abrupt close right after the handshake can cut off our TLS Finished message and
 * fill the monitored server's log with handshake errors. Destroyed anyway if the peer lingers.
 */
export function closeGently(socket: net.Socket, graceMs = 1000): void {
  socket.on('error', () => {});
  socket.resume(); // drain anything the server sends (a banner) so the close can complete
  socket.end();
  const t = setTimeout(() => socket.destroy(), graceMs);
  t.unref();
  socket.once('close', () => clearTimeout(t));
}

/** `host:port` / `[v6]:port` split; null when malformed. The host comes back without brackets. */
export function parseHostPort(target: string): { host: string; port: number } | null {
  const m = /^\[([^\]]+)\]:(\d{1,5})$/.exec(target) ?? /^([^:[\]\s]+):(\d{1,5})$/.exec(target);
  if (!m) return null;
  const port = Number(m[2]);
  if (!Number.isInteger(port) || port < 1 || port > 65535) return null;
  return { host: m[1]!, port };
}

const LABEL = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/i;

/** A DNS host name (letters, digits, hyphens, underscores; labels up to 63; 253 in all; one trailing dot allowed). */
export function isHostName(s: string): boolean {
  const name = s.endsWith('.') ? s.slice(0, -1) : s;
  if (!name || name.length > 253) return false;
  return name.split('.').every((l) => LABEL.test(l));
}

/** An IP address or a host name, as a human message when it is neither. */
export function hostProblem(host: string): string | null {
  if (net.isIP(host)) return null;
  if (/^[\d.]+$/.test(host)) return `"${host}" is not a valid IPv4 address`;
  if (host.includes(':')) return `"${host}" is not a valid IPv6 address`;
  return isHostName(host) ? null : `"${host}" is not a valid host name or IP address`;
}
