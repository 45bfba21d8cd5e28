// SNMP identification of one live host: the credential the sweep found answering (or, for an agent
// that answered only the engine probe, each SNMPv3 credential in turn) and the SNMP module's identify()
// (vendor profile, model, OS, version, serial). Where stored credentials worked or failed is returned
// for recordCredentialUse(), so the inventory shows it.
import type { AppContext } from '../../../core/context.js';
import { HttpError } from '../../../core/errors.js';
import { snmpServicesOf, type Identification } from '../../snmp/index.js';
import { inScope, targetOf, type ScanCredential } from './request.js';
import type { SnmpFacts } from './result.js';
import type { SweepAnswer } from './snmp-sweep.js';

export interface HostIdentity { facts: SnmpFacts | null; credential: ScanCredential | null; uses: CredentialUseRecord[] }

export interface CredentialUseRecord { credentialId: string; target: string; outcome: 'success' | 'failure'; detail: string | null }

const KIND: Record<string, string> = {
  switch: 'switch', router: 'router', firewall: 'firewall', wireless: 'access_point', server: 'server', device: 'host',
};

export function factsOf(id: Identification | null, c: ScanCredential | null, answer: SweepAnswer | undefined,
  note: string | null): SnmpFacts {
  const sys = answer?.sys;
  return {
    credential: c?.label ?? null,
    version: c?.version ?? null,
    vendor_key: id?.vendor_key ?? null,
    vendor: id?.vendor ?? null,
    kind: id ? (KIND[id.kind] ?? 'unknown') : null,
    model: id?.model ?? null,
    os: id?.os ?? null,
    os_version: id?.version ?? null,
    serial: id?.serial ?? null,
    sys_name: id?.sys.name ?? sys?.name ?? null,
    sys_descr: id?.sys.descr ?? sys?.descr ?? null,
    sys_object_id: id?.sys.object_id ?? sys?.object_id ?? null,
    sys_location: id?.sys.location ?? sys?.location ?? null,
    sys_services: sys?.services ?? null,
    engine_id: answer?.engine?.id ?? null,
    note,
    evidence: id?.evidence ?? null,
  };
}

const stored = (c: ScanCredential) => ('credential_id' in c.label ? c.label.credential_id : null);
const codeOf = (e: unknown) => (e instanceof HttpError ? e.code : e instanceof Error ? e.message : String(e));

export async function identifyHost(app: AppContext, ip: string, answer: SweepAnswer | undefined, all: readonly ScanCredential[],
  timing: { timeout_ms: number; retries: number }, signal: AbortSignal, port = 161): Promise<HostIdentity> {
  // A stored credential is tried only where its scope lets it go (the sweep sent it nowhere else either).
  const credentials = all.filter((c) => inScope(c, ip));
  const uses: CredentialUseRecord[] = [];
  const use = (c: ScanCredential, outcome: 'success' | 'failure', detail: string | null) => {
    const id = stored(c);
    if (id) uses.push({ credentialId: id, target: ip, outcome, detail });
  };
  const snmp = snmpServicesOf(app);
  // Credentials the sweep could not try (v3, or a non-default port) are tried here, one by one.
  const sweepable = (c: ScanCredential) => c.version !== 'v3' && (c.port ?? port) === port;

  const answered = answer?.credential ? credentials.find((c) => c.key === answer.credential) : undefined;
  if (answered) {
    for (const c of credentials) if (c !== answered && sweepable(c) && c.version === answered.version) use(c, 'failure', 'no answer');
    try {
      const id = await snmp.identify(targetOf(answered, ip, timing));
      use(answered, 'success', null);
      return { facts: factsOf(id, answered, answer, null), credential: answered, uses };
    } catch (e) {
      use(answered, 'success', `answered; identification failed: ${codeOf(e)}`);
      return { facts: factsOf(null, answered, answer, `identification failed: ${codeOf(e)}`), credential: null, uses };
    }
  }
  if (!answer) return { facts: null, credential: null, uses };
  // Only the engine probe answered: an SNMPv3 agent, or one on a community we were not given.
  for (const c of credentials) if (sweepable(c)) use(c, 'failure', 'no answer');
  for (const c of credentials.filter((c) => !sweepable(c))) {
    if (signal.aborted) break;
    try {
      const id = await snmp.identify(targetOf(c, ip, timing));
      use(c, 'success', null);
      return { facts: factsOf(id, c, answer, null), credential: c, uses };
    } catch (e) {
      use(c, 'failure', codeOf(e));
    }
  }
  return {
    facts: factsOf(null, null, answer, 'answers SNMP (engine ID below) but none of the credentials given works'),
    credential: null, uses,
  };
}
