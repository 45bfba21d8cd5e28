// Scan profiles: what to scan, how and when (schemas.ts), kept as rows of v1sion_scan_profiles, run by the
// scheduler (scheduler.ts) one at a time through the scan service (runs.ts). Every change, "run now" and
// "skip" is audited; runs are not (each is the profile's last_run, and its scans are kept with the profile).
import { randomUUID } from 'node:crypto';
import type { Actor } from '../../../core/audit/types.js';
import { iso, isoOrNull } from '../../../core/clock.js';
import type { AppContext } from '../../../core/context.js';
import { conflict, HttpError, invalid, notFound, type FieldError } from '../../../core/errors.js';
import { formatCidr } from '../../../core/ip.js';
import { snmpServicesOf } from '../../snmp/index.js';
import { checkSubnet, localLinks } from '../scan/ranges.js';
import type { ScanService } from '../scan/service.js';
import { STAGES } from '../scan/stages/index.js';
import { INPUTS } from '../scan/stages/types.js';
import type { SessionService } from '../sessions/service.js';
import { runProfile, type StoredRun } from './runs.js';
import { ProfileScheduler, type Due } from './scheduler.js';
import { anchorAfterRun, nextRun, type ProfileSchedule } from './schedule.js';
import type { CreateProfile, ProfileOut, UpdateProfile } from './schemas.js';

interface Row {
  id: string; name: string; subnets: string; snmp_enabled: number; credentials: string | null; stages: string | null;
  schedule: string; timezone: string; jitter_seconds: number; session_id: string | null; enabled: number; anchor_at: number;
  skipped_at: number | null; last_run: string | null; created_at: number; updated_at: number; created_by: string | null;
  missing_after_minutes: number | null; missing_after_scans: number | null;
}

/** A row with its JSON read. */
interface Profile {
  row: Row; subnets: string[]; credentials: string[] | null; stages: string[] | null; schedule: ProfileSchedule;
  lastRun: StoredRun | null;
}

const parse = (r: Row): Profile => ({
  row: r, subnets: JSON.parse(r.subnets) as string[], credentials: r.credentials ? JSON.parse(r.credentials) as string[] : null,
  stages: r.stages ? JSON.parse(r.stages) as string[] : null, schedule: JSON.parse(r.schedule) as ProfileSchedule,
  lastRun: r.last_run ? JSON.parse(r.last_run) as StoredRun : null,
});

export class ScanProfiles {
  readonly scheduler: ProfileScheduler;

  constructor(private readonly app: AppContext, private readonly scans: ScanService, private readonly sessions: SessionService) {
    this.scheduler = new ProfileScheduler(app, {
      due: (now, busy) => this.all().flatMap((p) => {
        const n = this.next(p);
        return n && n.at <= now && !busy.has(p.row.id) ? [{ id: p.row.id, nominal: n.nominal }] : [];
      }),
      nextAt: (busy) => this.all().reduce<number | null>((min, p) => {
        const n = busy.has(p.row.id) ? null : this.next(p);
        return n && (min === null || n.at < min) ? n.at : min;
      }, null),
      run: (d, ctl) => this.run(d, ctl),
      personsScans: () => this.scans.personsJobs(),
    });
  }

  /** The probe's time zone: a profile created without one takes it (the form's default). */
  defaultTimezone(): string { return this.app.config.get().probe.timezone; }

  /** The stages a profile may choose, in the order they run. */
  stages() { return STAGES.map((s) => ({ name: s.name, phase: s.phase })); }

  private all(): Profile[] {
    return this.app.store.all<Row>('SELECT * FROM v1sion_scan_profiles ORDER BY name COLLATE NOCASE, id').map(parse);
  }

  private must(id: string): Profile {
    const r = this.app.store.get<Row>('SELECT * FROM v1sion_scan_profiles WHERE id = ?', [id.toLowerCase()]);
    if (!r) throw notFound('Scan profile');
    return parse(r);
  }

  private next(p: Profile) {
    if (!p.row.enabled) return null;
    return nextRun(p.schedule, p.row.timezone, p.row.id, p.row.anchor_at, p.row.jitter_seconds);
  }

