// What the SNMP module lends the monitors' `snmp` check type (monitors/checks/services.ts, SnmpCheckService):
// one GET with a stored credential through TargetResolver.reach, the path every SNMP entry point takes, so a
// monitor's check keeps to the credential's scope and discovery's allowed ranges (403 before a datagram is
// sent) and its secret is read from the vault only then. Names of OIDs from the OID store.
import { performance } from 'node:perf_hooks';
import { badRequest } from '../../core/errors.js';
import type { SnmpCheckService } from '../monitors/index.js';
import type { SnmpService } from './service.js';
import type { AppContext } from '../../core/context.js';

export function snmpCheckService(app: AppContext, snmp: SnmpService): SnmpCheckService {
  return {
    resolveOid(nameOrOid, field) {
      const text = nameOrOid.trim().replace(/^\./, '');
      const oid = snmp.oids.oidOf(text);
      if (oid) return oid;
      const defs = snmp.oids.definitions(text);
      throw badRequest(defs.length > 1 ? 'Ambiguous OID name' : 'Unknown OID name', [{ path: field, message: defs.length > 1
        ? `"${text}" is defined by several MIB modules: write one of ${defs.join(', ')}`
        : `unknown OID or name "${text}"` }]);
    },

    async checkReference(host, credentialId, field) {
      await snmp.targets.checkReference(host, credentialId, field);
    },

    async get(req) {
      const target = await snmp.targets.reach({ target: req.host, port: req.port, credential_id: req.credential_id },
        { timeout_ms: req.timeout_ms, retries: 0 });
      const t0 = performance.now();
      const [vb] = await snmp.reader.get(target, [req.oid]);
      const elapsed = performance.now() - t0;
      const named = snmp.named(vb ?? { oid: req.oid, type: 'NoSuchObject', value: null });
      // A name only for an object the store knows: "mib-2.33.1.2.4.0" (a branch's name and the rest) says less than the OID.
      const kind = snmp.oids.resolve(named.oid)?.entry.kind;
      return { oid: named.oid, name: kind === 'scalar' || kind === 'column' ? named.name : named.oid, type: named.type,
        value: named.value, display: named.display, elapsed_ms: elapsed };
    },
  };
}
