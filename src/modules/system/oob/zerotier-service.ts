// ZeroTier in netprobe's terms: join remembers the network; leave leaves it but keeps it remembered (so
// toggle can bring it back); toggle leaves or rejoins a remembered network; forget leaves it if joined and
// drops it. Taking a network down refuses (409) when the request itself travels over it, unless confirmed.
// Every change is made on zerotier-one first and recorded here only once it succeeded, so a failure leaves
// both as they were.
import path from 'node:path';
import { promises as fs } from 'node:fs';
import type { Clock } from '../../../core/clock.js';
import { HttpError, badRequest } from '../../../core/errors.js';
import { which } from '../../../core/exec.js';
import type { Store } from '../../../core/store/types.js';
import { ActionLog, type LastError } from './action-log.js';
import { guardCutOff } from './overlay-guard.js';
import { TOKEN_FILE, ZeroTierCli, type ZeroTierInfo, type ZeroTierNetwork, type ZeroTierSettings } from './zerotier-cli.js';

interface Row { nwid: string; enabled: number; name: string; joined_at: string | null; left_at: string | null; updated_at: string }

export interface RememberedNetwork { id: string; name: string; enabled: boolean; joined_at: string | null; left_at: string | null }

/** Who is asking: for the cut-off guard. */
export interface Caller { addresses: string[]; confirm?: boolean }

export interface ZeroTierStatus {
  provider: 'zerotier';
  installed: boolean;
  program: string;
  service_running: boolean | null;
  token_copy: boolean;
  node: (ZeroTierInfo & { state: string }) | null;
  state: string;
  online: boolean;
  networks: (ZeroTierNetwork & { remembered: boolean; enabled: boolean })[];
  remembered: RememberedNetwork[];
  assigned_addresses: string[];
  last_error: LastError | null;
}

export class ZeroTierService {
  readonly log: ActionLog;
  readonly cli: ZeroTierCli;

  constructor(private readonly deps: { store: Store; clock: Clock; settings: () => ZeroTierSettings }) {
    this.log = new ActionLog(deps.clock);
    this.cli = new ZeroTierCli(deps.settings);
  }

  remembered(): RememberedNetwork[] {
    return this.deps.store.all<Row>('SELECT * FROM oob_zerotier_networks ORDER BY nwid').map((r) => ({
      id: r.nwid, name: r.name, enabled: r.enabled === 1, joined_at: r.joined_at, left_at: r.left_at,
    }));
  }

  async join(nwid: string): Promise<{ network: ZeroTierNetwork; remembered: true }> {
    return this.log.serial(async () => {
      const network = await this.cli.join(nwid);
      await this.remember(nwid, true, network.name);
      return { network, remembered: true as const };
    });
  }

  async leave(nwid: string | undefined, caller: Caller): Promise<{ network_id: string; was_member: boolean; remembered: boolean }> {
    return this.log.serial(async () => {
      const id = nwid ?? this.onlyRemembered('leave', true);
      const member = await this.member(id);
      if (member) this.guard(member, caller);
      const wasMember = await this.cli.leave(id);
      const known = this.find(id);
      if (known) await this.remember(id, false, known.name);
      return { network_id: id, was_member: wasMember, remembered: !!known };
    });
  }

  async toggle(nwid: string | undefined, enabled: boolean | undefined, caller: Caller):
    Promise<{ network_id: string; enabled: boolean; changed: boolean; network: ZeroTierNetwork | null }> {
    return this.log.serial(async () => {
      const id = nwid ?? this.onlyRemembered('toggle', false);
      const member = await this.member(id);
      const want = enabled ?? !member;
      if (!want) {
        if (member) {
          this.guard(member, caller);
          await this.cli.leave(id);
        }
        const known = this.find(id);
        if (known) await this.remember(id, false, known.name);
        return { network_id: id, enabled: false, changed: !!member, network: null };
      }
      const network = member ?? await this.cli.join(id);
      await this.remember(id, true, network.name || this.find(id)?.name || '');
      return { network_id: id, enabled: true, changed: !member, network };
    });
  }

  async forget(nwid: string | undefined, caller: Caller): Promise<{ network_id: string; was_member: boolean; forgotten: boolean }> {
    return this.log.serial(async () => {
      const id = nwid ?? this.onlyRemembered('forget', false);
      const known = this.find(id);
      const member = await this.member(id);
      if (!known && !member) throw new HttpError(404, 'not_found', `ZeroTier network ${id} is neither joined nor remembered`);
      if (member) {
        this.guard(member, caller);
        await this.cli.leave(id);
      }
      await this.deps.store.write((tx) => tx.run('DELETE FROM oob_zerotier_networks WHERE nwid = ?', [id]), 'sync');
      return { network_id: id, was_member: !!member, forgotten: !!known };
    });
  }

