// The routing tables of a scan's layer-3 devices (routers, firewalls, agents whose sysServices says
// layer 3): read through scan/ip-routes.ts (counts first, tables over 1,000 routes skipped) and kept in
// the result as routes offered for import. The scan never writes a route itself.
import type { AppContext } from '../../../core/context.js';
import { snmpServicesOf } from '../../snmp/index.js';
import { offered, readRoutes } from './ip-routes.js';
import type { DeviceTables } from './neighbours/index.js';
import { pool } from './pool.js';
import { targetOf, type ScanCredential } from './request.js';
import type { ScanHost, ScanRoute } from './result.js';

const PARALLEL = 4;

export function isLayer3(h: ScanHost): boolean {
  const s = h.snmp;
  return !!s && (s.kind === 'router' || s.kind === 'firewall' || ((s.sys_services ?? 0) & 4) !== 0);
}

export async function readLayer3Routes(app: AppContext, agents: { ip: string; credential: ScanCredential }[],
  tables: Map<string, DeviceTables>, timing: { timeout_ms: number; retries: number }, signal: AbortSignal,
  warnings: string[]): Promise<Omit<ScanRoute, 'device_id'>[]> {
  const reader = snmpServicesOf(app).reader;
  const out: Omit<ScanRoute, 'device_id'>[] = [];
  await pool(agents, PARALLEL, signal, async ({ ip, credential }) => {
    try {
      const read = await readRoutes(reader, targetOf(credential, ip, timing), signal, { interfaces: tables.get(ip)?.interfaces });
      warnings.push(...read.warnings);
      for (const r of read.routes.filter(offered)) {
        out.push({ agent: ip, table: read.table ?? '', destination: r.destination, next_hop: r.next_hop, interface: r.interface,
          metric: r.metric, protocol: r.protocol });
      }
    } catch (e) {
      if (!signal.aborted) warnings.push(`${ip}: routing table not read (${e instanceof Error ? e.message : String(e)})`);
    }
  });
  return out;
}
