// One MQTT 5 connection to the controller's broker, kept up: TLS pinned to the pairing's CA, a
// persistent session (clean: false + session expiry), a retained "offline" last will, and reconnects
// with a doubling, jittered wait when the broker goes away. The mqtt library (about 18 MiB once loaded,
// more with a TLS connection) is imported here only when a connection is first made, so an unpaired
// probe never loads it.
//
// mqtt.js's own reconnect is off (reconnectPeriod 0): its timer has a fixed period and its reconnect()
// replaces the session stores. Each attempt is a fresh client; events not yet acknowledged stay in the
// caller's Outbox and are sent again on the next connection.
import { isIP } from 'node:net';
import type { IClientOptions, IPublishPacket, MqttClient } from 'mqtt';
import type { Logger } from '../../../core/log.js';

export type LinkState = 'connecting' | 'connected' | 'disconnected' | 'error';
export type BrokerErrorKind = 'refused' | 'unreachable' | 'timeout' | 'tls' | 'protocol';

export interface LinkSettings {
  url: string;
  host: string;
  tls: boolean;
  clientId: string;
  password: string;
  ca: string | null;
  sessionExpirySeconds: number;
  connectTimeoutMs: number;
  will: { topic: string; payload: Buffer };
}

export interface PublishOptions { qos: 0 | 1; retain?: boolean; properties?: IPublishPacket['properties'] }

export interface CloseOptions {
  /** Topics to empty (a zero-length retained message each) before disconnecting. */
  clear?: string[];
  /** A retained message to publish first (the offline status at shutdown). */
  before?: { topic: string; payload: Buffer };
  /** Ask the broker to drop the session (unpairing). */
  endSession?: boolean;
  timeoutMs?: number;
}

export interface LinkHooks {
  /** Runs on every (re)connection once the link is active: presence, subscriptions, queued events. */
  onConnected(client: MqttClient, sessionPresent: boolean): Promise<void> | void;
  onMessage(topic: string, payload: Buffer, packet: IPublishPacket): void;
  /** Called whenever state, the last error or the connection time changes (status readers, logs). */
  onChange?(): void;
  reconnectMaxMs(): number;
  now(): number;
  log: Logger;
}

/** A failed connection attempt, said in words a person can act on; `kind` picks the HTTP status at pairing. */
export class BrokerError extends Error {
  constructor(readonly kind: BrokerErrorKind, message: string) {
    super(message);
    this.name = 'BrokerError';
  }
}

const TLS_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'SELF_SIGNED_CERT_IN_CHAIN', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID', 'ERR_TLS_CERT_ALTNAME_INVALID', 'CERT_SIGNATURE_FAILURE',
  'EPROTO', 'ERR_SSL_WRONG_VERSION_NUMBER',
]);

/** Words for an error from mqtt.js, the socket or TLS (never including the password: none of them carry it). */
export function describeBrokerError(e: unknown, s: Pick<LinkSettings, 'url' | 'connectTimeoutMs'>): BrokerError {
  if (e instanceof BrokerError) return e;
  const err = e as { code?: unknown; message?: string };
  const msg = String(err?.message ?? e);
  if (typeof err?.code === 'number' && err.code >= 128) {
    const hint = err.code === 134 || err.code === 135 ? ' (wrong or revoked credentials: the controller may have removed this probe)' : '';
    return new BrokerError('refused', `The broker refused the connection: ${msg.replace(/^Connection refused: /, '')}${hint}`);
  }
  const code = typeof err?.code === 'string' ? err.code : '';
  if (TLS_CODES.has(code) || /certificate|ssl|tls/i.test(msg)) {
    return new BrokerError('tls',
      `TLS with ${s.url} failed: ${msg} (the broker's certificate must chain to the CA in the pairing code and name its host)`);
  }
  if (code === 'ECONNREFUSED') return new BrokerError('unreachable', `Nothing accepts connections at ${s.url} (is the broker running?)`);
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return new BrokerError('unreachable', `The broker's host name does not resolve (${s.url})`);
  }
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return new BrokerError('unreachable', `No route to the broker (${s.url})`);
  if (code === 'ETIMEDOUT') {
    return new BrokerError('timeout', `The broker did not answer within ${Math.round(s.connectTimeoutMs / 1000)} s (${s.url})`);
  }
  if (code === 'ECONNRESET' || /closed|reset/i.test(msg)) {
    return new BrokerError('unreachable', `The broker closed the connection (${s.url}): ${msg}`);
  }
  return new BrokerError('protocol', `Connecting to ${s.url} failed: ${msg}`);
}

type MqttModule = typeof import('mqtt');
let mqttModule: Promise<MqttModule> | undefined;
/** The mqtt library, imported on first use only (it is never loaded while the probe is unpaired). */
export function loadMqtt(): Promise<MqttModule> {
  mqttModule ??= import('mqtt').catch((e: unknown) => { mqttModule = undefined; throw e; });
  return mqttModule;
}

