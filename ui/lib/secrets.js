// What the UI says when an update dropped stored secrets because the destination changed: the API's
// `secrets_dropped` (docs/api.md, "Secrets and destinations").
import { toast } from './toast.js';

/** Names in a toast the stored secrets an update dropped (`saved` is its answer); nothing when none. */
export function noteDroppedSecrets(saved) {
  const dropped = saved?.secrets_dropped ?? [];
  if (!dropped.length) return;
  const names = dropped.map((p) => p.replace(/^settings\.(headers\.)?/, '')).join(', ');
  const one = dropped.length === 1;
  toast.info(`The stored ${one ? 'secret' : 'secrets'} (${names}) ${one ? 'was' : 'were'} dropped because the address changed: ` +
    `enter ${one ? 'it' : 'them'} again to send ${one ? 'it' : 'them'} there.`);
}
