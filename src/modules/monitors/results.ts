// Check results: running a monitor's check (with a guard past its timeout) and applying what it found
// in one write: the result and the monitor's state after it into its series (storage/index.ts: a channel
// entry, a new message, rollups of a closed hour), and statements only for what else it changes
// (incidents, events). Memory follows at commit; bus events go out after it. See docs/monitors.md, "Storage".
import { randomUUID } from 'node:crypto';
import type { AppContext } from '../../core/context.js';
import type { Logger } from '../../core/log.js';
import { UNREADABLE_SECRET } from '../../core/secretbox.js';
import type { Durability, Tx } from '../../core/store/types.js';
import { SEND, type AlertDecision, type AlertGate, type GateEvent } from './alert-gate/gate.js';
import { checkServicesOf } from './check-services.js';
import { CHECKS, prepareCheck, runPrepared, type PreparedCheck } from './checks/index.js';
import type { CheckMemory, CheckResult } from './checks/types.js';
import type { MonitorBusEvent, MonitorCertificateEvent, MonitorChangeEvent } from './contracts.js';
import { insertEvent } from './events-log.js';
import { applyResult, applyState, capMsOf, type IncidentRow, type LiveMonitor, type Registry } from './live.js';
import { keptMeasurements } from './measurements.js';
import { parseJsonObject, type MonitorStatus, type ResultOut } from './schemas.js';
import { incidentOut } from './queries.js';
import { iso } from '../../core/clock.js';
import { fromRtUnits, toRtUnits, type SeriesState, type SeriesStore } from './storage/index.js';
import { openSettings } from './secrets.js';
import { certFacts, certValidTo, detailsJson, nextState } from './state.js';

const DAY = 86_400_000;
const MAX_MESSAGE = 500;
/** Grace on top of a check's own timeout before the service gives up on it. */
const GUARD_MS = 3000;


export interface Applied {
  result: ResultOut;
  events: { name: 'monitor.down' | 'monitor.up' | 'monitor.degraded' | 'monitor.check_failed'; payload: MonitorBusEvent }[];
  certificate: MonitorCertificateEvent | null;
  /** A change the check noticed (a route), with the gate's decision. */
  change: MonitorChangeEvent | null;
}

/** What applying results needs of the service: the monitors and their series. */
export interface ResultParts {
  registry: Registry;
  storage: SeriesStore;
  gate: AlertGate;
}

export class ResultRecorder {
  private readonly registry: Registry;
  private readonly storage: SeriesStore;
  private readonly gate: AlertGate;
  private readonly log: Logger;

  constructor(private readonly app: AppContext, parts: ResultParts) {
    ({ registry: this.registry, storage: this.storage, gate: this.gate } = parts);
    this.log = app.log.child('monitors');
  }

  /**
   * Runs the check (started synchronously, so checks due together start in one turn) with a guard a
   * little past its timeout, in case a check ignores its deadline.
   */
  execute(m: LiveMonitor, signal: AbortSignal): Promise<CheckResult> {
    const row = m.row;
    let guard: NodeJS.Timeout | undefined;
    const check = runPrepared(row.check_type, row.target, this.prepared(m), {
      timeout: row.timeout_s, degraded_ms: row.degraded_ms, max_loss_pct: row.max_loss_pct, signal,
      services: checkServicesOf(this.app), memory: memoryOf(this.registry, m),
    });
    const limit = new Promise<CheckResult>((resolve) => {
      guard = setTimeout(() => {
        resolve({ status: 'down', response_time_ms: null, message: `check did not finish within ${row.timeout_s} s`, details: {} });
      }, row.timeout_s * 1000 + GUARD_MS);
      guard.unref?.();
    });
    return Promise.race([check, limit]).finally(() => clearTimeout(guard));
  }

