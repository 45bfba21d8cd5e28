// The inventory bridge: discovered devices (a kept scan result or a saved session) against the
// inventory's endpoints and assets. diff reports; auto-match pairs (and with apply links the certain
// pairs); link and create write. Every inventory write goes through the inventory's item service under
// the discovery actor (ownership.ts), so history, short IDs, search and audit work as for a person's
// edit, and only the fields discovery owns are written, never a hand-set one. Nothing is deleted from
// the inventory. See docs/discovery.md, "Inventory bridge".
import type { Actor } from '../../../core/audit/types.js';
import { iso } from '../../../core/clock.js';
import type { AppContext } from '../../../core/context.js';
import { HttpError, invalid, notFound, type FieldError } from '../../../core/errors.js';
import { normaliseMac, type Cidr } from '../../../core/ip.js';
import { brainServicesOf } from '../../brain/index.js';
import type { ScanResultSource, SessionService } from '../sessions/service.js';
import { deviceOf, fromScan, fromSession, type DiscoveredDevice, type DiscoveredSource } from './discovered.js';
import { cidrsOf, diffSource, fieldChanges, updateOf, type DiffResult, type FieldChange } from './diff.js';
import { InventoryLinks } from './links.js';
import { matchDevices, refOf, type InventoryRecord, type InventoryType, type MatchResult, type Pairing, type RecordRef } from './match.js';
import { discoveryActor, FieldWriters } from './ownership.js';
import { allOf, createBody, inventoryRecords, siteOf, subnetSites, toRecord, type CreateOverrides, type SubnetSite } from './records.js';

/** A discovered device's source: exactly one of a kept scan result or a saved session. */
export interface SourceRef { scan_job_id?: string | undefined; session_id?: string | undefined }

export interface LinkItem { device_id: string; inventory: { type: InventoryType; id: string }; apply_fields?: boolean | undefined }

export interface CreateItem extends CreateOverrides { device_id: string; type?: InventoryType | undefined; force?: boolean | undefined }

export interface SourceSummary {
  type: 'scan' | 'session'; id: string; name: string | null; subnets: string[]; seen_at: string; scan_job_id: string | null;
  devices: number;
}

/** One item's answer (link, create, bulk, auto-match apply). */
export interface ItemResult {
  /** The device as the request named it. */
  device_id: string;
  /** Every device (or node) id of that device: several when one box was seen as several devices. */
  device_ids: string[];
  status: 'linked' | 'created' | 'skipped';
  inventory: RecordRef | null;
  /** The owned fields discovery wrote, with the record's value before. */
  written: FieldChange[];
  /** Hand-set fields it left as they are, with what discovery found. */
  kept: FieldChange[];
  /** The record the device was linked to before, when this link moved it. */
  relinked_from: RecordRef | null;
  code?: string;
  reason?: string;
  errors?: FieldError[];
}

/** A device and the record it stands for (matches()). */
export interface MatchItem {
  device_id: string;
  device_ids: string[];
  addresses: string[];
  inventory: RecordRef;
  /** Linked: tied to the record before (by identity, or on the session's node); else only matched, for a person to confirm. */
  linked: boolean;
  reason: Pairing['reason'];
  matched_on: string;
  confidence: number;
  certain: boolean;
}

export interface PickerQuery { q?: string | undefined; limit: number; offset: number; session_id?: string | undefined }

interface Work {
  source: DiscoveredSource;
  records: InventoryRecord[];
  byId: Map<string, InventoryRecord>;
  /** device id -> record id: linked before this request, and by it. */
  linked: Map<string, string>;
  matched: MatchResult;
  writers: FieldWriters;
  cidrs: Cidr[];
  seenAt: number;
}

export class BridgeService {
  private readonly links: InventoryLinks;
  /** Writes run one at a time: two bulk requests must not both create the same device. */
  private tail: Promise<unknown> = Promise.resolve();

  constructor(private readonly app: AppContext, private readonly scans: ScanResultSource, private readonly sessions: SessionService) {
    this.links = new InventoryLinks(app);
  }

