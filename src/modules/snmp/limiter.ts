// Bounds how many walks run at once: each holds sockets, timers and up to max_varbinds results in memory,
// and a Pi has 1 GB. Callers beyond the limit wait in line; beyond the line's length they get a 429.
import { tooMany } from '../../core/errors.js';

export class Limiter {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private limit: number, private readonly maxWaiting: number) {}

  setLimit(n: number): void { this.limit = n; this.drain(); }

  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit) {
      if (this.waiting.length >= this.maxWaiting) throw tooMany('Too many SNMP walks are running; try again shortly', 2);
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.running++;
    }
    try {
      return await fn();
    } finally {
      this.running--;
      this.drain();
    }
  }

  private drain(): void {
    while (this.running < this.limit && this.waiting.length) {
      this.running++;
      this.waiting.shift()!();
    }
  }
}
