// The lab by hand, for debugging (docs/lab.md):
//   node --import tsx scripts/lab/cli.ts up [--slot N] [--guard SECONDS] [--no-corpus]
//                                                                          start a lab, print it as JSON
//   node --import tsx scripts/lab/cli.ts status                            list slots in use
//   node --import tsx scripts/lab/cli.ts down [--slot N | --all]           tear down (default: every manual lab)
import { labDown, labUp } from './lab.js';
import { usedSlots } from './slots.js';

function option(name: string): number | undefined {
  const i = process.argv.indexOf(name);
  if (i < 0) return undefined;
  const v = Number(process.argv[i + 1]);
  if (!Number.isInteger(v) || v < 0) throw new Error(`${name} needs a whole number`);
  return v;
}

async function main(): Promise<void> {
  const cmd = process.argv[2];
  if (process.getuid?.() !== 0) throw new Error('the lab creates network namespaces: run it as root');
  if (cmd === 'up') {
    const t0 = Date.now();
    const lab = await labUp({ owner: 'manual', slot: option('--slot'), guardSeconds: option('--guard') ?? 3600,
      corpus: !process.argv.includes('--no-corpus') });
    console.log(JSON.stringify(lab, null, 2));
    console.error(`lab slot ${lab.slot} up in ${Date.now() - t0} ms; daemons end by themselves after ${lab.guardSeconds} s.`);
    console.error(`  enter a host:  ip netns exec ${lab.hosts[0]!.ns} bash`);
    console.error(`  tear down:     node --import tsx scripts/lab/cli.ts down --slot ${lab.slot}`);
  } else if (cmd === 'status') {
    for (const s of usedSlots()) console.log(`slot ${s.slot}: ${s.state}`);
  } else if (cmd === 'down') {
    const slot = option('--slot');
    const all = process.argv.includes('--all');
    const slots = slot !== undefined ? [slot] : usedSlots().filter((s) => all || s.state !== 'live').map((s) => s.slot);
    for (const s of slots) {
      const t0 = Date.now();
      labDown(s);
      console.error(`lab slot ${s} down in ${Date.now() - t0} ms`);
    }
  } else {
    console.error('usage: scripts/lab/cli.ts up [--slot N] [--guard SECONDS] [--no-corpus] | status | down [--slot N | --all]');
    process.exitCode = 2;
  }
}

main().catch((e) => {
  console.error(String(e instanceof Error ? e.message : e));
  process.exitCode = 1;
});