  /**
   * The monitor's settings opened and validated: once per row for most monitors (validation is a good
   * part of a ping check's cost), every check for those holding secrets (kept closed in memory).
   */
  prepared(m: LiveMonitor): PreparedCheck {
    if (m.prepared) return m.prepared;
    const row = m.row;
    const opened = openSettings(this.app.secretbox, row.check_type, parseJsonObject(row.settings));
    // Sealed under another probe's machine key (a restored database) or altered: only a new value helps.
    const p: PreparedCheck = opened.unreadable.length
      ? { ok: false, result: { status: 'down', response_time_ms: null, message: `${UNREADABLE_SECRET} (${opened.unreadable.join(', ')})`,
        details: { unreadable_secrets: opened.unreadable } } }
      : prepareCheck(row.check_type, row.target, opened.settings);
    if (!opened.opened) m.prepared = p;
    return p;
  }

  closeOpenIncident(tx: Tx, m: LiveMonitor, t: number, message: string): IncidentRow | null {
    const inc = m.open;
    if (!inc) return null;
    const failures = Math.max(inc.failures, m.row.fail_streak);
    tx.run('UPDATE monitor_incidents SET closed_at = ?, close_message = ?, failures = ? WHERE id = ?', [t, message, failures, inc.id]);
    const closed = { ...inc, closed_at: t, close_message: message, failures };
    insertEvent(tx, { t, kind: 'incident_closed', monitor_id: m.row.id, monitor_name: m.row.name, message,
      details: { incident_id: inc.id, opened_at: iso(inc.opened_at), duration: Math.round((t - inc.opened_at) / 1000), failures } });
    tx.onCommit(() => { m.open = null; m.closed.push(t); this.registry.changed(m); });
    return closed;
  }

