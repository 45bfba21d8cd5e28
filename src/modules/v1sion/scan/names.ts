// Reverse DNS names of live hosts through the configured resolvers (discovery.dns_servers, else the
// system's /etc/resolv.conf), with a short timeout: a missing PTR record must not hold a scan up.
import { Resolver } from 'node:dns/promises';
import { pool } from './pool.js';

/** The first PTR name of each address (null when there is none or the lookup fails). */
export async function reverseNames(addresses: readonly string[], servers: readonly string[], signal: AbortSignal,
  limit = 16): Promise<Map<string, string | null>> {
  const resolver = new Resolver({ timeout: 1500, tries: 1 });
  if (servers.length) resolver.setServers([...servers]);
  const onAbort = () => resolver.cancel();
  signal.addEventListener('abort', onAbort, { once: true });
  const out = new Map<string, string | null>();
  try {
    await pool(addresses, limit, signal, async (a) => {
      try {
        const names = await resolver.reverse(a);
        out.set(a, names[0]?.replace(/\.$/, '') ?? null);
      } catch {
        out.set(a, null);
      }
    });
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
  return out;
}
