// Which board the probe runs on, only when it is known: the device tree's model (a Raspberry Pi and most
// ARM boards name themselves there), else the `Model` line a Raspberry Pi kernel adds to /proc/cpuinfo,
// else a Raspberry Pi's new-style revision code decoded. Never the x86 `model` field of /proc/cpuinfo:
// that is the CPU's model number within its family ("model : 49"), not a board.

/** The fields of /proc/cpuinfo a host page shows: the CPU's name, and on a Raspberry Pi its serial, revision and model. */
export interface Cpuinfo { model: string | null; serial: string | null; revision: string | null; board: string | null }

/**
 * Reads /proc/cpuinfo text. The Raspberry Pi's lines (`Serial`, `Revision`, `Model`, `Hardware`) are matched
 * with their capital, so x86's lower-case `model` and `processor` never stand in for them; an all-zero
 * serial or revision (what other ARM kernels print) is no value.
 */
export function parseCpuinfo(t: string): Cpuinfo {
  const field = (name: string, flags = 'm'): string | null => {
    const m = new RegExp(`^${name}[ \\t]*:[ \\t]*(.+)$`, flags).exec(t);
    return m ? m[1]!.trim() || null : null;
  };
  const known = (v: string | null) => (v && !/^0+$/.test(v) ? v : null);
  return {
    model: field('model name') ?? field('Hardware') ?? field('cpu model') ?? field('Processor'),
    serial: known(field('Serial')), revision: known(field('Revision')), board: field('Model'),
  };
}

// Type field (bits 4-11) of a new-style revision code, as the Raspberry Pi documentation lists them.
const PI_TYPES: Record<number, string> = {
  0x00: 'Model A', 0x01: 'Model B', 0x02: 'Model A+', 0x03: 'Model B+', 0x04: '2 Model B', 0x06: 'Compute Module',
  0x08: '3 Model B', 0x09: 'Zero', 0x0a: 'Compute Module 3', 0x0c: 'Zero W', 0x0d: '3 Model B+', 0x0e: '3 Model A+',
  0x10: 'Compute Module 3+', 0x11: '4 Model B', 0x12: 'Zero 2 W', 0x13: '400', 0x14: 'Compute Module 4',
  0x15: 'Compute Module 4S', 0x17: '5', 0x18: 'Compute Module 5', 0x19: '500', 0x1a: 'Compute Module 5 Lite',
};

/**
 * A Raspberry Pi's board from its new-style revision code (bit 23 set; e.g. c03114 is a 4 Model B 1.4),
 * or null for any other code: old-style codes, other boards' revisions, unknown types.
 */
export function piBoardOf(revision: string | null): string | null {
  if (!revision || !/^[0-9a-f]{4,8}$/i.test(revision)) return null;
  const code = parseInt(revision, 16);
  if (!(code & 0x800000)) return null;
  const type = PI_TYPES[(code >> 4) & 0xff];
  return type ? `Raspberry Pi ${type} Rev 1.${code & 0xf}` : null;
}

/** The board's name from the device tree's model (as read, NUL-terminated) and /proc/cpuinfo, or null when unknown. */
export function boardOf(deviceTreeModel: string | null, cpu: Cpuinfo): string | null {
  return deviceTreeModel?.replace(/\0+$/, '').trim() || cpu.board || piBoardOf(cpu.revision);
}