  /**
   * Applies one result: into the monitor's series with its new state (storage/index.ts), and statements
   * only for what else it changes (incidents, events), in one write;
   * memory follows at commit. Returns null when the monitor is gone, or paused and the check was a
   * scheduled one.
   */
  async apply(m0: LiveMonitor, result: CheckResult, at: number, opts: { manualBy?: string | null },
    durability: Durability): Promise<Applied | null> {
    const manual = opts.manualBy !== undefined;
    return this.app.store.write((tx): Applied | null => {
      const m = this.registry.get(m0.row.pk);
      if (!m || m.row.id !== m0.row.id) return null;
      const row = m.row;
      const paused = row.status === 'paused';
      if (paused && !manual) return null;
      // Unique per monitor and increasing, even with a clock that stands still or steps back.
      const t = Math.max(at, (row.last_check ?? -Infinity) + 1);
      const status = result.status;
      const rt = toRtUnits(result.response_time_ms);
      const message = (result.message || (status === 'up' ? 'OK' : 'check failed')).slice(0, MAX_MESSAGE);
      const trans = paused
        ? { status: row.status, fail_streak: row.fail_streak, changed: false, openIncident: false, closeIncident: false }
        : nextState(row, status, row.failure_threshold);
      const validTo = certValidTo(result.details ?? {}, t);
      const certDue = validTo != null && (row.cert_checked_at == null || t - row.cert_checked_at >= DAY);
      const keepDetails = status !== 'up' || trans.changed || manual || certDue || result.change !== undefined
        || CHECKS[row.check_type]?.keepsDetails === true;
      const d = keepDetails ? detailsJson(result.details ?? {}) : null;
      const state: SeriesState = { status: trans.status, fail_streak: trans.fail_streak };
      if (validTo != null) state.cert = { valid_to: validTo, checked_at: certDue ? t : row.cert_checked_at };
      // A manual check counts in no figure: uptime is time, and response times are the schedule's.
      // Only the measurements the check type declares (measurements.ts).
      const measurements = keptMeasurements(row.check_type, result.measurements, this.log);
      this.storage.append(tx, row.pk, { t, status, rt, message, details: d, manual, measurements }, state, capMsOf(row));

      let incident: IncidentRow | null = null;
      if (trans.openIncident) {
        incident = { id: randomUUID(), m: row.pk, opened_at: t, closed_at: null, open_message: message, close_message: null,
          failures: trans.fail_streak };
        tx.run('INSERT INTO monitor_incidents (id, m, opened_at, open_message, failures) VALUES (?, ?, ?, ?, ?)',
          [incident.id, row.pk, t, message, trans.fail_streak]);
      } else if (status === 'down' && row.status === 'down' && m.open) {
        incident = { ...m.open, failures: Math.max(m.open.failures, trans.fail_streak) };
      }
      // Whether this result alerts anybody: decided once, here (alert-gate/gate.ts), and carried on its events.
      const gateEvent = gateEventOf(row.status, status, trans);
      const alert: AlertDecision = gateEvent ? this.gate.decide(tx, m, gateEvent, t) : SEND;
      const heldBy = alert.send ? null : alert.held_by;
      const failing = failingFacts(row, trans);
      if (trans.changed) {
        insertEvent(tx, { t, kind: 'status_change', monitor_id: row.id, monitor_name: row.name, from_status: row.status,
          to_status: trans.status, message,
          details: { response_time: fromRtUnits(rt), fail_streak: trans.fail_streak, ...failing,
            ...(heldBy ? { alert_held_by: heldBy } : {}) } });
      }
      if (alert.send && alert.released) {
        const was = alert.released;
        insertEvent(tx, { t, kind: 'alert_released', monitor_id: row.id, monitor_name: row.name,
          message: `Its down alert was held back from ${was.since} (${was.reason}); it is still down now that nothing holds it.`,
          details: { held_by: was } });
      }
      if (trans.openIncident && incident) {
        insertEvent(tx, { t, kind: 'incident_opened', monitor_id: row.id, monitor_name: row.name, message,
          details: { incident_id: incident.id, failures: trans.fail_streak } });
      }
      if (trans.closeIncident) incident = this.closeOpenIncident(tx, m, t, message);
      if (manual) {
        insertEvent(tx, { t, kind: 'manual_check', monitor_id: row.id, monitor_name: row.name, from_status: row.status,
          to_status: trans.status, message, actor: opts.manualBy ?? null,
          details: { result: status, response_time: fromRtUnits(rt), ...failing } });
      }

      const out: ResultOut = { at: iso(t), status, response_time: fromRtUnits(rt), message, details: result.details ?? {}, manual,
        measurements: measurements ?? {},
        monitor_status: trans.status === 'unknown' ? status : trans.status, in_maintenance: this.storage.isAside(row.pk, t) };
      const base: Omit<MonitorBusEvent, 'incident' | 'alert'> = {
        monitor: { id: row.id, name: row.name, target: row.target, check_type: row.check_type, tags: m.tags },
        previous_status: row.status,
        status: trans.status,
        fail_streak: trans.fail_streak,
        failure_threshold: row.failure_threshold,
        result: out,
        occurred_at: iso(t),
      };
      const payload: MonitorBusEvent = { ...base, incident: incident ? incidentOut(incident, row.id, t) : null, alert };
      const opened = trans.openIncident ? incident : null;
      tx.onCommit(() => {
        applyState(row, state);
        applyResult(row, { t, rt }, message);
        if (opened) m.open = opened;
        this.registry.changed(m);
      });
      const events: Applied['events'] = [];
      const certificate: MonitorCertificateEvent | null = validTo != null && (certDue || validTo !== row.cert_valid_to)
        ? { monitor: base.monitor, valid_to: iso(validTo), days_left: Math.floor((validTo - t) / DAY),
          cert: certFacts(result.details ?? {}), occurred_at: iso(t), alert: this.gate.decide(tx, m, 'certificate', t) }
        : null;
      if (trans.changed) {
        if (trans.status === 'down') events.push({ name: 'monitor.down', payload });
        else if (trans.status === 'up') events.push({ name: 'monitor.up', payload });
        else if (trans.status === 'degraded') events.push({ name: 'monitor.degraded', payload });
      }
      if (status === 'down') events.push({ name: 'monitor.check_failed', payload });
      const change = result.change ? this.recordChange(tx, m, result.change, t) : null;
      return { result: out, events, certificate, change };
    }, durability);
  }

