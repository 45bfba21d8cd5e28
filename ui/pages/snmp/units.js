// Human units for SNMP figures, without browser imports (unit-tested in Node): link speeds and rates in
// bits per second (decimal: 1 Gbps = 10^9 bit/s, as links are sold), byte counters in binary units
// (KiB, MiB, GiB: 1 KiB = 1024 bytes), error and packet counts with thousands separators.

const trim = (n, digits) => {
  const s = n.toFixed(digits);
  return s.includes('.') ? s.replace(/\.?0+$/, '') : s;
};

/** 1000000000 -> "1 Gbps", 100000 -> "100 kbps", 0 -> "0 bps"; null -> "—". */
export function bps(n) {
  if (n === null || n === undefined || !Number.isFinite(n)) return '—';
  const units = ['bps', 'kbps', 'Mbps', 'Gbps', 'Tbps'];
  let v = Math.abs(n);
  let i = 0;
  while (v >= 1000 && i < units.length - 1) { v /= 1000; i++; }
  return `${n < 0 ? '-' : ''}${trim(v, v < 10 && i > 0 ? 2 : 1)} ${units[i]}`;
}

/** 1536 -> "1.5 KiB", 5 * 2^20 -> "5 MiB", 12 -> "12 B"; null -> "—". */
export function bytes(n) {
  if (n === null || n === undefined || !Number.isFinite(n)) return '—';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];
  let v = Math.abs(n);
  let i = 0;
  while (v >= 1024 && i < units.length - 1) { v /= 1024; i++; }
  return `${n < 0 ? '-' : ''}${trim(v, i === 0 ? 0 : v < 10 ? 2 : 1)} ${units[i]}`;
}

/** 1234567 -> "1,234,567" (en-US grouping, so it reads the same on every page); null -> "—". */
export function counter(n) {
  if (n === null || n === undefined || !Number.isFinite(n)) return '—';
  return Math.round(n).toLocaleString('en-US');
}

/**
 * Traffic rate between two readings of one interface's octet counters, in bits per second; null when
 * there is no earlier reading, no time passed, or a counter went backwards (wrapped or reset).
 * @param {{in_octets: number|null, out_octets: number|null}} prev @param {{in_octets: number|null, out_octets: number|null}} next
 * @param {number} seconds
 */
export function rates(prev, next, seconds) {
  const one = (a, b) => (a === null || b === null || a === undefined || b === undefined || b < a || !(seconds > 0) ? null : ((b - a) * 8) / seconds);
  return { in_bps: prev ? one(prev.in_octets, next.in_octets) : null, out_bps: prev ? one(prev.out_octets, next.out_octets) : null };
}
