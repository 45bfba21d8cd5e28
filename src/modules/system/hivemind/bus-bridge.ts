// What the probe tells its controller, taken from the in-process bus: monitor states (retained per
// monitor, every change: they are facts) and down/up/degraded events (alerts: only those the alert gate
// let through, `ev.alert`, and a held down once the gate releases it), and discovery scans (each host
// found, and the scan's end), whether started from the API, the UI or a controller command. Listeners
// cost nothing while the probe is unpaired (they return at once).
import type { AppContext } from '../../../core/context.js';
import type { MonitorBusEvent } from '../../monitors/index.js';
import '../../v1sion/contracts.js';
import type { HivemindService } from './service.js';

/** Host fields reported per discovered device (no SNMP facts: they may name communities or users). */
const HOST_FIELDS = ['ip', 'mac', 'mac_vendor', 'hostname', 'open_ports', 'alive_by', 'rtt_ms'] as const;

function pick(src: unknown, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!src || typeof src !== 'object') return out;
  for (const k of keys) if (k in src) out[k] = (src as Record<string, unknown>)[k];
  return out;
}

function monitorEvent(e: MonitorBusEvent) {
  return {
    monitor: { id: e.monitor.id, name: e.monitor.name, check_type: e.monitor.check_type, tags: e.monitor.tags },
    status: e.status, previous_status: e.previous_status, occurred_at: e.occurred_at,
    message: e.result.message, response_time_ms: e.result.response_time,
    incident_id: e.incident?.id ?? null,
  };
}

export function bridgeBusToController(app: AppContext, svc: HivemindService): () => void {
  const offs: (() => void)[] = [];
  const onTransition = (type: 'monitor.down' | 'monitor.up' | 'monitor.degraded') => (e: MonitorBusEvent) => {
    if (!svc.status().paired) return;
    svc.monitorState({
      id: e.monitor.id, name: e.monitor.name, status: e.status, check_type: e.monitor.check_type,
      last_check_at: e.result.at, response_time_ms: e.result.response_time, message: e.result.message,
    });
    if (e.alert.send) svc.event(type, monitorEvent(e));
  };
  for (const type of ['monitor.down', 'monitor.up', 'monitor.degraded'] as const) offs.push(app.bus.on(type, onTransition(type)));
  offs.push(app.bus.on('monitor.check_failed', (e) => {
    if (!svc.status().paired || !e.alert.send || !e.alert.released) return;
    const was = e.alert.released;
    svc.event('monitor.down', { ...monitorEvent(e), released: { held_since: was.since, rule: was.rule, reason: was.reason } });
  }));
  offs.push(app.bus.on('monitor.deleted', ({ id }) => { if (svc.status().paired) svc.monitorGone(id); }));

  offs.push(app.bus.on('v1sion.device.discovered', ({ job_id, subnet, host }) => {
    if (svc.status().paired) svc.event('device.discovered', { job_id, subnet, host: pick(host, HOST_FIELDS) });
  }));
  // What changed in the known devices: device.new, device.missing, device.changed (each with the device's stable id).
  offs.push(app.bus.on('v1sion.device.changed', ({ alert, device, change, text, job_id, subnet }) => {
    if (!svc.status().paired) return;
    const name = alert === 'device_discovered' ? 'device.new' : alert === 'device_missing' ? 'device.missing' : 'device.changed';
    svc.event(name, { device, change, text, job_id, subnet });
  }));
  offs.push(app.bus.on('v1sion.scan.completed', ({ job_id, subnet, state, counts, error }) => {
    if (svc.status().paired) svc.event('scan.completed', { job_id, subnet, state, counts, ...(error ? { error } : {}) });
  }));
  return () => { for (const off of offs) off(); };
}
