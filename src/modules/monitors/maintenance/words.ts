// A maintenance window's times in words, in the window's own zone: the status pages' notices and the event
// log's lines say them the same way.
const formats = new Map<string, Intl.DateTimeFormat>();
function format(tz: string, part: 'day' | 'time'): Intl.DateTimeFormat {
  const key = `${tz}|${part}`;
  let f = formats.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat('en-GB', { timeZone: tz, ...(part === 'day' ? { weekday: 'long', day: 'numeric', month: 'short' }
      : { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }) });
    formats.set(key, f);
  }
  return f;
}

/** "Saturday 6 Dec 06:00–08:00 (Europe/Berlin)", or across days "Saturday 6 Dec 22:00 – Sunday 7 Dec 02:00 (UTC)". */
export function span(from: number, to: number, tz: string): string {
  const d = format(tz, 'day'), t = format(tz, 'time');
  const a = `${d.format(from).replace(',', '')} ${t.format(from)}`;
  const zone = ` (${tz.replace(/_/g, ' ')})`;
  if (d.format(from) === d.format(to)) return `${a}–${t.format(to)}${zone}`;
  return `${a} – ${d.format(to).replace(',', '')} ${t.format(to)}${zone}`;
}

/** "08:00 (UTC)" on the day of `now`, else "Sunday 7 Dec 08:00 (UTC)". */
export function when(t: number, tz: string, now: number): string {
  const d = format(tz, 'day');
  const day = d.format(t) === d.format(now) ? '' : `${d.format(t).replace(',', '')} `;
  return `${day}${format(tz, 'time').format(t)} (${tz.replace(/_/g, ' ')})`;
}
