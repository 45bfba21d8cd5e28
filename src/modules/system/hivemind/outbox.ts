// Events waiting for the broker's PUBACK, in order, bounded: while the broker is unreachable they pile
// up to `limit`, then the oldest are dropped (and counted), so a long outage costs bounded memory. An
// event leaves only when acknowledged (QoS 1: at least once; one sent just before a connection drops
// may arrive twice). Held in memory: a restart while offline loses the queue (the retained states are
// republished on every connect, so the controller still converges on the current picture).

export interface Outgoing {
  seq: number;
  topic: string;
  payload: Buffer;
}

export class Outbox {
  private items: Outgoing[] = [];
  private nextSeq = 1;
  /** Events dropped because the queue was full, since the pairing began (or the process started). */
  dropped = 0;

  constructor(private limit: () => number) {}

  get size(): number { return this.items.length; }

  push(topic: string, payload: Buffer): void {
    this.items.push({ seq: this.nextSeq++, topic, payload });
    const over = this.items.length - Math.max(1, this.limit());
    if (over > 0) {
      this.items.splice(0, over);
      this.dropped += over;
    }
  }

  /** The oldest event not yet acknowledged. */
  peek(): Outgoing | undefined { return this.items[0]; }

  /** Removes an acknowledged event (by its sequence number: it may have been dropped meanwhile). */
  ack(seq: number): void {
    const i = this.items.findIndex((o) => o.seq === seq);
    if (i >= 0) this.items.splice(i, 1);
  }

  clear(): void {
    this.items = [];
    this.dropped = 0;
  }
}
