// What services need to say who made a change. A leaf: services use these without depending on HTTP.

export interface AuditEntryInput {
  action: string;
  actor: string | null;
  actor_user_id?: string | null;
  source_ip?: string | null;
  target?: string | null;
  outcome?: 'success' | 'failure';
  details?: Record<string, unknown>;
}

/** Who makes a change, as the services that write history and audit entries need it from a request. */
export interface Actor {
  actor: string | null;
  auditEntry(action: string, target?: string | null, details?: Record<string, unknown>): AuditEntryInput;
}

/** Writes audit entries; the store's Tx is the only other thing it needs to know of. */
export interface AuditLog {
  /** Records an entry in its own fsynced write. */
  record(entry: AuditEntryInput): Promise<void>;
  /** Records an entry inside a caller's write transaction, so the change and its audit land together. */
  insert(tx: import('../store/types.js').Tx, entry: AuditEntryInput): void;
}
