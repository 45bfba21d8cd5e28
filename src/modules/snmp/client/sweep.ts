// The discovery sweep: "are you an SNMP agent, and what is your system group?" asked of many addresses
// at once, with every configured v1/v2c community at the same time (agents drop a wrong community
// without a word, so trying them one after another costs a whole timeout each) and an SNMPv3
// engine-discovery probe (RFC 3414 §4: an agent answers it with a Report carrying its snmpEngineID,
// boots and time, no credentials needed). docs/snmp.md, "The discovery sweep".
//
// Built on one unconnected UDP socket per address family and our own codec (ber.ts), not on a net-snmp
// session per address and community: a /20 with three communities is 16,384 requests, which as
// sessions would be 12,288 sockets. Request IDs (msgID for v3) map each answer back to its host and
// credential; an answer from another address or port, with an unknown ID, another version or community
// than the request's, or that does not decode is counted and ignored. No community ever leaves this
// file except inside the requests: answers carry the credential's id, errors name its index.
import dgram from 'node:dgram';
import { isIP } from 'node:net';
import { performance } from 'node:perf_hooks';
import { normaliseIp } from '../../../core/ip.js';
import {
  decodeInt, decodeMessage, decodeOid, encodeCommunityMessage, encodeDiscoveryRequest, encodePdu, SNMP_VERSION, TAG,
  type CommunityMessage, type V3Message, type WireVarbind,
} from './ber.js';
import type { SystemGroup } from '../identify.js';
import { octets } from './values.js';

export interface SweepCommunity {
  /** The caller's name for it (a credential's id); answers name the community by it. */
  id: string;
  version: 'v1' | 'v2c';
  community: string;
  /** Whether this community may be sent to a host (a stored credential's scope); without it, to every host. */
  allows?: (host: string) => boolean;
}

/**
 * The system group (RFC 1213) as identify() reads it, each value as the client renders it (OctetStrings:
 * the text when printable UTF-8, trailing NUL padding dropped, else lowercase hex; the object ID dotted);
 * null when the agent has none. Plus sysServices.
 */
export interface SweepSystem extends SystemGroup {
  /** sysServices bits: 2 layer 2, 4 layer 3, 64 applications. Debian's snmpd has none unless configured. */
  services: number | null;
}

export interface SweepEngine {
  /** snmpEngineID, lowercase hex (describeEngineId reads it). */
  id: string;
  boots: number;
  time: number;
}

export interface SweepAnswer {
  /** As given in `hosts`. */
  host: string;
  /** Round trip of the first answer from this host, ms. */
  rtt_ms: number;
  /** The id of the first community that answered; null when only the engine probe did. */
  credential: string | null;
  /** That community's version; 'v3' when only the engine probe answered. */
  version: 'v1' | 'v2c' | 'v3';
  /** The system group read with that community (null until it is read, or when the agent answered with an error). */
  sys: SweepSystem | null;
  engine: SweepEngine | null;
}

/** Counters of one sweep, updated while it runs. */
export interface SweepStats {
  /** Distinct addresses swept. */
  hosts: number;
  /** Datagrams sent, and sends the kernel refused (no route, broadcast address, ...). */
  sent: number;
  send_errors: number;
  /** Datagrams received, and those ignored (wrong source, unknown ID, undecodable, late, duplicate). */
  received: number;
  ignored: number;
  /** Hosts with an answer. */
  answered: number;
  elapsed_ms: number;
}

export interface SweepOptions {
  /** Every v1/v2c community to try, all at once; may be empty when only the engine probe is wanted. */
  communities: SweepCommunity[];
  /** Default 161. */
  port?: number;
  /** How long to wait for a host's answers after its last request, ms (default 1000). */
  timeoutMs?: number;
  /** Rounds sent again to a host that has not answered (default 1). */
  retries?: number;
  /** Send the SNMPv3 engine-discovery probe too (default true). */
  engineProbe?: boolean;
  /** Packets per millisecond, all families together (default 2: 2,000 per second). */
  rate?: number;
  /**
   * Hosts in flight at once (default 256). Each silent address on a local subnet holds a neighbour
   * table entry while the kernel ARPs for it; Linux keeps 512 softly and 1,024 at most.
   */
  concurrency?: number;
  /** Stops sending and closes the sockets at once; the sweep then resolves with what it has. */
  signal?: AbortSignal;
  /**
   * Called with the host's merged answer (a copy) whenever it changes: when its first answer arrives
   * (a community or the engine probe, whichever is first), and again when the other one arrives, or
   * when the system group is completed (a v1 agent that lacks one of the objects answers noSuchName
   * and is asked again without it). Usually one or two calls per host; each supersedes the ones before
   * (an upsert keyed by `host`). An exception thrown here ends the sweep, which rejects with it.
   */
  onAnswer?: (a: SweepAnswer) => void;
  /** Filled in with the sweep's counters (reset at the start). */
  stats?: SweepStats;
}

