// The probe's health as GET /api/system/status and GET /metrics show it: CPU, load, memory, the data
// directory's disk, uptimes, temperatures and (on a Raspberry Pi) the firmware's throttling flags.
// Everything is read from /proc, /sys, `os` and statfs directly: well under a millisecond and no child
// process. The one external program, `vcgencmd get_throttled`, runs in the background at most once a
// minute when it is installed; a request only ever reads its last answer. (The `systeminformation`
// package spawns shells for most of these figures, some synchronously; it is not used here.)
import { readdirSync, readFileSync } from 'node:fs';
import { statfs } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { run, which } from '../../../core/exec.js';
import type { Logger } from '../../../core/log.js';

export interface CpuTimes { busy: number; total: number }

export interface ThrottleState {
  /** The firmware's bit field as vcgencmd prints it, e.g. "0x50005". */
  raw: string;
  under_voltage: boolean;
  frequency_capped: boolean;
  throttled: boolean;
  soft_temperature_limit: boolean;
  under_voltage_occurred: boolean;
  frequency_capped_occurred: boolean;
  throttled_occurred: boolean;
  soft_temperature_limit_occurred: boolean;
  checked_at: string;
}

export interface SystemStatus {
  time: string;
  cpu: {
    cores: number;
    /** Busy share of all cores between this reading and the one before (at least a second apart), 0..100. */
    usage_pct: number | null;
    /** The service's own CPU over the same window, as a share of one core (can exceed 100 on several). */
    process_pct: number | null;
    load: { '1m': number; '5m': number; '15m': number };
  };
  memory: {
    total_bytes: number;
    available_bytes: number;
    used_pct: number;
    /** Resident memory of this service. */
    process_rss_bytes: number;
    process_heap_used_bytes: number;
  };
  disk: { path: string; total_bytes: number; free_bytes: number; available_bytes: number; used_pct: number } | null;
  uptime: { host: number; service: number };
  temperatures: { zone: string; type: string; celsius: number }[];
  /** Raspberry Pi firmware flags (vcgencmd get_throttled); null where the program is not installed. */
  throttling: ThrottleState | null;
}

const THERMAL = '/sys/class/thermal';
/** Readings closer together than this keep the previous usage figure rather than a noisy one. */
const MIN_WINDOW_MS = 1000;
const THROTTLE_EVERY_MS = 60_000;

/** busy and total jiffies of the `cpu` line of /proc/stat (null when it cannot be read). */
export function parseProcStat(text: string): CpuTimes | null {
  const line = text.slice(0, text.indexOf('\n'));
  if (!line.startsWith('cpu ')) return null;
  const f = line.trim().split(/\s+/).slice(1).map(Number);
  if (f.length < 4 || f.some((n) => !Number.isFinite(n))) return null;
  // user nice system idle iowait irq softirq steal (guest and guest_nice are already in user and nice)
  const idle = (f[3] ?? 0) + (f[4] ?? 0);
  const total = f.slice(0, 8).reduce((a, b) => a + b, 0);
  return { busy: total - idle, total };
}

/** MemTotal and MemAvailable of /proc/meminfo, in bytes. */
export function parseMeminfo(text: string): { total: number; available: number } | null {
  const kib = (name: string): number | null => {
    const m = new RegExp(`^${name}:\\s+(\\d+)\\s*kB`, 'm').exec(text);
    return m ? Number(m[1]) * 1024 : null;
  };
  const total = kib('MemTotal');
  const available = kib('MemAvailable') ?? kib('MemFree');
  return total === null || available === null ? null : { total, available };
}

/** `throttled=0x50005` as vcgencmd prints it; null for anything else. */
export function parseThrottled(text: string, at: Date): ThrottleState | null {
  const m = /throttled=(0x[0-9a-fA-F]+)/.exec(text);
  if (!m) return null;
  const v = parseInt(m[1]!, 16);
  const bit = (n: number) => (v & (1 << n)) !== 0;
  return {
    raw: m[1]!, under_voltage: bit(0), frequency_capped: bit(1), throttled: bit(2), soft_temperature_limit: bit(3),
    under_voltage_occurred: bit(16), frequency_capped_occurred: bit(17), throttled_occurred: bit(18),
    soft_temperature_limit_occurred: bit(19), checked_at: at.toISOString(),
  };
}

function readText(path: string): string | null {
  try { return readFileSync(path, 'utf8'); } catch { return null; }
}

const round1 = (n: number) => Math.round(n * 10) / 10;

export class StatusService {
  private prev: { at: number; cpu: CpuTimes | null; proc: number };
  private usage: { cpu: number | null; proc: number | null } = { cpu: null, proc: null };
  private readonly zones: { zone: string; dir: string; type: string }[];
  private throttle: ThrottleState | null = null;
  private vcgencmd: Promise<string | null> | null = null;
  private throttleAt = 0;
  private throttleRunning = false;

  constructor(
    private readonly dataDir: string,
    /** Seconds since the service started (the app's clock). */
    private readonly serviceUptime: () => number,
    private readonly log: Logger,
    private readonly opts: { procRoot?: string; thermalDir?: string; vcgencmd?: string | null } = {},
  ) {
    this.prev = { at: performance.now(), cpu: this.cpuTimes(), proc: this.procCpuMs() };
    this.zones = this.listZones();
  }

  private proc(name: string): string | null {
    return readText(join(this.opts.procRoot ?? '/proc', name));
  }

