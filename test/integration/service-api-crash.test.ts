// Kill -9 the real service (a child process running src/main.ts) while API clients write through it, at
// random moments (also during start-up, and aimed at checkpoints), restart it on the same data directory,
// and check that every write it acknowledged is still there: through the API of the restarted service,
// and in the files themselves (a copy of the crashed directory opened with openStore in this process).
// Real processes, HTTP, files and fsync.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { access, cp, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../src/core/store/index.js';
import { HEADER_BYTES, JOURNAL_FILE } from '../../src/core/store/journal.js';
import { SNAPSHOT_TEMP_FILE } from '../../src/core/store/snapshot.js';
import { MIGRATIONS } from '../../src/main.js';
import { freePort } from '../helpers/net.js';
import { spawnService, type Exit, type ServiceProgram } from '../helpers/service-process.js';

const ROUNDS = 26;
/** Rounds that end with SIGTERM (a clean stop under load) instead of SIGKILL. */
const TERM_ROUNDS = new Set([9, 17, 25]);
/** Rounds whose SIGKILL is timed to land in start-up (module loading, snapshot load, replay, migrations). */
const isStartupRound = (round: number) => round % 4 === 3;
const KEY_CLIENTS = 4;
/** store.checkpoint_mb: 1 is the smallest value src/core/config/schema.ts accepts. */
const CHECKPOINT_BYTES = 1024 * 1024;
const ADMIN = { username: 'root-admin', password: 'correct horse battery staple' };
const CONFIG_YAML = `server:
  host: 127.0.0.1
log:
  level: debug          # the store logs each checkpoint at debug level
store:
  checkpoint_mb: 1      # the smallest allowed: checkpoints race the kills
  checkpoint_age_minutes: 1
  group_commit_ms: 50
`;

// Names and display names are padded to their 100-character limit so the journal grows faster.
const keyName = (id: string) => `${id}:`.padEnd(100, '.');
const idOfName = (name: string) => name.split(':')[0]!;
const displayName = (id: string) => `${id}:`.padEnd(100, '~');

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

// ---- HTTP (node:http with a per-process agent, so no pooled socket outlives its server) ----------

interface Res { status: number; headers: IncomingHttpHeaders; body: any; text: string }

