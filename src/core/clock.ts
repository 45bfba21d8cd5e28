// The one source of time. Services take a Clock so tests can move time instead of waiting.

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** ISO 8601 UTC with Z. */
  iso(ms?: number): string;
  setTimeout(fn: () => void, ms: number): { cancel(): void };
}

/** A time in milliseconds as the API writes it: ISO 8601 UTC with Z. */
export const iso = (ms: number): string => new Date(ms).toISOString();

/** iso() for a time that may be missing (never checked, not yet ended): null stays null. */
export const isoOrNull = (ms: number | null | undefined): string | null => (ms == null ? null : iso(ms));

export const systemClock: Clock = {
  now: () => Date.now(),
  iso: (ms?: number) => new Date(ms ?? Date.now()).toISOString(),
  setTimeout(fn, ms) {
    const t = setTimeout(fn, ms);
    t.unref?.();
    return { cancel: () => clearTimeout(t) };
  },
};

/** A clock that only moves when told to; due timers fire in order during advance(). */
export class ManualClock implements Clock {
  private timers: { at: number; fn: () => void; id: number }[] = [];
  private seq = 0;
  constructor(private ms = Date.parse('2026-01-01T00:00:00Z')) {}
  now(): number { return this.ms; }
  iso(ms?: number): string { return new Date(ms ?? this.ms).toISOString(); }
  setTimeout(fn: () => void, ms: number) {
    const id = ++this.seq;
    this.timers.push({ at: this.ms + Math.max(0, ms), fn, id });
    return { cancel: () => { this.timers = this.timers.filter((t) => t.id !== id); } };
  }
  advance(ms: number): void {
    const end = this.ms + ms;
    for (;;) {
      this.timers.sort((a, b) => a.at - b.at || a.id - b.id);
      const next = this.timers[0];
      if (!next || next.at > end) break;
      this.timers.shift();
      this.ms = next.at;
      next.fn();
    }
    this.ms = end;
  }
}
