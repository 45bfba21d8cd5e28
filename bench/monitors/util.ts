// Small helpers shared by bench/monitors.ts and its helpers.
export { freePort } from '../../test/helpers/net.js';


export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Nearest-rank percentile (p in 0..100) of an unsorted list; NaN when empty. */
export function percentile(xs: readonly number[], p: number): number {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}

export const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
export const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
export const int = (n: number) => Math.round(n).toLocaleString('en-US');
export function fmtMs(v: number): string {
  if (!Number.isFinite(v)) return 'n/a';
  return `${v.toFixed(Math.abs(v) < 10 ? 2 : Math.abs(v) < 100 ? 1 : 0)} ms`;
}
