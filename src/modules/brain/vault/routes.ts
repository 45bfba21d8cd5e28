// The vault's endpoints (SPEC.md, "Asset inventory"). See docs/vault.md.
import { z } from 'zod';
import { route, type AnyRoute } from '../../../core/http/registry.js';
import { PASSPHRASE_MAX, PASSPHRASE_MIN, VAULT_KDF, type Vault, WrongPassphraseError } from './service.js';

const VaultStatusSchema = z.object({
  initialized: z.boolean().describe('Whether the vault has been set up'),
  locked: z.boolean().describe('Whether the data key is out of memory (always true after a restart until unlocked)'),
});

const PassphraseBody = z.strictObject({
  passphrase: z.string().min(1).max(PASSPHRASE_MAX * 2),
});

export function vaultRoutes(vault: Vault): AnyRoute[] {
  return [
    route({
      method: 'GET', path: '/api/brain/vault/status', scope: 'brain:read', tag: 'brain',
      summary: 'Vault lock status',
      description: '`initialized` is false until an administrator sets the vault up; `locked` is true whenever the data key ' +
        'is not in memory (always after a restart, until an administrator unlocks it).',
      response: VaultStatusSchema,
      handler: () => vault.status(),
    }),

    route({
      method: 'POST', path: '/api/brain/vault/setup', admin: true, tag: 'brain',
      summary: 'Initial vault setup (admin): create the data key under a passphrase; leaves the vault unlocked',
      description: `The passphrase must be ${PASSPHRASE_MIN} to ${PASSPHRASE_MAX} characters long; it is never stored and cannot be ` +
        'recovered: losing it loses every stored credential secret. 409 `vault_already_initialized` once set up.',
      body: PassphraseBody, response: VaultStatusSchema,
      handler: async (ctx) => {
        const status = await vault.setup(ctx.body.passphrase, (tx) => ctx.app.audit.insert(tx,
          ctx.auditEntry('vault.setup', null, { kdf: VAULT_KDF.alg, n: VAULT_KDF.N, r: VAULT_KDF.r, p: VAULT_KDF.p })));
        return status;
      },
    }),

    route({
      method: 'POST', path: '/api/brain/vault/unlock', admin: true, tag: 'brain',
      summary: 'Unlock the vault (admin): load the data key into memory',
      description: 'A wrong passphrase is 403 `wrong_passphrase`, audited as `vault.unlock_failed` and rate limited per ' +
        'address and per user (429 with Retry-After, like sign-in). 409 `vault_not_initialized` before setup. ' +
        'Unlocking an unlocked vault checks the passphrase and changes nothing.',
      body: PassphraseBody, response: VaultStatusSchema,
      rateLimit: { bucket: 'vault', by: ['ip', 'user'], what: 'vault passphrase attempts', countedByService: true },
      handler: async (ctx) => {
        const limit = ctx.rateLimit!;
        const wasLocked = !vault.isUnlocked();
        try {
          const status = await vault.unlock(ctx.body.passphrase, { keys: limit.keys, clearOnSuccess: limit.keysOf('user') });
          await ctx.audit('vault.unlock', null, wasLocked ? undefined : { already_unlocked: true });
          return status;
        } catch (e) {
          if (e instanceof WrongPassphraseError) {
            await ctx.audit('vault.unlock_failed', null,
              { reason: 'wrong_passphrase', ...(e.lockedOut ? { locked_out: true } : {}) }, 'failure');
          }
          throw e;
        }
      },
    }),

    route({
      method: 'POST', path: '/api/brain/vault/lock', admin: true, tag: 'brain',
      summary: 'Lock the vault (admin): forget the data key',
      description: 'Idempotent. While locked, secrets can neither be stored (423 `vault_locked`) nor read by other modules.',
      response: VaultStatusSchema,
      handler: async (ctx) => {
        const wasLocked = !vault.isUnlocked();
        const status = vault.lock();
        await ctx.audit('vault.lock', null, wasLocked ? { already_locked: true } : undefined);
        return status;
      },
    }),
  ];
}