function call(base: string, agent: Agent | false, method: string, path: string,
  o: { body?: unknown; headers?: Record<string, string>; timeoutMs?: number } = {}): Promise<Res> {
  return new Promise((resolve, reject) => {
    const data = o.body === undefined ? undefined : Buffer.from(JSON.stringify(o.body));
    const headers: Record<string, string | number> = { ...o.headers };
    if (data) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = data.length;
    }
    const req = httpRequest(base + path, { method, agent, headers, timeout: o.timeoutMs ?? 15_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('close', () => { if (!res.complete) reject(new Error(`${method} ${path}: response aborted`)); });
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: any = text;
        if ((res.headers['content-type'] ?? '').includes('json') && text) {
          try { body = JSON.parse(text); } catch { /* keep the text */ }
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text });
      });
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer in time`)));
    req.on('error', reject);
    req.end(data);
  });
}

// ---- the service process ---------------------------------------------------------------------------

class ServiceProcess {
  readonly proc: ChildProcess;
  readonly exited: Promise<Exit>;
  readonly agent = new Agent({ keepAlive: true, maxSockets: 32 });
  readonly spawnedAt = Date.now();
  exit: Exit | null = null;
  /** The signal the test sent, and whether the service had answered /api/version by then. */
  sent: NodeJS.Signals | null = null;
  readyBeforeSignal = false;
  ready = false;
  /** Checkpoints the service logged before the test signalled it (durations in ms). */
  checkpointMs: number[] = [];
  private readonly program: ServiceProgram;

  constructor(dir: string, port: number) {
    this.program = spawnService({ NETPROBE_DATA_DIR: dir, NETPROBE_PORT: String(port) }, { onLine: (line) => this.onLine(line) });
    this.proc = this.program.proc;
    this.exited = this.program.exited.then((exit) => {
      this.exit = exit;
      this.agent.destroy();
      return exit;
    });
  }

  private onLine(line: string): void {
    const m = /\[store\] (?:store: )?checkpoint (\{.*\})\s*$/.exec(line);
    if (m && !this.sent) {
      try { this.checkpointMs.push(Number((JSON.parse(m[1]!) as { ms: number }).ms)); } catch { this.checkpointMs.push(NaN); }
    }
  }

  signal(sig: NodeJS.Signals): void {
    if (this.sent || this.exit) return;
    this.sent = sig;
    this.readyBeforeSignal = this.ready;
    this.proc.kill(sig);
  }

  /** Waits for the exit; SIGKILLs it (and fails) if that takes too long. */
  async waitExit(label: string, ms = 20_000): Promise<Exit> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<null>((resolve) => { timer = setTimeout(() => resolve(null), ms); });
    const r = await Promise.race([this.exited, late]);
    clearTimeout(timer);
    if (r) return r;
    this.proc.kill('SIGKILL');
    await this.exited;
    throw new Error(`${label}: the service did not exit within ${ms} ms of ${this.sent}:\n${this.logTail()}`);
  }

  logTail(): string {
    return this.program.tail(60);
  }
}

/** Polls GET /api/version; false when the process exited (or was killed) first. */
async function waitReady(svc: ServiceProcess, base: string): Promise<boolean> {
  const deadline = Date.now() + 30_000;
  while (svc.exit === null && !svc.sent) {
    if (Date.now() > deadline) throw new Error(`the service did not answer /api/version within 30 s:\n${svc.logTail()}`);
    try {
      const r = await call(base, false, 'GET', '/api/version', { timeoutMs: 2000 });
      if (r.status === 200) {
        if (svc.sent) return false; // answered, but the kill was already on its way
        svc.ready = true;
        return true;
      }
    } catch { /* not listening yet */ }
    await sleep(15);
  }
  return false;
}

// ---- the test ---------------------------------------------------------------------------------------

// The timeout only guards against a hang: 26 rounds of a real service start take 120-140 s on a slow 2-core
// machine running the suite two files at a time (one run went past 150 s).
test('SIGKILL of the service under acknowledged API writes never loses one; the database stays intact', { timeout: 300_000 }, async (t) => {
  const t0 = Date.now();
  const dir = await mkdtemp(join(tmpdir(), 'netprobe-api-crash-'));
  await writeFile(join(dir, 'config.yaml'), CONFIG_YAML);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  let svc: ServiceProcess | null = null;
  t.after(async () => {
    if (svc && svc.exit === null) {
      svc.proc.kill('SIGKILL');
      await svc.exited;
    }
    await rm(dir, { recursive: true, force: true });
  });

  // What the clients did, across rounds.
  const attempted = new Set<string>(); // key ids whose create was sent
  const acked = new Set<string>(); // key ids whose 201 arrived
  const dnIndex = new Map<string, number>(); // display name -> order in which it was sent
  let dnFloor = -1; // index of the latest display name known durable (acknowledged or seen after a restart)
  let dnAcks = 0;
  let adminId = '';
  let apiKey = '';

  // Figures for the summary.
  let sigkills = 0, sigterms = 0, killedInStartup = 0, aimedKills = 0, tmpLeft = 0, staleJournal = 0, discarded = 0;
  let maxJournal = 0;
  const checkpointMs: number[] = [];
  let lastReadyMs = 1500;

  const checkDisplayName = (value: string | null, label: string) => {
    if (value === null) {
      assert.equal(dnFloor, -1, `${label}: display name is null, but ${dnFloor + 1} change(s) were acknowledged`);
      return;
    }
    const idx = dnIndex.get(value);
    assert.ok(idx !== undefined, `${label}: display name ${value.slice(0, 30)} was never sent`);
    assert.ok(idx >= dnFloor, `${label}: display name went back to #${idx} (${value.slice(0, 20)}) though #${dnFloor} was acknowledged`);
    dnFloor = idx; // whatever is on disk now is durable
  };

  /** Every acknowledged key through the API of the freshly started service. */
  async function verifyApi(s: ServiceProcess, label: string): Promise<void> {
    const seen = new Set<string>();
    let total = Infinity;
    for (let offset = 0; offset < total; offset += 500) {
      const r = await call(base, s.agent, 'GET', `/api/api-keys?limit=500&offset=${offset}`, { headers: { 'x-api-key': apiKey } });
      assert.equal(r.status, 200, `${label}: GET /api/api-keys: ${r.text}`);
      total = r.body.total;
      for (const k of r.body.items as { name: string }[]) seen.add(idOfName(k.name));
      if (!r.body.items.length) break;
    }
    assert.equal(seen.size, total, `${label}: the listing's total disagrees with the distinct names listed`);
    const missing = [...acked].filter((id) => !seen.has(id));
    assert.deepEqual(missing.slice(0, 10), [], `${label}: ${missing.length} acknowledged API keys missing from GET /api/api-keys`);
    const u = await call(base, s.agent, 'GET', `/api/users/${adminId}`, { headers: { 'x-api-key': apiKey } });
    assert.equal(u.status, 200, `${label}: GET /api/users/:id: ${u.text}`);
    checkDisplayName(u.body.display_name, `${label} (API)`);
  }

  /** Opens a copy of the crashed directory (so the next start sees the crash as it was) and checks it. */
  async function verifyFiles(label: string): Promise<void> {
    if (await access(join(dir, SNAPSHOT_TEMP_FILE)).then(() => true, () => false)) tmpLeft++;
    const journalBytes = await stat(join(dir, JOURNAL_FILE)).then((s) => s.size, () => 0);
    maxJournal = Math.max(maxJournal, journalBytes);
    const copy = await mkdtemp(join(tmpdir(), 'netprobe-api-crash-verify-'));
    try {
      await cp(dir, copy, { recursive: true });
      const store = await openStore({ dir: copy, migrations: MIGRATIONS, log: () => undefined });
      try {
        const st = store.stats();
        // Records in the journal but none replayed: killed between a checkpoint's rename and its truncation.
        if (journalBytes > HEADER_BYTES && st.replayed_records === 0) staleJournal++;
        if (st.discarded_bytes > 0) discarded++;
        assert.deepEqual(store.all('PRAGMA integrity_check'), [{ integrity_check: 'ok' }], `${label}: integrity_check`);
        assert.deepEqual(store.all('PRAGMA foreign_key_check'), [], `${label}: foreign_key_check`);
        const names = new Set(store.all<{ name: string }>('SELECT name FROM api_keys').map((r) => idOfName(r.name)));
        const missing = [...acked].filter((id) => !names.has(id));
        assert.deepEqual(missing.slice(0, 10), [], `${label}: ${missing.length} acknowledged API keys are not rows of api_keys`);
        const strangers = [...names].filter((id) => id !== 'test-admin' && !attempted.has(id));
        assert.deepEqual(strangers.slice(0, 10), [], `${label}: api_keys rows nobody created`);
        // Each create inserts its key and its audit entry in one transaction: both or neither.
        const n = store.get<{ keys: number; audits: number }>(
          "SELECT (SELECT count(*) FROM api_keys) AS keys, (SELECT count(*) FROM audit_log WHERE action = 'api_key.create') AS audits");
        assert.equal(n?.keys, n?.audits, `${label}: api_keys rows and their audit entries disagree`);
        const dn = store.get<{ display_name: string | null }>('SELECT display_name FROM users WHERE id = ?', [adminId]);
        assert.ok(dn, `${label}: the administrator is gone`);
        checkDisplayName(dn.display_name, `${label} (files)`);
      } finally {
        await store.close();
      }
    } finally {
      await rm(copy, { recursive: true, force: true });
    }
  }

  for (let round = 0; round < ROUNDS; round++) {
    const label = `round ${round}`;
    const startup = round > 0 && isStartupRound(round);
    const term = TERM_ROUNDS.has(round);
    const s: ServiceProcess = new ServiceProcess(dir, port);
    svc = s;
    const errors: Error[] = [];
    const clients: Promise<void>[] = [];
    let earlyTimer: NodeJS.Timeout | undefined;
    if (startup) earlyTimer = setTimeout(() => s.signal('SIGKILL'), Math.floor(lastReadyMs * (0.15 + Math.random() * 0.9)));

    try {
      const ready = await waitReady(s, base);
      if (ready && !startup) lastReadyMs = Date.now() - s.spawnedAt;

      if (ready && round === 0) {
        const pw = (await readFile(join(dir, 'initial-admin-password'), 'utf8')).trim();
        const b = await call(base, s.agent, 'POST', '/api/setup/bootstrap', { body: { setup_code: pw, ...ADMIN } });
        assert.equal(b.status, 201, `bootstrap: ${b.text}`);
        adminId = b.body.user.id;
        const l = await call(base, s.agent, 'POST', '/api/auth/login', { body: ADMIN, headers: { origin: base } });
        assert.equal(l.status, 200, `login: ${l.text}`);
        const cookie = String(l.headers['set-cookie']?.[0] ?? '').split(';')[0]!;
        assert.match(cookie, /^np_session=./);
        const k = await call(base, s.agent, 'POST', '/api/api-keys',
          { body: { name: 'test-admin', scopes: ['admin'] }, headers: { cookie, origin: base } });
        assert.equal(k.status, 201, `admin key: ${k.text}`);
        apiKey = k.body.key;
      } else if (ready) {
        try {
          await verifyApi(s, label);
        } catch (e) {
          // A start-up kill may cut the check short (a request fails); it is repeated next round. A failed
          // assertion is a real finding, killed or not.
          if (!s.sent || e instanceof assert.AssertionError) throw e;
        }
      }

      if (ready && !s.sent) {
        const keyClient = async (c: number) => {
          for (let n = 0; !s.sent; n++) {
            const id = `r${round}-c${c}-${n}`;
            attempted.add(id);
            try {
              const r = await call(base, s.agent, 'POST', '/api/api-keys',
                { headers: { 'x-api-key': apiKey }, body: { name: keyName(id), scopes: ['monitors:read'] } });
              if (r.status === 201) acked.add(id);
              else if (!s.sent) throw new Error(`${label}: POST /api/api-keys ${id}: ${r.status} ${r.text}`);
            } catch (e) {
              if (!s.sent) throw e;
            }
          }
        };
        // Display-name changes of the administrator, one at a time, so at most one is in doubt.
        const nameClient = async () => {
          for (let n = 0; !s.sent; n++) {
            const value = displayName(`r${round}-${n}`);
            const idx = dnIndex.size;
            dnIndex.set(value, idx);
            try {
              const r = await call(base, s.agent, 'PUT', `/api/users/${adminId}`,
                { headers: { 'x-api-key': apiKey }, body: { display_name: value } });
              if (r.status === 200) {
                dnFloor = Math.max(dnFloor, idx);
                dnAcks++;
              } else if (!s.sent) throw new Error(`${label}: PUT /api/users/:id: ${r.status} ${r.text}`);
            } catch (e) {
              if (!s.sent) throw e;
            }
          }
        };
        const guard = (p: Promise<void>) => p.catch((e: unknown) => { errors.push(e as Error); });
        for (let c = 0; c < KEY_CLIENTS; c++) clients.push(guard(keyClient(c)));
        clients.push(guard(nameClient()));

        if (!startup) {
          // Kill 100-1500 ms into the writes. Some rounds aim at a checkpoint instead (most of them once the
          // journal is half way there): they kill 0-30 ms after the journal passes checkpoint_mb (the
          // service has just queued one), or at once when a checkpoint truncated it between two polls; and
          // when the journal is within reach at the planned moment, they keep writing up to 2 s for it.
          const delay = 100 + Math.random() * 1400;
          let prevSize = await stat(join(dir, JOURNAL_FILE)).then((x) => x.size, () => 0);
          const aim = !term && Math.random() < (prevSize > CHECKPOINT_BYTES / 2 ? 0.8 : 0.3);
          const writesFrom = Date.now();
          for (;;) {
            if (errors.length || s.exit !== null) break;
            const size = await stat(join(dir, JOURNAL_FILE)).then((x) => x.size, () => 0);
            maxJournal = Math.max(maxJournal, size);
            // Over the bound, or just truncated by a checkpoint that finished between two polls.
            if (aim && (size > HEADER_BYTES + CHECKPOINT_BYTES || size < prevSize)) {
              await sleep(Math.random() * 30);
              aimedKills++;
              break;
            }
            prevSize = size;
            const elapsed = Date.now() - writesFrom;
            if (elapsed >= delay && !(aim && size > 0.6 * CHECKPOINT_BYTES && elapsed < delay + 2000)) break;
            await sleep(5);
          }
          s.signal(term ? 'SIGTERM' : 'SIGKILL');
        }
      }
      if (!startup && !s.sent) s.signal(term ? 'SIGTERM' : 'SIGKILL'); // it never became ready: exits below
      const exit = await s.waitExit(label);
      await Promise.all(clients);
      if (errors.length) throw errors[0]!;
      if (term) {
        assert.deepEqual(exit, { code: 0, signal: null }, `${label}: clean stop failed:\n${s.logTail()}`);
        sigterms++;
      } else {
        assert.equal(exit.signal, 'SIGKILL', `${label}: the service exited by itself (code ${exit.code}):\n${s.logTail()}`);
        sigkills++;
        if (!s.readyBeforeSignal) killedInStartup++;
      }
      assert.ok(round > 0 || ready, `the first start never answered:\n${s.logTail()}`);
      checkpointMs.push(...s.checkpointMs);
    } finally {
      clearTimeout(earlyTimer);
      if (s.exit === null) {
        s.proc.kill('SIGKILL');
        await s.exited;
      }
    }

    await verifyFiles(label);
  }

  // One last start: the API must show everything after the final crash too.
  const last = new ServiceProcess(dir, port);
  svc = last;
  assert.ok(await waitReady(last, base), `final start:\n${last.logTail()}`);
  await verifyApi(last, 'final start');
  last.signal('SIGTERM');
  assert.deepEqual(await last.waitExit('final stop'), { code: 0, signal: null }, `final stop:\n${last.logTail()}`);

  const avgCheckpointMs = checkpointMs.length ? checkpointMs.reduce((a, b) => a + b, 0) / checkpointMs.length : 0;
  t.diagnostic(`rounds=${ROUNDS} sigkill=${sigkills} sigterm=${sigterms} killed_in_startup=${killedInStartup} ` +
    `acknowledged_keys=${acked.size}/${attempted.size} acknowledged_display_names=${dnAcks} ` +
    `checkpoints_under_load=${checkpointMs.length} (avg ${avgCheckpointMs.toFixed(0)} ms) kills_aimed_at_checkpoint=${aimedKills} ` +
    `crash_left_tmp=${tmpLeft} crash_left_stale_journal=${staleJournal} torn_tails=${discarded} ` +
    `max_journal_kb=${Math.round(maxJournal / 1024)} elapsed_s=${((Date.now() - t0) / 1000).toFixed(1)}`);
  assert.ok(sigkills >= 20, 'at least 20 SIGKILL rounds');
  assert.ok(acked.size > ROUNDS * 10, 'the clients made progress');
  assert.ok(killedInStartup > 0, 'some kills landed in start-up');
});
