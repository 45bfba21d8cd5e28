// Scan profiles for the pages, as pure functions (no DOM, no requests): a profile as the form's values and
// the request body built back from them (only what changed on an edit), and the words for a schedule.

const S = 'schedule.';

/** The form's values of a profile (or of a new one, in the probe's zone, scanning `subnet`). */
export function toForm(p, zone, subnet = '') {
  const s = p?.schedule;
  return {
    name: p?.name ?? '',
    subnets: p?.subnets ?? (subnet ? [subnet] : []),
    snmp_enabled: p?.snmp_enabled ?? true,
    credentials: p?.credentials ?? [],
    stages: p?.stages ?? [],
    [`${S}kind`]: s?.kind ?? 'interval',
    [`${S}every`]: s?.kind === 'interval' ? String(s.every) : '15',
    [`${S}unit`]: s?.kind === 'interval' ? s.unit : 'minutes',
    [`${S}cron`]: s?.kind === 'cron' ? s.cron : '',
    timezone: p?.timezone ?? zone,
    jitter_seconds: String(p?.jitter_seconds ?? 60),
    session_id: p?.session_id ?? '',
    enabled: p?.enabled ?? true,
    missing_after_minutes: p?.missing_after_minutes == null ? '' : String(p.missing_after_minutes),
    missing_after_scans: p?.missing_after_scans == null ? '' : String(p.missing_after_scans),
  };
}

/** An optional number field: empty is null (the discovery settings apply). */
const orNull = (x) => (String(x ?? '').trim() === '' ? null : Number(x));

function scheduleOf(v) {
  return v[`${S}kind`] === 'cron' ? { kind: 'cron', cron: String(v[`${S}cron`]).trim() }
    : { kind: 'interval', every: Number(v[`${S}every`]), unit: v[`${S}unit`] };
}

/**
 * The request body: every field for a new profile; on an edit (`initial` given) only those that changed.
 * No credential chosen means the saved discovery credentials (null); every stage (or none) ticked, all (null).
 * `allStages`: the stage names the API lists.
 */
export function toBody(v, allStages, initial) {
  const stages = v.stages.length && v.stages.length < allStages.length ? allStages.filter((s) => v.stages.includes(s)) : null;
  const full = {
    name: v.name.trim(),
    subnets: v.subnets,
    snmp_enabled: v.snmp_enabled,
    credentials: v.credentials.length ? v.credentials : null,
    stages,
    schedule: scheduleOf(v),
    timezone: v.timezone,
    jitter_seconds: Number(v.jitter_seconds),
    session_id: v.session_id || null,
    enabled: v.enabled,
    missing_after_minutes: orNull(v.missing_after_minutes),
    missing_after_scans: orNull(v.missing_after_scans),
  };
  if (!initial) return full;
  const before = toBody(initial, allStages);
  return Object.fromEntries(Object.entries(full).filter(([k, x]) => JSON.stringify(x) !== JSON.stringify(before[k])));
}

/** "Every 15 minutes", "Every 2 hours", "Cron 0 3 * * * (Europe/Berlin)". */
export function scheduleText(p, zone) {
  const s = p.schedule;
  if (s.kind === 'interval') {
    const unit = s.unit === 'hours' ? 'hour' : 'minute';
    return s.every === 1 ? `Every ${unit}` : `Every ${s.every} ${unit}s`;
  }
  return `Cron ${s.cron}${p.timezone !== zone ? ` (${p.timezone.replace(/_/g, ' ')})` : ''}`;
}
