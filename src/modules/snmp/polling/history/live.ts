// What the history holds in memory per interface, in typed arrays by slot (no object per interface or per
// point): the last hour's points as polled (a ring) and the two 5-minute steps that may be open at once
// (the one a late poll still belongs to, and the current one). About 1.5 KB an interface.
import type { IfPoint } from '../types.js';
import { decodeRate, encodeRate, NRATES, type StepValues } from './codec.js';

/** Points kept per interface: an hour at 60 s and a few to spare. */
export const RING = 64;

export class Live {
  /** slot -> key (0: free). */
  keyOf = new Uint32Array(0);
  private slots = new Map<number, number>();
  private free: number[] = [];
  private cap = 0;
  private sorted: Uint32Array | null = null;

  // The ring: times in epoch seconds, rates as 16-bit codes, up as 1/0/-1 (unknown).
  ringT = new Uint32Array(0);
  ringV = new Uint16Array(0);
  ringUp = new Int8Array(0);
  ringHead = new Uint8Array(0);
  ringLen = new Uint8Array(0);
  speed = new Float64Array(0);
  private scratch = new Float64Array(NRATES);

  // Open steps, by parity of the step number: [slot * 2 + parity] (x NRATES for the rates).
  sum = new Float64Array(0);
  max = new Float64Array(0);
  n = new Uint16Array(0);
  samples = new Uint16Array(0);
  upN = new Uint16Array(0);
  upKnown = new Uint16Array(0);

  get size(): number { return this.slots.size; }

  slotOf(key: number): number { return this.slots.get(key) ?? -1; }

  /** The slot of `key`, made when new. */
  slot(key: number): number {
    let s = this.slots.get(key);
    if (s !== undefined) return s;
    if (this.free.length === 0) this.grow(Math.max(64, Math.ceil(this.cap * 1.5))); // 1.5: 2,400 interfaces fill 2,458 slots
    s = this.free.pop()!;
    this.slots.set(key, s);
    this.keyOf[s] = key;
    this.sorted = null;
    return s;
  }

  /** Room for `n` interfaces in all. */
  reserve(n: number): void { if (n > this.cap) this.grow(n); }

  forget(key: number): boolean {
    const s = this.slots.get(key);
    if (s === undefined) return false;
    this.slots.delete(key);
    this.keyOf[s] = 0;
    this.ringHead[s] = 0; this.ringLen[s] = 0; this.speed[s] = NaN;
    this.resetStep(s, 0); this.resetStep(s, 1);
    this.free.push(s);
    this.sorted = null;
    return true;
  }

  /** Live keys ascending (a block's key list), cached until one comes or goes. */
  keys(): Uint32Array {
    if (!this.sorted) this.sorted = Uint32Array.from(this.slots.keys()).sort();
    return this.sorted;
  }

  addPoint(s: number, p: IfPoint, parity: number): void {
    const a = s * 2 + parity;
    const at = s * RING + this.ringHead[s]!;
    this.ringT[at] = Math.floor(p.t / 1000);
    // Fields copied by name into a typed array, then added in a loop: a keyed read (p[RATES[r]]) or a call
    // per rate would box each number (garbage at every poll of every interface).
    const x = this.scratch;
    x[0] = p.in_bps ?? NaN; x[1] = p.out_bps ?? NaN; x[2] = p.in_pps ?? NaN; x[3] = p.out_pps ?? NaN;
    x[4] = p.in_errors_ps ?? NaN; x[5] = p.out_errors_ps ?? NaN; x[6] = p.in_discards_ps ?? NaN; x[7] = p.out_discards_ps ?? NaN;
    for (let r = 0; r < NRATES; r++) {
      const v = x[r]!;
      if (!Number.isFinite(v)) { this.ringV[at * NRATES + r] = 0; continue; }
      this.ringV[at * NRATES + r] = encodeRate(v);
      const i = a * NRATES + r;
      this.sum[i]! += v;
      if (this.n[i] === 0 || v > this.max[i]!) this.max[i] = v;
      this.n[i]!++;
    }
    this.ringUp[at] = p.up === null ? -1 : p.up ? 1 : 0;
    this.ringHead[s] = (this.ringHead[s]! + 1) % RING;
    if (this.ringLen[s]! < RING) this.ringLen[s]!++;
    this.speed[s] = p.speed_bps ?? NaN;
    if (this.samples[a]! < 65535) this.samples[a]!++;
    if (p.up !== null) { this.upKnown[a]!++; if (p.up) this.upN[a]!++; }
  }

