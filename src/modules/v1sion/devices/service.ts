// Devices known over time: every completed scan is merged into them (merge.ts) when it ends, the changes
// are kept as history, and what people should hear of is raised as an alert (device_discovered,
// device_missing, device_changed, and scan_completed with the counts) and sent to the controller. A
// person acknowledges a new device and says whether its absence matters (expected) or never does
// (transient: phones, laptops). The list and its search answer "where is it?" (docs/discovery.md).
import { randomUUID } from 'node:crypto';
import type { Actor } from '../../../core/audit/types.js';
import { iso } from '../../../core/clock.js';
import type { AppContext } from '../../../core/context.js';
import { notFound } from '../../../core/errors.js';
import { canonicalIp } from '../../../core/ip.js';
import { raiseAlert } from '../../webhooks/index.js';
import type { ScanResult } from '../scan/result.js';
import { mergeScan, type DeviceChange, type KnownDevice, type MergeOutcome, type Presence } from './merge.js';
import {
  addHistory, historyOf, isSubnetKnown, lastChanges, loadDevice, loadDevices, thinHistory, writeDevice, writeMerge,
} from './store.js';

/** A device is "changed" for this long after it moved or changed address. */
const CHANGED_FOR_MS = 24 * 3_600_000;
const HISTORY_SHOWN = 200;
/** The history is thinned at most this often (with a merge: a probe that never scans has nothing to thin). */
const THIN_EVERY_MS = 86_400_000;

export const DEVICE_STATES = ['new', 'missing', 'changed'] as const;
export type DeviceState = (typeof DEVICE_STATES)[number];

export interface DeviceOut {
  id: string; name: string; vendor: string | null; kind: string; model: string | null;
  addresses: string[]; macs: string[]; attachment: KnownDevice['attachment'];
  first_seen: string; last_seen: string; presence: Presence;
  /** new: not yet acknowledged; missing: not answering; changed: moved or changed address in the last 24 h. */
  states: DeviceState[];
  missing_since: string | null;
  changed_at: string | null;
}

export interface DeviceQuery { q?: string; state?: DeviceState; limit: number; offset: number }

/** "aa:bb:cc", "AABB.CC", "aa-bb-cc-dd-ee-ff": the hex digits, for a MAC prefix match in any notation. */
const macDigits = (s: string) => s.toLowerCase().replace(/[^0-9a-f]/g, '');
const MAC_LIKE = /^[0-9a-f]{2}([:.-]?[0-9a-f]{2})*$|^[0-9a-f]{4}(\.[0-9a-f]{0,4}){0,2}$/i;

export class DeviceWatch {
  /** Merges run one after another (two scans ending together must not both read the same known state). */
  private chain: Promise<unknown> = Promise.resolve();
  private thinnedAt = 0;

  /** A scan profile's own missing rule (profiles/service.ts), the parts it sets. */
  private profileRule: (profileId: string) => { after_minutes?: number; after_scans?: number } = () => ({});

  /** `scans`: every finished scan's result is handed here as it ends, kept or not (ScanService.onFinished). */
  constructor(private readonly app: AppContext,
    scans: { onFinished(fn: (result: ScanResult, from: { profileId: string | null }) => void): void }) {
    scans.onFinished((result, { profileId }) => {
      if (result.state !== 'completed') return; // a cancelled or failed scan saw part of the subnet: it cannot say who is missing
      this.chain = this.chain.then(() => this.merge(result, profileId)).catch((e: Error) => {
        app.log.child('v1sion').warn('scan not merged into the known devices', { job_id: result.job_id, error: e.message });
      });
    });
  }

  /** Where a profile's scans take their missing rule from (set once the profiles exist). */
  useProfileRules(fn: (profileId: string) => { after_minutes?: number; after_scans?: number }): void {
    this.profileRule = fn;
  }

  /** Resolves once every merge asked for so far is done (the module waits for it at shutdown, before the store closes). */
  async settled(): Promise<void> { await this.chain; }

