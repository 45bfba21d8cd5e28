// Device cards: the OID cards shown for one device, by default its matched vendor's cards, with live
// values when the device can be read (each value stamped with the time it was read). PUT stores the
// device's own selection and order of cards plus extra OIDs. A device is known by its name: a saved
// selection, or an inventory endpoint of that name (UUID or short ID work too) with its address and
// management credential. Nothing here stores a secret: live reads go through a stored credential.
import type { AppContext } from '../../../core/context.js';
import { HttpError, badRequest, notFound } from '../../../core/errors.js';
import type { Actor } from '../../../core/audit/types.js';
import { brainServicesOf } from '../../brain/index.js';
import { unreadCard, type CardReading } from '../cards.js';
import type { InterfaceRow } from '../interfaces.js';
import type { Identification } from '../identify.js';
import type { SnmpService } from '../service.js';
import { snmpSettings } from '../service.js';
import type { DeviceCardsInput, ExtraOidInput } from '../schemas.js';
import type { CredentialRef } from '../targets.js';
import { cardsFor, profileByKey, VENDOR_PROFILES } from '../vendors/index.js';
import type { Card, CardItem, VendorProfile } from '../vendors/types.js';

interface CardsRow {
  device_name: string; target: string | null; port: number | null; credential_id: string | null;
  vendor_key: string | null; variant: string | null; cards: string; extra_oids: string; updated_at: number;
}

const EXTRA_CARD = 'extra';

/** Where a device is and how to reach it, from a saved row and/or an inventory endpoint. */
interface Device {
  name: string;
  row?: CardsRow;
  endpoint?: { target: string | null; credential_id: string | null };
}

export class DeviceCardService {
  constructor(private readonly app: AppContext, private readonly snmp: SnmpService) {}

  private saved(name: string): CardsRow | undefined {
    return this.app.store.get<CardsRow>('SELECT * FROM snmp_device_cards WHERE device_name = ?', [name]);
  }

  /** The inventory endpoint with this UUID, short ID or (case-insensitive) name. */
  private endpoint(name: string): Device['endpoint'] {
    const brain = brainServicesOf(this.app);
    const byId = brain.items.findRow(name, 'endpoints');
    const data = byId ? brain.items.toItem(byId)
      : brain.items.list('endpoints', { q: name, limit: 50, offset: 0 }).items
        .find((e) => String(e.name).toLowerCase() === name.toLowerCase());
    if (!data) return undefined;
    const ips = Array.isArray(data.ip_addresses) ? (data.ip_addresses as string[]) : [];
    const target = ips[0] ?? (typeof data.hostname === 'string' ? data.hostname : null);
    return { target, credential_id: typeof data.credential_id === 'string' ? data.credential_id : null };
  }

  private device(name: string): Device {
    const row = this.saved(name);
    const endpoint = this.endpoint(name);
    if (!row && !endpoint) {
      throw notFound(`Device "${name}" (no saved card selection and no inventory endpoint of that name)`);
    }
    return { name: row?.device_name ?? name, row, endpoint };
  }

  private credentialRef(id: string | null): CredentialRef | null {
    if (!id) return null;
    try { return this.snmp.targets.credential(id); } catch { return null; }
  }

  /** A card of the device's extra OIDs, read like any other card. */
  private extraCard(extra: ExtraOidInput[]): Card | undefined {
    if (!extra.length) return undefined;
    const items: CardItem[] = extra.map((e, i) => ({
      key: `extra_${i + 1}`, label: e.label ?? this.snmp.oids.nameOf(this.snmp.oids.oidOf(e.oid) ?? e.oid),
      value: { get: e.oid }, unit: e.unit, scale: e.scale,
    }));
    return { key: EXTRA_CARD, title: 'Extra OIDs', items };
  }

  /** The cards in the device's order: its selection (or the vendor's cards), then its extra OIDs. */
  private chosen(profile: VendorProfile, variant: string | null, keys: string[], extra: ExtraOidInput[]): Card[] {
    const all = cardsFor(profile, variant);
    const picked = keys.length ? keys.map((k) => all.find((c) => c.key === k)).filter((c): c is Card => c !== undefined) : all;
    const extraCard = this.extraCard(extra);
    return extraCard ? [...picked, extraCard] : picked;
  }