  /** The program as configured (a name on PATH or a path). */
  program(): string { return this.deps.settings().program; }

  async status(): Promise<ZeroTierStatus> {
    const s = this.deps.settings();
    const remembered = this.remembered();
    const base: ZeroTierStatus = {
      provider: 'zerotier', installed: false, program: s.program, service_running: null,
      token_copy: await fs.access(path.join(s.tokenHome, TOKEN_FILE)).then(() => true, () => false),
      node: null, state: 'not_installed', online: false, networks: [], remembered, assigned_addresses: [],
      last_error: this.log.lastError,
    };
    if (!(await which(s.program))) return base;
    base.installed = true;
    try {
      // Both settle before the answer, so no call outlives the request.
      const [i, n] = await Promise.allSettled([this.cli.info(), this.cli.listNetworks()]);
      if (i.status === 'rejected') throw i.reason;
      if (n.status === 'rejected') throw n.reason;
      const info = i.value, networks = n.value;
      await this.learnNames(networks);
      base.remembered = this.remembered();
      const byId = new Map(base.remembered.map((r) => [r.id, r]));
      base.service_running = true;
      base.node = { ...info, state: info.tunneled ? 'TUNNELED' : info.online ? 'ONLINE' : 'OFFLINE' };
      base.state = base.node.state.toLowerCase();
      base.online = info.online;
      base.networks = networks.map((n) => ({ ...n, remembered: byId.has(n.id), enabled: byId.get(n.id)?.enabled ?? true }));
      base.assigned_addresses = networks.flatMap((n) => n.assigned_addresses);
    } catch (e) {
      if (!(e instanceof HttpError)) throw e;
      base.service_running = e.code === 'zerotier_service_down' ? false : null;
      base.state = e.code.replace(/^zerotier_/, '');
      base.last_error = this.log.lastError ?? { at: this.deps.clock.iso(), action: 'status', code: e.code, detail: e.message };
    }
    return base;
  }

  /** The network when the probe is in it now (listnetworks), else null. */
  private async member(nwid: string): Promise<ZeroTierNetwork | null> {
    const networks = await this.cli.listNetworks();
    await this.learnNames(networks);
    return networks.find((n) => n.id === nwid) ?? null;
  }

  /** A network's name arrives with its configuration, after the join: remember it for when it is off. */
  private async learnNames(networks: ZeroTierNetwork[]): Promise<void> {
    const known = new Map(this.remembered().map((r) => [r.id, r.name]));
    const changed = networks.filter((n) => n.name && known.has(n.id) && known.get(n.id) !== n.name);
    if (changed.length === 0) return;
    await this.deps.store.write((tx) => {
      for (const n of changed) tx.run('UPDATE oob_zerotier_networks SET name = ? WHERE nwid = ?', [n.name, n.id]);
    }, 'sync');
  }

  /** The overlay's ranges: its assigned addresses with their prefixes and the routes it installs (not a default route). */
  private guard(n: ZeroTierNetwork, caller: Caller): void {
    const ranges = [...n.assigned_addresses, ...n.routes.map((r) => r.target).filter((t) => !/\/0$/.test(t))];
    const what = `ZeroTier network ${n.id}${n.name ? ` (${n.name})` : ''}`;
    guardCutOff({ what, addresses: caller.addresses, ranges, confirm: caller.confirm });
  }

  private find(nwid: string): RememberedNetwork | undefined {
    return this.remembered().find((r) => r.id === nwid);
  }

  /** The remembered network when the request names none: there must be exactly one (enabled, for leave). */
  private onlyRemembered(action: string, enabledOnly: boolean): string {
    const list = this.remembered().filter((r) => !enabledOnly || r.enabled);
    if (list.length === 1) return list[0]!.id;
    if (list.length === 0) {
      throw new HttpError(404, 'not_found', `No remembered ZeroTier network to ${action}: give network_id, or join one first`);
    }
    throw badRequest(`Several ZeroTier networks are remembered (${list.map((r) => r.id).join(', ')}): say which with network_id`,
      [{ path: 'network_id', message: 'Required when several networks are remembered' }]);
  }

  private async remember(nwid: string, enabled: boolean, name: string): Promise<void> {
    const now = this.deps.clock.iso();
    await this.deps.store.write((tx) => {
      tx.run(`INSERT INTO oob_zerotier_networks (nwid, enabled, name, joined_at, left_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)
        ON CONFLICT(nwid) DO UPDATE SET enabled = excluded.enabled, name = CASE WHEN excluded.name = '' THEN name ELSE excluded.name END,
          joined_at = COALESCE(excluded.joined_at, joined_at), left_at = COALESCE(excluded.left_at, left_at),
          updated_at = excluded.updated_at`,
      [nwid, enabled ? 1 : 0, name, enabled ? now : null, enabled ? null : now, now]);
    }, 'sync');
  }
}
