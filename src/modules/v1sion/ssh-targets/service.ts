// SSH targets: the devices SSH enrichment logs in to. A target holds a reference to an inventory credential
// (ssh_password or ssh_key), never a secret; the pinned host key (trust on first use, cleared only by an
// administrator); and what the last enrichment learned (`facts`) or why it failed (`last_error`).
import { randomUUID } from 'node:crypto';
import { isIP } from 'node:net';
import type { Actor } from '../../../core/audit/types.js';
import type { AppContext } from '../../../core/context.js';
import { rangeNotAllowed } from '../../../core/allowed-ranges.js';
import { conflict, HttpError, invalid, notFound, type FieldError } from '../../../core/errors.js';
import { canonicalIp } from '../../../core/ip.js';
import type { Tx } from '../../../core/store/types.js';
import { iso } from '../../../core/clock.js';
import { brainServicesOf } from '../../brain/index.js';
import { summarise, type Facts, type FactsSummary, type TargetPlatform } from '../enrich-ssh/facts.js';
import { keyProblem, type HostKey } from '../enrich-ssh/ssh.js';
import { checkSubnet } from '../scan/ranges.js';

/** Inventory credential kinds an SSH target may use. */
export const SSH_CREDENTIAL_KINDS = ['ssh_password', 'ssh_key'] as const;

export interface TargetInput {
  name: string;
  host: string;
  port: number;
  credential_id: string;
  platform: TargetPlatform;
  tags: string[];
  host_key?: string | undefined;
}

export type TargetPatch = Partial<TargetInput>;

/** Why the last enrichment failed: a code, a message, when, and for a changed host key both fingerprints. */
export interface TargetError { code: string; message: string; at: string; [detail: string]: unknown }

export interface CredentialRef { id: string; short_id: string; name: string; kind: string; username: string | null }

export interface SshTarget {
  id: string;
  name: string;
  host: string;
  port: number;
  credential_id: string;
  credential: CredentialRef | null;
  platform: TargetPlatform;
  tags: string[];
  host_key: string | null;
  host_key_type: string | null;
  host_key_pinned_at: string | null;
  last_enriched_at: string | null;
  last_error: TargetError | null;
  summary: FactsSummary | null;
  created_at: string;
  updated_at: string;
  facts?: Facts | null;
}

export interface TargetRow {
  id: string; name: string; host: string; port: number; credential_id: string; platform: TargetPlatform; tags: string;
  host_key: string | null; host_key_type: string | null; host_key_pinned_at: number | null; facts: string | null;
  last_enriched_at: number | null; last_error: string | null; created_at: number; updated_at: number;
}

/** `SHA256:` and 43 characters of unpadded base64, as `ssh-keygen -l` prints a fingerprint. */
export const FINGERPRINT = /^SHA256:[A-Za-z0-9+/]{43}$/;

export class SshTargetService {
  constructor(private readonly app: AppContext) {}

  list(q: { limit: number; offset: number; q?: string | undefined; tag?: string | undefined }): { items: SshTarget[]; total: number } {
    const where: string[] = [];
    const args: string[] = [];
    if (q.q) { where.push('(instr(lower(name), lower(?)) > 0 OR instr(lower(host), lower(?)) > 0)'); args.push(q.q, q.q); }
    if (q.tag) { where.push('EXISTS (SELECT 1 FROM json_each(tags) WHERE value = ?)'); args.push(q.tag); }
    const w = where.length ? `WHERE ${where.join(' AND ')}` : '';
    const total = this.app.store.get<{ n: number }>(`SELECT count(*) AS n FROM v1sion_ssh_targets ${w}`, args)?.n ?? 0;
    const rows = this.app.store.all<TargetRow>(`SELECT * FROM v1sion_ssh_targets ${w} ORDER BY lower(name), id LIMIT ? OFFSET ?`,
      [...args, q.limit, q.offset]);
    return { items: rows.map((r) => this.out(r, false)), total };
  }

  get(id: string): SshTarget {
    return this.out(this.mustRow(id), true);
  }

  row(id: string): TargetRow | undefined {
    return this.app.store.get<TargetRow>('SELECT * FROM v1sion_ssh_targets WHERE id = ?', [id.toLowerCase()]);
  }

  private mustRow(id: string): TargetRow {
    const r = this.row(id);
    if (!r) throw notFound('SSH target');
    return r;
  }

