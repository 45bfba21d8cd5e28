// What may hold a monitor's alert back, in the order the gate asks (the first that holds names the
// reason). A new rule is one file beside this one and one line here.
import { dependency } from './dependency.js';
import type { GateRule } from './gate.js';
import { maintenance } from './maintenance.js';
import { paused } from './paused.js';

export const GATE_RULES: readonly GateRule[] = [paused, maintenance, dependency];
