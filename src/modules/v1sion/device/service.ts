// One device by SNMP (POST /api/v1sion/device/snmp): which credential it answers, what it is, its
// interfaces, neighbours, forwarding and ARP entries. The credentials are tried as a scan tries them
// (every community at once, then SNMPv3 users); when none answers, the SNMP engine's own error says
// whether it timed out, was unreachable or refused the community.
import type { AppContext } from '../../../core/context.js';
import { forbidden, HttpError, invalid } from '../../../core/errors.js';
import { brainServicesOf } from '../../brain/index.js';
import { snmpServicesOf } from '../../snmp/index.js';
import type { DiscoveryCredentials } from '../credentials/service.js';
import { identifyHost } from '../scan/identify.js';
import { NEIGHBOUR_ROOTS, parseDeviceTables, type DeviceTables } from '../scan/neighbours/index.js';
import { checkSubnet } from '../scan/ranges.js';
import { inScope, resolveCredentials, targetOf, type CredentialFieldValues, type CredentialLabel } from '../scan/request.js';
import type { SnmpFacts } from '../scan/result.js';
import { snmpSweep } from '../scan/snmp-sweep.js';

export interface DeviceRequest extends CredentialFieldValues { ip: string; port?: number | undefined }

export interface DeviceReport extends Omit<DeviceTables, never> {
  ip: string;
  port: number;
  credential: CredentialLabel;
  identification: SnmpFacts;
  warnings: string[];
}

export class DeviceProbe {
  constructor(private readonly app: AppContext, private readonly saved: DiscoveryCredentials) {}

  async identify(body: DeviceRequest): Promise<DeviceReport> {
    const settings = this.app.config.get().discovery;
    checkSubnet(body.ip, { allowed: settings.allowed_ranges, maxPrefixV4: settings.max_prefix_v4 });
    const resolved = resolveCredentials(this.app, { ...body, snmp_enabled: true }, () => this.saved.ids())
      .map((c) => (body.port ? { ...c, port: body.port } : c));
    // A stored credential goes only where its scope allows: one named in the request is a 403, a saved one is passed over.
    const outside = resolved.filter((c) => !inScope(c, body.ip));
    const credentials = resolved.filter((c) => inScope(c, body.ip));
    const first = outside[0]?.label;
    if (first && 'credential_id' in first && (body.credentials !== undefined || !credentials.length)) {
      throw brainServicesOf(this.app).secrets.refusal(first.credential_id, { host: body.ip, use: 'SNMP' }) ?? forbidden();
    }
    if (!credentials.length) {
      throw invalid('device request', [{ path: 'credentials', message:
        'give a community, v3_params or credentials: no discovery credentials are saved (POST /api/v1sion/credentials)' }]);
    }
    const timing = { timeout_ms: Math.max(settings.snmp_timeout_ms, 1500), retries: settings.snmp_retries };
    const signal = AbortSignal.timeout(60_000);
    const port = body.port ?? credentials[0]!.port ?? 161;
    const answers = await snmpSweep([body.ip], credentials, timing, signal, () => undefined, { port });
    const found = await identifyHost(this.app, body.ip, answers.get(body.ip), credentials, timing, signal, port);
    if (!found.credential || !found.facts) {
      // Nobody answered a credential: let the engine say why, with its distinct problem for the first one.
      const snmp = snmpServicesOf(this.app);
      for (const c of credentials) {
        try {
          await snmp.identify(targetOf(c, body.ip, timing));
        } catch (e) {
          if (c === credentials[credentials.length - 1] || !(e instanceof HttpError) || e.status !== 422) throw e;
        }
      }
      throw new HttpError(422, 'snmp_bad_community', 'The agent answers SNMP but none of the credentials given works');
    }
    const warnings: string[] = [];
    let tables: DeviceTables = parseDeviceTables([]);
    try {
      const walked = await snmpServicesOf(this.app).reader.walk(targetOf(found.credential, body.ip, timing),
        [...new Set(Object.values(NEIGHBOUR_ROOTS).flat())], { max_varbinds: 20_000, signal });
      if (walked.truncated) warnings.push('tables cut at 20,000 values');
      tables = parseDeviceTables(walked.varbinds);
    } catch (e) {
      warnings.push(`neighbour tables not read: ${e instanceof Error ? e.message : String(e)}`);
    }
    return { ip: body.ip, port, credential: found.credential.label, identification: found.facts, ...tables, warnings };
  }
}