  async get(name: string, live: boolean) {
    const dev = this.device(name);
    const row = dev.row;
    const target = row?.target ?? dev.endpoint?.target ?? null;
    const credential = this.credentialRef(row?.credential_id ?? dev.endpoint?.credential_id ?? null);
    const port = row?.port ?? null;
    const keys = row ? (JSON.parse(row.cards) as string[]) : [];
    const extra = row ? (JSON.parse(row.extra_oids) as ExtraOidInput[]) : [];

    let profile = row?.vendor_key ? profileByKey(row.vendor_key) : undefined;
    let variant = row?.vendor_key ? row.variant : null;
    let from: 'saved' | 'identified' | 'default' = profile ? 'saved' : 'default';
    let identification: Identification | null = null;
    const liveState: { attempted: boolean; ok: boolean; error?: string; error_code?: string } = { attempted: false, ok: false };
    let readings: CardReading[] | undefined;

    if (live && target && credential) {
      liveState.attempted = true;
      try {
        const settings = snmpSettings(this.app);
        const agent = await this.snmp.targets.reach(
          { target, port: port ?? undefined, credential_id: credential.id },
          { timeout_ms: settings.timeout_ms, retries: settings.retries });
        if (!profile) {
          identification = await this.snmp.identify(agent);
          profile = profileByKey(identification.vendor_key);
          variant = identification.variant;
          from = 'identified';
        }
        readings = await this.snmp.readCards(agent, this.chosen(profile ?? generic(), variant, keys, extra));
        const failed = readings.find((c) => c.error);
        liveState.ok = !failed;
        if (failed) Object.assign(liveState, { error: failed.error, error_code: failed.error_code });
      } catch (err) {
        if (!(err instanceof HttpError)) throw err;
        Object.assign(liveState, { error: err.message, error_code: err.code });
      }
    } else if (live) {
      liveState.error = !target ? 'No address known for this device: PUT a target or give its endpoint an IP'
        : 'No SNMP credential for this device: PUT a credential_id or set the endpoint\'s credential';
      liveState.error_code = !target ? 'no_target' : 'no_credential';
    }

    const chosenProfile = profile ?? generic();
    const cards = this.chosen(chosenProfile, variant, keys, extra);
    return {
      device_name: dev.name,
      source: row && dev.endpoint ? 'saved+inventory' as const : row ? 'saved' as const : 'inventory' as const,
      target, port: port ?? credential?.port ?? 161,
      credential: credential ? { id: credential.id, short_id: credential.short_id, name: credential.name } : null,
      vendor: { key: chosenProfile.key, name: chosenProfile.name, variant: variant ?? null, from },
      identification: identification as Record<string, unknown> | null,
      selection: { custom: keys.length > 0 || extra.length > 0,
        cards: cards.filter((c) => c.key !== EXTRA_CARD).map((c) => c.key), extra_oids: extra },
      available_cards: cardsFor(chosenProfile, variant).map((c) => ({ key: c.key, title: c.title })),
      live: liveState,
      cards: readings ?? cards.map(unreadCard),
      updated_at: row ? new Date(row.updated_at).toISOString() : null,
    };
  }

  /**
   * The device's interface table, read now through its stored credential. Like the cards, a device that
   * cannot be read answers with no rows and the reason (`error`, `error_code`), not a failure.
   */
  async interfaces(name: string, signal?: AbortSignal) {
    const dev = this.device(name);
    const target = dev.row?.target ?? dev.endpoint?.target ?? null;
    const credential = this.credentialRef(dev.row?.credential_id ?? dev.endpoint?.credential_id ?? null);
    const port = dev.row?.port ?? null;
    const base = {
      device_name: dev.name, target, port: port ?? credential?.port ?? 161,
      credential: credential ? { id: credential.id, short_id: credential.short_id, name: credential.name } : null,
    };
    const none = (error: string, error_code: string) =>
      ({ ...base, read_at: null, items: [] as InterfaceRow[], total: 0, truncated: false, error, error_code });
    if (!target) return none('No address known for this device: PUT a target or give its endpoint an IP', 'no_target');
    if (!credential) {
      return none('No SNMP credential for this device: PUT a credential_id or set the endpoint\'s credential', 'no_credential');
    }
    try {
      const settings = snmpSettings(this.app);
      const agent = await this.snmp.targets.reach({ target, port: port ?? undefined, credential_id: credential.id },
        { timeout_ms: settings.timeout_ms, retries: settings.retries });
      return { ...base, ...(await this.snmp.readInterfaces(agent, signal)) };
    } catch (err) {
      if (!(err instanceof HttpError)) throw err;
      return none(err.message, err.code);
    }
  }

