// A stand-in appliance for the update helper without systemd: <dir>/opt (the release prefix), <dir>/data
// (the service's data directory), <dir>/cache (root's git cache), and the service itself, a tiny release run
// by test/fakes/update/supervisor.mjs on a free loopback port. runHelper() runs scripts/updater.mjs exactly
// as netprobe-update.service does, with the stop, start and log commands pointed at the supervisor.
import { createServer } from 'node:net';
import { mkdir, mkdtemp, readFile, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { run, type RunResult } from '../../src/core/exec.js';
import { TINY_MAIN } from './update-repo.js';

export const UPDATER = fileURLToPath(new URL('../../scripts/updater.mjs', import.meta.url));
const SUPERVISOR = fileURLToPath(new URL('../fakes/update/supervisor.mjs', import.meta.url));

export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

export interface Appliance {
  dir: string; prefix: string; data: string; cache: string; port: number;
  healthUrl: string;
  /** scripts/updater.mjs with these extra arguments (and env). */
  runHelper(args: string[], opts?: { signers?: string; env?: Record<string, string>; healthTimeout?: number }): Promise<RunResult>;
  /** What GET /api/version of the running service answers (null when nothing answers). */
  version(): Promise<string | null>;
  current(): Promise<string>;
  status(): Promise<any>;
  progress(): Promise<any[]>;
  db(): Promise<string>;
  log(): Promise<string>;
  stop(): Promise<void>;
  remove(): Promise<void>;
}

/** An appliance running release `version` (installed the way install.sh does), its database holding `dbText`. */
/**
 * `helperData`: the data directory the helper is told about (the in-process service's, in the API tests),
 * when it is not the one the tiny release runs with.
 */
export async function makeAppliance(version: string, opts: { dir?: string; dbText?: string; helperData?: string } = {}): Promise<Appliance> {
  const dir = opts.dir ?? await mkdtemp(join(tmpdir(), 'netprobe-appliance-'));
  const prefix = join(dir, 'opt'), data = join(dir, 'data'), cache = join(dir, 'cache'), state = join(dir, 'state');
  for (const d of [prefix, data, state]) await mkdir(d, { recursive: true });
  const rel = join(prefix, 'releases', version);
  await mkdir(join(rel, 'dist/src'), { recursive: true });
  await writeFile(join(rel, 'package.json'), JSON.stringify({ name: 'netprobe', version, type: 'module' }) + '\n');
  await writeFile(join(rel, 'release.json'), JSON.stringify({ version, schema: { core: 1 } }) + '\n');
  await writeFile(join(rel, 'dist/src/main.js'), TINY_MAIN('ok'));
  await symlink(`releases/${version}`, join(prefix, 'current'));
  await writeFile(join(data, 'netprobe.db'), opts.dbText ?? `database of ${version}\n`, { mode: 0o600 });
  const port = await freePort();
  const healthUrl = `http://127.0.0.1:${port}/api/version`;
  const supEnv = { SUP_PREFIX: prefix, SUP_DATA: data, SUP_PORT: String(port), SUP_STATE: state };
  const sup = (cmd: string) => run(process.execPath, [SUPERVISOR, cmd], { env: supEnv, timeoutMs: 30_000 });
  const a: Appliance = {
    dir, prefix, data, cache, port, healthUrl,
    runHelper(args, o = {}) {
      return run(process.execPath, [UPDATER, '--prefix', prefix, '--data', opts.helperData ?? data, '--cache', cache, '--signers', o.signers ?? join(dir, 'none'),
        '--health-url', healthUrl, '--health-timeout', String(o.healthTimeout ?? 30), ...args], {
        timeoutMs: 300_000,
        env: {
          ...supEnv,
          NETPROBE_UPDATE_STOP: JSON.stringify([process.execPath, SUPERVISOR, 'stop']),
          NETPROBE_UPDATE_START: JSON.stringify([process.execPath, SUPERVISOR, 'start']),
          NETPROBE_UPDATE_LOGS: JSON.stringify(['tail', '-n', '40', join(state, 'service.log')]),
          ...o.env,
        },
      });
    },
    async version() {
      try {
        const r = await fetch(healthUrl, { signal: AbortSignal.timeout(2000) });
        return ((await r.json()) as { version: string }).version;
      } catch { return null; }
    },
    current: () => readlink(join(prefix, 'current')),
    status: async () => JSON.parse(await readFile(join(opts.helperData ?? data, 'update-status.json'), 'utf8')),
    progress: async () => (await readFile(join(opts.helperData ?? data, 'update-progress.jsonl'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l)),
    db: () => readFile(join(data, 'netprobe.db'), 'utf8'),
    log: () => readFile(join(state, 'service.log'), 'utf8').catch(() => ''),
    async stop() { await sup('stop'); },
    async remove() { await sup('stop'); if (!opts.dir) await rm(dir, { recursive: true, force: true }); },
  };
  await sup('start');
  const end = Date.now() + 20_000;
  while ((await a.version()) !== version) {
    if (Date.now() > end) throw new Error(`the first release did not start: ${await a.log()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return a;
}
