// The alerts interface polling raises (alerts.ts), registered when the module loads: a channel subscribes
// to each by name (GET /api/webhooks/alert-types). Each problem has its recovery under the same subject,
// so an incident tool closes what the problem opened.
import { registerAlertType } from '../../webhooks/index.js';

export function registerInterfaceAlerts(): void {
  registerAlertType({ type: 'interface_down', severity: 'error', source: 'snmp', problem: true,
    description: 'A watched interface of a polled SNMP device went down while administratively up (uplinks with an LLDP ' +
      'neighbour are watched by default).' });
  registerAlertType({ type: 'interface_up', severity: 'info', source: 'snmp', recovery: true,
    description: 'A watched interface that was down is up again: how long it was down.' });
  registerAlertType({ type: 'interface_utilisation', severity: 'warning', source: 'snmp', problem: true,
    description: 'A watched interface carried at least its device\'s utilisation threshold (in or out) for the minutes set ' +
      'there.' });
  registerAlertType({ type: 'interface_utilisation_normal', severity: 'info', source: 'snmp', recovery: true,
    description: 'A watched interface\'s utilisation went back below its threshold.' });
  registerAlertType({ type: 'interface_errors', severity: 'warning', source: 'snmp', problem: true,
    description: 'A watched interface counted more errors per second (in plus out) than its device\'s error threshold.' });
  registerAlertType({ type: 'interface_errors_normal', severity: 'info', source: 'snmp', recovery: true,
    description: 'A watched interface\'s error rate went back below its threshold.' });
}
