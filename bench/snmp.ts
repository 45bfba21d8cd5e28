// SNMP figures: a full MIB-2 walk of Debian's snmpd (bench/snmp/walk.ts) and identifying 50 simulated
// devices at once (bench/snmp/identify.ts), each in its own process so neither's memory counts for the
// other. Loopback only. Prints figures, asserts nothing.
//
//   node --import tsx bench/snmp.ts        (or ./build.sh bench snmp)
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

for (const part of ['walk', 'identify']) {
  const file = fileURLToPath(new URL(`./snmp/${part}.ts`, import.meta.url));
  const r = spawnSync(process.execPath, ['--import', 'tsx', file, ...process.argv.slice(2)], { stdio: 'inherit' });
  if (r.status !== 0) process.exitCode = r.status ?? 1;
  console.log('');
}
