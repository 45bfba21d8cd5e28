// Events waiting for the broker's PUBACK, in order, bounded and on disk: while the broker is unreachable
// they pile up to `limit`, then the oldest are dropped (and counted), and a restart or a power cut while
// the uplink is down loses none of them (but the last group commit's window, as for check results). An
// event leaves only when acknowledged (QoS 1: at least once; one sent just before a connection drops, or
// acknowledged just before a crash, may arrive twice: its `id` lets the controller drop the repeat).
//
// Why a table written with group durability, not a store channel (docs/hivemind.md, "The event queue on
// disk", has the figures of bench/controller-queue.ts):
// - An event lives for milliseconds while the broker answers. Inserted and deleted between two
//   checkpoints, a row costs its journal records once (its payload and 22 to 46 bytes, the delete
//   included: 494 bytes for a 448-byte monitor.down) and nothing in the snapshot. A channel entry cannot
//   be deleted: every one is written twice (the journal, then its checkpoint's segment: 942 bytes for
//   the same event), the acknowledgements are entries too, and segments go only whole, by age.
// - 'group': the rows join the group commit that check results already make (one fsync every
//   store.group_commit_ms), so an event costs no fsync of its own; a burst (a scan's hosts) neither.
//   An event is as durable as the check result it reports, written by the same kind of write.
// - Acknowledgements are gathered for ACK_BATCH_MS and deleted by one statement; the highest `seq` ever
//   used is kept with them, so `seq` keeps rising across restarts when the table is empty.
// - While the broker is away, the queued rows are in every snapshot: at most `limit` payloads (1,000 by
//   default, 500 KiB), and the store spaces checkpoints by age by the snapshot's size anyway.
//
// The table holds exactly the events (deletedThrough, lastSeq]; those up to doneThrough are acknowledged
// or dropped (the acknowledged ones wait for the batched delete). Payloads are read back from the
// database when sent, not kept a second time in memory.
import { randomUUID } from 'node:crypto';
import type { Logger } from '../../../core/log.js';
import type { Store, Tx } from '../../../core/store/types.js';

/** How long acknowledgements are gathered before one write deletes their rows. */
export const ACK_BATCH_MS = 1000;
/** A delete of at least this many rows (a backlog sent) asks the store whether its free pages are worth a compaction. */
const RECLAIM_AFTER_ROWS = 256;

export interface Queued {
  seq: number;
  payload: Buffer;
}

export interface OutboxDeps {
  store: Store;
  /** hivemind.queue_limit, read at each event. */
  limit: () => number;
  log: Logger;
  ackBatchMs?: number;
}

export class Outbox {
  private lastSeq = 0;
  private doneThrough = 0;
  private deletedThrough = 0;
  private ackTimer: NodeJS.Timeout | null = null;
  /** Events dropped because the queue was full, since the pairing began. */
  dropped = 0;

  constructor(private readonly deps: OutboxDeps) {
    this.load();
  }

  /** Reads the queue's bounds and its drop count from the database (at start). */
  private load(): void {
    const s = this.deps.store.get<{ last_seq: number; dropped: number }>(
      'SELECT last_seq, dropped FROM hivemind_outbox_state WHERE id = 1');
    const r = this.deps.store.get<{ lo: number | null; hi: number | null }>('SELECT MIN(seq) AS lo, MAX(seq) AS hi FROM hivemind_outbox');
    this.lastSeq = Math.max(s?.last_seq ?? 0, r?.hi ?? 0);
    this.doneThrough = this.deletedThrough = r?.lo == null ? this.lastSeq : r.lo - 1;
    this.dropped = s?.dropped ?? 0;
  }

  /** Events waiting to be acknowledged. */
  get size(): number { return this.lastSeq - this.doneThrough; }

