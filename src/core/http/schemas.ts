// The API's shared vocabulary as zod schemas: lists, paging and ids mean the same on every route.
import { z } from 'zod';

/** An RFC 4122 UUID as the API writes it (any case accepted). */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A list answer: `{items, total}` (docs/api.md). */
export const listOf = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item), total: z.number().int() });

/** `limit` and `offset` query parameters, up to `max` items a page, `def` by default. */
export const paging = (max: number, def: number) => ({
  limit: z.coerce.number().int().min(1).max(max).default(def),
  offset: z.coerce.number().int().min(0).default(0),
});

/** A stored secret as shown, and as sent back: {set: true} keeps it, {set: false} clears it (core/secret-marker.ts). */
export const SecretMarker = z.strictObject({ set: z.boolean() });

/**
 * On an update's answer: the stored secrets it dropped because the destination changed and the request
 * did not send them again, as paths of the request body (docs/api.md, "Secrets and destinations").
 */
export const SecretsDropped = z.array(z.string())
  .describe('Stored secrets dropped because the destination changed and this request did not send them again; absent when none');