export const SWEEP_DEFAULTS = { port: 161, timeoutMs: 1000, retries: 1, rate: 2, concurrency: 256 } as const;

/** sysDescr, sysObjectID, sysUpTime, sysContact, sysName, sysLocation, sysServices (.0 instances). */
const SYS_OIDS: Record<keyof SweepSystem, string> = {
  descr: '1.3.6.1.2.1.1.1.0', object_id: '1.3.6.1.2.1.1.2.0', uptime_ticks: '1.3.6.1.2.1.1.3.0',
  contact: '1.3.6.1.2.1.1.4.0', name: '1.3.6.1.2.1.1.5.0', location: '1.3.6.1.2.1.1.6.0', services: '1.3.6.1.2.1.1.7.0',
};
const FIELD_OF = new Map(Object.entries(SYS_OIDS).map(([k, v]) => [v, k as keyof SweepSystem]));
const ALL_OIDS = Object.values(SYS_OIDS);
const NO_SUCH_NAME = 2;
/** Request IDs and msgIDs: always four octets, top bit clear, so a template's ID can be overwritten in place. */
const ID_MIN = 0x01000000;
const ID_SPAN = 0x7fffffff - ID_MIN;
const MAX_ENGINE_ID = 32;

type Kind = 'community' | 'refetch' | 'engine';

interface HostState {
  host: string;
  key: string;
  family: 4 | 6;
  round: number;
  answer: SweepAnswer | null;
  cred: number | null;
  /** The communities this host may be sent (their index), by each one's `allows`. */
  creds: number[];
  /** OIDs still to read with the winning community after a v1 noSuchName, else null. */
  refetch: string[] | null;
  engine: boolean;
  ids: number[];
  timer: NodeJS.Timeout | null;
  done: boolean;
}

interface Request { h: HostState; kind: Kind; cred: number; oids: readonly string[]; sentAt: number }

/** A FIFO without Array.shift's O(n). */
class Fifo<T> {
  private items: T[] = [];
  private head = 0;
  get length(): number { return this.items.length - this.head; }
  push(x: T): void { this.items.push(x); }
  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const x = this.items[this.head++];
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return x;
  }
  clear(): void { this.items = []; this.head = 0; }
}

/** A v1/v2c GET of the system group per community, the request ID patched in for each send. */
interface Template { buf: Buffer; idAt: number }

function template(c: SweepCommunity, oids: readonly string[]): Template {
  const pdu = encodePdu({ tag: TAG.GetRequest, requestId: ID_MIN, varbinds: oids.map((oid) => ({ oid })) });
  const buf = encodeCommunityMessage(SNMP_VERSION[c.version], c.community, pdu);
  // The PDU ends the message; its content starts with the request-id INTEGER (tag, length 4, value).
  const pduHeader = pdu[1]! & 0x80 ? 2 + (pdu[1]! & 0x7f) : 2;
  const idAt = buf.length - pdu.length + pduHeader + 2;
  if (buf[idAt - 2] !== TAG.Integer || buf[idAt - 1] !== 4) throw new Error('sweep: request template');
  return { buf, idAt };
}

const hostKey = (h: string) => normaliseIp(h) ?? h.toLowerCase();

/** A varbind's value as the client renders it (values.ts): numbers, dotted OIDs, text or hex. */
function render(vb: WireVarbind): string | number | null {
  switch (vb.tag) {
    case TAG.Integer:
      return Number(decodeInt(vb.value));
    case TAG.Counter32: case TAG.Gauge32: case TAG.TimeTicks:
      return Number(BigInt.asUintN(32, decodeInt(vb.value)));
    case TAG.Counter64:
      return BigInt.asUintN(64, decodeInt(vb.value)).toString();
    case TAG.OctetString: {
      let end = vb.value.length;
      while (end > 0 && vb.value[end - 1] === 0) end--;
      return octets(vb.value.subarray(0, end)).value;
    }
    case TAG.Opaque:
      return vb.value.toString('hex');
    case TAG.OID:
      return decodeOid(vb.value).join('.');
    case TAG.IpAddress:
      return vb.value.length === 4 ? [...vb.value].join('.') : vb.value.toString('hex');
    default:
      return null;
  }
}

