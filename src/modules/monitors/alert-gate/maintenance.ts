// A monitor in an open maintenance window alerts nobody: its checks run and are recorded, and an outage
// still going on when the window closes is released then (maintenance/windows.ts checks the monitors it
// held at once, and that check carries the held down).
import type { GateRule } from './gate.js';

export const maintenance: GateRule = {
  name: 'maintenance',
  events: ['problem', 'still_down', 'recovery', 'certificate', 'change'],
  releases: true,
  hold: (m) => {
    const w = m.maintenance();
    return w ? { reason: `${w.name} (maintenance until ${w.until})`, by: { id: w.id, name: w.name } } : null;
  },
};
