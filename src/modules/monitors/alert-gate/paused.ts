// A paused monitor alerts nobody: a check run by hand while it is paused records its result and nothing more.
import type { GateRule } from './gate.js';

export const paused: GateRule = {
  name: 'paused',
  events: ['problem', 'still_down', 'recovery', 'certificate', 'change'],
  releases: false,
  hold: (m) => (m.status === 'paused' ? { reason: `${m.name} is paused` } : null),
};
