// Structured logger: one line per entry on stdout (journald adds its own time), plus a bounded ring
// buffer that GET /api/dev/logs/stream replays and follows live.

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface LogEntry {
  seq: number;
  time: string;
  level: LogLevel;
  msg: string;
  module?: string;
  fields?: Record<string, unknown>;
}

type Sink = (entry: LogEntry) => void;

/** Shared state of a logger family: the ring buffer and the live subscribers. */
class LogHub {
  ring: LogEntry[] = [];
  seq = 0;
  subscribers = new Set<Sink>();
  constructor(public capacity: number, public level: LogLevel, public write: (line: string) => void) {}
}

export interface LoggerOptions {
  level?: LogLevel;
  capacity?: number;
  /** Where lines go; defaults to stdout. Tests pass a no-op to keep output quiet. */
  write?: (line: string) => void;
}

export class Logger {
  private constructor(private hub: LogHub, private module?: string, private base: Record<string, unknown> = {}) {}

  static create(opts: LoggerOptions = {}): Logger {
    const write = opts.write ?? ((line: string) => { process.stdout.write(line + '\n'); });
    return new Logger(new LogHub(opts.capacity ?? 1000, opts.level ?? 'info', write));
  }

  child(module: string, base: Record<string, unknown> = {}): Logger {
    return new Logger(this.hub, module, { ...this.base, ...base });
  }

  setLevel(level: LogLevel): void { this.hub.level = level; }

  /** Resizes the ring buffer (config log.buffer), dropping the oldest entries when it shrinks. */
  setCapacity(capacity: number): void {
    this.hub.capacity = capacity;
    if (this.hub.ring.length > capacity) this.hub.ring.splice(0, this.hub.ring.length - capacity);
  }

  debug(msg: string, fields?: Record<string, unknown>): void { this.log('debug', msg, fields); }
  info(msg: string, fields?: Record<string, unknown>): void { this.log('info', msg, fields); }
  /** Returns the entry's seq (0 when filtered out), for forget(). */
  warn(msg: string, fields?: Record<string, unknown>): number { return this.log('warn', msg, fields); }
  error(msg: string, fields?: Record<string, unknown>): void { this.log('error', msg, fields); }

  log(level: LogLevel, msg: string, fields?: Record<string, unknown>): number {
    const hub = this.hub;
    if (ORDER[level] < ORDER[hub.level]) return 0;
    const all = { ...this.base, ...fields };
    for (const [k, v] of Object.entries(all)) if (v instanceof Error) all[k] = v.stack ?? v.message;
    const entry: LogEntry = { seq: ++hub.seq, time: new Date().toISOString(), level, msg };
    if (this.module) entry.module = this.module;
    if (Object.keys(all).length) entry.fields = all;
    hub.ring.push(entry);
    if (hub.ring.length > hub.capacity) hub.ring.splice(0, hub.ring.length - hub.capacity);
    const mod = this.module ? `[${this.module}] ` : '';
    const extra = entry.fields ? ' ' + safeJson(entry.fields) : '';
    hub.write(`${entry.time} ${level.toUpperCase().padEnd(5)} ${mod}${msg}${extra}`);
    for (const s of hub.subscribers) {
      try { s(entry); } catch { /* a broken subscriber must not break logging */ }
    }
    return entry.seq;
  }

  /** Drops an entry from the ring buffer, so streams no longer replay it (a secret that was retired). */
  forget(seq: number): void {
    const i = this.hub.ring.findIndex((e) => e.seq === seq);
    if (i >= 0) this.hub.ring.splice(i, 1);
  }

  /** Entries still in the ring buffer with seq greater than `after`. */
  recent(after = 0): LogEntry[] { return this.hub.ring.filter((e) => e.seq > after); }

  subscribe(fn: Sink): () => void {
    this.hub.subscribers.add(fn);
    return () => { this.hub.subscribers.delete(fn); };
  }
}

function safeJson(v: unknown): string {
  try { return JSON.stringify(v); } catch { return '[unserialisable]'; }
}
