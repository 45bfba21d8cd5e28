// The fake zerotier-cli and tailscale (test/fakes/oob/) for the out-of-band tests: a scratch directory
// holding each fake's state file (the "daemon") and ZeroTier's home (zerotier-one.port), the environment
// the fakes read, and small helpers to read and change what the daemons hold.
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const FAKE_ZEROTIER_CLI = resolve('test/fakes/oob/zerotier-cli');
export const FAKE_TAILSCALE = resolve('test/fakes/oob/tailscale');
/** ZeroTier's auth token as its daemon holds it (24 characters, no newline: what zerotier-one writes). */
export const ZT_TOKEN = 'p8yqzt0xwuq6fblv3kh2rm1n';

export interface OobFakes {
  dir: string;
  ztHome: string;
  ztState: string;
  tsState: string;
  zt(): Promise<any>;
  setZt(patch: Record<string, unknown>): Promise<void>;
  ts(): Promise<any>;
  setTs(patch: Record<string, unknown>): Promise<void>;
  close(): Promise<void>;
}

/**
 * Sets FAKE_ZT_STATE, FAKE_ZT_HOME and FAKE_TS_STATE in this process's environment (the service runs its
 * programs with it). ZeroTier's home has its port file but no readable authtoken.secret, as for a
 * non-root user: the CLI must find the service's own copy through HOME.
 */
export async function startOobFakes(): Promise<OobFakes> {
  const dir = await mkdtemp(join(tmpdir(), 'netprobe-oob-'));
  const ztHome = join(dir, 'zerotier-one');
  await mkdir(ztHome);
  await writeFile(join(ztHome, 'zerotier-one.port'), '9993');
  const ztState = join(dir, 'zt.json');
  const tsState = join(dir, 'ts.json');
  await writeFile(ztState, JSON.stringify({ running: true, authtoken: ZT_TOKEN, address: '89e92ceee5', online: true, networks: {}, controller: {} }));
  await writeFile(tsState, JSON.stringify({
    daemon: true, backend_state: 'NeedsLogin', valid_auth_keys: [], ips: ['100.101.102.103', 'fd7a:115c:a1e0::4d01:6667'],
  }));
  process.env.FAKE_ZT_STATE = ztState;
  process.env.FAKE_ZT_HOME = ztHome;
  process.env.FAKE_TS_STATE = tsState;
  const read = async (f: string) => JSON.parse(await readFile(f, 'utf8'));
  // Under the fakes' own lock, so that a change never crosses one a running fake makes.
  const patch = async (f: string, p: Record<string, unknown>) => {
    for (let i = 0; ; i++) {
      try { await writeFile(`${f}.lock`, String(process.pid), { flag: 'wx' }); break; } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || i > 4000) throw e;
        await new Promise((r) => setTimeout(r, 5));
      }
    }
    try {
      await writeFile(`${f}.test`, JSON.stringify({ ...(await read(f)), ...p }));
      await rename(`${f}.test`, f);
    } finally { await rm(`${f}.lock`, { force: true }); }
  };
  return {
    dir, ztHome, ztState, tsState,
    zt: () => read(ztState), setZt: (p) => patch(ztState, p),
    ts: () => read(tsState), setTs: (p) => patch(tsState, p),
    close: () => rm(dir, { recursive: true, force: true }),
  };
}