function clientOptions(s: LinkSettings): IClientOptions {
  return {
    protocolVersion: 5,
    clientId: s.clientId,
    username: s.clientId,
    password: s.password,
    clean: false,
    properties: { sessionExpiryInterval: s.sessionExpirySeconds },
    will: { topic: s.will.topic, payload: s.will.payload, qos: 1, retain: true },
    reconnectPeriod: 0,
    connectTimeout: s.connectTimeoutMs,
    keepalive: 30,
    resubscribe: false,
    ...(s.tls ? {
      ca: s.ca ? [s.ca] : [],
      rejectUnauthorized: true,
      // SNI only for a name (an address as SNI is not allowed, RFC 6066).
      ...(isIP(s.host) ? {} : { servername: s.host }),
    } : {}),
  };
}

/** Connects once: resolves with the client after CONNACK success, or rejects with a BrokerError (and leaves nothing open). */
async function connectOnce(s: LinkSettings): Promise<{ client: MqttClient; sessionPresent: boolean }> {
  const mqtt = await loadMqtt();
  const connect = mqtt.connect ?? (mqtt as unknown as { default: MqttModule }).default.connect;
  return new Promise((resolve, reject) => {
    let lastError: unknown;
    let done = false;
    const client = connect(s.url, clientOptions(s));
    const fail = (e: unknown) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      client.removeAllListeners();
      client.on('error', () => {}); // late errors of a client being torn down
      client.end(true);
      reject(describeBrokerError(e, s));
    };
    const timer = setTimeout(() => fail(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })), s.connectTimeoutMs);
    // A refusal in the CONNACK (numeric reason code) is final; a socket or TLS error is followed by 'close'.
    client.on('error', (e) => { lastError = e; if (typeof (e as { code?: unknown }).code === 'number') fail(e); });
    client.on('close', () => fail(lastError ?? new Error('connection closed before the broker answered')));
    client.once('connect', (connack) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      client.removeAllListeners('close');
      client.removeAllListeners('error');
      resolve({ client, sessionPresent: !!connack.sessionPresent });
    });
  });
}

export class BrokerLink {
  state: LinkState = 'disconnected';
  connectedSince: number | null = null;
  lastError: string | null = null;
  lastErrorAt: number | null = null;
  nextAttemptAt: number | null = null;
  private client: MqttClient | null = null;
  private sessionPresent = false;
  private active = false;
  private stopped = false;
  private failures = 0;
  private retryTimer: NodeJS.Timeout | null = null;
  /** Aborted when the current connection closes: publishes waiting for their PUBACK then fail instead of hanging. */
  private connAbort: AbortController | null = null;
  /** The running onConnected hook: close() lets it finish first, so its publishes cannot land after the clears. */
  private hookRun: Promise<void> | null = null;

  constructor(readonly settings: LinkSettings, private readonly hooks: LinkHooks) {}

  /** The live client while connected (publishing goes through it), else null. */
  get connected(): MqttClient | null {
    return this.state === 'connected' ? this.client : null;
  }

