// The write-only form of a stored secret on the API and in the configuration (docs/api.md): a response
// shows `{set: true}` (or `{set: false}`) in its place; a request that sends `{set: true}` back keeps the
// stored secret and `{set: false}` clears it. The one test of that shape, for every module.

export interface SecretMarker { set: boolean }

export function isSecretMarker(v: unknown): v is SecretMarker {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 1
    && typeof (v as { set?: unknown }).set === 'boolean';
}

/** What a response shows in place of a secret: whether one is stored. */
export const secretShown = (stored: boolean): SecretMarker => ({ set: stored });
