// The release tree the appliance tests install: $NETPROBE_RELEASE when ./build.sh test made it,
// otherwise made here with ./build.sh bundle.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { run } from '../../src/core/exec.js';

export const REPO = fileURLToPath(new URL('../..', import.meta.url));
export const VERSION = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string }).version;

export async function releaseTree(): Promise<string> {
  const given = process.env.NETPROBE_RELEASE;
  if (given) {
    if (!existsSync(join(given, 'dist/src/main.js'))) throw new Error(`NETPROBE_RELEASE=${given} is not a release tree`);
    return given;
  }
  const r = await run(join(REPO, 'build.sh'), ['bundle'], { cwd: REPO, timeoutMs: 600_000 });
  if (r.code !== 0) throw new Error(`./build.sh bundle failed:\n${r.stdout}\n${r.stderr}`);
  return join(REPO, 'release', `netprobe-${VERSION}`);
}

/** install.sh's report: the "changed:" lines and the summary line. */
export function installReport(stdout: string): { changes: string[]; summary: string } {
  const lines = stdout.trim().split('\n');
  return { changes: lines.filter((l) => l.startsWith('changed: ')).map((l) => l.slice(9)), summary: lines.at(-1) ?? '' };
}

/** The "Overall exposure level" figure of `systemd-analyze security` output. */
export function exposure(output: string): number {
  const m = /Overall exposure level for \S+: ([\d.]+)/.exec(output);
  if (!m) throw new Error(`no exposure level in:\n${output}`);
  return Number(m[1]);
}
