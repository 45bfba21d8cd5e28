// Debian's snmpd on 127.0.0.1:<free UDP port> with its own configuration and persistent directory:
// a read-only v1/v2c community and SNMPv3 users at every security level. The users with SHA-2 and
// AES-256 are offered to snmpd and kept only when it accepts them (snmpd reports "unknown authProtocol"
// or "unknown privProtocol" for a createUser line its build cannot do), so `users` lists what this
// snmpd really supports. Community and keys are random per start. Also used by bench/snmp/walk.ts.
//
// snmpd runs in the foreground (-f) and is killed by stop(). It does not keep this process alive, so a
// test that fails before stop() still ends, and then the exit hook kills snmpd and removes its files.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SnmpTarget, V3Params } from '../../src/modules/snmp/contracts.js';
import { freeUdpPort } from './net.js';

/** Users every snmpd has, and the ones that need SHA-2 / AES-256 support. */
export type SnmpdUserKey = 'noAuthNoPriv' | 'authNoPriv' | 'authPriv' | 'sha256Aes256' | 'sha1Aes256b' | 'sha1Aes256r';

export interface Snmpd {
  host: '127.0.0.1';
  port: number;
  community: string;
  /** Users this snmpd accepted, by role; the optional ones are missing when snmpd lacks the protocols. */
  users: Partial<Record<SnmpdUserKey, V3Params>> & Record<'noAuthNoPriv' | 'authNoPriv' | 'authPriv', V3Params>;
  /** Optional users snmpd refused, with its reason. */
  unsupported: Partial<Record<SnmpdUserKey, string>>;
  /** The temporary directory with the configuration, persistent state and the client's own config path. */
  dir: string;
  /** Environment for Net-SNMP's command-line tools against this agent (no MIB loading, no user config). */
  cliEnv: Record<string, string>;
  pid: number;
  /** snmpd's log (its stdout and stderr). */
  log: string[];
  stop(): Promise<void>;
}

/** Net-SNMP's names for the protocols (createUser and the -a/-x options of snmpwalk). */
const AUTH_NAMES: Record<string, string> = { md5: 'MD5', sha: 'SHA', sha224: 'SHA-224', sha256: 'SHA-256', sha384: 'SHA-384', sha512: 'SHA-512' };
// Net-SNMP's AES-256 localizes keys the Blumenthal way and AES-256-C the Reeder ("Cisco") way.
const PRIV_NAMES: Record<string, string> = { des: 'DES', aes: 'AES', aes256b: 'AES-256', aes256r: 'AES-256-C' };

const secret = () => randomBytes(9).toString('base64url');

function makeUsers(): Record<SnmpdUserKey, V3Params> {
  const authPriv = (username: string, auth: V3Params['auth_protocol'], priv: V3Params['priv_protocol']): V3Params =>
    ({ username, level: 'authPriv', auth_protocol: auth, auth_key: secret(), priv_protocol: priv, priv_key: secret() });
  return {
    noAuthNoPriv: { username: 'np-noauth', level: 'noAuthNoPriv' },
    authNoPriv: { username: 'np-auth-sha', level: 'authNoPriv', auth_protocol: 'sha', auth_key: secret() },
    authPriv: authPriv('np-sha-aes', 'sha', 'aes'),
    sha256Aes256: authPriv('np-sha256-aes256', 'sha256', 'aes256b'),
    // With SHA-1 the localized key (20 bytes) is shorter than AES-256's, so these two really differ.
    sha1Aes256b: authPriv('np-sha-aes256b', 'sha', 'aes256b'),
    sha1Aes256r: authPriv('np-sha-aes256r', 'sha', 'aes256r'),
  };
}

const LEVEL_WORD: Record<V3Params['level'], string> = { noAuthNoPriv: 'noauth', authNoPriv: 'auth', authPriv: 'priv' };

function createUserLine(u: V3Params): string {
  let line = `createUser ${u.username}`;
  if (u.level !== 'noAuthNoPriv') line += ` ${AUTH_NAMES[u.auth_protocol!]} "${u.auth_key}"`;
  if (u.level === 'authPriv') line += ` ${PRIV_NAMES[u.priv_protocol!]} "${u.priv_key}"`;
  return line;
}

/** snmpwalk/snmpget arguments for a target's version and credentials (before the agent address). */
export function cliArgs(t: Pick<SnmpTarget, 'version' | 'community' | 'v3'>): string[] {
  if (t.version !== 'v3') return [t.version === 'v1' ? '-v1' : '-v2c', '-c', t.community!];
  const u = t.v3!;
  const args = ['-v3', '-u', u.username, '-l', u.level];
  if (u.level !== 'noAuthNoPriv') args.push('-a', AUTH_NAMES[u.auth_protocol!]!, '-A', u.auth_key!);
  if (u.level === 'authPriv') args.push('-x', PRIV_NAMES[u.priv_protocol!]!, '-X', u.priv_key!);
  return args;
}