  /** The open step of `parity` at slot `s` as values, for a record. */
  stepValues(s: number, parity: number, out: StepValues): void {
    const a = s * 2 + parity;
    for (let r = 0; r < NRATES; r++) {
      const i = a * NRATES + r;
      const n = this.n[i]!;
      out.avg[r] = n ? this.sum[i]! / n : NaN;
      out.max[r] = n ? this.max[i]! : NaN;
    }
    out.samples = this.samples[a]!;
    out.up = this.upKnown[a] ? this.upN[a]! / this.upKnown[a]! : NaN;
  }

  resetStep(s: number, parity: number): void {
    const a = s * 2 + parity;
    this.sum.fill(0, a * NRATES, a * NRATES + NRATES);
    this.n.fill(0, a * NRATES, a * NRATES + NRATES);
    this.samples[a] = 0; this.upN[a] = 0; this.upKnown[a] = 0;
  }

  /** Calls fn for the ring's points of slot `s`, oldest first: time (s), the rate codes' offset in ringV, up. */
  forRing(s: number, fn: (t_s: number, v: number, up: number) => void): void {
    const len = this.ringLen[s]!;
    const head = this.ringHead[s]!;
    for (let k = len; k > 0; k--) {
      const at = s * RING + ((head - k + RING) % RING);
      fn(this.ringT[at]!, at * NRATES, this.ringUp[at]!);
    }
  }

  rate(v: number, r: number): number { return decodeRate(this.ringV[v + r]!); }

  private grow(cap: number): void {
    const old = this.cap;
    type A = Uint32Array | Uint16Array | Uint8Array | Int8Array | Float64Array;
    const g = <T extends A>(a: T, per: number, make: (n: number) => T): T => {
      const b = make(cap * per);
      b.set(a);
      return b;
    };
    this.keyOf = g(this.keyOf, 1, (n) => new Uint32Array(n));
    this.ringT = g(this.ringT, RING, (n) => new Uint32Array(n));
    this.ringV = g(this.ringV, RING * NRATES, (n) => new Uint16Array(n));
    this.ringUp = g(this.ringUp, RING, (n) => new Int8Array(n));
    this.ringHead = g(this.ringHead, 1, (n) => new Uint8Array(n));
    this.ringLen = g(this.ringLen, 1, (n) => new Uint8Array(n));
    this.speed = g(this.speed, 1, (n) => new Float64Array(n).fill(NaN));
    this.sum = g(this.sum, 2 * NRATES, (n) => new Float64Array(n));
    this.max = g(this.max, 2 * NRATES, (n) => new Float64Array(n));
    this.n = g(this.n, 2 * NRATES, (n) => new Uint16Array(n));
    this.samples = g(this.samples, 2, (n) => new Uint16Array(n));
    this.upN = g(this.upN, 2, (n) => new Uint16Array(n));
    this.upKnown = g(this.upKnown, 2, (n) => new Uint16Array(n));
    for (let s = cap - 1; s >= old; s--) this.free.push(s);
    this.cap = cap;
  }

  /** Every array, in a fixed order, for the image written at close (image.ts). */
  arrays(): (Uint32Array | Uint16Array | Uint8Array | Int8Array | Float64Array)[] {
    return [this.keyOf, this.ringT, this.ringV, this.ringUp, this.ringHead, this.ringLen, this.speed,
      this.sum, this.max, this.n, this.samples, this.upN, this.upKnown];
  }

  /**
   * Takes the arrays' bytes an image held for `cap` slots (the order of arrays()); rebuilds the key map. Every
   * array is slot-major, so an image of fewer slots than reserved fills the first ones.
   */
  restore(cap: number, parts: Buffer[]): void {
    if (cap > this.cap) this.grow(cap);
    this.arrays().forEach((m, i) => { parts[i]!.copy(Buffer.from(m.buffer, m.byteOffset, m.byteLength)); });
    this.slots.clear();
    this.free = [];
    for (let s = this.cap - 1; s >= 0; s--) {
      const k = this.keyOf[s]!;
      if (k) this.slots.set(k, s); else this.free.push(s);
    }
    this.sorted = null;
  }
}
