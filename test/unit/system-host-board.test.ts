// The board shown by GET /api/host/info comes only from what names a board: /proc/device-tree/model, a
// Raspberry Pi's cpuinfo `Model` line or its revision code. x86's `model : 49` (a CPU model number) is
// never a board (issue 33: "Board 49" on a PC).
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { boardOf, parseCpuinfo, piBoardOf } from '../../src/modules/system/host/board.js';

// One core of an AMD EPYC 7R32 (Zen 2: family 23, model 49) as Linux prints it; the other cores repeat it.
const X86 = `processor\t: 0
vendor_id\t: AuthenticAMD
cpu family\t: 23
model\t\t: 49
model name\t: AMD EPYC 7R32
stepping\t: 0
microcode\t: 0x830107a
cpu MHz\t\t: 2799.998
cache size\t: 512 KB
physical id\t: 0
siblings\t: 2
core id\t\t: 0
cpu cores\t: 1
apicid\t\t: 0
initial apicid\t: 0
fpu\t\t: yes
fpu_exception\t: yes
cpuid level\t: 13
wp\t\t: yes
flags\t\t: fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush mmx fxsr sse sse2 ht syscall nx
bugs\t\t: sysret_ss_attrs spectre_v1 spectre_v2 spec_store_bypass retbleed smt_rsb srso
bogomips\t: 5599.99
TLB size\t: 3072 4K pages
clflush size\t: 64
cache_alignment\t: 64
address sizes\t: 48 bits physical, 48 bits virtual
power management:

`;

// A Raspberry Pi 4 on 64-bit Raspberry Pi OS (bookworm): four cores without a name, then the board's lines.
const core = (n: number) => `processor\t: ${n}\nBogoMIPS\t: 108.00\nFeatures\t: fp asimd evtstrm crc32 cpuid\n` +
  'CPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x0\nCPU part\t: 0xd08\nCPU revision\t: 3\n\n';
const PI4 = `${[0, 1, 2, 3].map(core).join('')}Revision\t: c03114\nSerial\t\t: 10000000a3b4c5d6\nModel\t\t: Raspberry Pi 4 Model B Rev 1.4\n`;

// A Raspberry Pi 3 on a 32-bit kernel: named cores and a Hardware line.
const PI3_32 = 'processor\t: 0\nmodel name\t: ARMv7 Processor rev 4 (v7l)\nBogoMIPS\t: 38.40\nFeatures\t: half thumb fastmult vfp edsp neon\n\n' +
  'Hardware\t: BCM2835\nRevision\t: a02082\nSerial\t\t: 00000000bdfea4b7\nModel\t\t: Raspberry Pi 3 Model B Rev 1.2\n';

// Another ARM board's kernel: no Model line, a revision and serial of zeros.
const OTHER_ARM = 'processor\t: 0\nBogoMIPS\t: 48.00\nFeatures\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 cpuid\n' +
  'CPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x0\nCPU part\t: 0xd03\nCPU revision\t: 4\n\n' +
  'Hardware\t: Generic DT based system\nRevision\t: 0000\nSerial\t\t: 0000000000000000\n';

test('x86: "model : 49" is the CPU model number, not a board', () => {
  const cpu = parseCpuinfo(X86);
  assert.deepEqual(cpu, { model: 'AMD EPYC 7R32', serial: null, revision: null, board: null });
  assert.equal(boardOf(null, cpu), null);
});

test('a Raspberry Pi names its board in cpuinfo and the device tree', () => {
  const pi4 = parseCpuinfo(PI4);
  assert.deepEqual(pi4, { model: null, serial: '10000000a3b4c5d6', revision: 'c03114', board: 'Raspberry Pi 4 Model B Rev 1.4' });
  assert.equal(boardOf('Raspberry Pi 4 Model B Rev 1.4\0', pi4), 'Raspberry Pi 4 Model B Rev 1.4', 'the device tree first, NUL removed');
  assert.equal(boardOf(null, pi4), 'Raspberry Pi 4 Model B Rev 1.4', 'else the Model line');
  assert.equal(boardOf(null, { ...pi4, board: null }), 'Raspberry Pi 4 Model B Rev 1.4', 'else the revision code');
  const pi3 = parseCpuinfo(PI3_32);
  assert.deepEqual(pi3, { model: 'ARMv7 Processor rev 4 (v7l)', serial: '00000000bdfea4b7', revision: 'a02082', board: 'Raspberry Pi 3 Model B Rev 1.2' });
});

test('another ARM board: its device tree names it; zeros are no revision or serial', () => {
  const cpu = parseCpuinfo(OTHER_ARM);
  assert.deepEqual(cpu, { model: 'Generic DT based system', serial: null, revision: null, board: null });
  assert.equal(boardOf(null, cpu), null);
  assert.equal(boardOf('Radxa ROCK 4C+\0', cpu), 'Radxa ROCK 4C+');
  assert.equal(boardOf('\0', cpu), null, 'an empty model is no board');
});

test('Raspberry Pi revision codes: new-style codes decoded, anything else unknown', () => {
  assert.equal(piBoardOf('c03114'), 'Raspberry Pi 4 Model B Rev 1.4');
  assert.equal(piBoardOf('a02082'), 'Raspberry Pi 3 Model B Rev 1.2');
  assert.equal(piBoardOf('902120'), 'Raspberry Pi Zero 2 W Rev 1.0');
  assert.equal(piBoardOf('c04170'), 'Raspberry Pi 5 Rev 1.0');
  assert.equal(piBoardOf('2a02082'), 'Raspberry Pi 3 Model B Rev 1.2', 'the warranty bit set');
  assert.equal(piBoardOf('000e'), null, 'old-style code (a Pi 1): not decoded');
  assert.equal(piBoardOf('0000'), null);
  assert.equal(piBoardOf('c03ff4'), null, 'an unknown type');
  assert.equal(piBoardOf('49'), null);
  assert.equal(piBoardOf(null), null);
});

test('this host: a board only where its device tree names one', () => {
  const cpuinfo = readFileSync('/proc/cpuinfo', 'utf8');
  const dt = existsSync('/proc/device-tree/model') ? readFileSync('/proc/device-tree/model', 'utf8') : null;
  const board = boardOf(dt, parseCpuinfo(cpuinfo));
  if (dt) assert.equal(board, dt.replace(/\0+$/, '').trim());
  else if (process.arch === 'x64' || process.arch === 'ia32') assert.equal(board, null, 'a PC has no board to name');
});
