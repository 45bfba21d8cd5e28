// Display formats: times in the browser's time zone, durations, response times, percentages.

const dtf = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
const rtf = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });

/** "22 Nov 2025, 10:15:02", or an em dash for no time. */
export function dateTime(iso) {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? String(iso) : dtf.format(d);
}

/** "3 minutes ago", "in 2 days". */
export function relTime(iso, now = Date.now()) {
  if (!iso) return '—';
  const s = (new Date(iso).getTime() - now) / 1000;
  if (!Number.isFinite(s)) return String(iso);
  const abs = Math.abs(s);
  if (abs < 45) return 'just now';
  const units = [['year', 31_536_000], ['month', 2_592_000], ['week', 604_800], ['day', 86_400], ['hour', 3600], ['minute', 60]];
  for (const [unit, secs] of units) {
    if (abs >= secs) return rtf.format(Math.round(s / secs), unit);
  }
  return rtf.format(Math.round(s), 'second');
}

/** Seconds as "45 s", "12 min", "3 h 20 min", "2 d 4 h". */
export function duration(seconds) {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return '—';
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 24) return m % 60 ? `${h} h ${m % 60} min` : `${h} h`;
  const d = Math.floor(h / 24);
  return h % 24 ? `${d} d ${h % 24} h` : `${d} d`;
}

/** Milliseconds as "12 ms", "1.4 s". */
export function ms(n) {
  if (n === null || n === undefined || !Number.isFinite(n)) return '—';
  return n < 1000 ? `${Math.round(n)} ms` : `${(n / 1000).toFixed(n < 10_000 ? 2 : 1)} s`;
}

/** 99.95 as "99.95 %", with at most two decimals. */
export function pct(n) {
  if (n === null || n === undefined || !Number.isFinite(n)) return '—';
  return `${n >= 99.995 && n < 100 ? '99.99' : Number(n.toFixed(2))} %`;
}

/** 1234 as "1,234" in the browser's locale. */
export const count = (n) => (Number.isFinite(n) ? n.toLocaleString() : '—');

/** "monitor_down" as "Monitor down". */
export function humanize(s) {
  if (!s) return '';
  const t = String(s).replace(/[_.]+/g, ' ');
  return t.charAt(0).toUpperCase() + t.slice(1);
}
