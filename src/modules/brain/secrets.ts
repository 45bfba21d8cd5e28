// Credential secrets over brain_secrets: the CredentialSecrets contract (contracts.ts) implemented with
// the vault. One row per credential and field, each sealed with AES-256-GCM bound to both (vault/service.ts).
// Plaintext exists only in memory, only while the vault is unlocked. See docs/vault.md.
import { badRequest, notFound, type FieldError } from '../../core/errors.js';
import type { Store, Tx } from '../../core/store/types.js';
import {
  CREDENTIAL_SECRET_FIELDS, SHORT_ID_PREFIX, type CredentialScope, type CredentialSecretField, type CredentialSecrets,
} from './contracts.js';
import { coversNetwork, outOfScope, ruleFor, storedRules, type SecretDestination } from './credentials/scope.js';
import type { Vault } from './vault/service.js';

/** Longest accepted secret value, in characters (an SSH private key with a long comment fits). */
export const SECRET_MAX_CHARS = 64 * 1024;

export interface CredentialSecretsOptions {
  /** Whether a credential exists; read() answers 404 for an unknown one. Without it, an unknown id reads as {}. */
  exists?: (credentialId: string) => boolean;
}

interface SecretRow {
  field: string;
  iv: Uint8Array;
  ciphertext: Uint8Array;
  tag: Uint8Array;
}

const FIELD_SET = new Set<string>(CREDENTIAL_SECRET_FIELDS);
const ORDER = new Map<string, number>(CREDENTIAL_SECRET_FIELDS.map((f, i) => [f, i]));
const byFieldOrder = (a: string, b: string) => (ORDER.get(a) ?? 99) - (ORDER.get(b) ?? 99);

export function isCredentialSecretField(f: string): f is CredentialSecretField {
  return FIELD_SET.has(f);
}

export function createCredentialSecrets(store: Store, vault: Vault, opts: CredentialSecretsOptions = {}): CredentialSecrets {
  return {
    assertUnlocked() {
      vault.assertUnlocked();
    },

    write(tx: Tx, credentialId: string, values: Partial<Record<CredentialSecretField, string | null>>) {
      const errors: FieldError[] = [];
      const entries: [CredentialSecretField, string | null][] = [];
      for (const [field, value] of Object.entries(values) as [string, unknown][]) {
        if (value === undefined) continue;
        if (!isCredentialSecretField(field)) { errors.push({ path: field, message: 'Not a secret field of a credential' }); continue; }
        if (value !== null && typeof value !== 'string') { errors.push({ path: field, message: 'Must be a string or null' }); continue; }
        if (typeof value === 'string' && value.length > SECRET_MAX_CHARS) {
          errors.push({ path: field, message: `Must be at most ${SECRET_MAX_CHARS} characters long` });
          continue;
        }
        entries.push([field, value]);
      }
      if (errors.length) throw badRequest(`Invalid secret fields: ${errors.map((e) => e.path).join(', ')}`, errors);
      // Removing a secret needs no key; storing one does (423 while locked or not set up).
      if (entries.some(([, v]) => v !== null)) vault.assertUnlocked();
      const now = vault.clock.iso();
      for (const [field, value] of entries) {
        if (value === null) {
          tx.run('DELETE FROM brain_secrets WHERE credential_id = ? AND field = ?', [credentialId, field]);
          continue;
        }
        const s = vault.encrypt(credentialId, field, value);
        tx.run(
          `INSERT OR REPLACE INTO brain_secrets (credential_id, field, iv, ciphertext, tag, updated_at)
           VALUES (?, ?, ?, ?, ?, ?)`,
          [credentialId, field, s.iv, s.ciphertext, s.tag, now],
        );
      }
    },

    which(credentialId: string): CredentialSecretField[] {
      return store.all<{ field: string }>('SELECT field FROM brain_secrets WHERE credential_id = ?', [credentialId])
        .map((r) => r.field)
        .filter(isCredentialSecretField)
        .sort(byFieldOrder);
    },

    read(credentialId: string, to: SecretDestination | 'held'): Partial<Record<CredentialSecretField, string>> {
      vault.assertUnlocked();
      if (opts.exists && !opts.exists(credentialId)) throw notFound('Credential');
      if (to !== 'held') {
        const refused = this.refusal(credentialId, to);
        if (refused) throw refused;
      }
      const rows = store.all<SecretRow>(
        'SELECT field, iv, ciphertext, tag FROM brain_secrets WHERE credential_id = ?', [credentialId]);
      const out: Partial<Record<CredentialSecretField, string>> = {};
      for (const r of rows.sort((a, b) => byFieldOrder(a.field, b.field))) {
        if (!isCredentialSecretField(r.field)) continue;
        out[r.field] = vault.decrypt(credentialId, r.field, r);
      }
      return out;
    },

    scope(credentialId: string): CredentialScope {
      const rules = storedRules(store, credentialId);
      return { rules: rules.map((r) => r.text), allows: (to) => ruleFor(rules, to) !== null, covers: (n) => coversNetwork(rules, n) };
    },

    refusal(credentialId: string, to: SecretDestination): Error | null {
      const rules = storedRules(store, credentialId);
      if (ruleFor(rules, to)) return null;
      const row = store.get<{ seq: number; name: string }>('SELECT seq, name FROM brain_items WHERE id = ?', [credentialId]);
      const cred = { id: credentialId, short_id: `${SHORT_ID_PREFIX.credentials}-${row?.seq ?? '?'}`, name: row?.name ?? '' };
      return outOfScope(cred, to, rules);
    },

    remove(tx: Tx, credentialId: string) {
      tx.run('DELETE FROM brain_secrets WHERE credential_id = ?', [credentialId]);
    },
  };
}
