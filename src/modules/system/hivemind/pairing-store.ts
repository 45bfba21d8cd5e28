// The pairing in force (one row of hivemind_pairing, its secret sealed with the machine key) and the
// retained topics published under it. Nothing else of the pairing is kept anywhere: unpairing deletes
// the row, and with it the only copy of the secret.
import type { AuditEntryInput } from '../../../core/audit/types.js';
import type { AuditLog } from '../../../core/audit/types.js';
import type { Clock } from '../../../core/clock.js';
import type { SecretBox } from '../../../core/secretbox.js';
import type { Store, Tx } from '../../../core/store/types.js';
import type { Pairing } from './pairing-code.js';

export interface StoredPairing extends Pairing {
  paired_at: string;
  paired_by: string | null;
}

interface Row {
  broker_url: string; probe_id: string; secret: string; ca_pem: string | null; ca_sha256: string | null;
  paired_at: string; paired_by: string | null;
}

export class PairingStore {
  constructor(private deps: { store: Store; secretbox: SecretBox; clock: Clock; audit: AuditLog }) {}

  /**
   * The stored pairing; `secret` is null when it cannot be opened (the machine key changed): the
   * pairing is then shown but cannot connect until paired again.
   */
  load(): (Omit<StoredPairing, 'secret'> & { secret: string | null }) | null {
    const r = this.deps.store.get<Row>(
      'SELECT broker_url, probe_id, secret, ca_pem, ca_sha256, paired_at, paired_by FROM hivemind_pairing WHERE id = 1');
    if (!r) return null;
    const u = new URL(r.broker_url);
    const tls = u.protocol === 'mqtts:';
    return {
      url: r.broker_url, tls, host: u.hostname.replace(/^\[(.*)\]$/, '$1'), port: Number(u.port) || (tls ? 8883 : 1883),
      id: r.probe_id, secret: this.deps.secretbox.tryOpen(r.secret), ca: r.ca_pem, ca_sha256: r.ca_sha256,
      paired_at: r.paired_at, paired_by: r.paired_by,
    };
  }

  /**
   * Replaces the pairing (and forgets the retained topics of the previous one) with its audit entry, fsynced;
   * `also` joins the same transaction (emptying the event queue of another controller).
   */
  async save(p: Pairing, by: string | null, audit: AuditEntryInput, also?: (tx: Tx) => void): Promise<StoredPairing> {
    const sealed = this.deps.secretbox.seal(p.secret);
    const at = this.deps.clock.iso();
    await this.deps.store.write((tx) => {
      tx.run('DELETE FROM hivemind_pairing');
      tx.run('DELETE FROM hivemind_retained');
      tx.run('INSERT INTO hivemind_pairing (id, broker_url, probe_id, secret, ca_pem, ca_sha256, paired_at, paired_by) ' +
        'VALUES (1, ?, ?, ?, ?, ?, ?, ?)', [p.url, p.id, sealed, p.ca, p.ca_sha256, at, by]);
      also?.(tx);
      this.deps.audit.insert(tx, audit);
    }, 'sync');
    return { ...p, paired_at: at, paired_by: by };
  }

  /** Forgets the pairing and its retained topics, with the audit entry, fsynced; `also` joins the transaction. */
  async remove(audit: AuditEntryInput, also?: (tx: Tx) => void): Promise<void> {
    await this.deps.store.write((tx) => {
      tx.run('DELETE FROM hivemind_pairing');
      tx.run('DELETE FROM hivemind_retained');
      also?.(tx);
      this.deps.audit.insert(tx, audit);
    }, 'sync');
  }

  retainedTopics(): string[] {
    return this.deps.store.all<{ topic: string }>('SELECT topic FROM hivemind_retained ORDER BY topic').map((r) => r.topic);
  }

  /** Remembers topics that now hold a retained message of ours (group commit: losing one costs a stale retained state at worst). */
  async addRetained(topicsToAdd: string[]): Promise<void> {
    if (!topicsToAdd.length) return;
    await this.deps.store.write((tx) => {
      for (const t of topicsToAdd) tx.run('INSERT OR IGNORE INTO hivemind_retained (topic) VALUES (?)', [t]);
    }, 'group');
  }

  async dropRetained(topic: string): Promise<void> {
    await this.deps.store.write((tx) => { tx.run('DELETE FROM hivemind_retained WHERE topic = ?', [topic]); }, 'group');
  }
}
