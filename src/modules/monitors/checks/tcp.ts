// TCP check: connect to host:port and close; optionally complete a TLS handshake and record the
// certificate. Nothing is sent, so any TCP service can be checked without speaking its protocol.

import { z } from 'zod';
import type { CheckContext, CheckDefinition, RunReport } from './types.js';
import { CERT_DAYS_LEFT, withCertDaysLeft } from './certificate.js';
import {
  closeGently, connect, connectionTime, Deadline, hostProblem, isHostName, parseHostPort, verifyFailureMessage,
} from './net.js';

const withTls = { properties: { tls: { const: true } } };

export const settings = z.object({
  tls: z.boolean().default(false)
    .meta({ title: 'Complete a TLS handshake', 'x-section': 'Connection',
      description: 'Checks the certificate too, and tracks its expiry.' }),
  /** SNI and the name the certificate must match; default the target's host (no SNI for an IP). */
  servername: z.string().max(253).refine(isHostName, 'expected a host name').optional()
    .meta({ title: 'Server name (SNI)', 'x-visible-when': withTls,
      description: 'The name the certificate must match; empty: the target\'s host.' }),
  verify_tls: z.boolean().default(true).meta({ title: 'Verify the certificate', 'x-visible-when': withTls }),
}).strict();

export type TcpSettings = z.output<typeof settings>;

export function validateTarget(target: string): string | null {
  const hp = parseHostPort(target);
  if (!hp) {
    if (/:\d+$/.test(target) && !/^\[/.test(target) && target.split(':').length > 2) {
      return 'an IPv6 address needs brackets: [2001:db8::1]:443';
    }
    const port = /:(\d+)$/.exec(target)?.[1];
    if (port !== undefined && (Number(port) < 1 || Number(port) > 65535)) return 'the port must be 1-65535';
    return 'expected host:port (or [IPv6]:port) with a port 1-65535';
  }
  return hostProblem(hp.host);
}

export async function run(target: string, s: TcpSettings, ctx: CheckContext): Promise<RunReport> {
  const hp = parseHostPort(target);
  if (!hp) return { status: 'down', response_time_ms: null, message: validateTarget(target) ?? 'invalid target', details: {} };
  const dl = new Deadline(ctx.timeout, ctx.signal);
  try {
    const conn = await connect({ host: hp.host, port: hp.port, tls: s.tls ? { servername: s.servername } : undefined, deadline: dl });
    // The phases' network time (net.ts), not the time since this function started.
    const networkMs = connectionTime(conn.timings);
    closeGently(conn.socket);
    const details: Record<string, unknown> = {
      remote_address: conn.remote_address,
      remote_port: conn.remote_port,
      dns_ms: conn.timings.dns_ms,
      connect_ms: conn.timings.connect_ms,
    };
    if (!conn.tls) return { status: 'up', response_time_ms: networkMs, message: 'connected', details };
    const t = conn.tls;
    Object.assign(details, {
      tls_ms: conn.timings.tls_ms,
      tls: { protocol: t.protocol, cipher: t.cipher, authorized: t.authorized, authorization_error: t.authorization_error },
      cert: t.cert,
    });
    if (s.verify_tls && !t.authorized) {
      const message = verifyFailureMessage(t.authorization_error ?? 'UNKNOWN', t.cert);
      return { status: 'down', response_time_ms: networkMs, message, details };
    }
    const days = t.cert?.days_left;
    const certNote = days == null ? '' : days < 0
      ? `, certificate expired on ${t.cert?.valid_to?.slice(0, 10)}`
      : `, certificate valid for ${days} more day${days === 1 ? '' : 's'}`;
    return { status: 'up', response_time_ms: networkMs, message: `connected, ${t.protocol ?? 'TLS'} handshake done${certNote}`, details };
  } catch (e) {
    return { status: 'down', response_time_ms: null, message: dl.failure(e), details: { phase: dl.phase } };
  } finally {
    dl.dispose();
  }
}

/** The check type as the monitor service sees it (checks/index.ts, CHECKS). */
export const check: CheckDefinition<TcpSettings> = {
  label: 'TCP port', icon: 'snmp', hint: 'Connect to host:port',
  target: { title: 'Host and port', placeholder: 'nas.lan:445', description: 'host:port, or [IPv6]:port.' },
  settings, validateTarget, run: withCertDaysLeft(run), measurements: [CERT_DAYS_LEFT],
  host: (target) => parseHostPort(target)?.host ?? null,
};
