// The built-in library, read-only: the OID store, the vendor profiles and their cards (shown by
// vendors/describe.ts: patterns as "/pattern/flags" text, each OID name beside its numeric OID).
import { z } from 'zod';
import { notFound } from '../../core/errors.js';
import { route, type AnyRoute } from '../../core/http/registry.js';
import { paging } from '../../core/http/schemas.js';
import type { OidStore } from './oids/oid-store.js';
import { cardsFor, profileByKey, VENDOR_PROFILES } from './vendors/index.js';
import { describeCards, describeProfile } from './vendors/describe.js';

const OidEntryOut = z.object({
  oid: z.string(), name: z.string(), module: z.string(), kind: z.string(), type: z.string().optional(),
  enums: z.record(z.string(), z.string()).optional(), units: z.string().optional(), description: z.string().optional(),
});
const VendorOut = z.object({
  key: z.string(), name: z.string(), kind: z.string(), manufacturer: z.string().nullable(),
  enterprises: z.array(z.object({ name: z.string(), oid: z.string().nullable() }))
    .describe('Enterprise arcs the maker owns: a sysObjectID under one is its product (variant "other") when no product line matches'),
  description: z.string(),
  identity: z.unknown(),
  variants: z.array(z.object({
    key: z.string(), os: z.string().nullable(), kind: z.string(),
    fallback: z.enum(['enterprise', 'any']).nullable()
      .describe('null: a product line, tried first; enterprise: the maker\'s other products; any: generic MIB-II, last'),
    kind_from_evidence: z.boolean().describe('Bridging and LLDP evidence decide the kind; the variant\'s is the default'),
    match: z.array(z.unknown()), exclude: z.array(z.unknown()),
    identity: z.unknown().optional(), cards: z.array(z.string()),
  })),
});

/** A card as a profile defines it: each item's OID sources (`describe.ts`), named and numeric. */
const CardDefOut = z.object({
  key: z.string(), title: z.string(),
  items: z.array(z.object({
    key: z.string(), label: z.string(), unit: z.string().nullable(), scale: z.number().optional(),
    value: z.array(z.record(z.string(), z.unknown())).optional().describe('Where the value is read: get, entity or walk, each {name, oid}'),
    percent: z.array(z.record(z.string(), z.record(z.string(), z.unknown()))).optional(),
    rows: z.record(z.string(), z.unknown()).optional().describe('A table: label and value columns, filters, units'),
  })),
});

/** `store` gives the OID store, loaded on its first use. */
export function libraryRoutes(store: () => OidStore): AnyRoute[] {
  return [
    route({
      method: 'GET', path: '/api/snmp/store', scope: 'snmp:read', tag: 'snmp',
      summary: 'The OID dictionary: numeric OID, name, module, kind, type, enums, units, description',
      query: z.object({
        prefix: z.string().trim().min(1).max(300).optional().describe('Only this node and what is under it: numeric OID or name (ifTable)'),
        q: z.string().trim().min(1).max(100).optional().describe('Text in the name, module, OID or description'),
        ...paging(5000, 500),
      }),
      response: z.object({ items: z.array(OidEntryOut), total: z.number().int(), modules: z.array(z.string()) }),
      handler: (ctx) => ({ ...store().list(ctx.query), modules: store().modules() }),
    }),
    route({
      method: 'GET', path: '/api/snmp/vendors', scope: 'snmp:read', tag: 'snmp',
      summary: 'The eight built-in vendor profiles, in match order (generic MIB-II last)',
      response: z.object({ items: z.array(VendorOut), total: z.number().int() }),
      handler: () => ({ items: VENDOR_PROFILES.map((p) => describeProfile(p, store())), total: VENDOR_PROFILES.length }),
    }),
    route({
      method: 'GET', path: '/api/snmp/vendor-cards/:vendor_key', scope: 'snmp:read', tag: 'snmp',
      summary: 'The OID cards of a vendor profile (per variant with ?variant=)',
      params: z.object({ vendor_key: z.string().trim().min(1).max(50) }),
      query: z.object({ variant: z.string().trim().min(1).max(50).optional() }),
      response: z.object({ vendor_key: z.string(), name: z.string(), variant: z.string(), variants: z.array(z.string()),
        cards: z.array(CardDefOut) }),
      handler: (ctx) => {
        const p = profileByKey(ctx.params.vendor_key);
        if (!p) throw notFound(`Vendor profile "${ctx.params.vendor_key}"`);
        if (ctx.query.variant && !p.variants.some((v) => v.key === ctx.query.variant))
          throw notFound(`Variant "${ctx.query.variant}" of ${p.key}`);
        const variant = ctx.query.variant ?? p.variants[0]!.key;
        return { vendor_key: p.key, name: p.name, variant, variants: p.variants.map((v) => v.key),
          cards: describeCards(cardsFor(p, variant), store()) };
      },
    }),
  ];
}
