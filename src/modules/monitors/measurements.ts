// Which named measurements of a check result are kept: only those its check type declares
// (CheckDefinition.measurements), with a finite value the storage can hold. Any other name is dropped,
// and logged once per type and name: the result itself is always kept (its status is the monitor's
// uptime), while a name no declaration describes would be a series nobody can label, and a check that
// made up names could grow the name dictionary without bound. See docs/monitors.md, "Measurements".
import type { Logger } from '../../core/log.js';
import { CHECKS, type CheckType } from './checks/index.js';
import type { MeasurementDecl } from './checks/types.js';

/** The largest magnitude kept (10 Tbit/s in bit/s): the storage holds hundredths as safe integers. */
export const MAX_MEASUREMENT = 1e13;

const warned = new Set<string>();

/** The declarations of a check type (none for most). */
export function declaredOf(type: CheckType): readonly MeasurementDecl[] {
  return CHECKS[type]?.measurements ?? [];
}

/** The measurements of a result that its type declares, with a value that can be kept; null when none is left. */
export function keptMeasurements(type: CheckType, given: Record<string, number> | undefined, log: Logger):
  Record<string, number> | null {
  if (!given) return null;
  const declared = declaredOf(type);
  let out: Record<string, number> | null = null;
  for (const [name, value] of Object.entries(given)) {
    if (!declared.some((d) => d.name === name)) {
      const key = `${type}/${name}`;
      if (!warned.has(key)) {
        warned.add(key);
        log.warn('a check result carried a measurement its type does not declare; it is not kept', { check_type: type, name });
      }
      continue;
    }
    if (typeof value !== 'number' || !Number.isFinite(value) || Math.abs(value) > MAX_MEASUREMENT) continue;
    (out ??= {})[name] = Math.round(value * 100) / 100; // as the storage keeps it (hundredths)
  }
  return out;
}
