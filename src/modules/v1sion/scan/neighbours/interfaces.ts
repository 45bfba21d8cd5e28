// IF-MIB: ifTable and ifXTable joined on ifIndex.
import type { RawVarbind } from '../../../snmp/contracts.js';
import { IF } from './roots.js';
import type { Interface } from './types.js';
import { columnOf, intOf, macOf, textOf } from './values.js';

/** Every ifIndex any of the columns names, ascending. */
export function parseInterfaces(varbinds: readonly RawVarbind[]): Interface[] {
  const descr = columnOf(varbinds, IF.descr);
  const type = columnOf(varbinds, IF.type);
  const phys = columnOf(varbinds, IF.physAddress);
  const name = columnOf(varbinds, IF.name);
  const alias = columnOf(varbinds, IF.alias);
  const indexes = new Set<string>();
  for (const col of [descr, type, phys, name, alias]) for (const k of col.keys()) if (/^\d+$/.test(k)) indexes.add(k);
  return [...indexes]
    .map((k) => ({
      if_index: Number(k),
      name: textOf(name.get(k)),
      descr: textOf(descr.get(k)),
      alias: textOf(alias.get(k)),
      mac: macOf(phys.get(k)),
      type: intOf(type.get(k)),
    }))
    .sort((a, b) => a.if_index - b.if_index);
}

/** The name to show for an interface: ifName, else ifDescr. */
export const interfaceName = (i: Interface | undefined | null): string | null => i?.name ?? i?.descr ?? null;

/** ifIndex → interface. */
export const byIfIndex = (interfaces: readonly Interface[]) => new Map(interfaces.map((i) => [i.if_index, i]));