/** The system group from a response's varbinds, matched by OID (not position); unknown OIDs ignored. */
function systemOf(varbinds: WireVarbind[], into: SweepSystem): SweepSystem {
  for (const vb of varbinds) {
    const field = FIELD_OF.get(vb.oid);
    if (!field) continue;
    let v: string | number | null;
    try {
      v = render(vb);
    } catch {
      v = null;
    }
    if (field === 'object_id') into.object_id = vb.tag === TAG.OID && typeof v === 'string' ? v : null;
    else if (field === 'uptime_ticks' || field === 'services') into[field] = typeof v === 'number' ? v : null;
    else into[field] = v === null ? null : String(v);
  }
  return into;
}

const emptySystem = (): SweepSystem =>
  ({ descr: null, object_id: null, name: null, uptime_ticks: null, contact: null, location: null, services: null });

function validate(hosts: string[], opts: SweepOptions): void {
  hosts.forEach((h, i) => {
    if (typeof h !== 'string' || !isIP(h)) throw new TypeError(`sweepSnmp: hosts[${i}] is not an IP address`);
  });
  const ids = new Set<string>();
  opts.communities.forEach((c, i) => {
    if (c.version !== 'v1' && c.version !== 'v2c') throw new TypeError(`sweepSnmp: communities[${i}].version must be v1 or v2c`);
    if (typeof c.community !== 'string' || c.community === '') throw new TypeError(`sweepSnmp: communities[${i}].community is empty`);
    if (Buffer.byteLength(c.community) > 255) throw new TypeError(`sweepSnmp: communities[${i}].community is longer than 255 bytes`);
    if (ids.has(c.id)) throw new TypeError(`sweepSnmp: communities[${i}].id is not unique`);
    ids.add(c.id);
  });
  const int = (v: unknown, min: number, max: number, name: string) => {
    if (v !== undefined && (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max)) {
      throw new TypeError(`sweepSnmp: ${name} must be an integer from ${min} to ${max}`);
    }
  };
  int(opts.port, 1, 65535, 'port');
  int(opts.timeoutMs, 1, 60_000, 'timeoutMs');
  int(opts.retries, 0, 5, 'retries');
  int(opts.concurrency, 1, 65_536, 'concurrency');
  if (opts.rate !== undefined && !(typeof opts.rate === 'number' && opts.rate > 0 && opts.rate <= 1000)) {
    throw new TypeError('sweepSnmp: rate must be a number of packets per millisecond above 0 and at most 1000');
  }
}

/** One request waiting in the outbox for its turn under the rate limit. */
interface Outgoing { h: HostState; kind: Kind; cred: number; oids: readonly string[] }

/** One sweep: its shared state as fields, its steps as methods. sweepSnmp() runs one per call. */
class Sweep {
  private readonly port: number;
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly rate: number;
  private readonly concurrency: number;
  private readonly engineProbe: boolean;
  private readonly communities: SweepCommunity[];
  private readonly signal: AbortSignal | undefined;
  private readonly started: number;
  private readonly stats: SweepStats;
  private readonly results = new Map<string, SweepAnswer>();

  private readonly byKey = new Map<string, HostState>();
  private readonly states: HostState[] = [];
  /** Built by run(), and only when there is something to send. */
  private templates: Template[] = [];
  private communityBytes: Buffer[] = [];
  private readonly pending = new Map<number, Request>();
  private readonly outbox = new Fifo<Outgoing>();
  private readonly sockets = new Map<4 | 6, dgram.Socket>();
  private next = 0;
  private inFlight = 0;
  private finished = 0;
  private stopped = false;
  private tokens: number;
  private readonly burst: number;
  private refilled = 0;
  private drainTimer: NodeJS.Timeout | null = null;
  private settle!: (e?: unknown) => void;
  private readonly done = new Promise<Map<string, SweepAnswer>>((resolve, reject) => {
    this.settle = (e?: unknown) => (e === undefined ? resolve(this.results) : reject(e));
  });

