// Discovered devices and inventory records for the inventory bridge's unit tests and its bench: every
// field present, the ones a case cares about given.
import type { DiscoveredDevice } from '../../src/modules/v1sion/brain/discovered.js';
import type { InventoryRecord } from '../../src/modules/v1sion/brain/match.js';

export function device(id: string, o: Partial<DiscoveredDevice> = {}): DiscoveredDevice {
  return {
    device_id: id, device_ids: [id], name: id, kind: 'host', addresses: [], macs: [], hostnames: [], vendor: null,
    vendor_from_mac: false, model: null, serial: null, asset_tag: null, os: null, os_version: null, engine_id: null,
    chassis_id: null, sys_name: null, seen: 'scan', inventory: null, ...o,
  };
}

let seq = 0;

export function record(type: 'endpoints' | 'assets', o: Partial<InventoryRecord> & { data?: Record<string, unknown> } = {}): InventoryRecord {
  const n = ++seq;
  const id = o.id ?? `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
  const base: InventoryRecord = {
    type, id, short_id: o.short_id ?? `${type === 'assets' ? 'AS' : 'EP'}-${n}`, name: o.name ?? `record-${n}`, hostname: null,
    ip_addresses: [], mac_addresses: [], serial_number: null, asset_tag: null, engine_id: null, endpoint_id: null, data: {}, ...o,
  };
  // The inventory's view of the record: what the diff reads the owned fields from.
  base.data = {
    id, short_id: base.short_id, name: base.name, hostname: base.hostname, ip_addresses: base.ip_addresses,
    mac_addresses: base.mac_addresses, serial_number: base.serial_number, asset_tag: base.asset_tag, ...o.data,
  };
  return base;
}