/** Running snmpds and their directories, for the exit hook. */
const live = new Map<ChildProcess, string>();
let exitHook = false;
function killAllOnExit(): void {
  if (exitHook) return;
  exitHook = true;
  process.on('exit', () => {
    for (const [child, dir] of live) {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

interface Attempt { child: ChildProcess; log: string[]; ok: boolean }

/** Starts snmpd and waits for it to say it runs ("NET-SNMP version"), or to exit. */
async function startOn(port: number, dir: string, confFile: string, pidFile: string): Promise<Attempt> {
  const log: string[] = [];
  // -C -c: only our configuration; -f: foreground; -Lo: log to stdout; -I -smux: no SMUX listener on TCP 199.
  const child = spawn('snmpd', ['-C', '-c', confFile, '-f', '-Lo', '-I', '-smux', '-p', pidFile, `udp:127.0.0.1:${port}`],
    { env: { ...process.env, MIBS: '' }, stdio: ['ignore', 'pipe', 'pipe'] });
  live.set(child, dir);
  child.once('exit', () => live.delete(child));
  const ok = await new Promise<boolean>((resolve) => {
    let buf = '';
    const onData = (c: Buffer) => {
      buf += c.toString();
      const lines = buf.split('\n');
      buf = lines.pop()!;
      log.push(...lines);
      if (lines.some((l) => l.startsWith('NET-SNMP version'))) resolve(true);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('error', (e) => { log.push(String(e)); resolve(false); });
    child.once('exit', () => resolve(false));
  });
  return { child, log, ok };
}

export async function startSnmpd(opts: { extraConfig?: string[] } = {}): Promise<Snmpd> {
  killAllOnExit();
  const dir = await mkdtemp(join(tmpdir(), 'netprobe-snmpd-'));
  const persist = join(dir, 'persist');
  const clientConf = join(dir, 'client');
  await mkdir(persist);
  await mkdir(clientConf);
  const community = `c-${secret()}`;
  const all = makeUsers();
  const keys = Object.keys(all) as SnmpdUserKey[];
  // Line numbers matter: snmpd names the line of a createUser it cannot do.
  const header = [
    `[snmp] persistentDir ${persist}`,
    'dontLogTCPWrappersConnects yes',
    `rocommunity ${community} 127.0.0.1`,
    'sysLocation netprobe test agent',
    'sysContact netprobe tests',
  ];
  const createLines = keys.map((k) => createUserLine(all[k]));
  const conf = [...header, ...createLines, ...keys.map((k) => `rouser ${all[k].username} ${LEVEL_WORD[all[k].level]}`),
    ...(opts.extraConfig ?? [])];
  const confFile = join(dir, 'snmpd.conf');
  const pidFile = join(dir, 'snmpd.pid');
  await writeFile(confFile, conf.join('\n') + '\n', { mode: 0o600 });

  let attempt: Attempt | undefined;
  const failures: string[] = [];
  let port = 0;
  for (let i = 0; i < 5 && !attempt?.ok; i++) {
    port = await freeUdpPort();
    attempt = await startOn(port, dir, confFile, pidFile);
    if (!attempt.ok) failures.push(attempt.log.join('\n'));
  }
  if (!attempt?.ok) {
    await rm(dir, { recursive: true, force: true });
    throw new Error(`snmpd did not start (is the snmpd package installed?):\n${failures.join('\n---\n')}`);
  }
  const { child, log } = attempt;
  child.unref();
  (child.stdout as Socket).unref();
  (child.stderr as Socket).unref();

  const users: Partial<Record<SnmpdUserKey, V3Params>> = {};
  const unsupported: Partial<Record<SnmpdUserKey, string>> = {};
  keys.forEach((k, i) => {
    const lineNo = header.length + i + 1;
    const complaint = log.find((l) => l.includes(`${confFile}: line ${lineNo}:`));
    if (complaint) unsupported[k] = complaint.slice(complaint.indexOf('Error'));
    else users[k] = all[k];
  });
  for (const k of ['noAuthNoPriv', 'authNoPriv', 'authPriv'] as const) {
    if (!users[k]) throw new Error(`snmpd refused the ${k} user: ${unsupported[k]}`);
  }

  return {
    host: '127.0.0.1', port, community, dir, log, pid: child.pid!,
    users: users as Snmpd['users'],
    unsupported,
    cliEnv: { MIBS: '', SNMPCONFPATH: clientConf, SNMP_PERSISTENT_DIR: clientConf },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const gone = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        const t = setTimeout(() => child.kill('SIGKILL'), 3000);
        await gone;
        clearTimeout(t);
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