  /** The oldest target for this address and port (enrichment of session addresses reuses it). */
  findByHost(host: string, port: number): TargetRow | undefined {
    return this.app.store.get<TargetRow>('SELECT * FROM v1sion_ssh_targets WHERE host = ? AND port = ? ORDER BY created_at, id LIMIT 1',
      [host, port]);
  }

  /** `admin`: whether the caller may pin a key in advance (host_key): a password goes only to keys an administrator pinned. */
  async create(body: TargetInput, by: Actor, admin = false): Promise<SshTarget> {
    if (body.host_key !== undefined && !admin) throw pinByHand();
    const errors: FieldError[] = [];
    const host = this.checkHost(body.host, errors);
    const cred = this.credential(body.credential_id, 'credential_id', errors);
    if (cred) await this.checkKey(cred.id, 'credential_id', errors);
    if (errors.length) throw invalid('SSH target', errors);
    const id = randomUUID();
    const now = this.app.clock.now();
    await this.app.store.write((tx) => {
      this.insert(tx, { ...body, host, credential_id: cred!.id }, id, now, by);
    }, 'sync');
    return this.get(id);
  }

  /** Inserts a target inside the caller's write (enrichment creates targets for session addresses). */
  insert(tx: Tx, t: TargetInput, id: string, now: number, by: Actor): void {
    tx.run(`INSERT INTO v1sion_ssh_targets (id, name, host, port, credential_id, platform, tags, host_key, host_key_type,
        host_key_pinned_at, created_at, updated_at, created_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, ?)`,
    [id, t.name, t.host, t.port, t.credential_id, t.platform, JSON.stringify(t.tags), t.host_key ?? null,
      t.host_key ? now : null, now, now, by.actor]);
    this.app.audit.insert(tx, by.auditEntry('v1sion.ssh_target_create', t.name, {
      id, host: t.host, port: t.port, credential_id: t.credential_id, platform: t.platform, fingerprint: t.host_key ?? null,
    }));
  }

  async update(id: string, patch: TargetPatch, by: Actor, admin = false): Promise<SshTarget> {
    if (patch.host_key !== undefined && !admin) throw pinByHand();
    const cur = this.mustRow(id);
    const errors: FieldError[] = [];
    const host = patch.host === undefined ? cur.host : this.checkHost(patch.host, errors);
    let credentialId = cur.credential_id;
    if (patch.credential_id !== undefined) {
      const cred = this.credential(patch.credential_id, 'credential_id', errors);
      if (cred) { credentialId = cred.id; await this.checkKey(cred.id, 'credential_id', errors); }
    }
    if (patch.host_key !== undefined && cur.host_key && patch.host_key !== cur.host_key) {
      errors.push({ path: 'host_key', message: `the host key is pinned (${cur.host_key}); an administrator clears the pin first ` +
        `(DELETE /api/v1sion/ssh-targets/${cur.id}/host-key)` });
    }
    if (errors.length) throw invalid('SSH target', errors);
    const pinNow = patch.host_key !== undefined && !cur.host_key;
    const next = {
      name: patch.name ?? cur.name, host, port: patch.port ?? cur.port, credential_id: credentialId,
      platform: patch.platform ?? cur.platform, tags: patch.tags ?? (JSON.parse(cur.tags) as string[]),
    };
    await this.app.store.write((tx) => {
      if (!tx.get('SELECT 1 AS x FROM v1sion_ssh_targets WHERE id = ?', [cur.id])) throw notFound('SSH target');
      tx.run(`UPDATE v1sion_ssh_targets SET name = ?, host = ?, port = ?, credential_id = ?, platform = ?, tags = ?, updated_at = ?
              WHERE id = ?`, [next.name, next.host, next.port, next.credential_id, next.platform, JSON.stringify(next.tags),
        this.app.clock.now(), cur.id]);
      if (pinNow) {
        tx.run('UPDATE v1sion_ssh_targets SET host_key = ?, host_key_type = NULL, host_key_pinned_at = ? WHERE id = ?',
          [patch.host_key!, this.app.clock.now(), cur.id]);
      }
      const changed = Object.keys(next).filter((k) => JSON.stringify(next[k as keyof typeof next]) !==
        JSON.stringify(k === 'tags' ? JSON.parse(cur.tags) : cur[k as keyof TargetRow]));
      this.app.audit.insert(tx, by.auditEntry('v1sion.ssh_target_update', next.name, {
        id: cur.id, changed: pinNow ? [...changed, 'host_key'] : changed,
      }));
    }, 'sync');
    return this.get(cur.id);
  }

