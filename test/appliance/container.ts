// A root with the release installed (root.ts), booted in a container: systemd-nspawn, private network
// (only its own loopback). What the appliance tests that need a real systemd share: boot, run a command
// inside, an HTTP request to the service from inside its network, wait for a condition, power off.
import { spawn, type ChildProcess } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { run, type RunResult } from '../../src/core/exec.js';
import { must } from './root.js';

export interface Http { status: number; headers: Record<string, string>; body: any }

const sleep = (ms: number) => new Promise((res) => setTimeout(res, ms));

/** The container's init: the process whose parent is systemd-nspawn. */
async function containerInit(parent: number): Promise<number | undefined> {
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = await readFile(`/proc/${name}/stat`, 'utf8').catch(() => '');
    if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === parent) return Number(name);
  }
  return undefined;
}

export class Container {
  private leader = 0;
  /** What the container printed (its console), for failure messages. */
  console = '';

  private constructor(private readonly nspawn: ChildProcess) {
    nspawn.stdout!.on('data', (c: Buffer) => { this.console += c.toString(); });
    nspawn.stderr!.on('data', (c: Buffer) => { this.console += c.toString(); });
  }

  /** Boots the root and resolves once its init runs (the caller waits for what it needs after that). */
  static async boot(root: string): Promise<Container> {
    const c = new Container(spawn('systemd-nspawn', ['--directory', root, '--register=no', '--keep-unit', '--private-network', '--boot'],
      { stdio: ['ignore', 'pipe', 'pipe'] }));
    c.leader = await c.until('the container to start', () => containerInit(c.nspawn.pid!));
    return c;
  }

  /** A command in the container (all its namespaces: its files, its systemd, its network). */
  inside(args: string[], timeoutMs = 60_000): Promise<RunResult> {
    return must('nsenter', ['-t', String(this.leader), '-a', ...args], timeoutMs);
  }

  /** The same, answering whatever the command's exit status (inside() throws on a failure). */
  tryInside(args: string[], timeoutMs = 60_000): Promise<RunResult> {
    return run('nsenter', ['-t', String(this.leader), '-a', ...args], { timeoutMs });
  }

  /** An HTTP request to the service from inside the container's network (this machine's node, its netns). */
  async http(method: string, path: string, opts: { body?: unknown; cookie?: string } = {}): Promise<Http> {
    const script = `
      const [method, url, body, cookie] = process.argv.slice(1);
      const headers = { origin: 'http://127.0.0.1:8080' };
      if (body) headers['content-type'] = 'application/json';
      if (cookie) headers.cookie = cookie;
      const r = await fetch(url, { method, headers, body: body || undefined, redirect: 'manual' });
      const text = await r.text();
      let parsed = text; try { parsed = JSON.parse(text); } catch {}
      console.log(JSON.stringify({ status: r.status, headers: Object.fromEntries(r.headers), body: parsed }));`;
    const res = await must('nsenter', ['-t', String(this.leader), '-n', process.execPath, '--input-type=module', '-e', script,
      method, `http://127.0.0.1:8080${path}`, opts.body === undefined ? '' : JSON.stringify(opts.body), opts.cookie ?? '']);
    return JSON.parse(res.stdout) as Http;
  }

  /** Polls until `probe` gives a value (a throw counts as not yet); the console's tail on timeout. */
  async until<T>(what: string, probe: () => Promise<T | undefined>, ms = 60_000, everyMs = 250): Promise<T> {
    const end = Date.now() + ms;
    for (;;) {
      const v = await probe().catch(() => undefined);
      if (v !== undefined) return v;
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}\n${this.console.slice(-3000)}`);
      await sleep(everyMs);
    }
  }

  /** Nothing in a throwaway root needs an orderly shutdown: kill everything, unmount, power off. */
  async poweroff(): Promise<void> {
    if (this.nspawn.exitCode !== null) return;
    const exited = new Promise((res) => this.nspawn.once('exit', res));
    await run('nsenter', ['-t', String(this.leader), '-a', 'systemctl', 'poweroff', '--force']);
    const guard = setTimeout(() => this.nspawn.kill('SIGKILL'), 60_000);
    await exited;
    clearTimeout(guard);
  }
}
