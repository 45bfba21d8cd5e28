// The time zone picker of the setup wizard, the probe's settings, an inventory site and a maintenance window: the IANA zones
// this browser knows, UTC first, then by name, as a select. A stored zone this browser does not list
// (an older name) is offered too, so that editing never changes it unasked.
import { html, useMemo } from '../lib/html.js';
import { SelectField } from './field.js';

/** The choices: [{value, label}] with `current` among them; `optional` starts with "—" (no zone). */
export function timeZoneOptions(current, optional = false) {
  let list;
  try { list = Intl.supportedValuesOf('timeZone'); } catch { list = []; }
  const all = new Set(['UTC', ...list]);
  if (current) all.add(current);
  const zones = [...all].sort((a, b) => (a === 'UTC' ? -1 : b === 'UTC' ? 1 : a.localeCompare(b)))
    .map((z) => ({ value: z, label: z.replace(/_/g, ' ') }));
  return optional ? [{ value: '', label: '—' }, ...zones] : zones;
}

/** A time zone field bound to a useForm() form; `optional` lets it be left empty. */
export function TimeZoneField({ form, name, label = 'Time zone', hint, optional = false, class: cls = '' }) {
  const current = form.values[name];
  const options = useMemo(() => timeZoneOptions(current, optional), [current, optional]);
  return html`<${SelectField} form=${form} name=${name} label=${label} hint=${hint} options=${options} class=${cls} />`;
}
