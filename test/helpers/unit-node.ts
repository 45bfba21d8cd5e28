// How systemd/netprobe.service runs node: the flags between `node` and the script in its ExecStart, and
// its Environment= lines less the NETPROBE_* paths (each caller sets its own). The unit is the one
// source: tests (service-process.ts) and benches (bench/monitors/service.ts, bench/service.ts,
// bench/hostile-clients.ts) start the service with the same flags, heap limit included, so what they
// measure and what they pass under is what a probe runs.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The unit of checkout `root` (default this one); an old checkout without one reads as no flags. */
function unitText(root = ROOT): string {
  const file = join(root, 'systemd/netprobe.service');
  return existsSync(file) ? readFileSync(file, 'utf8') : '';
}

export function unitNodeFlags(root?: string): string[] {
  const unit = unitText(root);
  if (!unit) return [];
  const exec = /^ExecStart=\S*node((?:\s+--\S+)*)\s+\S+main\.js\s*$/m.exec(unit);
  if (!exec) throw new Error('systemd/netprobe.service: no ExecStart=...node [flags] .../main.js line');
  return exec[1]!.trim().split(/\s+/).filter(Boolean);
}

/** E.g. the glibc malloc tunables, which change resident memory. */
export function unitEnvironment(root?: string): Record<string, string> {
  const unit = unitText(root);
  const out: Record<string, string> = {};
  for (const line of unit.matchAll(/^Environment=(.*)$/gm)) {
    for (const pair of line[1]!.trim().split(/\s+/)) {
      const eq = pair.indexOf('=');
      if (eq > 0 && !pair.startsWith('NETPROBE_')) out[pair.slice(0, eq)] = pair.slice(eq + 1);
    }
  }
  return out;
}