  private items() { return brainServicesOf(this.app).items; }

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.tail.then(fn, fn);
    this.tail = run.catch(() => undefined);
    return run;
  }

  // ---- sources -----------------------------------------------------------------------------------

  async source(ref: SourceRef): Promise<DiscoveredSource> {
    if (ref.scan_job_id !== undefined) {
      const result = await this.scans.load(ref.scan_job_id.toLowerCase());
      if (!result) throw notFound(`Scan result ${ref.scan_job_id} (not kept, or still running)`);
      return fromScan(result);
    }
    const session = this.sessions.get(ref.session_id ?? '');
    const result = session.scan_job_id ? await this.scans.load(session.scan_job_id) : undefined;
    return fromSession(session, result);
  }

  private summary(s: DiscoveredSource): SourceSummary {
    return { type: s.type, id: s.id, name: s.name, subnets: s.subnets, seen_at: s.seen_at, scan_job_id: s.scan_job_id,
      devices: s.devices.length };
  }

  private async prepare(ref: SourceRef): Promise<Work> {
    const source = await this.source(ref);
    const records = inventoryRecords(this.items());
    const byId = new Map(records.map((r) => [r.id, r]));
    const linked = this.links.linkedRecords(source.devices, new Set(byId.keys()));
    const seenAt = Date.parse(source.seen_at);
    return {
      source, records, byId, linked, matched: matchDevices(source.devices, records, linked), writers: new FieldWriters(this.items()),
      cidrs: cidrsOf(source.subnets), seenAt: Number.isFinite(seenAt) ? seenAt : this.app.clock.now(),
    };
  }

  private device(w: Work, deviceId: string): DiscoveredDevice {
    const d = deviceOf(w.source, deviceId);
    if (!d) throw notFound(`Device ${deviceId} in ${w.source.type} ${w.source.id}`);
    return d;
  }

  /** The record as it is now (a request's earlier items may have changed it). */
  private record(ref: { type: InventoryType; id: string }): InventoryRecord {
    const items = this.items();
    const row = items.findRow(ref.id, ref.type);
    if (!row) throw notFound(`${ref.type} record ${ref.id}`);
    return toRecord(ref.type, items.toItem(row));
  }

  // ---- diff and auto-match -------------------------------------------------------------------------

  async diff(ref: SourceRef): Promise<{ source: SourceSummary } & DiffResult> {
    const w = await this.prepare(ref);
    const seen = this.links.lastSeen();
    const result = diffSource(w.source, w.records, w.matched, {
      handSet: (r, f) => w.writers.handSet(r, f),
      lastSeen: (id) => { const t = seen.get(id); return t === undefined ? null : iso(t); },
      linked: (id) => seen.has(id),
    });
    return { source: this.summary(w.source), ...result };
  }

  /**
   * The inventory record each device of the source stands for, without the diff's field comparison:
   * the pairings (linked, or matched and not linked, with why) and, for a session, its nodes linked to a
   * record that are not discovered devices (drawn by hand, or missing from the last merged scan).
   * What a map or a host table needs to name devices by their inventory names.
   */
  async matches(ref: SourceRef): Promise<{ source: SourceSummary; items: MatchItem[] }> {
    const w = await this.prepare(ref);
    const devices = new Map(w.source.devices.map((d) => [d.device_id, d]));
    const items: MatchItem[] = w.matched.pairings.map((p) => {
      const d = devices.get(p.device_id);
      return { device_id: p.device_id, device_ids: d?.device_ids ?? [p.device_id], addresses: d?.addresses ?? [], inventory: p.inventory,
        linked: p.reason === 'linked', reason: p.reason, matched_on: p.matched_on, confidence: p.confidence, certain: p.certain };
    });
    if (w.source.type === 'session') {
      const covered = new Set(items.flatMap((i) => i.device_ids));
      for (const n of this.sessions.get(w.source.id).nodes) {
        const record = n.inventory ? w.byId.get(n.inventory.id) : undefined;
        if (!record || covered.has(n.id)) continue;
        items.push({ device_id: n.id, device_ids: [n.id], addresses: n.addresses, inventory: refOf(record), linked: true,
          reason: 'linked', matched_on: record.short_id, confidence: 1, certain: true });
      }
    }
    return { source: this.summary(w.source), items };
  }

  async autoMatch(ref: SourceRef, apply: boolean, by: Actor) {
    const run = async () => {
      const w = await this.prepare(ref);
      const certain = w.matched.pairings.filter((p) => p.certain);
      const left = w.matched.pairings.filter((p) => !p.certain);
      const results = new Map<string, ItemResult>();
      if (apply) {
        for (const p of certain) {
          results.set(p.device_id, await this.guard(p.device_id, async () =>
            this.linkOne(w, p.device_id, this.record(p.inventory), true, by, 'auto-match')));
        }
      }
      const done = [...results.values()];
      return {
        source: this.summary(w.source), apply,
        counts: {
          certain: certain.length, left: left.length, unmatched: w.matched.unmatched.length,
          linked: done.filter((r) => r.status === 'linked').length, skipped: done.filter((r) => r.status === 'skipped').length,
        },
        items: certain.map((p) => ({ ...p, linked: p.reason === 'linked', result: results.get(p.device_id) ?? null })),
        left: left.map((p) => ({ ...p, linked: p.reason === 'linked' })),
      };
    };
    return apply ? this.exclusive(run) : run();
  }

  // ---- link ------------------------------------------------------------------------------------------

  async link(ref: SourceRef, item: LinkItem, by: Actor): Promise<ItemResult> {
    return this.exclusive(async () => {
      const w = await this.prepare(ref);
      return this.linkOne(w, item.device_id, this.record(item.inventory), item.apply_fields ?? true, by, 'link');
    });
  }

  async bulkLink(ref: SourceRef, list: LinkItem[], by: Actor):
    Promise<{ source: SourceSummary; counts: Record<string, number>; items: ItemResult[] }> {
    return this.exclusive(async () => {
      const w = await this.prepare(ref);
      const out: ItemResult[] = [];
      for (const item of list) {
        out.push(await this.guard(item.device_id, async () =>
          this.linkOne(w, item.device_id, this.record(item.inventory), item.apply_fields ?? true, by, 'bulk-link')));
      }
      return { source: this.summary(w.source), counts: countsOf(out), items: out };
    });
  }

  /**
   * Writes the owned fields that differ and are not hand-set (one item-service update: the record, its
   * history and audit), then the link (identity keys, last seen, the session's nodes, audit) in one write
   * that checks the record still exists. A link that would change nothing writes nothing.
   */
  private async linkOne(w: Work, deviceId: string, record: InventoryRecord, applyFields: boolean, by: Actor,
    via: string): Promise<ItemResult> {
    const d = this.device(w, deviceId);
    const items = this.items();
    const changes = applyFields ? fieldChanges(d, record, w.cidrs, (r, f) => w.writers.handSet(r, f)) : [];
    const update = updateOf(changes);
    const before = w.linked.get(d.device_id);
    const relinked = before && before !== record.id ? w.byId.get(before) : undefined;
    if (Object.keys(update).length) {
      await items.update(record.type, record.id, update, discoveryActor(by));
      w.writers.forget(record.id);
    }
    const nodes = w.source.type === 'session' ? d.device_ids : [];
    const same = !Object.keys(update).length && before === record.id && this.links.upToDate(d, record.id, w.seenAt)
      && (nodes.length === 0 || (nodes.length === 1 && d.inventory?.id === record.id)); // merged nodes: always (re)link each
    if (!same) {
      await this.app.store.write((tx) => {
        if (!items.findRow(record.id, record.type, tx)) throw notFound(`${record.type} record ${record.short_id}`);
        const moved = this.links.write(tx, d, record, by.actor, w.seenAt);
        for (const n of nodes) this.sessions.setNodeInventory(tx, w.source.id, n, { type: record.type, id: record.id });
        this.app.audit.insert(tx, by.auditEntry('v1sion.inventory_link', record.short_id, {
          via, source: { type: w.source.type, id: w.source.id }, device_id: d.device_id, device_ids: d.device_ids,
          inventory: { type: record.type, id: record.id }, fields: Object.keys(update),
          moved_from: [...new Set([...(relinked ? [relinked.id] : []), ...moved])],
        }));
      }, 'sync');
    }
    w.linked.set(d.device_id, record.id);
    if (nodes.length) d.inventory = { type: record.type, id: record.id };
    return {
      device_id: deviceId, device_ids: d.device_ids, status: 'linked', inventory: refOf(record), written: changes.filter((c) => c.writes),
      kept: changes.filter((c) => c.hand_set), relinked_from: relinked ? refOf(relinked) : null,
    };
  }

  // ---- create ----------------------------------------------------------------------------------------

  async create(ref: SourceRef, item: CreateItem, by: Actor): Promise<ItemResult & { record: Record<string, unknown> }> {
    return this.exclusive(async () => {
      const w = await this.prepare(ref);
      return this.createOne(w, item, by, subnetSites(this.items()), 'create');
    });
  }

  async bulkCreate(ref: SourceRef, list: CreateItem[], by: Actor) {
    return this.exclusive(async () => {
      const w = await this.prepare(ref);
      const sites = subnetSites(this.items());
      const out: (ItemResult & { record?: Record<string, unknown> })[] = [];
      for (const item of list) {
        out.push(await this.guard(item.device_id, async () => this.createOne(w, item, by, sites, 'bulk-create')));
      }
      return { source: this.summary(w.source), counts: countsOf(out), items: out };
    });
  }

  /**
   * One record from one device, then its link. The record is refused (409) when the device is linked
   * already, or, unless forced, when it matches a record or hits several (a possible duplicate). When
   * the link cannot be written the record is removed again: never a record without its link.
   */
  private async createOne(w: Work, item: CreateItem, by: Actor, sites: readonly SubnetSite[], via: string):
    Promise<ItemResult & { record: Record<string, unknown> }> {
    const d = this.device(w, item.device_id);
    const type = item.type ?? 'endpoints';
    if (type === 'assets') {
      const wrong = (['site_id', 'role'] as const).filter((f) => item[f] !== undefined)
        .map((f) => ({ path: f, message: `An asset has no ${f}; it is an endpoint field` }));
      if (wrong.length) throw invalid('create', wrong);
    }
    const linkedTo = w.linked.get(d.device_id);
    const linkedRecord = linkedTo ? w.byId.get(linkedTo) : undefined;
    if (linkedTo) {
      throw new HttpError(409, 'already_linked', `Device ${d.device_id} is linked to ${linkedRecord?.short_id ?? linkedTo} already`,
        { extra: { inventory: linkedRecord ? refOf(linkedRecord) : { id: linkedTo } } });
    }
    if (!item.force) {
      const p = w.matched.pairings.find((x) => x.device_id === d.device_id);
      const c = w.matched.unmatched.find((x) => x.device_id === d.device_id)?.candidates ?? [];
      if (p || c.length) {
        const what = p ? `matches ${p.inventory.short_id} by ${p.reason} (${p.matched_on})`
          : `matches ${c.map((x) => x.short_id).join(', ')} (none uniquely)`;
        throw new HttpError(409, 'possible_duplicate', `Device ${d.device_id} ${what}: link it instead, or create with force: true`,
          { extra: { matches: p ? [p.inventory] : c.map(({ type: t, id, short_id, name }) => ({ type: t, id, short_id, name })) } });
      }
    }
    const items = this.items();
    const actor = discoveryActor(by);
    const created = await items.create(type, createBody(d, type, item, type === 'endpoints' ? siteOf(d, sites) : null), actor);
    const record = toRecord(type, created);
    const nodes = w.source.type === 'session' ? d.device_ids : [];
    try {
      await this.app.store.write((tx) => {
        this.links.write(tx, d, record, by.actor, w.seenAt);
        for (const n of nodes) this.sessions.setNodeInventory(tx, w.source.id, n, { type, id: record.id });
        this.app.audit.insert(tx, by.auditEntry('v1sion.inventory_link', record.short_id, {
          via, source: { type: w.source.type, id: w.source.id }, device_id: d.device_id, device_ids: d.device_ids,
          inventory: { type, id: record.id }, created: true,
        }));
      }, 'sync');
    } catch (e) {
      await items.remove(type, record.id, true, actor).catch((err: unknown) =>
        this.app.log.child('v1sion').error('could not remove a record whose link failed', { id: record.id, err: err as Error }));
      throw e;
    }
    w.linked.set(d.device_id, record.id);
    w.byId.set(record.id, record);
    return {
      device_id: item.device_id, device_ids: d.device_ids, status: 'created', inventory: refOf(record), written: [], kept: [],
      relinked_from: null, record: created,
    };
  }

  /** One item of a bulk request: its failure is its own answer (nothing of it written), never the request's. */
  private async guard<T extends ItemResult>(deviceId: string, fn: () => Promise<T>): Promise<T | ItemResult> {
    try {
      return await fn();
    } catch (e) {
      const skipped: ItemResult = {
        device_id: deviceId, device_ids: [], status: 'skipped', inventory: null, written: [], kept: [], relinked_from: null,
      };
      if (e instanceof HttpError && e.status < 500) {
        const extra = e.extra?.inventory as RecordRef | undefined;
        return {
          ...skipped, inventory: extra?.short_id ? extra : null, code: e.code, reason: e.message, ...(e.errors ? { errors: e.errors } : {}),
        };
      }
      this.app.log.child('v1sion').error('inventory bridge item failed', { device_id: deviceId, err: e as Error });
      const http = e instanceof HttpError ? e : undefined;
      return { ...skipped, code: http?.code ?? 'failed', reason: http?.message ?? 'An internal error (logged)' };
    }
  }

  // ---- pickers -----------------------------------------------------------------------------------------

  private linkedNodes(sessionId: string | undefined) {
    const nodes = this.sessions.linkedNodes(sessionId);
    if (!nodes) throw notFound('Session');
    return nodes;
  }

  endpoints(q: PickerQuery) {
    const nodes = this.linkedNodes(q.session_id);
    const seen = this.links.lastSeen();
    const all = allOf(this.items(), 'endpoints').map((e) => ({
      id: String(e.id), short_id: String(e.short_id), name: String(e.name), hostname: (e.hostname as string | null) ?? null,
      role: (e.role as string | null) ?? null, addresses: (e.ip_addresses as string[]) ?? [], macs: (e.mac_addresses as string[]) ?? [],
      linked_node: nodes.get(String(e.id)) ?? null,
      last_seen: seen.has(String(e.id)) ? iso(seen.get(String(e.id))!) : null,
    }));
    const hits = q.q ? all.filter((e) => matchesText(q.q!, [e.name, e.short_id, e.hostname], e.addresses, e.macs)) : all;
    return { items: hits.slice(q.offset, q.offset + q.limit), total: hits.length };
  }

  applications(q: PickerQuery) {
    const nodes = this.linkedNodes(q.session_id);
    const items = this.items();
    const endpoints = new Map(allOf(items, 'endpoints').map((e) => [String(e.id), e]));
    const all = allOf(items, 'applications').map((a) => {
      const eps = ((a.endpoint_ids as string[]) ?? []).map((id) => endpoints.get(id)).filter((e) => e !== undefined);
      const node = eps.map((e) => nodes.get(String(e.id))).find((n) => n !== undefined);
      return {
        id: String(a.id), short_id: String(a.short_id), name: String(a.name), url: (a.url as string | null) ?? null,
        criticality: (a.criticality as string | null) ?? null,
        endpoints: eps.map((e) => ({ id: String(e.id), short_id: String(e.short_id), name: String(e.name) })),
        addresses: [...new Set(eps.flatMap((e) => (e.ip_addresses as string[]) ?? []))],
        macs: [...new Set(eps.flatMap((e) => (e.mac_addresses as string[]) ?? []))],
        linked_node: node ?? null,
      };
    });
    const hits = q.q ? all.filter((a) => matchesText(q.q!, [a.name, a.short_id, a.url, ...a.endpoints.map((e) => e.short_id)],
      a.addresses, a.macs)) : all;
    return { items: hits.slice(q.offset, q.offset + q.limit), total: hits.length };
  }
}

function countsOf(items: readonly ItemResult[]): Record<string, number> {
  return {
    linked: items.filter((i) => i.status === 'linked').length, created: items.filter((i) => i.status === 'created').length,
    skipped: items.filter((i) => i.status === 'skipped').length,
  };
}

/** A picker's search: text in a name, short ID, host name or URL; the start of an address; a MAC in any spelling. */
function matchesText(q: string, texts: (string | null)[], addresses: readonly string[], macs: readonly string[]): boolean {
  const s = q.trim().toLowerCase();
  if (!s) return true;
  if (texts.some((t) => t?.toLowerCase().includes(s))) return true;
  if (addresses.some((a) => a.startsWith(s))) return true;
  const mac = normaliseMac(s);
  if (mac) return macs.includes(mac);
  const hex = s.replace(/[:.-]/g, '');
  return hex.length >= 4 && /^[0-9a-f]+$/.test(hex) && macs.some((m) => m.replace(/:/g, '').includes(hex));
}

export type { Pairing };