  constructor(hosts: string[], private readonly opts: SweepOptions) {
    validate(hosts, opts);
    this.port = opts.port ?? SWEEP_DEFAULTS.port;
    this.timeoutMs = opts.timeoutMs ?? SWEEP_DEFAULTS.timeoutMs;
    this.retries = opts.retries ?? SWEEP_DEFAULTS.retries;
    this.rate = opts.rate ?? SWEEP_DEFAULTS.rate;
    this.concurrency = opts.concurrency ?? SWEEP_DEFAULTS.concurrency;
    this.engineProbe = opts.engineProbe ?? true;
    this.communities = opts.communities;
    this.signal = opts.signal;
    this.started = performance.now();
    this.stats = opts.stats ?? ({} as SweepStats);
    Object.assign(this.stats, { hosts: 0, sent: 0, send_errors: 0, received: 0, ignored: 0, answered: 0, elapsed_ms: 0 });
    this.tokens = Math.max(1, Math.ceil(this.rate * 4));
    this.burst = this.tokens;

    const communities = this.communities;
    for (const host of hosts) {
      const key = hostKey(host);
      if (this.byKey.has(key)) continue;
      const h: HostState = {
        host, key, family: isIP(host) as 4 | 6, round: 0, answer: null, cred: null, refetch: null, engine: false,
        creds: communities.flatMap((c, i) => (!c.allows || c.allows(host) ? [i] : [])), ids: [], timer: null, done: false,
      };
      this.byKey.set(key, h);
      this.states.push(h);
    }
    this.stats.hosts = this.states.length;
  }

  async run(): Promise<Map<string, SweepAnswer>> {
    const { states, communities, signal } = this;
    if (states.length === 0 || signal?.aborted || (communities.length === 0 && !this.engineProbe)) return this.results;
    this.templates = communities.map((c) => template(c, ALL_OIDS));
    this.communityBytes = communities.map((c) => Buffer.from(c.community));
    this.refilled = performance.now();

    // One socket per family in use. A family that cannot bind (IPv6 disabled) leaves its hosts unanswered.
    const families = [...new Set(states.map((h) => h.family))];
    await Promise.all(families.map((family) => this.bind(family)));
    if (signal?.aborted) {
      this.stop();
      return this.done;
    }
    signal?.addEventListener('abort', this.onAbort, { once: true });
    this.admit();
    return this.done;
  }

  private bind(family: 4 | 6): Promise<void> {
    return new Promise<void>((resolve) => {
      const s = dgram.createSocket(family === 4 ? 'udp4' : 'udp6');
      const onBindError = () => { s.close(); resolve(); };
      s.once('error', onBindError);
      s.on('message', (msg, rinfo) => {
        try {
          this.onMessage(family, msg, rinfo);
        } catch {
          this.stats.ignored++; // a datagram must never throw out of the socket handler
        }
      });
      s.bind(0, () => {
        s.off('error', onBindError);
        s.on('error', () => { this.stats.send_errors++; });
        try {
          // Room for a burst of answers; the kernel caps it at net.core.rmem_max.
          s.setRecvBufferSize(1 << 20);
        } catch {
          // keep the default
        }
        this.sockets.set(family, s);
        resolve();
      });
    });
  }

  private stop(e?: unknown): void {
    if (this.stopped) return;
    this.stopped = true;
    if (this.drainTimer) clearTimeout(this.drainTimer);
    for (const h of this.states) if (h.timer) clearTimeout(h.timer);
    this.outbox.clear();
    this.pending.clear();
    for (const s of this.sockets.values()) {
      try {
        s.close();
      } catch {
        // already closed
      }
    }
    this.signal?.removeEventListener('abort', this.onAbort);
    this.stats.elapsed_ms = Math.round(performance.now() - this.started);
    this.settle(e);
  }

  /** A field, not a method: addEventListener and removeEventListener need the same function. */
  private readonly onAbort = () => this.stop();

  private newId(): number {
    for (;;) {
      const id = ID_MIN + Math.floor(Math.random() * ID_SPAN);
      if (!this.pending.has(id)) return id;
    }
  }

