// Enrichment of one device: log in (host key checked), tell the platform when the target says `auto`, run the
// platform's fixed commands, parse them into facts. The whole device has a deadline; the job's abort signal
// ends it at once (the socket is destroyed, and the promise settles without waiting for anything remote).
import { capFacts, type CommandStatus, type Facts, type PlatformName, type TargetPlatform } from './facts.js';
import { PLATFORM_DEFS, platformFromBanner, platformFromVersion, type Platform } from './platforms/index.js';
import { SshProblem, SshSession, type HostKey, type SshLimits, type SshLogin } from './ssh.js';

export interface CollectInput {
  login: SshLogin;
  platform: TargetPlatform;
  /** The pinned host key fingerprint, or null. */
  pinned: string | null;
  /** With no pin: pin the key met (trust on first use) or stop before sending the credential (SshSession's firstKey). */
  firstKey: 'trust' | 'refuse';
  limits: SshLimits & { deviceMs: number };
  signal: AbortSignal;
  now: () => Date;
}

export interface CollectResult {
  facts: Facts;
  /** The key the device presented (and that matched the pin, when there was one). */
  hostKey: HostKey;
}

export async function collect(input: CollectInput): Promise<CollectResult> {
  const ac = new AbortController();
  let why: SshProblem | null = null;
  const stop = (p: SshProblem) => { if (!ac.signal.aborted) { why = p; ac.abort(); } };
  const onAbort = () => stop(new SshProblem('cancelled', 'cancelled'));
  if (input.signal.aborted) throw new SshProblem('cancelled', 'cancelled');
  input.signal.addEventListener('abort', onAbort, { once: true });
  const deadline = setTimeout(() => stop(new SshProblem('timeout',
    `${input.login.host}:${input.login.port}: the device took longer than ${Math.round(input.limits.deviceMs / 1000)} s in all`)),
  input.limits.deviceMs);
  const aborted = new Promise<never>((_, reject) => {
    ac.signal.addEventListener('abort', () => reject(why ?? new SshProblem('cancelled', 'cancelled')), { once: true });
  });
  aborted.catch(() => undefined);
  const work = run(input, ac.signal);
  work.catch(() => undefined);
  try {
    return await Promise.race([work, aborted]);
  } finally {
    clearTimeout(deadline);
    input.signal.removeEventListener('abort', onAbort);
    ac.abort();
  }
}

async function run(input: CollectInput, signal: AbortSignal): Promise<CollectResult> {
  const started = Date.now();
  const { limits } = input;
  let pinned = input.pinned;
  const sessions: SshSession[] = [];
  const open = async (suffix: string) => {
    const s = await SshSession.open({ ...input.login, username: input.login.username + suffix },
      { limits, pinned, firstKey: input.firstKey, signal });
    sessions.push(s);
    pinned = s.hostKey?.fingerprint ?? pinned; // a reconnection must meet the same key
    return s;
  };
  try {
    let platform: Platform | null = input.platform === 'auto' ? null : PLATFORM_DEFS[input.platform];
    let source: Facts['platform_source'] = 'configured';
    let session = await open(platform?.usernameSuffix ?? '');
    const hostKey = session.hostKey!;
    const ident = session.ident;
    if (!platform) {
      const detected = await detect(session, ident, limits.commandMs, () => open(''));
      platform = PLATFORM_DEFS[detected.platform];
      source = detected.source;
      session = detected.session;
    }
    if (platform.usernameSuffix && !session.login.username.endsWith(platform.usernameSuffix)) {
      session.destroy();
      session = await open(platform.usernameSuffix);
    } else if (session.isClosed) {
      session = await open(platform.usernameSuffix ?? '');
    }
    const { sections, warnings } = await session.run(platform);
    const commands: CommandStatus[] = platform.commands.map((c) => {
      const s = sections[c.name];
      return {
        name: c.name, command: c.command, ok: !!s?.ok, ms: s?.ms ?? null, error: s ? s.error : 'not run', truncated: !!s?.truncated,
      };
    });
    if (!commands.some((c) => c.ok)) {
      throw new SshProblem('protocol', `${input.login.host}:${input.login.port}: none of the ${platform.label} commands gave a result` +
        (warnings.length ? ` (${warnings.join('; ')})` : commands[0]?.error ? ` (${commands[0].command}: ${commands[0].error})` : ''));
    }
    const parsed = capFacts(platform.parse(sections));
    const failed = platform.commands.filter((c) => !c.optional && !sections[c.name]?.ok)
      .map((c) => `${c.command}: ${sections[c.name]?.error ?? 'not run'}`);
    const facts: Facts = {
      ...parsed,
      platform: platform.name, platform_source: source, ssh_banner: ident, commands,
      warnings: [...warnings, ...failed, ...parsed.warnings],
      collected_at: input.now().toISOString(), duration_ms: Date.now() - started,
    };
    return { facts, hostKey };
  } finally {
    for (const s of sessions) s.destroy();
  }
}

/**
 * `auto`: the SSH ident when it names the platform for certain, then `uname -s` (Linux), then a network CLI's
 * `show version`, then FortiOS's `get system status`. Some devices (IOS) end the connection after one exec
 * channel; a closed session is opened again (with the key now pinned).
 */
async function detect(session: SshSession, ident: string | null, commandMs: number, reopen: () => Promise<SshSession>):
  Promise<{ platform: PlatformName; source: Facts['platform_source']; session: SshSession }> {
  const fromBanner = platformFromBanner(ident);
  if (fromBanner) return { platform: fromBanner, source: 'banner', session };
  let s = session;
  const probe = async (command: string) => {
    if (s.isClosed) s = await reopen();
    try {
      return await s.exec(command, commandMs, 16 * 1024);
    } catch (e) {
      if (!(e instanceof SshProblem) || e.code === 'cancelled') throw e;
      s = await reopen();
      return s.exec(command, commandMs, 16 * 1024);
    }
  };
  const uname = await probe('uname -s');
  const os = uname.stdout.trim().split(/\s+/)[0] ?? '';
  if (os === 'Linux') return { platform: 'linux', source: 'probe', session: s };
  if (uname.code === 0 && /^(FreeBSD|OpenBSD|NetBSD|Darwin|SunOS)$/.test(os)) {
    throw new SshProblem('protocol', `${s.login.host} runs ${os}; SSH enrichment knows Linux and the network platforms only`);
  }
  for (const command of ['show version', 'get system status']) {
    const r = await probe(command);
    const p = platformFromVersion(r.stdout);
    if (p) return { platform: p, source: 'probe', session: s };
  }
  throw new SshProblem('protocol', `Could not tell the platform of ${s.login.host}${ident ? ` (banner "${ident}")` : ''}: ` +
    'uname and show version named none this probe knows; set the target\'s platform');
}
