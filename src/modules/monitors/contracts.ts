// What other modules may use of the monitors module: the bus events it emits, the dependency graph the
// alerter follows, and the monitor record links show. Import these from here, never from inner files.
export type { DependencyNode, MonitorBusEvent, MonitorCertificateEvent } from './service.js';
export type { MonitorDetail } from './model.js';
