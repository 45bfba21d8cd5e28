// The check types as the web UI knows them (GET /api/monitors/check-types): each one's label, icon,
// hint and target field, its settings as JSON Schema (titles, descriptions and the presentation
// keywords of core/form-schema.ts; secrets writeOnly), the settings a monitor gets when it sends none,
// the monitor fields that apply to it alone, and the measurements its results carry. All of it comes
// from the definitions in checks/: a new check type is listed without a line of its own here, and the
// UI draws its form from the list.
import { z } from 'zod';
import { formSchema } from '../../../core/form-schema.js';
import { CHECK_TYPES, CHECKS, type CheckType } from '../checks/index.js';
import type { TypeThreshold } from '../checks/types.js';

/** Monitor fields that apply to some check types only (their degrade() reads them; the rest apply to every type). */
export const TYPE_MONITOR_FIELDS = ['max_loss_pct'] as const satisfies readonly TypeThreshold[];

export const CheckTypeSchema = z.object({
  type: z.enum(CHECK_TYPES),
  label: z.string().describe('Name for people'),
  icon: z.string().describe('The name of an icon in the web UI\'s set'),
  hint: z.string().describe('A few words on what it checks'),
  target: z.object({ title: z.string(), placeholder: z.string(), description: z.string() })
    .describe('The monitor\'s target for this type: the field\'s title, an example and what it takes'),
  settings: z.record(z.string(), z.unknown())
    .describe('JSON Schema of the settings (an object schema), with the presentation keywords of docs/api.md, "Forms from JSON Schema"'),
  defaults: z.record(z.string(), z.unknown()).describe('The settings a monitor of this type gets when it sends none'),
  monitor_fields: z.array(z.enum(TYPE_MONITOR_FIELDS))
    .describe('Monitor fields that apply to this type and not to every type (max_loss_pct: partial ping loss up to it is up)'),
  measurements: z.array(z.object({ name: z.string(), unit: z.string(), label: z.string(),
    unit_setting: z.string().optional()
      .describe('The setting whose value is the unit, for a measurement whose unit the monitor chooses (`unit` while it is empty)') }))
    .describe('Numbers its results carry besides the response time (a result\'s measurements, keyed by name); see docs/monitors.md'),
});
export type CheckTypeDescription = z.infer<typeof CheckTypeSchema>;

function describe(type: CheckType): CheckTypeDescription {
  const def = CHECKS[type];
  return {
    type, label: def.label, icon: def.icon, hint: def.hint, target: { ...def.target },
    settings: formSchema(def.settings, def.secretPaths),
    defaults: def.settings.parse({}) as Record<string, unknown>,
    monitor_fields: [...(def.degradeReads ?? [])],
    measurements: (def.measurements ?? []).map((m) => ({ name: m.name, unit: m.unit, label: m.label,
      ...(m.unitSetting ? { unit_setting: m.unitSetting } : {}) })),
  };
}

let cached: CheckTypeDescription[] | undefined;

/** Every check type, in the registry's order; built once (the definitions do not change while running). */
export function checkTypeList(): CheckTypeDescription[] {
  cached ??= CHECK_TYPES.map(describe);
  return cached;
}
