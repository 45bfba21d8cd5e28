// Where the SNMP module uses a stored credential: walk templates, device card selections and polled devices, and
// (for callers who may read monitors) the monitors whose snmp checks read with it. The
// inventory lists these on a credential's page (GET /api/brain/credentials/:id/usage) for callers who
// may read SNMP; names only, never a secret.
import type { AppContext } from '../../core/context.js';
import type { CredentialUsage, CredentialUsageSource } from '../brain/index.js';
import { monitorsUsingCredential } from '../monitors/index.js';

export function snmpCredentialUsage(app: AppContext): CredentialUsageSource {
  return {
    scope: 'snmp:read',
    usesOf(credentialId: string): CredentialUsage[] {
      const templates = app.store.all<{ id: string; name: string; target: string }>(
        'SELECT id, name, target FROM snmp_templates WHERE credential_id = ? ORDER BY name', [credentialId]);
      const devices = app.store.all<{ device_name: string; target: string | null }>(
        'SELECT device_name, target FROM snmp_device_cards WHERE credential_id = ? ORDER BY device_name', [credentialId]);
      const polled = app.store.all<{ id: string; name: string; target: string }>(
        'SELECT id, name, target FROM snmp_poll_devices WHERE credential_id = ? ORDER BY name', [credentialId]);
      return [
        ...templates.map((t): CredentialUsage => ({ kind: 'snmp_template', id: t.id, name: t.name, detail: t.target,
          destinations: [t.target] })),
        ...devices.map((d): CredentialUsage => ({ kind: 'snmp_device', id: d.device_name, name: d.device_name, detail: d.target,
          destinations: d.target ? [d.target] : [] })),
        ...polled.map((p): CredentialUsage => ({ kind: 'snmp_polled_device', id: p.id, name: p.name, detail: p.target,
          destinations: [p.target] })),

      ];
    },
  };
}

/** The monitors whose snmp check reads with the credential (the check type is the monitors', its reads this module's). */
export function snmpCheckCredentialUsage(app: AppContext, short: (id: string) => string | null): CredentialUsageSource {
  return {
    scope: 'monitors:read',
    usesOf(credentialId: string): CredentialUsage[] {
      const sid = short(credentialId);
      return monitorsUsingCredential(app, sid ? [credentialId, sid] : [credentialId]).map((m): CredentialUsage => ({
        kind: 'monitor', id: m.id, name: m.name, detail: m.address, destinations: m.address ? [m.address] : [] }));
    },
  };
}
