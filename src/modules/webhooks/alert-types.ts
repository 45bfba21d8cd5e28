// The alert types webhooks can subscribe to: one list for the whole service. Modules that raise alerts
// register their types here (registerAlertType) when they load; GET /api/webhooks/alert-types lists
// them and webhook validation accepts exactly these names. A type is listed only once something raises
// it (test/unit/webhooks-alert-producers.test.ts): a webhook subscribed to a type nothing sends would
// wait for ever. Discovery's alerts come back with the code that raises them.

export const SEVERITIES = ['critical', 'error', 'warning', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];

export interface AlertTypeDef {
  /** snake_case name, as webhooks' alert_types hold it. */
  type: string;
  description: string;
  /** The usual severity; an alert may raise or lower it (a certificate one day from expiry is critical). */
  severity: Severity;
  /** The module that raises it. */
  source: string;
  /** A recovery: it resolves what earlier problem alerts about the same subject opened (monitor_up). */
  recovery?: boolean;
  /** Alerts of this type are problems a recovery of the same subject ends (monitor_down, test_failure...). */
  problem?: boolean;
}

const TYPE_NAME = /^[a-z][a-z0-9_]{1,49}$/;
const registry = new Map<string, Readonly<AlertTypeDef>>();

/**
 * Adds an alert type. Registering the same definition again is a no-op (several app instances share
 * this process in tests); a different definition under a taken name is a programming error.
 */
export function registerAlertType(def: AlertTypeDef): void {
  if (!TYPE_NAME.test(def.type)) throw new Error(`alert type "${def.type}": use 2-50 lowercase letters, digits and _`);
  if (!def.description.trim()) throw new Error(`alert type "${def.type}" needs a description`);
  const have = registry.get(def.type);
  if (have) {
    if (JSON.stringify(have) !== JSON.stringify({ ...def })) throw new Error(`alert type "${def.type}" is already registered differently`);
    return;
  }
  registry.set(def.type, Object.freeze({ ...def }));
}

/** Every registered type, in registration order. */
export function alertTypes(): readonly Readonly<AlertTypeDef>[] { return [...registry.values()]; }

export function alertType(type: string): Readonly<AlertTypeDef> | undefined { return registry.get(type); }

/** The problem types a recovery of the same subject ends. */
export function problemTypes(): string[] { return alertTypes().filter((t) => t.problem).map((t) => t.type); }

// ---- the built-in list ------------------------------------------------------------------------------
// Descriptions are shown beside each type in the webhook form: they name the monitor form's fields as it
// labels them, not the API's field names.

const BUILT_IN: AlertTypeDef[] = [
  { type: 'monitor_down', severity: 'critical', source: 'monitors', problem: true,
    description: 'A monitor went down: as many checks in a row failed as its "Failures before down" setting asks, ' +
      'and an incident opened.' },
  { type: 'monitor_up', severity: 'info', source: 'monitors', recovery: true,
    description: 'A monitor recovered from down or degraded. Sent to a webhook only when that webhook was told of the problem.' },
  { type: 'monitor_degraded', severity: 'warning', source: 'monitors', problem: true,
    description: 'A monitor answers, but slower than its "Degraded above" time, or (ping) losing more packets than its ' +
      '"Degraded above loss".' },
  { type: 'test_failure', severity: 'warning', source: 'monitors', problem: true,
    description: 'A single check failed, before the monitor is down: fewer checks in a row have failed than its ' +
      '"Failures before down" setting.' },
  { type: 'certificate_expiring', severity: 'warning', source: 'monitors',
    description: 'The TLS certificate an http or tcp monitor sees expires soon: sent at 14, 7 and 1 days left (critical at 1).' },
  { type: 'route_changed', severity: 'warning', source: 'monitors',
    description: 'The route a path (MTR) monitor traces changed: a hop answers from another address, or the path to the host ' +
      'got longer or shorter. The alert carries the old and the new path.' },
  { type: 'system_health', severity: 'warning', source: 'system',
    description: 'The probe itself needs attention: its TLS certificate could not be renewed (critical with a week or less left).' },
  { type: 'update_available', severity: 'info', source: 'system',
    description: 'A newer release is on the update channel (the probe checks once a day; once per version).' },
];

for (const def of BUILT_IN) registerAlertType(def);
