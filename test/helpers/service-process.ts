// The service as a real program (node --import tsx src/main.ts, or the build in dist/), for tests that
// signal, kill or restart it. The caller's environment minus NETPROBE_CONFIG and the test runner's context, plus `env`; output
// kept as its last lines; a guard SIGKILLs a process that outlives `maxLifeMs` so a test never hangs.
// Node runs with systemd/netprobe.service's flags and environment (test/helpers/unit-node.ts), heap limit
// included, so a test passes under the memory a probe gives the service.
// `root` runs another checkout instead (an older build: test/helpers/old-build.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { unitEnvironment, unitNodeFlags } from './unit-node.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const KEPT_LINES = 400;

export interface Exit { code: number | null; signal: NodeJS.Signals | null }

export interface ServiceProgram {
  proc: ChildProcess;
  exited: Promise<Exit>;
  /** What it printed (the last lines), for assertions. */
  output(): string;
  /** The last `n` lines, indented, for failure messages. */
  tail(n?: number): string;
}

export interface SpawnOptions {
  onLine?: (line: string) => void;
  maxLifeMs?: number;
  /** The checkout to run (default: this one). */
  root?: string;
  /**
   * A program and its first arguments that run node's command line, e.g. unshare giving the service its own
   * resolv.conf (test/integration/service-dns-failure.test.ts); it must exec node in place, so the pid stays the service's.
   */
  wrap?: string[];
  /** What node runs: the sources through tsx (default), or the build a probe runs (dist/src/main.js, one module). */
  entry?: 'src' | 'dist';
}

export function spawnService(env: Record<string, string>, opts: SpawnOptions = {}): ServiceProgram {
  const full: NodeJS.ProcessEnv = { ...process.env };
  delete full.NETPROBE_CONFIG;
  delete full.NODE_TEST_CONTEXT;
  const main = opts.entry === 'dist' ? ['dist/src/main.js'] : ['--import', 'tsx', 'src/main.ts'];
  // An older checkout (root) runs with the flags of its own unit.
  const flags = unitNodeFlags(opts.root);
  const [program, ...args] = [...(opts.wrap ?? []), process.execPath, ...flags, ...main];
  const proc = spawn(program!, args, {
    // HTTPS off unless asked for: programs started side by side would each try to take 8443.
    cwd: opts.root ?? ROOT, env: { ...unitEnvironment(opts.root), NETPROBE_HTTPS_PORT: '0', ...full, ...env }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const onLine = (line: string) => {
    lines.push(line);
    if (lines.length > KEPT_LINES) lines.splice(0, lines.length - KEPT_LINES);
    opts.onLine?.(line);
  };
  for (const stream of [proc.stdout!, proc.stderr!]) {
    let buf = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      buf += chunk;
      const parts = buf.split('\n');
      buf = parts.pop() ?? '';
      for (const line of parts) onLine(line);
    });
  }
  proc.on('error', (e) => onLine(`spawn error: ${e.message}`));
  const exited = new Promise<Exit>((resolve) => proc.on('close', (code, signal) => resolve({ code, signal })));
  const guard = setTimeout(() => proc.kill('SIGKILL'), opts.maxLifeMs ?? 120_000);
  guard.unref();
  void exited.then(() => clearTimeout(guard));
  return {
    proc,
    exited,
    output: () => lines.join('\n'),
    tail: (n = 80) => lines.slice(-n).map((l) => `  | ${l}`).join('\n'),
  };
}
