// Interface polling (docs/snmp.md, "Interface polling"): the devices a person chose are polled every 60 or
// 300 s, each on its own timer at its own phase (so 50 devices do not start together), each with its own
// timeout (a dead agent delays nobody else). A device that fails three polls in a row is backed off (its
// interval doubled per failure, at most 30 min) and shown as such; it comes back at its next answer.
//
// One poll (poll()): the credential is reached through TargetResolver.reach (discovery's allowed ranges
// and the credential's scope are checked before a datagram leaves; a refusal pauses nothing and sends
// nothing), one request train reads every interface (read.ts), interfaces are matched to their keys
// across renumbering (match.ts), rates come from the counters of the poll before (rates.ts) and go to
// the history (history/) for the interfaces polled, and rows are written only when something a person
// sees changed (names, speed, status): never per poll.
import { randomUUID } from 'node:crypto';
import type { AppContext } from '../../../core/context.js';
import { iso, isoOrNull } from '../../../core/clock.js';
import type { Actor } from '../../../core/audit/types.js';
import { badRequest, conflict, HttpError, notFound } from '../../../core/errors.js';
import { brainServicesOf } from '../../brain/index.js';
import { IF_STATUSES } from '../interfaces.js';
import type { SnmpService } from '../service.js';
import { InterfaceAlerts } from './alerts.js';
import type { InterfaceHistory, Sparkline } from './history/index.js';
import { matchInterfaces } from './match.js';
import { ifPoint, RATE_FIELDS, utilisation } from './rates.js';
import { readDevice } from './read.js';
import type { HistoryRange, PollDeviceInput, PolledDeviceOut } from './schemas.js';
import { devices, interfaces, sameInterface, type DeviceRow, type IfRow } from './store.js';
import type { DeviceSample, IfPoint, IfSample } from './types.js';
import { uplinkFinderOf } from './uplinks.js';

/** Failed polls in a row before a device is backed off. */
const BACK_OFF_AFTER = 3;
const MAX_BACK_OFF_MS = 30 * 60_000;
const RETAIN_EVERY_MS = 6 * 3_600_000;
/** LLDP/CDP neighbours are read again once a day (watched-by-default follows the cabling). */
const UPLINKS_EVERY_MS = 24 * 3_600_000;

type Status = 'waiting' | 'ok' | 'failing' | 'backed_off' | 'refused' | 'paused';

interface IfRun {
  row: IfRow;
  /** The sample of the poll before (for rates), whatever its ifIndex was then. */
  prev: IfSample | null;
  now: (IfPoint & { why: string | null }) | null;
  hc: boolean | null;
}

interface Run {
  row: DeviceRow;
  ifs: Map<number, IfRun>;
  prev: DeviceSample | null;
  status: Status;
  failures: number;
  lastPollAt: number | null;
  lastOkAt: number | null;
  nextAt: number | null;
  error: string | null;
  elapsedMs: number | null;
  requests: number | null;
  uplinksAt: number;
  timer: { cancel(): void } | null;
  polling: Promise<void> | null;
  abort: AbortController | null;
  /** Just added: its first poll comes at once, not at its phase. */
  soon: boolean;
}

export class PollingService {
  private readonly runs = new Map<string, Run>();
  private readonly alerts: InterfaceAlerts;
  private started = false;
  private retention: { cancel(): void } | null = null;

  constructor(private readonly app: AppContext, private readonly snmp: SnmpService, readonly history: InterfaceHistory) {
    this.alerts = new InterfaceAlerts(app);
  }

  // ---- lifecycle ----------------------------------------------------------------------------------

  async start(): Promise<void> {
    await this.history.open();
    const ifs = interfaces.all(this.app.store);
    for (const row of devices.all(this.app.store)) {
      const run = this.newRun(row);
      for (const r of ifs) if (r.device_id === row.id) run.ifs.set(r.id, { row: r, prev: null, now: null, hc: null });
      this.runs.set(row.id, run);
    }
    this.started = true;
    for (const run of this.runs.values()) this.schedule(run);
    this.retainLater(60_000);
  }