  private finish(h: HostState, readmit = true): void {
    if (h.done) return;
    h.done = true;
    if (h.timer) clearTimeout(h.timer);
    for (const id of h.ids) this.pending.delete(id);
    h.ids = [];
    this.inFlight--;
    this.finished++;
    if (this.finished === this.states.length) this.stop();
    else if (readmit) this.admit();
  }

  private complete(h: HostState): boolean {
    return (h.cred !== null || h.creds.length === 0) && (h.engine || !this.engineProbe) && h.refetch === null;
  }

  /** This round's requests for a host: every community until one answered, the engine probe until anything did. */
  private enqueueRound(h: HostState): boolean {
    let n = 0;
    // An agent whose engine answered within the round is up and reachable: a community that did not answer
    // beside it is wrong, not lost, and sending it again would only hold the sweep a full timeout longer.
    if (h.cred === null && (h.round === 0 || !h.engine)) {
      for (const i of h.creds) this.outbox.push({ h, kind: 'community', cred: i, oids: ALL_OIDS });
      n += h.creds.length;
    }
    if (this.engineProbe && !h.engine && !h.answer) {
      this.outbox.push({ h, kind: 'engine', cred: -1, oids: [] });
      n++;
    }
    if (h.refetch && h.cred !== null) {
      this.outbox.push({ h, kind: 'refetch', cred: h.cred, oids: h.refetch });
      n++;
    }
    return n > 0;
  }

  private onTimeout(h: HostState): void {
    if (h.done || this.stopped) return;
    if (h.round >= this.retries) { this.finish(h); return; }
    h.round++;
    if (!this.enqueueRound(h)) { this.finish(h); return; }
    this.drain();
  }

  private admit(): void {
    const states = this.states;
    while (!this.stopped && this.inFlight < this.concurrency && this.next < states.length) {
      const h = states[this.next++]!;
      this.inFlight++;
      if (!this.sockets.has(h.family) || !this.enqueueRound(h)) this.finish(h, false);
    }
    this.drain();
  }

  private build(kind: Kind, cred: number, oids: readonly string[], id: number): Buffer {
    if (kind === 'engine') return encodeDiscoveryRequest(id);
    if (kind === 'community') {
      const t = this.templates[cred]!;
      const buf = Buffer.from(t.buf);
      buf.writeUInt32BE(id, t.idAt);
      return buf;
    }
    const c = this.communities[cred]!;
    return encodeCommunityMessage(SNMP_VERSION[c.version], c.community,
      encodePdu({ tag: TAG.GetRequest, requestId: id, varbinds: oids.map((oid) => ({ oid })) }));
  }

  private sendOne(item: Outgoing): boolean {
    const { h, kind, cred, oids } = item;
    // Skip what became pointless while it waited: a finished host, a community after another answered.
    if (h.done || (kind === 'community' && h.cred !== null) || (kind === 'engine' && h.engine)) return false;
    const socket = this.sockets.get(h.family);
    if (!socket) return false;
    const id = this.newId();
    const buf = this.build(kind, cred, oids, id);
    this.pending.set(id, { h, kind, cred, oids, sentAt: performance.now() });
    h.ids.push(id);
    if (h.timer) h.timer.refresh();
    else h.timer = setTimeout(() => this.onTimeout(h), this.timeoutMs);
    try {
      socket.send(buf, this.port, h.host, this.onSent);
    } catch {
      this.stats.send_errors++; // the socket closed meanwhile
    }
    return true;
  }

  /** One callback for every send, not a closure per packet. */
  private readonly onSent = (err: Error | null) => {
    if (err) this.stats.send_errors++;
    else this.stats.sent++;
  };

  private drain(): void {
    if (this.stopped || this.drainTimer) return;
    const now = performance.now();
    this.tokens = Math.min(this.burst, this.tokens + (now - this.refilled) * this.rate);
    this.refilled = now;
    while (this.tokens >= 1 && this.outbox.length > 0) {
      if (this.sendOne(this.outbox.shift()!)) this.tokens -= 1;
    }
    if (this.outbox.length > 0) {
      this.drainTimer = setTimeout(this.onDrainTimer, Math.max(1, Math.ceil((1 - this.tokens) / this.rate)));
    }
  }

  private readonly onDrainTimer = () => {
    this.drainTimer = null;
    this.drain();
  };

