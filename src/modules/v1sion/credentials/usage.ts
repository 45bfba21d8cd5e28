// Where discovery uses a stored credential: the discovery credentials list (with its place in the order
// scans try them) and SSH targets. The inventory lists these on a credential's page
// (GET /api/brain/credentials/:id/usage) for callers who may read discovery; names only, never a secret.
import type { AppContext } from '../../../core/context.js';
import type { CredentialUsage, CredentialUsageSource } from '../../brain/index.js';

export function discoveryCredentialUsage(app: AppContext): CredentialUsageSource {
  return {
    scope: 'v1sion:read',
    usesOf(credentialId: string): CredentialUsage[] {
      const listed = app.store.all<{ credential_id: string }>('SELECT credential_id FROM v1sion_credentials ORDER BY position');
      const at = listed.findIndex((r) => r.credential_id === credentialId);
      const targets = app.store.all<{ id: string; name: string; host: string; port: number }>(
        'SELECT id, name, host, port FROM v1sion_ssh_targets WHERE credential_id = ? ORDER BY lower(name), id', [credentialId]);
      return [
        ...(at >= 0 ? [{ kind: 'discovery' as const, id: credentialId, name: 'Discovery credentials',
          detail: `${at + 1} of ${listed.length} tried by scans`, destinations: scannedSubnets(app) }] : []),
        ...targets.map((t): CredentialUsage => ({ kind: 'ssh_target', id: t.id, name: t.name,
          detail: t.port === 22 ? t.host : `${t.host}:${t.port}`, destinations: [t.host] })),
      ];
    },
  };
}

/** The subnets scans swept (kept results and saved sessions): where the discovery credentials were sent. */
function scannedSubnets(app: AppContext): string[] {
  const scans = app.store.all<{ subnet: string }>('SELECT DISTINCT subnet FROM v1sion_scans').map((r) => r.subnet);
  const sessions = app.store.all<{ subnets: string }>('SELECT subnets FROM v1sion_sessions')
    .flatMap((r) => JSON.parse(r.subnets) as string[]);
  return [...new Set([...scans, ...sessions])];
}
