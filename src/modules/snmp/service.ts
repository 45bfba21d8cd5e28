// The SNMP engine as other modules use it: walks with names and display values, identification of a
// device's vendor, model, serial and version, and reading OID cards. Discovery calls identify();
// the routes call walk(). Targets come from TargetResolver (which reads stored credentials).
import type { z } from 'zod';
import type { AppContext } from '../../core/context.js';
import { badRequest } from '../../core/errors.js';
import { createSnmpClient } from './client.js';
import type { RawVarbind, SnmpReader, SnmpTarget, SnmpVersion, Varbind } from './contracts.js';
import { readCards, type CardReading } from './cards.js';
import { toVarbind } from './display.js';
import { identify, type Identification } from './identify.js';
import { readInterfaces, type InterfaceTable } from './interfaces.js';
import { Limiter } from './limiter.js';
import { OidStore } from './oids/oid-store.js';
import type { WalkOptionValues } from './schemas.js';
import { TargetResolver, type AgentInput } from './targets.js';
import type { snmpConfig } from './config.js';
import type { Card } from './vendors/types.js';

export interface WalkRequest {
  target: SnmpTarget;
  oids: string[];
  max_repetitions?: number;
  max_varbinds?: number;
  signal?: AbortSignal;
}

export interface WalkResponse {
  target: string;
  version: SnmpVersion;
  elapsed_ms: number;
  count: number;
  truncated: boolean;
  varbinds: Varbind[];
}

export type SnmpSettings = z.infer<typeof snmpConfig>;

export function snmpSettings(app: AppContext): SnmpSettings {
  return app.config.get().snmp;
}

export class SnmpService {
  /** The OID store holds about 6.5 MiB once loaded: it is loaded on first use, not at start. */
  private oidStore: OidStore | undefined;
  readonly reader: SnmpReader;
  readonly targets: TargetResolver;
  private readonly limiter: Limiter;

  constructor(private readonly app: AppContext, reader: SnmpReader = createSnmpClient()) {
    this.reader = reader;
    this.targets = new TargetResolver(app);
    this.limiter = new Limiter(snmpSettings(app).max_concurrent_walks, 32);
  }

  get oids(): OidStore { return (this.oidStore ??= OidStore.load()); }

  /** Applies a changed snmp.max_concurrent_walks. */
  reconfigure(): void { this.limiter.setLimit(snmpSettings(this.app).max_concurrent_walks); }

  /** Numeric roots for names or OIDs as a caller wrote them; 400 naming `oids.N` for unknown names. */
  roots(oids: string[], field = 'oids'): string[] {
    const errors: { path: string; message: string }[] = [];
    const out = oids.map((o, i) => {
      const oid = this.oids.oidOf(o.trim());
      const defs = oid ? [] : this.oids.definitions(o);
      if (defs.length > 1) {
        errors.push({ path: `${field}.${i}`, message: `"${o.trim()}" is defined by several MIB modules: write one of ${defs.join(', ')}` });
      } else if (!oid) {
        errors.push({ path: `${field}.${i}`, message: `unknown OID or name "${o}"` });
      }
      return oid ?? '';
    });
    if (errors.length) throw badRequest('Unknown OID names', errors);
    return out;
  }

  /** Walks each root's subtree in order; names and display values from the OID store. */
  async walk(req: WalkRequest): Promise<WalkResponse> {
    const maxVarbinds = req.max_varbinds ?? snmpSettings(this.app).max_varbinds;
    const result = await this.limiter.run(() => this.reader.walk(req.target, req.oids, {
      max_repetitions: req.max_repetitions, max_varbinds: maxVarbinds, signal: req.signal,
    }));
    return {
      target: req.target.host,
      version: req.target.version,
      elapsed_ms: Math.round(result.elapsed_ms),
      count: result.varbinds.length,
      truncated: result.truncated,
      varbinds: result.varbinds.map((vb) => this.named(vb)),
    };
  }

  named(vb: RawVarbind): Varbind { return toVarbind(vb, this.oids); }

  /** Vendor, OS, model, serial and version of the agent at `target` (what discovery calls). */
  /** A walk for an agent as the API describes it (address, inline or stored credential) with walk options. */
  async walkAgent(agent: AgentInput, oids: string[], opts: WalkOptionValues, signal?: AbortSignal): Promise<WalkResponse> {
    const roots = this.roots(oids);
    const settings = snmpSettings(this.app);
    const target = await this.targets.reach(agent, {
      timeout_ms: opts.timeout !== undefined ? Math.round(opts.timeout * 1000) : settings.timeout_ms,
      retries: opts.retries ?? settings.retries,
    });
    const r = await this.walk({ target, oids: roots, max_repetitions: opts.max_repetitions, max_varbinds: opts.max_varbinds, signal });
    return { ...r, target: agent.target }; // as asked: the name, though the address it resolved to was reached
  }

  identify(target: SnmpTarget): Promise<Identification> {
    return identify(this.reader, target, this.oids, () => this.app.clock.now());
  }

  /** Reads the cards' values from the device now; values carry the time they were read. */
  readCards(target: SnmpTarget, cards: Card[]): Promise<CardReading[]> {
    return readCards(this.reader, target, cards, this.oids, () => this.app.clock.now());
  }

  /** The device's IF-MIB interface table, read now (counts against snmp.max_concurrent_walks). */
  readInterfaces(target: SnmpTarget, signal?: AbortSignal): Promise<InterfaceTable> {
    return this.limiter.run(() => readInterfaces(this.reader, target, this.oids, () => this.app.clock.now(), signal));
  }
}