  private publish(h: HostState): void {
    const a = h.answer!;
    this.results.set(h.host, a);
    if (this.opts.onAnswer) this.opts.onAnswer({ ...a, sys: a.sys && { ...a.sys }, engine: a.engine && { ...a.engine } });
  }

  private firstAnswer(h: HostState, req: Request, now: number): SweepAnswer {
    this.stats.answered++;
    h.answer = { host: h.host, rtt_ms: Math.round((now - req.sentAt) * 10) / 10, credential: null, version: 'v3', sys: null, engine: null };
    return h.answer;
  }

  private onCommunity(h: HostState, req: Request, m: CommunityMessage, now: number): boolean {
    const c = this.communities[req.cred]!;
    if (m.version !== SNMP_VERSION[c.version] || !m.community.equals(this.communityBytes[req.cred]!)) return false;
    if (m.pdu.tag !== TAG.Response) return false;
    if (req.kind === 'community' && h.cred !== null) return false; // another community answered first
    if (req.kind === 'refetch' && (h.refetch === null || req.oids !== h.refetch)) return false;
    const a = h.answer ?? this.firstAnswer(h, req, now);
    if (req.kind === 'community') {
      h.cred = req.cred;
      a.credential = c.id;
      a.version = c.version;
    }
    const { errorStatus, errorIndex, varbinds } = m.pdu;
    if (errorStatus === 0) {
      a.sys = systemOf(varbinds, a.sys ?? emptySystem());
      h.refetch = null;
    } else if (errorStatus === NO_SUCH_NAME && errorIndex >= 1 && errorIndex <= req.oids.length) {
      // v1 answers a GET with one missing object with noSuchName for all: ask again without it.
      const rest = req.oids.filter((_, i) => i !== errorIndex - 1);
      h.refetch = rest.length > 0 ? rest : null;
      if (!h.refetch) a.sys = a.sys ?? emptySystem();
      else {
        this.outbox.push({ h, kind: 'refetch', cred: req.cred, oids: rest });
        this.drain();
      }
    } else {
      h.refetch = null; // an error-status the sweep cannot work around (tooBig, genErr): sys stays null
    }
    return true;
  }

  private onEngine(h: HostState, req: Request, m: V3Message, now: number): boolean {
    const pdu = m.scoped?.pdu;
    const id = m.usm?.engineId;
    if (!id || id.length === 0 || id.length > MAX_ENGINE_ID || h.engine) return false;
    if (pdu && pdu.tag !== TAG.Report && pdu.tag !== TAG.Response) return false;
    const a = h.answer ?? this.firstAnswer(h, req, now);
    h.engine = true;
    a.engine = { id: id.toString('hex'), boots: m.usm!.engineBoots, time: m.usm!.engineTime };
    return true;
  }

  private onMessage(family: 4 | 6, msg: Buffer, rinfo: dgram.RemoteInfo): void {
    if (this.stopped) return;
    this.stats.received++;
    const now = performance.now();
    const h = rinfo.port === this.port ? this.byKey.get(hostKey(rinfo.address)) : undefined;
    const m = h && h.family === family && !h.done ? decodeMessage(msg) : undefined;
    const req = m ? this.pending.get(m.version === SNMP_VERSION.v3 ? m.msgId : m.pdu.requestId) : undefined;
    let used = false;
    if (m && req && req.h === h) {
      if (m.version === SNMP_VERSION.v3) used = req.kind === 'engine' && this.onEngine(h, req, m, now);
      else used = req.kind !== 'engine' && this.onCommunity(h, req, m, now);
    }
    if (!used) { this.stats.ignored++; return; }
    try {
      this.publish(h!);
    } catch (e) {
      this.stop(e);
      return;
    }
    if (!this.stopped && this.complete(h!)) this.finish(h!);
  }
}

/**
 * Sweeps `hosts` (IPv4 and IPv6 addresses, no names) for SNMP agents: a GET of the system group with
 * every community and, unless `engineProbe` is false, an SNMPv3 engine-discovery probe, each round
 * resent up to `retries` times to hosts that have not answered. Resolves with an answer per host that
 * answered anything, keyed by the host as given; on abort, with the answers so far. Rejects only for
 * invalid arguments (a TypeError naming the field, never a community) or an exception from onAnswer.
 */
export async function sweepSnmp(hosts: string[], opts: SweepOptions): Promise<Map<string, SweepAnswer>> {
  return new Sweep(hosts, opts).run();
}
