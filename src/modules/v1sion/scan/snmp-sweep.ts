// Which addresses answer SNMP, and to which credential: every v1/v2c community goes to every address at
// once (agents drop a wrong community silently, so trying them one after another costs a full timeout
// each), plus an SNMPv3 engine-discovery probe that needs no credential and returns the agent's engine
// ID. One UDP socket per call does it all (the SNMP module's sweepSnmp). The pipeline sends it only to
// hosts the neighbour table already knows on the probe's own links, and to every address of a routed
// subnet (which costs the probe no neighbour entry), 1,024 addresses in flight.
import { sweepSnmp, type SweepAnswer } from '../../snmp/index.js';
import type { ScanCredential } from './request.js';
import type { StageContext } from './stages/types.js';

export type { SweepAnswer };

const IN_FLIGHT = 1024;

export function snmpSweep(addresses: readonly string[], credentials: readonly ScanCredential[],
  timing: { timeout_ms: number; retries: number }, signal: AbortSignal,
  onAnswer: (ip: string, answer: SweepAnswer) => void,
  opts: { port?: number } = {}): Promise<Map<string, SweepAnswer>> {
  const port = opts.port ?? 161;
  const communities = credentials.filter((c) => c.version !== 'v3' && c.community !== undefined && (c.port ?? port) === port)
    .map((c) => ({ id: c.key, version: c.version as 'v1' | 'v2c', community: c.community!, allows: c.allows }));
  return sweepSnmp([...addresses], {
    communities, port, timeoutMs: timing.timeout_ms, retries: timing.retries, engineProbe: true, signal, concurrency: IN_FLIGHT,
    onAnswer: (a: SweepAnswer) => onAnswer(a.host, a),
  });
}

/** Sweeps these addresses with the scan's credentials: each agent that answers is alive by SNMP and its answer kept for identification. */
export async function sweepInto(ctx: StageContext, addresses: readonly string[], timing = ctx.settings.snmpTiming): Promise<void> {
  if (!addresses.length) return;
  try {
    const got = await snmpSweep(addresses, ctx.plan.credentials, timing, ctx.signal, (ip) => { ctx.state.alive(ip, 'snmp'); });
    for (const [ip, a] of got) ctx.state.work.answers.set(ip, a);
  } catch (e) {
    ctx.fail('SNMP sweep', e);
  }
}