  /** `profileId`: the scan profile it ran for, whose own missing rule (if it sets one) wins over the settings. */
  async merge(result: ScanResult, profileId: string | null = null): Promise<MergeOutcome> {
    const now = this.app.clock.now();
    const cfg = this.app.config.get().discovery;
    const own = profileId ? this.profileRule(profileId) : {};
    const out = mergeScan({
      known: loadDevices(this.app.store), result, subnetKnown: isSubnetKnown(this.app.store, result.subnet), now,
      missing: {
        after_ms: (own.after_minutes ?? cfg.missing_after_minutes) * 60_000, after_runs: own.after_scans ?? cfg.missing_after_scans,
      },
      newId: randomUUID,
    });
    const thin = now - this.thinnedAt >= THIN_EVERY_MS;
    await this.app.store.write((tx) => {
      writeMerge(tx, out, result.subnet, result.job_id, now);
      if (thin) thinHistory(tx, now);
    });
    if (thin) this.thinnedAt = now;
    const byId = new Map(out.upserts.map((d) => [d.id, d]));
    for (const c of out.changes) {
      const d = byId.get(c.device_id);
      if (c.alert && d) await this.alert(c, d, result);
    }
    const count = (a: DeviceChange['alert']) => out.changes.filter((c) => c.alert === a).length;
    const counts = {
      ...result.counts, new: count('device_discovered'), missing: count('device_missing'), changed: count('device_changed'),
    };
    const baseline = out.baseline ? '; the first scan of this subnet (baseline: nothing in it is new)' : '';
    await raiseAlert(this.app, {
      type: 'scan_completed', subject: `scan/${result.subnet}`, severity: 'info', occurred_at: iso(now),
      title: `Scan of ${result.subnet} completed: ${counts.live} live, ${counts.new} new, ${counts.missing} missing, `
        + `${counts.changed} changed`,
      message: `${counts.devices} devices, ${counts.snmp} answered SNMP, ${counts.links} links${baseline}.`,
      details: { job_id: result.job_id, subnet: result.subnet, counts, baseline: out.baseline },
    });
    return out;
  }

  /** One alert per change worth telling, each type raised by name (the alert-producers contract test reads them). */
  private async alert(c: DeviceChange, d: KnownDevice, result: ScanResult): Promise<void> {
    const details = {
      device: this.out(d, new Map()), change: { kind: c.kind, from: c.from, to: c.to }, job_id: result.job_id, subnet: result.subnet,
    };
    const base = { subject: `device/${d.id}`, occurred_at: this.app.clock.iso(), details };
    if (c.alert === 'device_discovered') {
      await raiseAlert(this.app, {
        ...base, type: 'device_discovered', title: `New device on ${result.subnet}: ${d.name}`, message: c.text,
      });
    } else if (c.alert === 'device_missing') {
      await raiseAlert(this.app, { ...base, type: 'device_missing', title: `Device missing: ${d.name}`, message: c.text });
    } else if (c.alert === 'device_changed') {
      await raiseAlert(this.app, { ...base, type: 'device_changed', title: `Device changed: ${d.name}`, message: c.text,
        severity: c.kind === 'address_claimed' ? 'error' : 'warning' });
    }
    this.app.bus.emit('v1sion.device.changed', { alert: c.alert!, device: details.device, change: details.change, text: c.text,
      job_id: result.job_id, subnet: result.subnet });
  }

  // ---- the API ------------------------------------------------------------------------------------

  list(q: DeviceQuery): { items: DeviceOut[]; total: number } {
    const changed = lastChanges(this.app.store);
    let rows = loadDevices(this.app.store).map((d) => this.out(d, changed));
    if (q.q) rows = rows.filter(matcher(q.q));
    if (q.state) rows = rows.filter((d) => d.states.includes(q.state!));
    // New first, then missing, changed, then the most recently seen.
    const rank = (d: DeviceOut) => (d.states.includes('new') ? 0 : d.states.includes('missing') ? 1 : d.states.includes('changed') ? 2 : 3);
    rows.sort((a, b) => rank(a) - rank(b) || b.last_seen.localeCompare(a.last_seen) || a.name.localeCompare(b.name));
    return { items: rows.slice(q.offset, q.offset + q.limit), total: rows.length };
  }

