// A webhook's provider options (Telegram's chat, ...): validated by the provider's own zod schema, listed
// with the providers as JSON Schema (the web form renders its fields from that list), and taken out of
// the URL's query where earlier builds had them packed (`?chat_id=`): on input here, and once at start-up
// for stored webhooks (secrets.ts, which can open their sealed URLs).
import { z } from 'zod';
import { fieldErrors, type FieldError } from '../../core/errors.js';
import { formSchema } from '../../core/form-schema.js';
import { PROVIDERS, WEBHOOK_TYPES, type Provider } from './providers/index.js';

export type Options = Record<string, unknown>;

/** The stored options column as an object ({} when empty or unreadable). */
export function parseOptions(text: string | null | undefined): Options {
  try {
    const v: unknown = JSON.parse(text ?? '{}');
    return v && typeof v === 'object' && !Array.isArray(v) ? v as Options : {};
  } catch {
    return {};
  }
}

/** The options a provider takes, as checked: the parsed object, or field errors named `options.<field>`. */
export function checkOptions(p: Provider, input: Options): { options: Options; errors: FieldError[] } {
  if (!p.options) {
    const keys = Object.keys(input);
    return { options: {}, errors: keys.map((k) => ({ path: `options.${k}`, message: `${p.label} takes no options` })) };
  }
  const r = p.options.safeParse(input);
  return r.success ? { options: r.data, errors: [] } : { options: input, errors: fieldErrors(r.error.issues, { prefix: 'options' }) };
}

/**
 * The URL without the query parameters that are the provider's options, and those options added to
 * `given` (a value given as an option wins over one in the URL). Unchanged when the URL packs none.
 */
export function unpackUrl(p: Provider, url: string, given: Options): { url: string; options: Options } {
  const names = Object.keys(p.options?.shape ?? {});
  let u: URL;
  try { u = new URL(url); } catch { return { url, options: given }; }
  const packed = names.filter((n) => u.searchParams.has(n));
  if (!packed.length) return { url, options: given };
  const options = { ...given };
  for (const n of packed) {
    options[n] ??= u.searchParams.get(n);
    u.searchParams.delete(n);
  }
  return { url: u.href, options };
}

export const ProviderSchema = z.object({
  type: z.enum(WEBHOOK_TYPES),
  label: z.string(),
  reference: z.string().describe('Where the provider documents the request'),
  transport: z.enum(['http', 'mail']).describe('http: posts to the webhook\'s URL; mail: an e-mail through the probe\'s SMTP server ' +
    'to the recipients in its options (no URL, no secret; status codes are SMTP reply codes)'),
  secret: z.object({ required: z.boolean(), role: z.string() }).nullable()
    .describe('What the webhook\'s secret is for this provider; null when it uses none'),
  options: z.record(z.string(), z.unknown()).describe('JSON Schema of the provider\'s options (an object schema; {} properties when none)'),
});

/** Every provider as GET /api/webhooks/providers lists it, in WEBHOOK_TYPES order. */
export function providerList(): z.infer<typeof ProviderSchema>[] {
  return WEBHOOK_TYPES.map((t) => {
    const p = PROVIDERS[t];
    const options = formSchema(p.options ?? z.strictObject({}));
    return { type: t, label: p.label, reference: p.reference, transport: p.transport ?? 'http', secret: p.secret ?? null, options };
  });
}
