// What other modules may use of discovery: the bus events it emits (declared here, on the core's
// EventMap) and the scan service (its lookup is in index.ts). Import these from here or index.ts,
// never from inner files.
import type { ScanCounts, ScanHost, ScanResult } from './scan/result.js';

export type { ScanRequest } from './scan/service.js';

// ---- bus events --------------------------------------------------------------------------------

export interface DeviceDiscovered {
  job_id: string;
  subnet: string;
  /** The host as the scan's own `host` event carries it (address, MAC and vendor, name, ports, SNMP facts). */
  host: ScanHost;
}

export interface ScanFinished {
  job_id: string;
  subnet: string;
  state: ScanResult['state'];
  counts: ScanCounts;
  /** Why the scan failed (state failed only). */
  error: string | null;
  /** Who started it (null: the probe itself). */
  actor: string | null;
}

/** A known device changed in a way people hear of (devices/service.ts): the alert raised, and the device as the API shows it. */
export interface KnownDeviceChanged {
  alert: 'device_discovered' | 'device_missing' | 'device_changed';
  device: { id: string; name: string; addresses: string[]; macs: string[] };
  change: { kind: string; from: unknown; to: unknown };
  text: string;
  job_id: string;
  subnet: string;
}

/** A scan profile's run ended and its results are merged into its session (profiles/service.ts). */
export interface ProfileRun {
  profile_id: string;
  name: string;
  session_id: string | null;
  state: 'completed' | 'failed' | 'cancelled';
  job_ids: string[];
  counts: ScanCounts;
  new_nodes: number;
  missing_nodes: number;
  updated_nodes: number;
  error: string | null;
}

declare module '../../core/events.js' {
  interface EventMap {
    /** A scan classified a live host (one event per host, as it is found). */
    'v1sion.device.discovered': DeviceDiscovered;
    /** A scan ended (completed, failed or cancelled) and its result is kept. */
    'v1sion.scan.completed': ScanFinished;
    /** A completed scan merged into the known devices found one new, missing or changed (moved, readdressed, an address claimed). */
    'v1sion.device.changed': KnownDeviceChanged;
    /** A scheduled (or started-now) run of a scan profile ended. */
    'v1sion.profile.run': ProfileRun;
  }
}