  /**
   * Queues one event; `build` makes its payload from the event's stable id and its sequence number. The
   * row is committed when this returns (group durability: on disk with the next group commit); beyond
   * the limit the oldest events go in the same write. A write that fails (the disk is full) loses the
   * event, logged.
   */
  push(build: (id: string, seq: number) => Buffer): void {
    const seq = this.lastSeq + 1;
    const payload = build(randomUUID(), seq);
    const over = seq - this.doneThrough - Math.max(1, Math.floor(this.deps.limit()));
    this.deps.store.write((tx) => {
      const cut = this.doneThrough + Math.max(0, over);
      if (over > 0) {
        tx.run('DELETE FROM hivemind_outbox WHERE seq <= ?', [cut]);
        tx.run('UPDATE hivemind_outbox_state SET dropped = ? WHERE id = 1', [this.dropped + over]);
      }
      tx.run('INSERT INTO hivemind_outbox (seq, payload) VALUES (?, ?)', [seq, payload]);
      tx.onCommit(() => {
        this.lastSeq = seq;
        if (over > 0) {
          this.dropped += over;
          this.doneThrough = this.deletedThrough = cut;
        }
      });
    }, 'group').catch((e: unknown) => {
      this.deps.log.warn('an event for the controller could not be queued', { seq, err: String((e as Error)?.message ?? e) });
    });
  }

  /** The oldest event not yet acknowledged. */
  peek(): Queued | undefined {
    if (this.size <= 0) return undefined;
    const r = this.deps.store.get<{ seq: number; payload: Uint8Array }>(
      'SELECT seq, payload FROM hivemind_outbox WHERE seq > ? ORDER BY seq LIMIT 1', [this.doneThrough]);
    return r ? { seq: r.seq, payload: Buffer.from(r.payload) } : undefined;
  }

  /**
   * An event the broker acknowledged (sent oldest first, so every one before it is done too); its row goes
   * with the next batched delete. One dropped meanwhile changes nothing.
   */
  ack(seq: number): void {
    if (seq <= this.doneThrough) return;
    this.doneThrough = Math.min(seq, this.lastSeq);
    this.ackTimer ??= setTimeout(() => { this.ackTimer = null; void this.deleteAcked(); }, this.deps.ackBatchMs ?? ACK_BATCH_MS);
    this.ackTimer.unref();
  }

  /**
   * Deletes the rows of acknowledged events now (also at shutdown); group durability. After a backlog
   * drained, the store may give its pages back (reclaim(): only when they are worth a rewrite).
   */
  async deleteAcked(): Promise<void> {
    if (this.ackTimer) { clearTimeout(this.ackTimer); this.ackTimer = null; }
    const through = this.doneThrough;
    const rows = through - this.deletedThrough;
    if (rows <= 0) return;
    try {
      await this.deps.store.write((tx) => {
        tx.run('DELETE FROM hivemind_outbox WHERE seq <= ?', [through]);
        tx.run('UPDATE hivemind_outbox_state SET last_seq = ? WHERE id = 1', [through]);
        tx.onCommit(() => { this.deletedThrough = Math.max(this.deletedThrough, through); });
      }, 'group');
    } catch (e) {
      const err = String((e as Error)?.message ?? e);
      this.deps.log.warn('acknowledged events could not be removed from the queue (they may be sent again)', { err });
      return;
    }
    if (rows >= RECLAIM_AFTER_ROWS) {
      await this.deps.store.reclaim()
        .catch((e: unknown) => this.deps.log.debug('reclaim after the queue drained failed', { err: String(e) }));
    }
  }

  /** Empties the queue and its drop count inside `tx` (a pairing saved or removed), in memory at its commit. */
  clearIn(tx: Tx): void {
    const last = this.lastSeq;
    tx.run('DELETE FROM hivemind_outbox');
    tx.run('UPDATE hivemind_outbox_state SET last_seq = ?, dropped = 0 WHERE id = 1', [last]);
    tx.onCommit(() => {
      this.doneThrough = this.deletedThrough = Math.max(this.doneThrough, last);
      this.dropped = 0;
    });
  }
}
