// Where discovery last found an address alive: the inventory's memory of its scans. Discovery announces each
// live host on the bus (v1sion.device.discovered, declared in the discovery module's contracts); the hosts of
// a scan are written together when it ends (v1sion.scan.completed), one write per scan, not one per host. An
// endpoint's "last seen" and a subnet's live addresses that nobody documented are read from here. Bounded:
// at most MAX_ROWS addresses, the ones seen longest ago go first. The discovery module is not imported
// (it imports the inventory): the bus events' types come from its declaration on the core's EventMap.
import type { AppContext } from '../../core/context.js';
import { canonicalIp, normaliseMac, parseIp, type Cidr, type Ip } from '../../core/ip.js';

/** What the inventory keeps of a live host. */
export interface SeenAddress {
  address: string;
  mac: string | null;
  hostname: string | null;
  vendor: string | null;
  first_seen: number;
  last_seen: number;
  job_id: string | null;
}

/** The addresses kept at most (a /16 of live hosts); about 150 bytes each in the database. */
export const MAX_ROWS = 20_000;
/** A scan's hosts are written at its end, or in batches of this many while it runs. */
const BATCH = 512;
/** Addresses asked for in one statement. */
const CHUNK = 400;

/** An address as fixed-width hex: 8 digits for IPv4, 32 for IPv6 (string order is numeric order). */
export const hexOf = (ip: Ip): string => ip.value.toString(16).padStart(ip.family === 4 ? 8 : 32, '0');

interface Pending { address: string; mac: string | null; hostname: string | null; vendor: string | null; at: number }

export class SeenAddresses {
  /** Live hosts of running scans, by job, until the scan ends. */
  private readonly pending = new Map<string, Pending[]>();

  constructor(private readonly app: AppContext) {}

  /** Follows discovery's scans (a no-op while the discovery module is not there: nothing is announced). */
  listen(): void {
    const log = this.app.log.child('brain');
    const flush = (job: string) => this.flush(job).catch((e: unknown) =>
      log.warn('could not record the addresses a scan found alive', { job_id: job, error: e instanceof Error ? e.message : String(e) }));
    this.app.bus.on('v1sion.device.discovered', ({ job_id, host }) => {
      const address = canonicalIp(host.ip);
      if (!address) return;
      const list = this.pending.get(job_id) ?? [];
      list.push({ address, mac: host.mac ? normaliseMac(host.mac) : null, hostname: host.hostname ?? null,
        vendor: host.mac_vendor ?? null, at: this.app.clock.now() });
      this.pending.set(job_id, list);
      if (list.length >= BATCH) void flush(job_id);
    });
    this.app.bus.on('v1sion.scan.completed', ({ job_id }) => { void flush(job_id); });
  }

  /** Writes what a scan found so far (one transaction), then keeps the table within MAX_ROWS. */
  async flush(jobId: string): Promise<number> {
    const hosts = this.pending.get(jobId) ?? [];
    this.pending.delete(jobId);
    if (!hosts.length) return 0;
    await this.app.store.write((tx) => {
      for (const h of hosts) {
        const ip = parseIp(h.address)!;
        tx.run(`INSERT INTO brain_seen (address, family, hex, mac, hostname, vendor, first_seen, last_seen, job_id)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(address) DO UPDATE SET mac = COALESCE(excluded.mac, mac), hostname = COALESCE(excluded.hostname, hostname),
                  vendor = COALESCE(excluded.vendor, vendor), last_seen = excluded.last_seen, job_id = excluded.job_id`,
        [h.address, ip.family, hexOf(ip), h.mac, h.hostname, h.vendor, h.at, h.at, jobId]);
      }
      const n = tx.get<{ n: number }>('SELECT count(*) AS n FROM brain_seen')!.n;
      if (n > MAX_ROWS) {
        tx.run('DELETE FROM brain_seen WHERE address IN (SELECT address FROM brain_seen ORDER BY last_seen, address LIMIT ?)',
          [n - MAX_ROWS]);
      }
    }, 'group');
    return hosts.length;
  }

  /** The addresses seen inside a network, in numeric order. */
  inside(cidr: Cidr): SeenAddress[] {
    const ends = [cidr.first, cidr.last].map((value) => hexOf({ family: cidr.family, value }));
    return this.app.store.all<SeenAddress>(
      `SELECT address, mac, hostname, vendor, first_seen, last_seen, job_id FROM brain_seen
        WHERE family = ? AND hex BETWEEN ? AND ? ORDER BY hex`, [cidr.family, ends[0]!, ends[1]!]);
  }

  /** When each of these addresses and MAC addresses was last seen alive (epoch ms); those never seen are absent. */
  times(addresses: readonly string[], macs: readonly string[]): { byAddress: Map<string, number>; byMac: Map<string, number> } {
    const byAddress = new Map<string, number>(), byMac = new Map<string, number>();
    for (let i = 0; i < addresses.length; i += CHUNK) {
      const part = addresses.slice(i, i + CHUNK);
      const sql = `SELECT address, last_seen FROM brain_seen WHERE address IN (${part.map(() => '?').join(', ')})`;
      for (const r of this.app.store.all<{ address: string; last_seen: number }>(sql, part)) byAddress.set(r.address, r.last_seen);
    }
    for (let i = 0; i < macs.length; i += CHUNK) {
      const part = macs.slice(i, i + CHUNK);
      const sql = `SELECT mac, max(last_seen) AS t FROM brain_seen WHERE mac IN (${part.map(() => '?').join(', ')}) GROUP BY mac`;
      for (const r of this.app.store.all<{ mac: string; t: number }>(sql, part)) byMac.set(r.mac, r.t);
    }
    return { byAddress, byMac };
  }
}