  get(id: string): DeviceOut & { history: ReturnType<typeof historyOut>[] } {
    const d = loadDevice(this.app.store, id);
    if (!d) throw notFound('Device');
    return { ...this.out(d, lastChanges(this.app.store)), history: historyOf(this.app.store, id, HISTORY_SHOWN).map(historyOut) };
  }

  async update(id: string, body: { presence?: Presence; acknowledged?: true }, by: Actor) {
    const d = loadDevice(this.app.store, id);
    if (!d) throw notFound('Device');
    const now = this.app.clock.now();
    await this.app.store.write((tx) => {
      if (body.acknowledged && !d.acknowledged) {
        d.acknowledged = true;
        addHistory(tx, id, now, 'acknowledged', null, by.actor, `acknowledged by ${by.actor ?? 'someone'}`);
      }
      if (body.presence && body.presence !== d.presence) {
        addHistory(tx, id, now, 'presence', d.presence, body.presence, `marked ${body.presence} by ${by.actor ?? 'someone'}`);
        d.presence = body.presence;
      }
      writeDevice(tx, d);
      this.app.audit.insert(tx, by.auditEntry('v1sion.device.update', d.name, { id, ...body }));
    });
    return this.get(id);
  }

  /** Acknowledges every new device (or those of `ids`): one audit entry. */
  async acknowledge(ids: readonly string[] | 'all_new', by: Actor): Promise<{ acknowledged: number }> {
    const want = ids === 'all_new' ? null : new Set(ids);
    const now = this.app.clock.now();
    const todo = loadDevices(this.app.store).filter((d) => !d.acknowledged && (!want || want.has(d.id)));
    await this.app.store.write((tx) => {
      for (const d of todo) {
        d.acknowledged = true;
        writeDevice(tx, d);
        addHistory(tx, d.id, now, 'acknowledged', null, by.actor, `acknowledged by ${by.actor ?? 'someone'}`);
      }
      this.app.audit.insert(tx, by.auditEntry('v1sion.device.acknowledge', null,
        { count: todo.length, ids: todo.map((d) => d.id).slice(0, 100) }));
    });
    return { acknowledged: todo.length };
  }

  private out(d: KnownDevice, changed: Map<string, number>): DeviceOut {
    const changedAt = changed.get(d.id) ?? null;
    const states: DeviceState[] = [];
    if (!d.acknowledged) states.push('new');
    if (d.missing_since !== null) states.push('missing');
    if (changedAt !== null && this.app.clock.now() - changedAt < CHANGED_FOR_MS) states.push('changed');
    return {
      id: d.id, name: d.name, vendor: d.vendor, kind: d.kind, model: d.model, addresses: d.addresses, macs: d.macs,
      attachment: d.attachment, first_seen: iso(d.first_seen), last_seen: iso(d.last_seen), presence: d.presence, states,
      missing_since: d.missing_since === null ? null : iso(d.missing_since), changed_at: changedAt === null ? null : iso(changedAt),
    };
  }
}

function historyOut(h: { t: number; kind: string; from_v: string | null; to_v: string | null; text: string; job_id: string | null }) {
  return { at: iso(h.t), kind: h.kind, from: h.from_v === null ? null : JSON.parse(h.from_v) as unknown,
    to: h.to_v === null ? null : JSON.parse(h.to_v) as unknown, text: h.text, job_id: h.job_id };
}

/**
 * The search: a MAC in any notation or a prefix of one, an IP address (or the start of one), or words
 * found in the name, vendor or model.
 */
function matcher(query: string): (d: DeviceOut) => boolean {
  const q = query.trim().toLowerCase();
  const ip = canonicalIp(q);
  const digits = macDigits(q);
  const macish = MAC_LIKE.test(q) && digits.length >= 4;
  return (d) => (ip !== null && d.addresses.includes(ip))
    || d.addresses.some((a) => a.startsWith(q))
    || (macish && d.macs.some((m) => macDigits(m).startsWith(digits)))
    || d.name.toLowerCase().includes(q) || (d.vendor ?? '').toLowerCase().includes(q) || (d.model ?? '').toLowerCase().includes(q);
}

