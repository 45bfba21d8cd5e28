// The alerts discovery raises (devices/service.ts), registered when the module loads: a webhook or
// e-mail channel subscribes to each by name (GET /api/webhooks/alert-types). Descriptions are shown
// beside each type in the channel form.
import { registerAlertType } from '../../webhooks/index.js';

export function registerDiscoveryAlerts(): void {
  registerAlertType({ type: 'device_discovered', severity: 'warning', source: 'v1sion',
    description: 'A scan found a device never seen before (by MAC, SNMP engine ID, serial or chassis ID; not an address ' +
      'that did not answer last time). The first scan of a subnet is its baseline: nothing in it is new.' });
  registerAlertType({ type: 'device_missing', severity: 'warning', source: 'v1sion',
    description: 'A device seen regularly (or marked expected) has not answered for the time and number of scans in Settings, ' +
      'Discovery. Devices marked transient never are.' });
  registerAlertType({ type: 'device_changed', severity: 'warning', source: 'v1sion',
    description: 'A known device moved to another switch port or VLAN or changed address, or its address now answers from ' +
      'another MAC (a duplicate or spoofed address: the alert says which).' });
  registerAlertType({ type: 'scan_completed', severity: 'info', source: 'v1sion',
    description: 'A discovery scan completed: how many hosts answered, and how many devices are new, missing or changed.' });
}