  /**
   * Publishes on the current connection and waits for the PUBACK (QoS 1) or the write (QoS 0). Rejects when
   * not connected, when the broker refuses it (reason code >= 128: not authorised) or when the connection is lost first.
   */
  publish(topic: string, payload: Buffer, opts: PublishOptions): Promise<void> {
    const client = this.connected;
    const ac = this.connAbort;
    if (!client || !ac || ac.signal.aborted) return Promise.reject(new Error('not connected to the broker'));
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => reject(new Error('the connection to the broker was lost'));
      ac.signal.addEventListener('abort', onAbort, { once: true });
      const o = { qos: opts.qos, retain: !!opts.retain, ...(opts.properties ? { properties: opts.properties } : {}) };
      client.publish(topic, payload, o, (err) => {
        ac.signal.removeEventListener('abort', onAbort);
        if (err) reject(err); else resolve();
      });
    });
  }

  /** The first connection at pairing: resolves once the broker accepted it; no retry, nothing published yet. */
  async open(): Promise<void> {
    this.setState('connecting');
    try {
      const { client, sessionPresent } = await connectOnce(this.settings);
      if (this.stopped) { client.end(true); throw new BrokerError('protocol', 'The connection was stopped'); }
      this.attach(client, sessionPresent);
    } catch (e) {
      const be = describeBrokerError(e, this.settings);
      this.fail(be.message);
      throw be;
    }
  }

  /** Starts keeping the connection: runs onConnected now if connected, else connects (with retries). */
  activate(): void {
    if (this.stopped || this.active) return;
    this.active = true;
    if (this.client && this.state === 'connected') void this.connectedNow();
    else void this.attempt();
  }

  /**
   * Stops for good. With `clear`, publishes an empty retained message on each topic first (waiting for
   * the PUBACKs up to `timeoutMs`); then a clean DISCONNECT (so no will), with `endSession` asking the
   * broker to drop the session. Returns whether every clear was acknowledged.
   */
  async close(opts: CloseOptions = {}): Promise<boolean> {
    this.stopped = true;
    this.active = false;
    if (this.retryTimer) { clearTimeout(this.retryTimer); this.retryTimer = null; }
    this.nextAttemptAt = null;
    const client = this.client;
    let cleared = true;
    if (client && this.state === 'connected') {
      const timeoutMs = opts.timeoutMs ?? 5000;
      if (this.hookRun) await withTimeout(this.hookRun, timeoutMs).catch(() => {});
      const work = (async () => {
        if (opts.before) await this.publish(opts.before.topic, opts.before.payload, { qos: 1, retain: true });
        for (const topic of opts.clear ?? []) await this.publish(topic, Buffer.alloc(0), { qos: 1, retain: true });
      })();
      cleared = await withTimeout(work, timeoutMs).then(() => true, (e: unknown) => {
        this.hooks.log.warn('clearing retained messages failed', { err: String((e as Error)?.message ?? e) });
        return false;
      });
      this.client = null;
      this.connAbort?.abort();
      await withTimeout(client.endAsync(false, {
        reasonCode: 0, ...(opts.endSession ? { properties: { sessionExpiryInterval: 0 } } : {}),
      }), timeoutMs).catch(() => client.end(true));
    } else {
      this.client = null;
      this.connAbort?.abort();
      cleared = !(opts.clear?.length);
      client?.end(true);
    }
    client?.removeAllListeners();
    this.connectedSince = null;
    this.setState('disconnected');
    return cleared;
  }

  private attach(client: MqttClient, sessionPresent: boolean): void {
    this.client = client;
    this.connAbort = new AbortController();
    const ac = this.connAbort;
    this.sessionPresent = sessionPresent;
    this.failures = 0;
    this.connectedSince = this.hooks.now();
    this.nextAttemptAt = null;
    this.setState('connected');
    let closeReason: string | null = null;
    client.on('message', (topic, payload, packet) => this.hooks.onMessage(topic, payload, packet));
    client.on('error', (e) => { closeReason = describeBrokerError(e, this.settings).message; });
    client.on('close', () => {
      ac.abort();
      if (this.client !== client) return;
      this.client = null;
      client.removeAllListeners();
      client.on('error', () => {});
      client.end(true);
      if (this.stopped) return;
      this.connectedSince = null;
      this.lastError = closeReason ?? `The connection to the broker was lost (${this.settings.url})`;
      this.lastErrorAt = this.hooks.now();
      this.hooks.log.warn('connection to the controller\'s broker lost', { broker: this.settings.url, error: this.lastError });
      this.setState('disconnected');
      if (this.active) this.scheduleRetry();
    });
  }

  private connectedNow(): Promise<void> {
    const run = this.runHook();
    this.hookRun = run;
    return run.finally(() => { if (this.hookRun === run) this.hookRun = null; });
  }

  private async runHook(): Promise<void> {
    const client = this.client;
    if (!client) return;
    try {
      await this.hooks.onConnected(client, this.sessionPresent);
    } catch (e) {
      // A refused subscription or publish: the session is unusable as it is; drop it and retry later.
      this.fail(describeBrokerError(e, this.settings).message);
      client.end(true);
    }
  }

  private async attempt(): Promise<void> {
    this.retryTimer = null;
    this.nextAttemptAt = null;
    if (this.stopped) return;
    this.setState('connecting');
    try {
      const { client, sessionPresent } = await connectOnce(this.settings);
      if (this.stopped) { client.end(true); return; }
      this.attach(client, sessionPresent);
      this.hooks.log.info('connected to the controller\'s broker', { broker: this.settings.url, session_present: sessionPresent });
      await this.connectedNow();
    } catch (e) {
      if (this.stopped) return;
      this.fail(describeBrokerError(e, this.settings).message);
      this.scheduleRetry();
    }
  }

  private fail(message: string): void {
    this.lastError = message;
    this.lastErrorAt = this.hooks.now();
    this.setState('error');
  }

  private scheduleRetry(): void {
    if (this.stopped || this.retryTimer) return;
    const max = Math.max(1000, this.hooks.reconnectMaxMs());
    const base = Math.min(max, 1000 * 2 ** Math.min(this.failures, 16));
    this.failures++;
    const delay = Math.round(base * (0.8 + Math.random() * 0.4));
    this.nextAttemptAt = this.hooks.now() + delay;
    this.retryTimer = setTimeout(() => { void this.attempt(); }, delay);
    this.retryTimer.unref();
    this.hooks.onChange?.();
  }

  private setState(s: LinkState): void {
    this.state = s;
    this.hooks.onChange?.();
  }
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let t: NodeJS.Timeout;
  return Promise.race([p, new Promise<T>((_, reject) => { t = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms); })])
    .finally(() => clearTimeout(t));
}