  async remove(id: string, by: Actor): Promise<void> {
    const cur = this.mustRow(id);
    await this.app.store.write((tx) => {
      tx.run('DELETE FROM v1sion_ssh_targets WHERE id = ?', [cur.id]);
      this.app.audit.insert(tx, by.auditEntry('v1sion.ssh_target_delete', cur.name, { id: cur.id, host: cur.host }));
    }, 'sync');
  }

  /** Clears the pinned host key (administrators; audited): the next login trusts and pins whatever key it meets. */
  async clearHostKey(id: string, by: Actor): Promise<SshTarget> {
    const cur = this.mustRow(id);
    await this.app.store.write((tx) => {
      tx.run(`UPDATE v1sion_ssh_targets SET host_key = NULL, host_key_type = NULL, host_key_pinned_at = NULL, updated_at = ?
              WHERE id = ?`, [this.app.clock.now(), cur.id]);
      this.app.audit.insert(tx, by.auditEntry('v1sion.ssh_host_key_clear', cur.name, {
        // `fingerprint`, not `host_key`: the audit log hides detail keys ending in _key.
        id: cur.id, host: cur.host, port: cur.port, fingerprint: cur.host_key,
      }));
    }, 'sync');
    return this.get(cur.id);
  }

  /**
   * An administrator pins a key they compared with the device's own (the fingerprint a refused login reported):
   * from then on a password credential may log in. 409 while another key is pinned (clear that first).
   */
  async pinHostKey(id: string, key: { fingerprint: string; type?: string | undefined }, by: Actor): Promise<SshTarget> {
    const cur = this.mustRow(id);
    if (cur.host_key && cur.host_key !== key.fingerprint) {
      throw conflict(`${cur.name} has another key pinned (${cur.host_key}): clear it first (DELETE .../host-key)`, 'host_key_pinned');
    }
    const presented = cur.last_error ? (JSON.parse(cur.last_error) as TargetError) : null;
    const type = key.type ?? (presented?.presented === key.fingerprint && typeof presented.presented_type === 'string'
      ? presented.presented_type : null);
    await this.app.store.write((tx) => {
      tx.run(`UPDATE v1sion_ssh_targets SET host_key = ?, host_key_type = ?, host_key_pinned_at = ?, updated_at = ? WHERE id = ?`,
        [key.fingerprint, type, this.app.clock.now(), this.app.clock.now(), cur.id]);
      this.app.audit.insert(tx, by.auditEntry('v1sion.ssh_host_key_pin', cur.name, {
        id: cur.id, host: cur.host, port: cur.port, fingerprint: key.fingerprint, type, by_hand: true,
      }));
    }, 'sync');
    return this.get(cur.id);
  }

  // ---- what enrichment writes (inside its own transaction) ------------------------------------------

  /** Trust on first use: pins the key the first login met (only when no pin is there). */
  pin(tx: Tx, id: string, key: HostKey, by: Actor): void {
    const r = tx.run(`UPDATE v1sion_ssh_targets SET host_key = ?, host_key_type = ?, host_key_pinned_at = ?
                      WHERE id = ? AND host_key IS NULL`, [key.fingerprint, key.type, this.app.clock.now(), id]);
    if (r.changes > 0) {
      this.app.audit.insert(tx, by.auditEntry('v1sion.ssh_host_key_pin', id, { id, fingerprint: key.fingerprint, type: key.type }));
    }
  }

  recordSuccess(tx: Tx, id: string, facts: Facts, key: HostKey): void {
    tx.run(`UPDATE v1sion_ssh_targets SET facts = ?, last_enriched_at = ?, last_error = NULL,
              host_key_type = coalesce(host_key_type, ?) WHERE id = ?`,
    [JSON.stringify(facts), this.app.clock.now(), key.type, id]);
  }

  recordFailure(tx: Tx, id: string, error: TargetError): void {
    tx.run('UPDATE v1sion_ssh_targets SET last_error = ? WHERE id = ?', [JSON.stringify(error), id]);
  }

  // ---- checks ------------------------------------------------------------------------------------------

