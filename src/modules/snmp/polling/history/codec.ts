// How one step of one interface is held in 40 bytes (the record of index.ts's file format), and the 16-bit
// log-scale code for rates: 0.03 % at worst, finer than any graph, half the bytes of a float32.

/** The eight rates of an IfPoint, in the order records and the ring hold them. */
export const RATES = [
  'in_bps', 'out_bps', 'in_pps', 'out_pps', 'in_errors_ps', 'out_errors_ps', 'in_discards_ps', 'out_discards_ps',
] as const;
export type Rate = (typeof RATES)[number];
export const NRATES = RATES.length;

export const RECORD_BYTES = 40;
/** Record offsets: in and out bps averages as float32 (billing reads them), the rest as 16-bit codes. */
const IN_AVG = 0;
const OUT_AVG = 4;
/** Codes: in_max, out_max, then avg and max of the six other rates. */
const CODES = 8;
const SAMPLES = 36;
const UP = 38;
/** up_share in 1/200 steps; this byte for unknown. */
const UP_UNKNOWN = 255;

// Code 0: unknown (a gap), 1: zero, 2..65535: MIN x e^((code-2) x STEP), from 1e-6/s (an error a week
// averaged over a day) to 1e13/s (10 Tb/s).
const MIN = 1e-6;
const STEP = Math.log(1e13 / MIN) / 65533;

export function encodeRate(v: number): number {
  if (!(v === v)) return 0; // NaN: unknown
  if (v <= 0) return 1;
  const c = Math.round(Math.log(v / MIN) / STEP) + 2;
  return c < 2 ? 2 : c > 65535 ? 65535 : c;
}

export function decodeRate(c: number): number {
  return c === 0 ? NaN : c === 1 ? 0 : MIN * Math.exp((c - 2) * STEP);
}

/** One step of one interface as plain numbers: NaN for unknown. */
export interface StepValues {
  avg: Float64Array; // NRATES
  max: Float64Array; // NRATES
  samples: number;
  /** 0..1, NaN when no point said. */
  up: number;
}

/** A gap: every value unknown. */
export const newStepValues = (): StepValues => ({
  avg: new Float64Array(NRATES).fill(NaN), max: new Float64Array(NRATES).fill(NaN), samples: 0, up: NaN,
});

export function writeRecord(buf: Buffer, at: number, s: StepValues): void {
  buf.writeFloatLE(s.avg[0]!, at + IN_AVG);
  buf.writeFloatLE(s.avg[1]!, at + OUT_AVG);
  buf.writeUInt16LE(encodeRate(s.max[0]!), at + CODES);
  buf.writeUInt16LE(encodeRate(s.max[1]!), at + CODES + 2);
  for (let r = 2; r < NRATES; r++) {
    buf.writeUInt16LE(encodeRate(s.avg[r]!), at + CODES + 4 * r - 4);
    buf.writeUInt16LE(encodeRate(s.max[r]!), at + CODES + 4 * r - 2);
  }
  buf.writeUInt16LE(Math.min(65535, s.samples), at + SAMPLES);
  buf[at + UP] = s.up === s.up ? Math.round(Math.min(1, Math.max(0, s.up)) * 200) : UP_UNKNOWN;
  buf[at + UP + 1] = 0;
}

export function readRecord(buf: Buffer, at: number, s: StepValues): void {
  s.avg[0] = buf.readFloatLE(at + IN_AVG);
  s.avg[1] = buf.readFloatLE(at + OUT_AVG);
  s.max[0] = decodeRate(buf.readUInt16LE(at + CODES));
  s.max[1] = decodeRate(buf.readUInt16LE(at + CODES + 2));
  for (let r = 2; r < NRATES; r++) {
    s.avg[r] = decodeRate(buf.readUInt16LE(at + CODES + 4 * r - 4));
    s.max[r] = decodeRate(buf.readUInt16LE(at + CODES + 4 * r - 2));
  }
  s.samples = buf.readUInt16LE(at + SAMPLES);
  const up = buf[at + UP]!;
  s.up = up === UP_UNKNOWN ? NaN : up / 200;
}