  async put(name: string, body: DeviceCardsInput, by: Actor) {
    const old = this.saved(name);
    const next = {
      target: body.target !== undefined ? body.target : old?.target ?? null,
      port: body.port !== undefined ? body.port : old?.port ?? null,
      credential_id: body.credential_id !== undefined ? body.credential_id : old?.credential_id ?? null,
      vendor_key: body.vendor_key !== undefined ? body.vendor_key : old?.vendor_key ?? null,
      variant: body.variant !== undefined ? body.variant : (body.vendor_key !== undefined ? null : old?.variant ?? null),
      cards: body.cards ?? (old ? (JSON.parse(old.cards) as string[]) : []),
      extra_oids: body.extra_oids ?? (old ? (JSON.parse(old.extra_oids) as ExtraOidInput[]) : []),
    };
    const errors: { path: string; message: string }[] = [];
    if (next.credential_id) next.credential_id = this.snmp.targets.credential(next.credential_id).id;
    const profile = next.vendor_key ? profileByKey(next.vendor_key) : generic();
    if (!profile) {
      errors.push({ path: 'vendor_key', message: `unknown vendor; one of ${VENDOR_PROFILES.map((p) => p.key).join(', ')}` });
    } else {
      if (next.variant && !profile.variants.some((v) => v.key === next.variant)) {
        errors.push({ path: 'variant', message: `not a variant of ${profile.key}: ${profile.variants.map((v) => v.key).join(', ')}` });
      }
      const known = cardsFor(profile, next.variant).map((c) => c.key);
      next.cards.forEach((k, i) => {
        if (!known.includes(k)) {
          errors.push({ path: `cards.${i}`, message: `"${k}" is not a card of ${profile.key}` +
            `${next.vendor_key ? '' : ' (set vendor_key for a vendor\'s own cards)'}: ${known.join(', ')}` });
        }
      });
      if (new Set(next.cards).size !== next.cards.length) errors.push({ path: 'cards', message: 'a card is listed twice' });
    }
    next.extra_oids.forEach((e, i) => {
      const oid = this.snmp.oids.oidOf(e.oid);
      if (!oid) { errors.push({ path: `extra_oids.${i}.oid`, message: `unknown OID or name "${e.oid}"` }); return; }
      const r = this.snmp.oids.resolve(oid);
      if (r && !r.suffix && r.entry.kind !== 'scalar') {
        errors.push({ path: `extra_oids.${i}.oid`,
          message: `${r.entry.name} is a ${r.entry.kind}: give one instance (e.g. ${r.entry.name}.1)` });
      }
    });
    if (errors.length) throw badRequest('Invalid device card selection', errors);
    // A scalar named without its instance gets ".0", the way snmpget users write it.
    const extra = next.extra_oids.map((e) => {
      const r = this.snmp.oids.resolve(this.snmp.oids.oidOf(e.oid)!);
      return r && !r.suffix && r.entry.kind === 'scalar' ? { ...e, oid: `${e.oid}.0` } : e;
    });
    const now = this.app.clock.now();
    await this.app.store.write((tx) => {
      tx.run(`INSERT INTO snmp_device_cards (device_name, target, port, credential_id, vendor_key, variant, cards, extra_oids, updated_at)
              VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
              ON CONFLICT (device_name) DO UPDATE SET target = excluded.target, port = excluded.port,
                credential_id = excluded.credential_id, vendor_key = excluded.vendor_key, variant = excluded.variant,
                cards = excluded.cards, extra_oids = excluded.extra_oids, updated_at = excluded.updated_at`,
      [old?.device_name ?? name, next.target, next.port, next.credential_id, next.vendor_key, next.variant,
        JSON.stringify(next.cards), JSON.stringify(extra), now]);
      this.app.audit.insert(tx, by.auditEntry('snmp.device_cards.update', name, {
        fields: Object.keys(body), credential_id: next.credential_id, cards: next.cards.length, extra_oids: extra.length,
      }));
    }, 'sync');
    return this.get(name, false);
  }
}

function generic(): VendorProfile { return profileByKey('generic')!; }
