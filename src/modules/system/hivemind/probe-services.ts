// What controller commands and published states need from the other modules, each behind one small
// adapter: the monitors module's exported service and discovery's scans (their index.ts).
import type { Actor } from '../../../core/audit/types.js';
import type { AppContext } from '../../../core/context.js';
import { unavailable } from '../../../core/errors.js';
import { monitorsServiceOf } from '../../monitors/index.js';
import { v1sionScansOf } from '../../v1sion/index.js';

export interface MonitorState {
  id: string;
  name: string;
  status: string;
  check_type: string;
  last_check_at: string | null;
  response_time_ms: number | null;
  message: string | null;
}

/** The controller as an actor: what the audit log and the monitors' event log name it. */
export function controllerActor(app: AppContext, probeId: string): Actor {
  const actor = `controller:${probeId}`;
  return { actor, auditEntry: (action, target, details) => ({ action, actor, target: target ?? null, details }) };
}

function monitors(app: AppContext) {
  try { return monitorsServiceOf(app); } catch { return null; }
}

/** Every monitor's current state (for the retained per-monitor topics); empty without the monitors module. */
export function monitorStates(app: AppContext): MonitorState[] {
  const svc = monitors(app);
  if (!svc) return [];
  const out: MonitorState[] = [];
  for (const m of svc.registry.all()) {
    out.push({
      id: m.row.id, name: m.row.name, status: m.row.status, check_type: m.row.check_type,
      last_check_at: m.row.last_check == null ? null : new Date(m.row.last_check).toISOString(),
      response_time_ms: m.row.last_rt, message: m.row.last_message,
    });
  }
  return out;
}

/** Runs one monitor's check now, recorded as the controller's (the monitors module keeps its own event). */
export async function checkMonitorNow(app: AppContext, id: string, by: Actor):
  Promise<{ status: string; response_time_ms: number | null; message: string }> {
  const svc = monitors(app);
  if (!svc) throw unavailable('The monitors module is not running on this probe');
  const r = await svc.checkNow(id, by);
  return { status: r.monitor.status, response_time_ms: r.result.response_time, message: r.result.message };
}

/** Starts a discovery scan as the controller: discovery's own checks (ranges, size, concurrency) and audit entry. */
export async function startScan(app: AppContext, req: { subnet: string; snmp_enabled?: boolean }, by: Actor):
  Promise<{ job_id: string; subnet: string }> {
  const scans = v1sionScansOf(app);
  if (!scans) throw unavailable('Discovery is not running on this probe');
  // The saved discovery credentials, as a scan from the API without credentials uses them.
  return scans.start({ subnet: req.subnet, snmp_version: '2c', snmp_enabled: req.snmp_enabled ?? true }, by);
}