  emit(applied: Applied): void {
    for (const e of applied.events) this.app.bus.emit(e.name, e.payload);
    if (applied.certificate) this.app.bus.emit('monitor.certificate', applied.certificate);
    if (applied.change) this.app.bus.emit('monitor.change', applied.change);
  }

  /**
   * A change the check noticed (path: the route): an event of the monitor's log (its kind is the change's), and
   * the bus event alerting builds on, with the alert gate's decision (a paused monitor or a maintenance window
   * holds it; the log says so).
   */
  private recordChange(tx: Tx, m: LiveMonitor, c: NonNullable<CheckResult['change']>, t: number): MonitorChangeEvent {
    const row = m.row;
    const alert = this.gate.decide(tx, m, 'change', t);
    insertEvent(tx, { t, kind: c.kind, monitor_id: row.id, monitor_name: row.name, message: c.message,
      details: { ...c.details, ...(alert.send ? {} : { alert_held_by: alert.held_by }) } });
    return { monitor: { id: row.id, name: row.name, target: row.target, check_type: row.check_type, tags: m.tags },
      kind: c.kind, message: c.message, details: c.details, occurred_at: iso(t), alert };
  }
}

/**
 * A monitor's memory between its checks (CheckContext.memory), bound to its target, type and settings: a
 * check after a change of any of them starts with none. The monitor object carries it, so a manual check
 * and a scheduled one share it; a restart empties it.
 */
function memoryOf(registry: Registry, m: LiveMonitor): CheckMemory {
  const of = `${m.row.check_type}\n${m.row.target}\n${m.row.settings}`;
  return {
    previous: m.memory?.of === of ? m.memory.value : undefined,
    // Into the monitor as it is now: a pause or an edit during the check put a new object in its place.
    keep: (value) => { const cur = registry.get(m.row.pk); if (cur) cur.memory = { of, value }; },
  };
}

/**
 * The event log's facts of "failing" (degraded by failed checks below the threshold, which the API's
 * status `degraded` shares with a slow answer): `failing` when the result leaves the monitor failing,
 * `from_failing` when it was failing before, each {streak, threshold}, so the log reads "Up → Failing 1
 * of 3" and "Failing 2 of 3 → Down" (ui/pages/monitors/event-view.js), as the list does.
 */
function failingFacts(before: { status: MonitorStatus; fail_streak: number; failure_threshold: number },
  after: { status: MonitorStatus; fail_streak: number }): { failing?: FailingFacts; from_failing?: FailingFacts } {
  const threshold = before.failure_threshold;
  const out: { failing?: FailingFacts; from_failing?: FailingFacts } = {};
  if (after.status === 'degraded' && after.fail_streak > 0) out.failing = { streak: after.fail_streak, threshold };
  if (before.status === 'degraded' && before.fail_streak > 0) out.from_failing = { streak: before.fail_streak, threshold };
  return out;
}

interface FailingFacts { streak: number; threshold: number }

/**
 * What a result is to the alert gate: a recovery (up again, or answering slowly after being down), a
 * check failing while the monitor was down already, a problem (down, degraded, a failed check), or
 * nothing to alert about (null).
 */
function gateEventOf(before: MonitorStatus, status: CheckResult['status'],
  trans: { changed: boolean; status: MonitorStatus }): GateEvent | null {
  const answersAgain = before === 'down' && trans.status === 'degraded' && status === 'degraded';
  if (trans.changed && (trans.status === 'up' || answersAgain)) return 'recovery';
  if (status === 'down') return before === 'down' && !trans.changed ? 'still_down' : 'problem';
  return trans.changed && trans.status === 'degraded' ? 'problem' : null;
}
