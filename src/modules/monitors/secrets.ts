// Secret settings (CheckDefinition.secretPaths and isSecretHeader) are stored sealed with the machine key
// (core/secretbox.ts), so a copy of netprobe.db does not disclose them: sealed when written, opened
// only for the check run and to compare an update with what is stored. API responses show
// `{set: true}` for them whether sealed or not (redactSettings).
import { randomUUID } from 'node:crypto';
import type { AppContext } from '../../core/context.js';
import { isSealed, type SecretBox } from '../../core/secretbox.js';
import { secretSlots, slotKey, type CheckType, type Obj } from './checks/index.js';
import { parseJsonObject } from './schemas.js';

export interface OpenedSettings {
  settings: Obj;
  /** Paths ("settings.auth.password") of sealed values this probe cannot open (another key, or altered). */
  unreadable: string[];
  /** How many secrets were opened (settings holding clear secrets are not kept beyond the check run). */
  opened: number;
}

/**
 * A copy of stored settings with their secrets opened. A value that cannot be opened is listed and
 * replaced by `standIn` when given (so validation of an update still passes and sealSettings can put
 * the stored envelope back), else left sealed.
 */
export function openSettings(box: SecretBox, type: CheckType, stored: Obj, standIn?: string): OpenedSettings {
  const settings = structuredClone(stored); // stored settings passed validation: bounded depth
  const unreadable: string[] = [];
  let opened = 0;
  for (const [parent, key, path] of secretSlots(type, settings)) {
    const v = parent[key];
    if (!isSealed(v)) continue;
    const clear = box.tryOpen(v);
    if (clear !== null) {
      parent[key] = clear;
      opened++;
    } else {
      unreadable.push(`settings.${path}`);
      if (standIn !== undefined) parent[key] = standIn;
    }
  }
  return { settings, unreadable, opened };
}

/** A value no one types: stands in for a secret this probe cannot open while an update is validated. */
export const newStandIn = (): string => `unreadable-secret-${randomUUID()}`;

/**
 * Validated settings as they are stored: each non-empty secret sealed. A secret equal to the one
 * stored at the same place keeps its envelope (no new ciphertext, so an update that changes nothing
 * still changes nothing, and sealing stored settings again seals only their clear values), and so
 * does `standIn` (a stored secret this probe cannot open, kept as is).
 */
export function sealSettings(box: SecretBox, type: CheckType, settings: Obj, stored: Obj, standIn?: string): Obj {
  const before = new Map(secretSlots(type, stored).map(([p, k, path]) => [slotKey(path), p[k]]));
  const out = structuredClone(settings);
  for (const [parent, key, path] of secretSlots(type, out)) {
    const v = parent[key];
    if (typeof v !== 'string' || v === '') continue; // "" stays as is: it is shown as "", not {set: true}
    const prev = before.get(slotKey(path));
    const keep = isSealed(prev) && (v === prev || v === standIn || box.tryOpen(prev) === v);
    parent[key] = keep ? prev : box.seal(v);
  }
  return out;
}

/** Secrets that are stored in clear (written by an earlier build), per monitor row. */
function clearSecrets(type: CheckType, settings: Obj): number {
  return secretSlots(type, settings).filter(([p, k]) => typeof p[k] === 'string' && p[k] !== '' && !isSealed(p[k])).length;
}

/**
 * Start-up: seals the secrets an earlier build stored in clear, in one write, then checkpoints so
 * netprobe.db no longer holds them (secure_delete zeroes the replaced row bytes in that write).
 * Idempotent: sealed values are left alone. Also warns about sealed values this probe cannot open.
 */
export async function sealStoredSettings(app: Pick<AppContext, 'store' | 'secretbox' | 'log'>): Promise<void> {
  const log = app.log.child('monitors');
  type Row = { pk: number; check_type: CheckType; settings: string };
  const rows = app.store.all<Row>('SELECT pk, check_type, settings FROM monitors');
  let unreadable = 0;
  let pending = 0;
  for (const r of rows) {
    const s = parseJsonObject(r.settings);
    pending += clearSecrets(r.check_type, s);
    unreadable += openSettings(app.secretbox, r.check_type, s).unreadable.length;
  }
  if (unreadable) {
    log.warn('stored monitor secrets cannot be decrypted with this probe\'s machine key (restored from another probe?): re-enter them',
      { secrets: unreadable });
  }
  if (!pending) return;
  const sealed = await app.store.write((tx) => {
    let n = 0;
    tx.run('PRAGMA secure_delete = ON');
    for (const r of tx.all<Row>('SELECT pk, check_type, settings FROM monitors')) {
      const s = parseJsonObject(r.settings);
      const count = clearSecrets(r.check_type, s);
      if (!count) continue;
      tx.run('UPDATE monitors SET settings = ? WHERE pk = ?', [JSON.stringify(sealSettings(app.secretbox, r.check_type, s, s)), r.pk]);
      n += count;
    }
    tx.run('PRAGMA secure_delete = OFF');
    return n;
  }, 'sync');
  await app.store.checkpoint();
  log.info('sealed monitor secrets stored in clear by an earlier build', { secrets: sealed });
}