  /** Retention of the history's files: a minute after start, then every 6 hours (it deletes whole files). */
  private retainLater(ms: number): void {
    this.retention = this.app.clock.setTimeout(() => {
      void this.history.retain().catch((err: unknown) => this.app.log.warn('snmp.polling.retention_failed', { err: String(err) }))
        .finally(() => { if (this.started) this.retainLater(RETAIN_EVERY_MS); });
    }, ms);
  }

  async stop(): Promise<void> {
    this.started = false;
    this.retention?.cancel();
    for (const run of this.runs.values()) { run.timer?.cancel(); run.abort?.abort(); }
    await Promise.allSettled([...this.runs.values()].map((r) => r.polling));
    await this.alerts.idle();
    await this.history.close();
  }

  /** Polls and alerts in flight have finished (tests). */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.runs.values()].map((r) => r.polling));
    await this.alerts.idle();
  }

  private newRun(row: DeviceRow, soon = false): Run {
    return { row, ifs: new Map(), prev: null, status: row.enabled ? 'waiting' : 'paused', failures: 0, lastPollAt: null, lastOkAt: null,
      nextAt: null, error: null, elapsedMs: null, requests: null, uplinksAt: 0, timer: null, polling: null, abort: null, soon };
  }

  /** The next poll at the device's phase of its interval (its id spreads devices over it), or later when backed off. */
  private schedule(run: Run): void {
    run.timer?.cancel();
    run.timer = null;
    run.nextAt = null;
    if (!this.started || !run.row.enabled) return;
    const interval = run.row.interval_s * 1000;
    const now = this.app.clock.now();
    let at: number;
    if (run.failures >= BACK_OFF_AFTER) {
      at = now + Math.min(interval * 2 ** (run.failures - BACK_OFF_AFTER + 1), MAX_BACK_OFF_MS);
    } else {
      const phase = phaseOf(run.row.id, interval);
      at = Math.floor((now - phase) / interval) * interval + phase + interval;
      // A device just added polls at once (a person waits for its interfaces); after a restart each keeps its phase,
      // so the devices do not all poll in the same second.
      if (run.soon) { run.soon = false; at = now + Math.min(1000, interval); }
    }
    run.nextAt = at;
    run.timer = this.app.clock.setTimeout(() => { void this.pollRun(run).catch(() => undefined); }, Math.max(0, at - now));
  }

  private pollRun(run: Run): Promise<void> {
    if (run.polling) return run.polling;
    run.polling = this.poll(run).finally(() => { run.polling = null; if (this.runs.get(run.row.id) === run) this.schedule(run); });
    return run.polling;
  }

  // ---- one poll -------------------------------------------------------------------------------------

  private async poll(run: Run): Promise<void> {
    const cfg = this.app.config.get().snmp;
    const started = this.app.clock.now();
    run.lastPollAt = started;
    run.abort = new AbortController();
    let sample: DeviceSample;
    let target;
    try {
      const { target: host, port, credential_id } = run.row;
      target = await this.snmp.targets.reach({ target: host, port: port ?? undefined, credential_id },
        { timeout_ms: cfg.timeout_ms, retries: cfg.retries });
      sample = await readDevice(target, { signal: run.abort.signal });
    } catch (err) {
      run.failures++;
      run.error = err instanceof Error ? err.message : String(err);
      const refused = err instanceof HttpError && (err.status === 403 || err.status === 423 || err.status === 400);
      run.status = refused ? 'refused' : run.failures >= BACK_OFF_AFTER ? 'backed_off' : 'failing';
      run.prev = null; // rates restart after a failure: the interval since the last answer is a gap
      for (const i of run.ifs.values()) { i.prev = null; i.now = null; }
      this.app.log.info('snmp.polling.failed', { device: run.row.name, target: run.row.target, failures: run.failures, err: run.error });
      return;
    } finally {
      run.abort = null;
    }
    run.failures = 0;
    run.error = null;
    run.status = 'ok';
    run.lastOkAt = sample.t;
    run.elapsedMs = sample.elapsed_ms;
    run.requests = sample.requests;
    await this.apply(run, sample);
    if (uplinkFinderOf(this.app) && sample.t - run.uplinksAt >= UPLINKS_EVERY_MS) {
      run.uplinksAt = sample.t;
      await this.readUplinks(run, target).catch((err: unknown) =>
        this.app.log.info('snmp.polling.uplinks_failed', { device: run.row.name, err: String(err) }));
    }
  }

  /** Matches the sample's interfaces to keys, makes their rates, and writes the rows that changed. */
  private async apply(run: Run, sample: DeviceSample): Promise<void> {
    const now = sample.t;
    const live = [...run.ifs.values()].filter((i) => i.row.gone_at === null);
    const m = matchInterfaces(live.map((i) => ({ key: String(i.row.id), index: i.row.if_index, name: i.row.name, descr: i.row.descr })),
      sample.interfaces);
    const keyOf = new Map(m.matched.map((x) => [x.index, Number(x.key)]));
    const fresh = new Set(m.added);
    const changed: IfRow[] = [];
    const added: IfSample[] = [];
    const judged: { before: IfRow; after: IfRow; point: IfPoint | null; util: number | null }[] = [];
    const seen = new Set<number>();
    for (const s of sample.interfaces) {
      const key = keyOf.get(s.index);
      const i = key === undefined ? undefined : run.ifs.get(key);
      if (!i) { if (fresh.has(s.index)) added.push(s); continue; } // else a deleted interface's leftover row (match.ts: stale)
      seen.add(i.row.id);
      const before = i.row;
      const after: IfRow = { ...before, if_index: s.index, name: s.name, descr: s.descr, alias: s.alias, type: s.type,
        speed_bps: s.speed_bps, oper: s.oper, admin: s.admin, gone_at: null,
        oper_since: s.oper !== before.oper ? now : before.oper_since };
      if (s.index !== before.if_index) { after.renumbered_from = before.if_index; after.renumbered_at = now; }
      const r = ifPoint(run.prev, i.prev, sample, s, { interval_ms: run.row.interval_s * 1000 });
      i.prev = s;
      i.hc = s.hc;
      i.now = { ...r.point, why: RATE_FIELDS.map((f) => r.why[f]).find((w) => w !== undefined) ?? null };
      if (run.row.all_interfaces || after.chosen) this.history.add(after.id, r.point);
      if (!sameInterface(before, after)) changed.push(after);
      i.row = after;
      judged.push({ before, after, point: r.point, util: utilOf(r.point) });
    }
    for (const i of live) {
      if (seen.has(i.row.id)) continue;
      const after = { ...i.row, gone_at: now };
      i.row = after;
      i.prev = null;
      i.now = null;
      changed.push(after);
    }
    run.prev = sample;
    if (changed.length || added.length) {
      const fresh: IfRow[] = [];
      await this.app.store.write((tx) => {
        for (const r of changed) interfaces.update(tx, r);
        for (const s of added) {
          const row: Omit<IfRow, 'id'> = { device_id: run.row.id, if_index: s.index, name: s.name, descr: s.descr, alias: s.alias,
            type: s.type, speed_bps: s.speed_bps, chosen: 0, watched: 0, watched_by: null, neighbour: null, oper: s.oper,
            admin: s.admin, oper_since: now, renumbered_from: null, renumbered_at: null, first_seen: now, gone_at: null };
          fresh.push({ ...row, id: interfaces.insert(tx, row) });
        }
      }, 'group');
      for (const r of fresh) {
        const s = sample.interfaces.find((x) => x.index === r.if_index)!;
        const first = ifPoint(null, null, sample, s, { interval_ms: run.row.interval_s * 1000 });
        run.ifs.set(r.id, { row: r, prev: s, now: { ...first.point, why: 'first' }, hc: s.hc });
      }
    }
    for (const j of judged) this.alerts.judge({ device: run.row, before: j.before, after: j.after, point: j.point, utilPct: j.util });
  }

  /** Marks the interfaces with an infrastructure neighbour watched, unless a person decided otherwise. */
  private async readUplinks(run: Run, target: Parameters<SnmpService['reader']['walk']>[0]): Promise<void> {
    const finder = uplinkFinderOf(this.app)!;
    const walked = await this.snmp.reader.walk(target, [...finder.roots], { max_varbinds: 20_000 });
    const ups = new Map(finder.uplinks(walked.varbinds).map((u) => [u.if_index, u.neighbour]));
    const changed: IfRow[] = [];
    for (const i of run.ifs.values()) {
      const r = i.row;
      const up = ups.has(r.if_index);
      const neighbour = up ? ups.get(r.if_index) ?? null : null;
      let after = r;
      if (r.watched_by !== 'person') {
        after = { ...r, watched: up ? 1 : 0, watched_by: up ? 'lldp' : null, neighbour };
      } else if (r.neighbour !== neighbour) {
        after = { ...r, neighbour };
      }
      if (!sameInterface(r, after)) { changed.push(after); i.row = after; }
    }
    if (changed.length) await this.app.store.write((tx) => { for (const r of changed) interfaces.update(tx, r); }, 'group');
  }

  // ---- the API --------------------------------------------------------------------------------------

  list(): { items: PolledDeviceOut[]; total: number } {
    const items = devices.all(this.app.store).map((r) => this.present(r));
    return { items, total: items.length };
  }

  get(id: string) {
    const row = this.row(id);
    const run = this.runs.get(id);
    const ifs = run ? [...run.ifs.values()]
      : interfaces.ofDevice(this.app.store, id).map((r) => ({ row: r, prev: null, now: null, hc: null }));
    ifs.sort((a, b) => a.row.if_index - b.row.if_index || a.row.id - b.row.id);
    return { ...this.present(row), interfaces: ifs.map((i) => this.presentIf(row, i, true)) };
  }

  async create(input: PollDeviceInput, by: Actor) {
    const v = await this.validate(input);
    if (devices.byTarget(this.app.store, v.target, v.port)) {
      throw conflict(`${v.target}${v.port ? `:${v.port}` : ''} is polled already`, 'already_polled');
    }
    const now = this.app.clock.now();
    const row: DeviceRow = { id: randomUUID(), name: v.name, target: v.target, port: v.port, credential_id: v.credential_id,
      endpoint_id: v.endpoint_id, interval_s: v.interval_s, all_interfaces: v.all_interfaces ? 1 : 0, enabled: v.enabled ? 1 : 0,
      util_alert_pct: v.util_alert_pct, util_alert_minutes: v.util_alert_minutes, error_alert_ps: v.error_alert_ps,
      created_at: now, updated_at: now };
    await this.app.store.write((tx) => {
      devices.insert(tx, row);
      this.app.audit.insert(tx, by.auditEntry('snmp.polling.create', row.name,
        { id: row.id, target: row.target, credential_id: row.credential_id, interval_s: row.interval_s }));
    }, 'sync');
    const run = this.newRun(row, true);
    this.runs.set(row.id, run);
    this.schedule(run);
    return this.get(row.id);
  }

  async update(id: string, patch: Partial<PollDeviceInput>, by: Actor) {
    const old = this.row(id);
    const merged: PollDeviceInput = {
      name: patch.name ?? old.name, target: patch.target ?? old.target, port: patch.port !== undefined ? patch.port : old.port,
      credential_id: patch.credential_id ?? old.credential_id,
      endpoint_id: patch.endpoint_id !== undefined ? patch.endpoint_id : old.endpoint_id,
      interval_s: (patch.interval_s ?? old.interval_s) as 60 | 300, all_interfaces: patch.all_interfaces ?? !!old.all_interfaces,
      enabled: patch.enabled ?? !!old.enabled,
      util_alert_pct: patch.util_alert_pct !== undefined ? patch.util_alert_pct : old.util_alert_pct,
      util_alert_minutes: patch.util_alert_minutes ?? old.util_alert_minutes,
      error_alert_ps: patch.error_alert_ps !== undefined ? patch.error_alert_ps : old.error_alert_ps,
    };
    const v = await this.validate(merged);
    const other = devices.byTarget(this.app.store, v.target, v.port);
    if (other && other.id !== id) throw conflict(`${v.target} is polled already`, 'already_polled');
    const row: DeviceRow = { ...old, name: v.name, target: v.target, port: v.port, credential_id: v.credential_id,
      endpoint_id: v.endpoint_id,
      interval_s: v.interval_s, all_interfaces: v.all_interfaces ? 1 : 0, enabled: v.enabled ? 1 : 0, util_alert_pct: v.util_alert_pct,
      util_alert_minutes: v.util_alert_minutes, error_alert_ps: v.error_alert_ps, updated_at: this.app.clock.now() };
    await this.app.store.write((tx) => {
      if (!devices.update(tx, row)) throw notFound('Polled device');
      this.app.audit.insert(tx, by.auditEntry('snmp.polling.update', row.name, { id, fields: Object.keys(patch) }));
    }, 'sync');
    const run = this.runs.get(id);
    if (run) {
      const moved = old.target !== row.target || old.port !== row.port || old.credential_id !== row.credential_id;
      run.row = row;
      if (moved) run.prev = null;
      run.status = row.enabled ? (run.status === 'paused' ? 'waiting' : run.status) : 'paused';
      if (moved || !old.enabled) { run.failures = 0; run.soon = row.enabled === 1; } // resumed or moved: poll it now
      this.schedule(run);
    }
    return this.get(id);
  }

  async remove(id: string, by: Actor): Promise<void> {
    const old = this.row(id);
    const run = this.runs.get(id);
    run?.timer?.cancel();
    run?.abort?.abort();
    this.runs.delete(id);
    await run?.polling?.catch(() => undefined);
    const keys = interfaces.ofDevice(this.app.store, id).map((r) => r.id);
    await this.app.store.write((tx) => {
      devices.remove(tx, id);
      this.app.audit.insert(tx, by.auditEntry('snmp.polling.delete', old.name, { id, target: old.target, interfaces: keys.length }));
    }, 'sync');
    for (const k of keys) { this.history.forget(k); this.alerts.forget(k); }
  }

  /** Choose an interface for polling, or watch it; a person's watch overrides the LLDP default for good. */
  async setInterface(id: string, key: number, patch: { chosen?: boolean; watched?: boolean }, by: Actor) {
    const device = this.row(id);
    const run = this.runs.get(id);
    const i = run?.ifs.get(key);
    if (!i) throw notFound('Interface');
    const after: IfRow = { ...i.row };
    if (patch.chosen !== undefined) after.chosen = patch.chosen ? 1 : 0;
    if (patch.watched !== undefined) { after.watched = patch.watched ? 1 : 0; after.watched_by = 'person'; }
    await this.app.store.write((tx) => {
      interfaces.update(tx, after);
      this.app.audit.insert(tx, by.auditEntry('snmp.polling.interface', `${device.name} ${after.name ?? after.if_index}`,
        { id, key, ...patch }));
    }, 'sync');
    i.row = after;
    if (!after.watched) this.alerts.forget(key);
    return this.presentIf(device, i, true);
  }

  async pollNow(id: string) {
    const run = this.runs.get(id);
    if (!run) throw notFound('Polled device');
    run.timer?.cancel();
    await this.pollRun(run);
    return this.get(id);
  }

  async historyOf(id: string, key: number, range: HistoryRange) {
    const device = this.row(id);
    const i = this.runs.get(id)?.ifs.get(key);
    if (!i) throw notFound('Interface');
    const s = await this.history.series(key, range, this.app.clock.now());
    const speed = i.row.speed_bps;
    const pct = (v: number | null, sp: number | null) => (v === null || !sp ? null : Math.round((v / sp) * 10_000) / 100);
    const points = s.points.map((p) => {
      const sp = speed;
      return { t: iso(p.t), in_avg: p.in_avg, in_max: p.in_max, out_avg: p.out_avg, out_max: p.out_max,
        in_util_avg: pct(p.in_avg, sp), in_util_max: pct(p.in_max, sp), out_util_avg: pct(p.out_avg, sp), out_util_max: pct(p.out_max, sp),
        in_errors: p.in_errors_avg, out_errors: p.out_errors_avg, in_discards: p.in_discards_avg, out_discards: p.out_discards_avg,
        up_share: p.up_share };
    });
    let p95 = null;
    if (range === 'month') {
      const now = this.app.clock.now();
      const r = await this.history.p95(key, now - 30 * 86_400_000, now);
      p95 = { in_bps: r.in_bps, out_bps: r.out_bps, samples: r.samples, expected: r.expected_samples,
        rule: 'The 5-minute averages of the last 30 days sorted, the top 5 % left out: the next highest (in and out apart).' };
    }
    const { spark: _spark, ...iface } = this.presentIf(device, i, false);
    return { device: { id: device.id, name: device.name }, interface: iface, range, step_s: s.step_s, points, p95 };
  }

  busiest(by: 'util' | 'bps' | 'errors', limit: number) {
    const rows: { run: Run; i: IfRun; score: number }[] = [];
    for (const run of this.runs.values()) {
      for (const i of run.ifs.values()) {
        const n = i.now;
        if (!n || i.row.gone_at !== null) continue;
        const score = by === 'util' ? utilOf(n) : by === 'bps' ? sum(n.in_bps, n.out_bps) : sum(n.in_errors_ps, n.out_errors_ps);
        if (score === null || score <= 0) continue;
        rows.push({ run, i, score });
      }
    }
    rows.sort((a, b) => b.score - a.score);
    const items = rows.slice(0, limit).map(({ run, i }) => ({
      device: { id: run.row.id, name: run.row.name },
      interface: { key: i.row.id, if_index: i.row.if_index, name: i.row.name, alias: i.row.alias, speed_bps: i.row.speed_bps,
        oper_status: statusWord(i.row.oper) },
      now: this.ratesOut(i),
    }));
    return { items, total: rows.length };
  }

  // ---- helpers --------------------------------------------------------------------------------------

  private row(id: string): DeviceRow {
    const r = devices.get(this.app.store, id);
    if (!r) throw notFound('Polled device');
    return r;
  }

  private async validate(input: PollDeviceInput) {
    const cred = await this.snmp.targets.checkReference(input.target, input.credential_id, 'credential_id');
    let endpointId: string | null = null;
    if (input.endpoint_id) {
      const { items } = brainServicesOf(this.app);
      const row = items.findRow(input.endpoint_id, 'endpoints');
      if (!row) throw badRequest('No such endpoint', [{ path: 'endpoint_id', message: `no inventory endpoint ${input.endpoint_id}` }]);
      endpointId = String(items.toItem(row).id);
    }
    return { name: input.name ?? input.target, target: input.target, port: input.port ?? null, credential_id: cred.id,
      endpoint_id: endpointId, interval_s: input.interval_s ?? 60, all_interfaces: input.all_interfaces ?? true,
      enabled: input.enabled ?? true, util_alert_pct: input.util_alert_pct ?? null, util_alert_minutes: input.util_alert_minutes ?? 5,
      error_alert_ps: input.error_alert_ps ?? null };
  }

  private present(r: DeviceRow): PolledDeviceOut {
    let credential: PolledDeviceOut['credential'] = null;
    try {
      const c = this.snmp.targets.credential(r.credential_id);
      credential = { id: c.id, short_id: c.short_id, name: c.name };
    } catch { credential = null; }
    const run = this.runs.get(r.id);
    const ifs = run ? [...run.ifs.values()].filter((i) => i.row.gone_at === null) : [];
    return {
      id: r.id, name: r.name, target: r.target, port: r.port, credential_id: r.credential_id, credential, endpoint_id: r.endpoint_id,
      interval_s: r.interval_s, all_interfaces: !!r.all_interfaces, enabled: !!r.enabled, util_alert_pct: r.util_alert_pct,
      util_alert_minutes: r.util_alert_minutes, error_alert_ps: r.error_alert_ps,
      state: {
        status: run?.status ?? (r.enabled ? 'waiting' : 'paused'), last_poll_at: isoOrNull(run?.lastPollAt),
        last_ok_at: isoOrNull(run?.lastOkAt), next_poll_at: isoOrNull(run?.nextAt), failures: run?.failures ?? 0,
        error: run?.error ?? null, elapsed_ms: run?.elapsedMs ?? null, requests: run?.requests ?? null,
        interfaces: ifs.length, polled: ifs.filter((i) => r.all_interfaces || i.row.chosen).length,
      },
      created_at: iso(r.created_at), updated_at: iso(r.updated_at),
    };
  }

  private ratesOut(i: IfRun) {
    const n = i.now!;
    const pct = (v: number | null) => (v === null || !n.speed_bps ? null : Math.round((v / n.speed_bps) * 10_000) / 100);
    return { t: iso(n.t), in_bps: n.in_bps, out_bps: n.out_bps, in_util_pct: pct(n.in_bps), out_util_pct: pct(n.out_bps),
      in_pps: n.in_pps, out_pps: n.out_pps, in_errors_ps: n.in_errors_ps, out_errors_ps: n.out_errors_ps,
      in_discards_ps: n.in_discards_ps, out_discards_ps: n.out_discards_ps, why: n.why };
  }

  private presentIf(device: DeviceRow, i: IfRun, spark: boolean) {
    const r = i.row;
    const polled = !!device.all_interfaces || !!r.chosen;
    return {
      key: r.id, if_index: r.if_index, name: r.name, descr: r.descr, alias: r.alias, type: r.type, speed_bps: r.speed_bps,
      admin_status: statusWord(r.admin), oper_status: statusWord(r.oper), oper_since: isoOrNull(r.oper_since),
      polled, chosen: !!r.chosen, watched: !!r.watched, watched_by: r.watched_by, neighbour: r.neighbour,
      renumbered: r.renumbered_from !== null && r.renumbered_at !== null ? { from: r.renumbered_from, at: iso(r.renumbered_at) } : null,
      gone_at: isoOrNull(r.gone_at), hc: i.hc,
      now: i.now ? this.ratesOut(i) : null,
      spark: (spark && polled ? sparkOf(this.history.sparkline(r.id)) : null) ?? { in: [], out: [] },
    };
  }
}

/** The busier direction's share of the link, percent (the alerts and the busiest list). */
function utilOf(p: IfPoint): number | null {
  const a = utilisation(p.in_bps, p.speed_bps);
  const b = utilisation(p.out_bps, p.speed_bps);
  return a === null ? b : b === null ? a : Math.max(a, b);
}

const sparkOf = (s: Sparkline | null) => (s ? { in: s.in_bps, out: s.out_bps } : null);
const statusWord = (n: number | null) => (n === null ? null : IF_STATUSES[n - 1] ?? 'unknown');
const sum = (a: number | null, b: number | null) => (a === null && b === null ? null : (a ?? 0) + (b ?? 0));

/** A stable offset inside the interval from the device's id, so devices' polls spread over it. */
function phaseOf(id: string, interval: number): number {
  let h = 0;
  for (let k = 0; k < id.length; k++) h = (h * 31 + id.charCodeAt(k)) >>> 0;
  return h % interval;
}