  /** An IP address (canonical, within the allowed ranges: 403 otherwise) or a host name. */
  checkHost(input: string, errors: FieldError[], field = 'host'): string {
    const host = input.trim();
    if (isIP(host.replace(/^\[(.*)\]$/, '$1'))) {
      const ip = canonicalIp(host.replace(/^\[(.*)\]$/, '$1'))!;
      const settings = this.app.config.get().discovery;
      checkAllowed(ip, settings.allowed_ranges, settings.max_prefix_v4);
      return ip;
    }
    if (!/^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/.test(host)) {
      errors.push({ path: field, message: 'an IP address or a host name' });
    }
    return host.toLowerCase();
  }

  /** The stored credential by UUID or CR-n; a field error when it is unknown or not an SSH kind. */
  credential(idOrSid: string, field: string, errors: FieldError[]): CredentialRef | null {
    const { items, secrets } = brainServicesOf(this.app);
    const row = items.findRow(idOrSid, 'credentials');
    if (!row) { errors.push({ path: field, message: `no stored credential ${idOrSid}` }); return null; }
    const data = items.toItem(row);
    const kind = String(data.kind);
    if (!SSH_CREDENTIAL_KINDS.includes(kind as never)) {
      errors.push({ path: field, message: `${String(data.short_id)} is a ${kind} credential; SSH needs ssh_password or ssh_key` });
      return null;
    }
    const need = kind === 'ssh_key' ? 'ssh_private_key' : 'password';
    if (!secrets.which(String(data.id)).includes(need)) {
      errors.push({ path: field, message: `${String(data.short_id)} has no ${need === 'password' ? 'password' : 'private key'} set` });
      return null;
    }
    return { id: String(data.id), short_id: String(data.short_id), name: String(data.name), kind,
      username: typeof data.username === 'string' ? data.username : null };
  }

  /** An ssh_key credential whose key ssh2 cannot read (PKCS#8, a wrong passphrase) is refused, when the vault is open. */
  private async checkKey(credentialId: string, field: string, errors: FieldError[]): Promise<void> {
    const { secrets, vault } = brainServicesOf(this.app);
    if (!vault.isUnlocked()) return; // checked again, with the same message, when enrichment reads it
    const plain = secrets.read(credentialId, 'held'); // only parsed here, sent nowhere
    if (!plain.ssh_private_key) return;
    const problem = await keyProblem(plain.ssh_private_key, plain.ssh_passphrase);
    if (problem) errors.push({ path: field, message: problem });
  }

  private credentialRef(id: string): CredentialRef | null {
    const { items } = brainServicesOf(this.app);
    const row = items.findRow(id, 'credentials');
    if (!row) return null;
    const data = items.toItem(row);
    return { id: String(data.id), short_id: String(data.short_id), name: String(data.name), kind: String(data.kind),
      username: typeof data.username === 'string' ? data.username : null };
  }

  out(r: TargetRow, withFacts: boolean): SshTarget {
    const facts = r.facts ? (JSON.parse(r.facts) as Facts) : null;
    const t: SshTarget = {
      id: r.id, name: r.name, host: r.host, port: r.port, credential_id: r.credential_id, credential: this.credentialRef(r.credential_id),
      platform: r.platform, tags: JSON.parse(r.tags) as string[], host_key: r.host_key, host_key_type: r.host_key_type,
      host_key_pinned_at: r.host_key_pinned_at === null ? null : iso(r.host_key_pinned_at),
      last_enriched_at: r.last_enriched_at === null ? null : iso(r.last_enriched_at),
      last_error: r.last_error ? (JSON.parse(r.last_error) as TargetError) : null,
      summary: facts ? summarise(facts) : null,
      created_at: iso(r.created_at), updated_at: iso(r.updated_at),
    };
    if (withFacts) t.facts = facts;
    return t;
  }
}

/** Pinning a key in advance is an administrator's act: a password credential is sent to whatever key is pinned. */
const pinByHand = () => new HttpError(403, 'host_key_pin_admin', 'Only an administrator pins a host key: a password credential ' +
  'is sent only to a host whose key an administrator pinned (or an administrator\'s enrichment met first)',
{ errors: [{ path: 'host_key', message: 'administrators only' }] });

/** An address SSH may reach: the ranges a scan may sweep (403 naming discovery.allowed_ranges otherwise). */
export function checkAllowed(ip: string, allowed: readonly string[], maxPrefixV4: number): void {
  try {
    checkSubnet(ip, { allowed, maxPrefixV4 });
  } catch (e) {
    if (e instanceof HttpError && e.status === 403) throw rangeNotAllowed(ip, 'reaches');
    throw e;
  }
}
