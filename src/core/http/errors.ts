// Moved to core/errors.ts (a leaf every layer may import). This re-export remains only until the
// monitors module's imports follow; import '../errors.js' / 'core/errors.js' in new code.
export * from '../errors.js';
