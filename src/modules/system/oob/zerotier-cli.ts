// ZeroTier One through `zerotier-cli -j` (the design card's choice; the program is a thin client of the
// service's local HTTP API on 127.0.0.1:9993). What the program does, from ZeroTierOne's one.cpp:
//   - the auth token comes from <home>/authtoken.secret (root's), else $HOME/.zeroTierOneAuthToken: the
//     service runs it with HOME set to its data directory, where netprobe-zerotier-token.service keeps a
//     0600 copy. Never -T<token>: argv is readable by every local user (/proc/<pid>/cmdline);
//   - exit 2 with a message on stderr for a missing token or port file, exit 2 "invalid network id", exit 1
//     for everything the service refuses or when it is down ("Error connecting to the ZeroTier service",
//     "0 join connection failed"); every message but the token and port ones on stdout;
//   - `-j info` and `-j listnetworks` print indented JSON, `-j join`/`-j leave` the service's compact answer:
//     `leave` says "OK" even for a network it is not in, but its JSON tells: {"result":true} or {}.
import path from 'node:path';
import { HttpError } from '../../../core/errors.js';
import { run, type RunResult } from '../../../core/exec.js';
import { withInstallHint } from './install-hints.js';

export interface ZeroTierSettings {
  program: string;
  /** -D<home>; empty: the program's default. */
  home: string;
  /** HOME for the program: the service's data directory, holding .zeroTierOneAuthToken. */
  tokenHome: string;
  timeoutMs: number;
}

export interface ZeroTierInfo { address: string; version: string; online: boolean; tunneled: boolean }

export interface ZeroTierNetwork {
  id: string;
  name: string;
  status: string;
  type: string;
  mac: string;
  device: string;
  assigned_addresses: string[];
  routes: { target: string; via: string | null }[];
}

export const TOKEN_FILE = '.zeroTierOneAuthToken';
export const NETWORK_ID = /^[0-9a-f]{16}$/;

export class ZeroTierCli {
  constructor(private readonly settings: () => ZeroTierSettings) {}

  async info(signal?: AbortSignal): Promise<ZeroTierInfo> {
    const j = await this.json('info', ['info'], signal) as Record<string, unknown>;
    return {
      address: str(j.address), version: str(j.version), online: j.online === true, tunneled: j.tcpFallbackActive === true,
    };
  }

  async listNetworks(signal?: AbortSignal): Promise<ZeroTierNetwork[]> {
    const j = await this.json('listnetworks', ['listnetworks'], signal);
    if (!Array.isArray(j)) throw badOutput('listnetworks', 'not a list');
    return j.filter((n): n is Record<string, unknown> => !!n && typeof n === 'object').map(toNetwork);
  }

  /** Joins (or re-joins: harmless); the network as the service has it right now (usually still REQUESTING_CONFIGURATION). */
  async join(nwid: string): Promise<ZeroTierNetwork> {
    const j = await this.json('join', ['join', nwid]) as Record<string, unknown>;
    return toNetwork({ nwid, ...j });
  }

  /** Leaves; true when the probe was a member (the CLI prints "200 leave OK" either way). */
  async leave(nwid: string): Promise<boolean> {
    const j = await this.json('leave', ['leave', nwid]) as Record<string, unknown>;
    return j.result === true;
  }

  private async json(what: string, args: string[], signal?: AbortSignal): Promise<unknown> {
    const r = await this.call(args, signal);
    if (r.code !== 0 || r.timed_out) throw zeroTierFailure(what, r, this.settings());
    try {
      return JSON.parse(r.stdout);
    } catch {
      throw badOutput(what, 'not JSON');
    }
  }

  private call(args: string[], signal?: AbortSignal): Promise<RunResult> {
    const s = this.settings();
    const argv = ['-j', ...(s.home ? [`-D${s.home}`] : []), ...args];
    return run(s.program, argv, { timeoutMs: s.timeoutMs, env: { HOME: s.tokenHome }, signal, maxBytes: 1024 * 1024 })
      .catch((e: unknown) => { throw withInstallHint(e, 'zerotier'); });
  }
}

function toNetwork(n: Record<string, unknown>): ZeroTierNetwork {
  const routes = Array.isArray(n.routes) ? n.routes : [];
  return {
    id: str(n.nwid ?? n.id).toLowerCase(),
    name: str(n.name),
    status: str(n.status),
    type: str(n.type),
    mac: str(n.mac),
    device: str(n.portDeviceName),
    assigned_addresses: Array.isArray(n.assignedAddresses) ? n.assignedAddresses.filter((a): a is string => typeof a === 'string') : [],
    routes: routes.filter((r): r is Record<string, unknown> => !!r && typeof r === 'object' && typeof r.target === 'string')
      .map((r) => ({ target: r.target as string, via: typeof r.via === 'string' ? r.via : null })),
  };
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

function badOutput(what: string, why: string): HttpError {
  return new HttpError(502, 'zerotier_bad_output', `zerotier-cli ${what} printed something this service cannot read (${why})`);
}

/** A failed run as the error the API answers, from what the program printed (one.cpp's texts). */
export function zeroTierFailure(what: string, r: RunResult, s: Pick<ZeroTierSettings, 'home' | 'tokenHome' | 'timeoutMs'>): HttpError {
  const text = `${r.stdout}\n${r.stderr}`;
  const line = firstLine(r.stderr) || firstLine(r.stdout) || `exit code ${r.code}`;
  if (r.timed_out) {
    return new HttpError(504, 'zerotier_timeout', `zerotier-cli ${what} did not finish within ${Math.round(s.timeoutMs / 1000)} s`);
  }
  if (/authtoken\.secret not found or readable/.test(text)) {
    return new HttpError(503, 'zerotier_token_missing',
      `zerotier-cli cannot read ZeroTier's auth token: ${line}. The service reads its own copy, ` +
      `${path.join(s.tokenHome, TOKEN_FILE)}, which netprobe-zerotier-token.service makes from ` +
      `${path.join(s.home || '/var/lib/zerotier-one', 'authtoken.secret')}: run "sudo systemctl start netprobe-zerotier-token.service"`,
      { extra: { fix: 'sudo systemctl enable --now netprobe-zerotier-token.path netprobe-zerotier-token.service' } });
  }
  if (/zerotier-one\.port not found|Error connecting to the ZeroTier service|^0 \w+ /m.test(text)) {
    return new HttpError(503, 'zerotier_service_down',
      `The ZeroTier service (zerotier-one) is not running or cannot be reached: ${line}`,
      { extra: { fix: 'sudo systemctl enable --now zerotier-one' } });
  }
  if (/^401 /m.test(r.stdout)) {
    return new HttpError(503, 'zerotier_token_rejected',
      'The ZeroTier service refused the auth token: the service\'s copy is stale; ' +
      'run "sudo systemctl start netprobe-zerotier-token.service" to copy it again');
  }
  if (/^invalid network id/m.test(r.stdout)) return new HttpError(400, 'invalid_network_id', 'A network ID is 16 hexadecimal digits');
  return new HttpError(502, 'zerotier_error', `zerotier-cli ${what} failed: ${line}`);
}

export function firstLine(s: string): string {
  return s.split('\n').map((l) => l.trim()).find(Boolean)?.slice(0, 300) ?? '';
}