  private cpuTimes(): CpuTimes | null {
    const text = this.proc('stat');
    const parsed = text ? parseProcStat(text) : null;
    if (parsed) return parsed;
    // Not Linux: the same counters through libuv.
    let busy = 0, total = 0;
    for (const c of os.cpus()) {
      const t = c.times;
      total += t.user + t.nice + t.sys + t.idle + t.irq;
      busy += t.user + t.nice + t.sys + t.irq;
    }
    return total > 0 ? { busy, total } : null;
  }

  private procCpuMs(): number {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  }

  private listZones(): { zone: string; dir: string; type: string }[] {
    const root = this.opts.thermalDir ?? THERMAL;
    let names: string[];
    try { names = readdirSync(root).filter((n) => n.startsWith('thermal_zone')).sort(); } catch { return []; }
    return names.map((zone) => ({ zone, dir: join(root, zone), type: readText(join(root, zone, 'type'))?.trim() ?? zone }));
  }

  /** CPU usage since the previous reading; the window moves on only once it spans a second or more. */
  private sampleCpu(): { cpu: number | null; proc: number | null } {
    const now = performance.now();
    if (now - this.prev.at < MIN_WINDOW_MS) return this.usage;
    const cpu = this.cpuTimes();
    const procMs = this.procCpuMs();
    const p = this.prev;
    const dTotal = cpu && p.cpu ? cpu.total - p.cpu.total : 0;
    this.usage = {
      cpu: cpu && p.cpu && dTotal > 0 ? round1(Math.min(100, Math.max(0, ((cpu.busy - p.cpu.busy) / dTotal) * 100))) : this.usage.cpu,
      proc: round1(Math.max(0, ((procMs - p.proc) / (now - p.at)) * 100)),
    };
    this.prev = { at: now, cpu, proc: procMs };
    return this.usage;
  }

  temperatures(): SystemStatus['temperatures'] {
    const out: SystemStatus['temperatures'] = [];
    for (const z of this.zones) {
      const milli = Number(readText(join(z.dir, 'temp'))?.trim());
      // A zone whose sensor is off reads as an error or a nonsense value: left out, not shown as 0.
      if (Number.isFinite(milli) && milli > -60_000 && milli < 200_000) {
        out.push({ zone: z.zone, type: z.type, celsius: round1(milli / 1000) });
      }
    }
    return out;
  }

  memory(): SystemStatus['memory'] {
    const text = this.proc('meminfo');
    const m = (text ? parseMeminfo(text) : null) ?? { total: os.totalmem(), available: os.freemem() };
    const mu = process.memoryUsage();
    return {
      total_bytes: m.total, available_bytes: m.available,
      used_pct: m.total > 0 ? round1(((m.total - m.available) / m.total) * 100) : 0,
      process_rss_bytes: mu.rss, process_heap_used_bytes: mu.heapUsed,
    };
  }

  async disk(): Promise<SystemStatus['disk']> {
    try {
      const s = await statfs(this.dataDir);
      const total = s.blocks * s.bsize, free = s.bfree * s.bsize, avail = s.bavail * s.bsize;
      // used / (used + available): what df shows, the root-reserved blocks counted as unavailable.
      const used = total - free;
      return { path: this.dataDir, total_bytes: total, free_bytes: free, available_bytes: avail,
        used_pct: used + avail > 0 ? round1((used / (used + avail)) * 100) : 0 };
    } catch (e) {
      this.log.debug('statfs of the data directory failed', { err: e as Error });
      return null;
    }
  }

  /** The last throttling flags; starts a background refresh when they are older than a minute. */
  throttling(): ThrottleState | null {
    const now = Date.now();
    if (!this.throttleRunning && now - this.throttleAt >= THROTTLE_EVERY_MS) {
      this.throttleAt = now;
      this.throttleRunning = true;
      this.refreshThrottle().finally(() => { this.throttleRunning = false; });
    }
    return this.throttle;
  }

  private async refreshThrottle(): Promise<void> {
    this.vcgencmd ??= this.opts.vcgencmd !== undefined ? Promise.resolve(this.opts.vcgencmd) : which('vcgencmd');
    const program = await this.vcgencmd;
    if (!program) return;
    try {
      const r = await run(program, ['get_throttled'], { timeoutMs: 5000, maxBytes: 4096 });
      this.throttle = parseThrottled(r.stdout, new Date()) ?? this.throttle;
    } catch (e) {
      this.log.debug('vcgencmd get_throttled failed', { err: e as Error });
    }
  }

  /** Waits for a throttling reading in progress (tests). */
  async settled(): Promise<void> {
    while (this.throttleRunning) await new Promise((r) => setTimeout(r, 5));
  }

  cpuUsage(): { cpu: number | null; proc: number | null } {
    return this.sampleCpu();
  }

  async status(): Promise<SystemStatus> {
    const usage = this.sampleCpu();
    const [l1, l5, l15] = os.loadavg();
    return {
      time: new Date().toISOString(),
      cpu: { cores: os.availableParallelism(), usage_pct: usage.cpu, process_pct: usage.proc,
        load: { '1m': round2(l1!), '5m': round2(l5!), '15m': round2(l15!) } },
      memory: this.memory(),
      disk: await this.disk(),
      uptime: { host: Math.round(os.uptime()), service: Math.round(this.serviceUptime()) },
      temperatures: this.temperatures(),
      throttling: this.throttling(),
    };
  }
}

const round2 = (n: number) => Math.round(n * 100) / 100;
