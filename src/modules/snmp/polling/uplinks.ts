// Which interfaces of a polled device have an LLDP or CDP neighbour (watched by default: an uplink going
// down is what a person wants to hear of). Discovery owns the neighbour tables' parsers; it lends them here
// when it registers (provideUplinkFinder, v1sion/index.ts), so polling walks the roots it names with the
// device's own target and the parsing is discovery's, once. Without discovery nothing is watched by default.
import type { AppContext } from '../../../core/context.js';
import type { RawVarbind } from '../contracts.js';

export interface UplinkFinder {
  /** The subtrees to walk (interfaces, LLDP, CDP). */
  roots: readonly string[];
  /** Each local interface with an infrastructure neighbour (a switch, a router, an access point), and the neighbour's name. */
  uplinks(varbinds: readonly RawVarbind[]): { if_index: number; neighbour: string | null }[];
}

const lent = new WeakMap<AppContext, UplinkFinder>();

export function provideUplinkFinder(app: AppContext, finder: UplinkFinder): void { lent.set(app, finder); }

export function uplinkFinderOf(app: AppContext): UplinkFinder | undefined { return lent.get(app); }
