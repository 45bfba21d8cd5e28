// GET /metrics: the probe in the Prometheus text exposition format (version 0.0.4). Monitors (status,
// last response time, 24-hour check counts, labelled with name, type and tags), check and failure
// counters, the scheduler's lag, webhook deliveries, the store's files and checkpoints, the host and the
// process. Built from memory on each scrape (no SQL for monitors, a few small queries for webhooks and the
// store's pragmas): about a millisecond for 1,000 monitors here (bench/system.ts).
import { loadavg } from 'node:os';
import type { AppContext } from '../../../core/context.js';
import { monitorsServiceOf } from '../../monitors/index.js';
import { webhooksOf } from '../../webhooks/index.js';
import type { RuntimeStats } from '../runtime.js';
import type { StatusService } from '../status/service.js';

export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

const STATUSES = ['up', 'degraded', 'down', 'paused', 'unknown'] as const; // netprobe_monitors, by status
const HOUR_MS = 3_600_000;

/** A label value as the text format wants it: backslash, double quote and line feed escaped. */
export function escapeLabel(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

/** A sample value: integers as they are, floats without exponent surprises, NaN/Inf spelled as Prometheus does. */
function num(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  return String(v);
}

/** Accumulates families: HELP and TYPE once, then the samples. */
class Exposition {
  private out: string[] = [];
  family(name: string, type: 'gauge' | 'counter', help: string): this {
    this.out.push(`# HELP ${name} ${help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}\n# TYPE ${name} ${type}\n`);
    return this;
  }
  /** `labels` is the text between the braces, already escaped (or '' for none). */
  sample(name: string, labels: string, value: number): this {
    this.out.push(labels ? `${name}{${labels}} ${num(value)}\n` : `${name} ${num(value)}\n`);
    return this;
  }
  one(name: string, type: 'gauge' | 'counter', help: string, value: number | null | undefined): this {
    if (value == null || !Number.isFinite(value)) return this;
    return this.family(name, type, help).sample(name, '', value);
  }
  /** Samples written by the caller (one family's, each ending in a line feed). */
  lines(lines: string[]): this {
    for (const l of lines) this.out.push(l);
    return this;
  }
  text(): string { return this.out.join(''); }
}

export class MetricsService {
  /** Failed checks since the service started (every failed check: the bus's monitor.check_failed). */
  private checkFailures = 0;

  constructor(private readonly app: AppContext, private readonly status: StatusService, private readonly runtime: RuntimeStats) {
    app.bus.on('monitor.check_failed', () => { this.checkFailures++; });
  }

  async render(): Promise<string> {
    const e = new Exposition();
    this.process(e);
    await this.host(e);
    this.monitors(e);
    this.webhooks(e);
    this.store(e);
    return e.text();
  }

  private process(e: Exposition): void {
    const mem = process.memoryUsage();
    const cpu = process.cpuUsage();
    e.family('netprobe_build_info', 'gauge', 'Version of the service and of Node.js; always 1')
      .sample('netprobe_build_info', `version="${escapeLabel(this.app.version)}",node="${escapeLabel(process.version)}"`, 1);
    e.one('process_cpu_seconds_total', 'counter', 'User and system CPU time of the service, in seconds', (cpu.user + cpu.system) / 1e6);
    e.one('process_resident_memory_bytes', 'gauge', 'Resident memory of the service', mem.rss);
    e.one('process_start_time_seconds', 'gauge', 'When the service started, in seconds since the epoch', this.app.startedAt / 1000);
    e.one('netprobe_process_heap_used_bytes', 'gauge', 'JavaScript heap in use', mem.heapUsed);
    e.one('netprobe_process_array_buffers_bytes', 'gauge', 'ArrayBuffers and WebAssembly memory (the database lives there)',
      mem.arrayBuffers);
    const loop = this.runtime.eventLoopDelay();
    e.one('netprobe_event_loop_delay_p99_seconds', 'gauge', 'Event-loop delay, 99th percentile since the service started',
      loop.p99_ms / 1000);
    e.one('netprobe_event_loop_delay_max_seconds', 'gauge', 'Longest event-loop delay since the service started', loop.max_ms / 1000);
  }

  private async host(e: Exposition): Promise<void> {
    const usage = this.status.cpuUsage();
    const mem = this.status.memory();
    const disk = await this.status.disk();
    e.one('netprobe_host_cpu_usage_ratio', 'gauge', 'Busy share of all CPU cores since the previous reading (0 to 1)',
      usage.cpu == null ? null : usage.cpu / 100);
    const [l1, l5, l15] = loadavg();
    e.one('netprobe_host_load1', 'gauge', 'Load average over 1 minute', l1);
    e.one('netprobe_host_load5', 'gauge', 'Load average over 5 minutes', l5);
    e.one('netprobe_host_load15', 'gauge', 'Load average over 15 minutes', l15);
    e.one('netprobe_host_memory_total_bytes', 'gauge', 'Memory of the host', mem.total_bytes);
    e.one('netprobe_host_memory_available_bytes', 'gauge', 'Memory available to new work without swapping', mem.available_bytes);
    if (disk) {
      e.one('netprobe_data_disk_total_bytes', 'gauge', 'Size of the file system holding the data directory', disk.total_bytes);
      e.one('netprobe_data_disk_available_bytes', 'gauge', 'Bytes the service can still write to the data directory\'s file system',
        disk.available_bytes);
    }
    const temps = this.status.temperatures();
    if (temps.length) {
      e.family('netprobe_host_temperature_celsius', 'gauge', 'Temperature of each thermal zone the kernel reports');
      for (const t of temps) {
        e.sample('netprobe_host_temperature_celsius', `zone="${escapeLabel(t.zone)}",type="${escapeLabel(t.type)}"`, t.celsius);
      }
    }
    const th = this.status.throttling();
    if (th) {
      e.family('netprobe_host_throttled', 'gauge', 'Raspberry Pi firmware flags (vcgencmd get_throttled): 1 while the condition holds');
      for (const flag of ['under_voltage', 'frequency_capped', 'throttled', 'soft_temperature_limit'] as const) {
        e.sample('netprobe_host_throttled', `flag="${flag}"`, th[flag] ? 1 : 0);
      }
    }
  }

  private monitors(e: Exposition): void {
    let svc: ReturnType<typeof monitorsServiceOf>;
    try { svc = monitorsServiceOf(this.app); } catch { return; }
    const now = this.app.clock.now();
    const to = Math.floor(now / HOUR_MS), from = to - 23;
    const status: string[] = [], up: string[] = [], rt: string[] = [], last: string[] = [], checks: string[] = [], down: string[] = [];
    const counts: Record<string, number> = { up: 0, degraded: 0, down: 0, paused: 0, unknown: 0 };
    for (const m of svc.registry.all()) {
      const r = m.row;
      const labels = `id="${r.id}",name="${escapeLabel(r.name)}",type="${r.check_type}",tags="${escapeLabel(m.tags.join(','))}"`;
      counts[r.status] = (counts[r.status] ?? 0) + 1;
      // Only the current status is a series (1): five per monitor would multiply a 1,000-monitor scrape for zeros.
      status.push(`netprobe_monitor_status{${labels},status="${r.status}"} 1\n`);
      if (r.status === 'up' || r.status === 'degraded' || r.status === 'down') {
        up.push(`netprobe_monitor_up{${labels}} ${r.status === 'down' ? 0 : 1}\n`);
      }
      if (r.last_rt != null) rt.push(`netprobe_monitor_response_time_seconds{${labels}} ${num(r.last_rt / 100_000)}\n`);
      if (r.last_check != null) last.push(`netprobe_monitor_last_check_timestamp_seconds{${labels}} ${num(r.last_check / 1000)}\n`);
      const a = svc.storage.sum(r.pk, from, to);
      checks.push(`netprobe_monitor_checks_24h{${labels}} ${a.checks}\n`);
      down.push(`netprobe_monitor_failed_checks_24h{${labels}} ${a.down}\n`);
    }
    e.family('netprobe_monitors', 'gauge', 'Monitors by status');
    for (const s of STATUSES) e.sample('netprobe_monitors', `status="${s}"`, counts[s] ?? 0);
    this.lines(e, 'netprobe_monitor_status', 'Current status of each monitor (the series with its status label is 1)', status);
    this.lines(e, 'netprobe_monitor_up', 'Whether each monitor is up (1, also when degraded) or down (0); absent while paused or unknown',
      up);
    this.lines(e, 'netprobe_monitor_response_time_seconds', 'Response time of each monitor\'s latest check that measured one', rt);
    this.lines(e, 'netprobe_monitor_last_check_timestamp_seconds', 'When each monitor was last checked, in seconds since the epoch', last);
    this.lines(e, 'netprobe_monitor_checks_24h', 'Checks of each monitor in the last 24 hour buckets', checks);
    this.lines(e, 'netprobe_monitor_failed_checks_24h', 'Checks of each monitor that found it down in the last 24 hour buckets', down);

    const st = svc.scheduler.stats();
    e.one('netprobe_checks_started_total', 'counter', 'Scheduled checks started since the service started', st.started);
    e.one('netprobe_checks_missed_total', 'counter', 'Scheduled checks skipped because the previous one of the monitor was still running',
      st.missed);
    e.one('netprobe_check_failures_total', 'counter', 'Checks that failed since the service started', this.checkFailures);
    e.one('netprobe_scheduler_running_checks', 'gauge', 'Checks running now', st.running);
    e.one('netprobe_scheduler_queued_checks', 'gauge', 'Checks waiting for a free slot', st.queued);
    const sec = (v: number | null) => (v == null ? null : v / 1000);
    e.one('netprobe_scheduler_lag_p50_seconds', 'gauge', 'How late scheduled checks started, median since the service started',
      sec(st.lag.p50_ms));
    e.one('netprobe_scheduler_lag_p99_seconds', 'gauge', 'How late scheduled checks started, 99th percentile since the service started',
      sec(st.lag.p99_ms));
    e.one('netprobe_scheduler_lag_max_seconds', 'gauge', 'Latest start of a scheduled check since the service started', sec(st.lag.max_ms));
    e.one('netprobe_scheduler_late_checks_total', 'counter', 'Scheduled checks that started more than 20 ms after their slot',
      st.lag.over_20ms);
  }

  private lines(e: Exposition, name: string, help: string, lines: string[]): void {
    if (lines.length) e.family(name, 'gauge', help).lines(lines);
  }

  private webhooks(e: Exposition): void {
    let list: ReturnType<ReturnType<typeof webhooksOf>['service']['list']>['items'];
    try { list = webhooksOf(this.app).service.list().items; } catch { return; }
    if (!list.length) return;
    const label = (w: (typeof list)[number]) => `id="${w.id}",name="${escapeLabel(w.name)}",type="${w.type}"`;
    e.family('netprobe_webhook_pending_deliveries', 'gauge', 'Deliveries of each webhook waiting in the outbox');
    for (const w of list) e.sample('netprobe_webhook_pending_deliveries', label(w), w.pending_deliveries);
    const delivered = list.filter((w) => w.last_delivery);
    if (!delivered.length) return;
    e.family('netprobe_webhook_last_delivery_ok', 'gauge', 'Whether the latest delivery attempt (or test) of each webhook succeeded');
    for (const w of delivered) {
      const ok = w.last_delivery!.outcome === 'delivered' || (w.last_delivery!.outcome === 'test' && w.last_delivery!.error == null);
      e.sample('netprobe_webhook_last_delivery_ok', label(w), ok ? 1 : 0);
    }
    e.family('netprobe_webhook_last_delivery_timestamp_seconds', 'gauge', 'When each webhook\'s latest delivery attempt was made');
    for (const w of delivered) {
      e.sample('netprobe_webhook_last_delivery_timestamp_seconds', label(w), Date.parse(w.last_delivery!.at) / 1000);
    }
  }

  private store(e: Exposition): void {
    const s = this.app.store.stats();
    e.one('netprobe_store_snapshot_bytes', 'gauge', 'Size of the database snapshot (netprobe.db)', s.snapshot_bytes);
    e.one('netprobe_store_journal_bytes', 'gauge', 'Size of the write-ahead journal', s.journal_bytes);
    e.one('netprobe_store_journal_records', 'gauge', 'Transactions in the journal since the last checkpoint', s.journal_records);
    e.one('netprobe_store_segment_files', 'gauge', 'Channel segment files (check results outside the database)', s.segments.files);
    e.one('netprobe_store_segment_bytes', 'gauge', 'Bytes of the channel segment files', s.segments.bytes);
    e.one('netprobe_store_database_bytes', 'gauge', 'Size of the database in memory (pages times page size)', s.page_count * s.page_size);
    e.one('netprobe_store_checkpoints_total', 'counter', 'Checkpoints since the service started', s.checkpoints);
    e.one('netprobe_store_last_checkpoint_timestamp_seconds', 'gauge', 'When the snapshot on disk was written',
      s.last_checkpoint_at ? Date.parse(s.last_checkpoint_at) / 1000 : null);
    e.one('netprobe_store_io_error', 'gauge', '1 while the journal cannot be written (disk full), else 0', s.io_error ? 1 : 0);
  }
}