  list(): { items: ProfileOut[]; total: number } {
    const items = this.all().map((p) => this.out(p));
    return { items, total: items.length };
  }
  get(id: string): ProfileOut { return this.out(this.must(id)); }

  /** What the profile says of missing devices (devices/merge.ts MissingRule), the parts it sets; {} for none or an unknown profile. */
  missingRule(id: string): { after_minutes?: number; after_scans?: number } {
    const r = this.app.store.get<Pick<Row, 'missing_after_minutes' | 'missing_after_scans'>>(
      'SELECT missing_after_minutes, missing_after_scans FROM v1sion_scan_profiles WHERE id = ?', [id]);
    return {
      ...(r?.missing_after_minutes != null ? { after_minutes: r.missing_after_minutes } : {}),
      ...(r?.missing_after_scans != null ? { after_scans: r.missing_after_scans } : {}),
    };
  }

  async create(body: CreateProfile, by: Actor): Promise<ProfileOut> {
    const checked = this.check(body);
    const id = randomUUID();
    const now = this.app.clock.now();
    const tz = body.timezone ?? this.defaultTimezone();
    await this.app.store.write((tx) => {
      tx.run(`INSERT INTO v1sion_scan_profiles (id, name, subnets, snmp_enabled, credentials, stages, schedule, timezone, jitter_seconds,
          session_id, enabled, anchor_at, created_at, updated_at, created_by, missing_after_minutes, missing_after_scans)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, [
        id, body.name, JSON.stringify(checked.subnets), body.snmp_enabled ? 1 : 0, json(checked.credentials), json(body.stages),
        JSON.stringify(body.schedule), tz, body.jitter_seconds, body.session_id, body.enabled ? 1 : 0, now, now, now, by.actor,
        body.missing_after_minutes, body.missing_after_scans]);
      this.app.audit.insert(tx, by.auditEntry('v1sion.profile_create', body.name,
        { id, subnets: checked.subnets, schedule: body.schedule }));
    }, 'sync');
    this.scheduler.arm();
    return this.get(id);
  }

  async update(id: string, body: UpdateProfile, by: Actor): Promise<ProfileOut> {
    const cur = this.must(id);
    const merged = {
      name: body.name ?? cur.row.name, subnets: body.subnets ?? cur.subnets, snmp_enabled: body.snmp_enabled ?? !!cur.row.snmp_enabled,
      credentials: body.credentials !== undefined ? body.credentials : cur.credentials,
      stages: body.stages !== undefined ? body.stages : cur.stages, schedule: body.schedule ?? cur.schedule,
      timezone: body.timezone ?? cur.row.timezone, jitter_seconds: body.jitter_seconds ?? cur.row.jitter_seconds,
      session_id: body.session_id !== undefined ? body.session_id : cur.row.session_id, enabled: body.enabled ?? !!cur.row.enabled,
      missing_after_minutes: body.missing_after_minutes !== undefined ? body.missing_after_minutes : cur.row.missing_after_minutes,
      missing_after_scans: body.missing_after_scans !== undefined ? body.missing_after_scans : cur.row.missing_after_scans,
    };
    const checked = this.check(merged);
    // A new schedule (or zone, or re-enabling) counts from now: it does not run at once for times it never had.
    const restart = JSON.stringify(merged.schedule) !== cur.row.schedule || merged.timezone !== cur.row.timezone
      || (merged.enabled && !cur.row.enabled);
    const now = this.app.clock.now();
    await this.app.store.write((tx) => {
      if (!tx.get('SELECT 1 AS x FROM v1sion_scan_profiles WHERE id = ?', [cur.row.id])) throw notFound('Scan profile');
      tx.run(`UPDATE v1sion_scan_profiles SET name = ?, subnets = ?, snmp_enabled = ?, credentials = ?, stages = ?, schedule = ?,
          timezone = ?, jitter_seconds = ?, session_id = ?, enabled = ?, anchor_at = ?, updated_at = ?, missing_after_minutes = ?,
          missing_after_scans = ? WHERE id = ?`, [
        merged.name, JSON.stringify(checked.subnets), merged.snmp_enabled ? 1 : 0, json(checked.credentials), json(merged.stages),
        JSON.stringify(merged.schedule), merged.timezone, merged.jitter_seconds, merged.session_id, merged.enabled ? 1 : 0,
        restart ? now : cur.row.anchor_at, now, merged.missing_after_minutes, merged.missing_after_scans, cur.row.id]);
      this.app.audit.insert(tx, by.auditEntry('v1sion.profile_update', merged.name, { id: cur.row.id, fields: Object.keys(body) }));
    }, 'sync');
    if (!merged.enabled) this.scheduler.drop(cur.row.id);
    this.scheduler.arm();
    return this.get(cur.row.id);
  }

  async remove(id: string, by: Actor): Promise<void> {
    const cur = this.must(id);
    await this.app.store.write((tx) => {
      tx.run('DELETE FROM v1sion_scan_profiles WHERE id = ?', [cur.row.id]);
      this.app.audit.insert(tx, by.auditEntry('v1sion.profile_delete', cur.row.name, { id: cur.row.id }));
    }, 'sync');
    this.scheduler.drop(cur.row.id);
  }

  /** Starts a run now (after the run or person's scan going on, if any); the schedule stays as it was. */
  async runNow(id: string, by: Actor): Promise<ProfileOut> {
    const cur = this.must(id);
    if (!this.scheduler.runNow(cur.row.id)) {
      throw conflict(`${cur.row.name} is already ${this.scheduler.stateOf(cur.row.id)?.state ?? 'running'}`, 'profile_busy');
    }
    await this.app.audit.record(by.auditEntry('v1sion.profile_run', cur.row.name, { id: cur.row.id }));
    return this.get(cur.row.id);
  }

  /** Skips the next scheduled run (also one waiting to start); 409 when disabled or when a run is going on. */
  async skip(id: string, by: Actor): Promise<ProfileOut> {
    const cur = this.must(id);
    const n = this.next(cur);
    if (!n) throw conflict(`${cur.row.name} is disabled: it has no next run to skip`, 'profile_disabled');
    if (this.scheduler.stateOf(cur.row.id)?.state === 'running') {
      throw conflict(`${cur.row.name} is running now: cancel its scan instead`, 'profile_busy');
    }
    const anchor = anchorAfterRun(cur.schedule, n.nominal, this.app.clock.now());
    await this.app.store.write((tx) => {
      tx.run('UPDATE v1sion_scan_profiles SET anchor_at = ?, skipped_at = ? WHERE id = ?', [anchor, n.nominal, cur.row.id]);
      this.app.audit.insert(tx, by.auditEntry('v1sion.profile_skip', cur.row.name, { id: cur.row.id, skipped: iso(n.nominal) }));
    }, 'sync');
    this.scheduler.drop(cur.row.id);
    return this.get(cur.row.id);
  }

  /** One run (the scheduler's): the summary, the anchor (a scheduled run's) and the session, in one small write. */
  private async run(d: Due, ctl: { clear(): Promise<void>; onJob(jobId: string | null): void }): Promise<void> {
    let p: Profile;
    try { p = this.must(d.id); } catch { return; } // deleted while it waited
    const { run, sessionId } = await runProfile({ app: this.app, scans: this.scans, sessions: this.sessions, ...ctl }, {
      id: p.row.id, name: p.row.name, subnets: p.subnets, snmp_enabled: !!p.row.snmp_enabled, credentials: p.credentials,
      stages: p.stages, session_id: p.row.session_id,
    }, d.nominal === null ? 'now' : 'schedule', p.lastRun?.fingerprints ?? {});
    if (!this.scheduler.active) return;
    // Unchanged subnets keep the fingerprint they had; a subnet that failed this time is merged in full next time.
    const anchor = d.nominal === null ? null : anchorAfterRun(p.schedule, d.nominal, this.app.clock.now());
    await this.app.store.write((tx) => {
      tx.run(`UPDATE v1sion_scan_profiles SET last_run = ?, session_id = ?, anchor_at = coalesce(?, anchor_at) WHERE id = ?`,
        [JSON.stringify(run), sessionId, anchor, p.row.id]);
    }, 'sync');
    this.app.bus.emit('v1sion.profile.run', {
      profile_id: p.row.id, name: p.row.name, session_id: sessionId, state: run.state, job_ids: run.job_ids, counts: run.counts,
      new_nodes: run.new_nodes, missing_nodes: run.missing_nodes, updated_nodes: run.updated_nodes, error: run.error,
    });
  }

  /**
   * The checks beyond the schema, each naming its field: every subnet as a scan checks it (403 naming
   * discovery.allowed_ranges outside the allowed ranges), stored SNMP credentials by reference (their
   * UUIDs kept), known stages each after what it needs, a session that exists.
   */
  private check(b: { subnets: string[]; credentials: string[] | null; stages: string[] | null; session_id: string | null }) {
    const errors: FieldError[] = [];
    const settings = this.app.config.get().discovery;
    const links = localLinks();
    const subnets: string[] = [];
    let outside: { path: string; message: string } | null = null;
    b.subnets.forEach((s, i) => {
      try {
        const c = formatCidr(checkSubnet(s, { allowed: settings.allowed_ranges, maxPrefixV4: settings.max_prefix_v4, links }));
        if (subnets.includes(c)) errors.push({ path: `subnets.${i}`, message: `${c} is given twice` });
        subnets.push(c);
      } catch (e) {
        if (!(e instanceof HttpError)) throw e;
        if (e.status === 403) outside ??= { path: `subnets.${i}`, message: e.message };
        else errors.push(...(e.errors ?? []).map((x) => ({ ...x, path: `subnets.${i}` })));
      }
    });
    const credentials = b.credentials?.map((ref, i) => {
      try { return snmpServicesOf(this.app).targets.credential(ref, `credentials.${i}`).id; } catch (e) {
        if (e instanceof HttpError && e.errors) { errors.push(...e.errors); return ref; }
        throw e;
      }
    }) ?? null;
    if (b.stages) {
      const chosen = STAGES.filter((s) => b.stages!.includes(s.name));
      b.stages.forEach((name, i) => {
        if (!STAGES.some((s) => s.name === name)) errors.push({ path: `stages.${i}`, message: `No stage "${name}"` });
      });
      for (const s of chosen) {
        const missing = s.needs.filter((n) => !(INPUTS as readonly string[]).includes(n)
          && !chosen.some((o) => o !== s && o.adds.products?.includes(n as never)));
        if (missing.length) {
          const by = missing.map((n) => STAGES.find((o) => o.adds.products?.includes(n as never))?.name ?? n);
          errors.push({ path: `stages.${b.stages.indexOf(s.name)}`, message: `${s.name} needs ${[...new Set(by)].join(', ')}` });
        }
      }
      if (!chosen.some((s) => s.phase === 'liveness')) errors.push({ path: 'stages', message: 'Choose at least one liveness stage' });
    }
    if (b.session_id && !this.sessions.exists(b.session_id)) errors.push({ path: 'session_id', message: `No session ${b.session_id}` });
    if (errors.length) throw invalid('scan profile', errors);
    if (outside) {
      throw new HttpError(403, 'range_not_allowed', (outside as { message: string }).message,
        { errors: [outside], extra: { config_key: 'discovery.allowed_ranges' } });
    }
    return { subnets, credentials };
  }

  private out(p: Profile): ProfileOut {
    const r = p.row;
    const live = this.scheduler.stateOf(r.id);
    const n = this.next(p);
    let lastRun = null;
    if (p.lastRun) {
      const { fingerprints: _fingerprints, ...rest } = p.lastRun;
      lastRun = rest;
    }
    return {
      id: r.id, name: r.name, subnets: p.subnets, snmp_enabled: !!r.snmp_enabled, credentials: p.credentials, stages: p.stages,
      schedule: p.schedule, timezone: r.timezone, jitter_seconds: r.jitter_seconds, session_id: r.session_id, enabled: !!r.enabled,
      missing_after_minutes: r.missing_after_minutes, missing_after_scans: r.missing_after_scans,
      state: live?.state ?? (r.enabled ? 'idle' : 'disabled'), next_run: n ? iso(n.at) : null, skipped: isoOrNull(r.skipped_at),
      last_run: lastRun, running_job_id: live?.jobId ?? null, created_at: iso(r.created_at), updated_at: iso(r.updated_at),
    };
  }
}

const json = (v: unknown) => (v === null || v === undefined ? null : JSON.stringify(v));
