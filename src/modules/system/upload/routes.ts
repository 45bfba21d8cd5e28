// /api/upload/brand-asset: the logo or favicon (admin). The body is the file itself, at most 1 MiB; its
// type comes from its bytes (PNG, JPEG, ICO, SVG), whatever the name or Content-Type say.
import { z } from 'zod';
import { readBody } from '../../../core/http/body.js';
import { reply, route, type AnyRoute } from '../../../core/http/registry.js';
import { BRAND_KINDS, BRAND_MAX_BYTES, type BrandService } from '../web-identity/service.js';

const KindQuery = z.strictObject({
  kind: z.enum(BRAND_KINDS).describe('logo (sidebar and sign-in page) or favicon (browser tab)'),
});

export function uploadRoutes(brand: BrandService): AnyRoute[] {
  return [
    route({
      method: 'POST', path: '/api/upload/brand-asset', admin: true, tag: 'system', rawBody: true, bodyLimit: BRAND_MAX_BYTES,
      consumes: ['image/png', 'image/jpeg', 'image/x-icon', 'image/vnd.microsoft.icon', 'image/svg+xml', 'application/octet-stream'],
      query: KindQuery, status: 201,
      response: z.object({ kind: z.enum(BRAND_KINDS), type: z.string(), size: z.number(), url: z.string() }),
      summary: 'Upload the logo or favicon (admin): PNG, JPEG, ICO or SVG, at most 1 MiB; replaces the previous one',
      description: 'The request body is the file. The type is read from the bytes; an SVG with scripts, event handlers, ' +
        'foreignObject, entities or external references is refused (400), a larger file gets 413.',
      handler: async (ctx) => {
        const bytes = await readBody(ctx.req, BRAND_MAX_BYTES);
        const a = await brand.put(ctx.query.kind, bytes);
        await ctx.audit('web_identity.asset', ctx.query.kind, { type: a.type, size: a.size });
        return reply(201, { kind: a.kind, type: a.type, size: a.size, url: `/api/web-identity/${a.kind}?v=${a.etag.slice(0, 12)}` });
      },
    }),
    route({
      method: 'DELETE', path: '/api/upload/brand-asset', admin: true, tag: 'system', query: KindQuery,
      summary: 'Remove the logo or favicon (admin); the built-in one is shown again',
      handler: async (ctx) => {
        if (await brand.remove(ctx.query.kind)) await ctx.audit('web_identity.asset_remove', ctx.query.kind, {});
      },
    }),
  ];
}
