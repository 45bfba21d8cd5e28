// The measurement of the check types that see a TLS certificate (http over https, tcp with tls): the
// whole days left until it expires, negative once it has, from the certificate facts the check records
// (details.cert, net.ts certInfo). Kept over time like any measurement (docs/monitors.md, "Measurements").
import type { CheckContext, MeasurementDecl, RunReport } from './types.js';

export const CERT_DAYS_LEFT: MeasurementDecl = { name: 'days_left', unit: 'days', label: 'Certificate days left' };

/** `run` whose results carry days_left when the check saw a certificate (also one it refused: an expired one). */
export function withCertDaysLeft<S>(run: (target: string, settings: S, ctx: CheckContext) => Promise<RunReport>):
  (target: string, settings: S, ctx: CheckContext) => Promise<RunReport> {
  return async (target, settings, ctx) => {
    const r = await run(target, settings, ctx);
    const days = (r.details?.cert as { days_left?: unknown } | null | undefined)?.days_left;
    return typeof days === 'number' ? { ...r, measurements: { ...r.measurements, [CERT_DAYS_LEFT.name]: days } } : r;
  };
}
