// /api/web-identity: the probe's name, accent colour and sign-in notice (read by the sign-in page, so
// open to all), their update (admin), and the logo and favicon as uploaded (POST /api/upload/brand-asset).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { HttpError } from '../../../core/errors.js';
import { route, type AnyRoute } from '../../../core/http/registry.js';
import { AccentColor, LoginNotice } from '../config.js';
import type { BrandKind, BrandService } from './service.js';

export const WebIdentity = z.object({
  probe_name: z.string(), accent_color: z.string(), login_notice: z.string(),
  logo_url: z.string().nullable(), favicon_url: z.string().nullable(),
});

const UpdateBody = z.strictObject({
  probe_name: z.string().trim().min(1).max(100).optional().describe("The probe's name (configuration key probe.name)"),
  accent_color: AccentColor.optional().describe('#rrggbb, or empty for the built-in colour'),
  login_notice: LoginNotice.optional().describe('Plain text shown on the sign-in page; empty for none'),
}).refine((b) => Object.values(b).some((v) => v !== undefined), { message: 'Send at least one of probe_name, accent_color, login_notice' });

// An SVG opened on its own runs nothing and loads nothing (the page's own policy lets <img> show it).
const ASSET_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; sandbox";

async function sendAsset(brand: BrandService, kind: BrandKind, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const a = await brand.get(kind);
  if (!a) throw new HttpError(404, 'not_found', `No ${kind} has been uploaded`);
  const etag = `"${a.etag}"`;
  const headers = {
    'Content-Type': a.type, 'Cache-Control': 'no-cache', ETag: etag, 'Content-Security-Policy': ASSET_CSP,
    'Cross-Origin-Resource-Policy': 'same-origin',
  };
  const inm = String(req.headers['if-none-match'] ?? '');
  if (inm && inm.split(',').some((t) => t.trim().replace(/^W\//, '') === etag)) { res.writeHead(304, headers).end(); return; }
  res.writeHead(200, { ...headers, 'Content-Length': String(a.size) }).end(req.method === 'HEAD' ? undefined : a.bytes);
}

export function webIdentityRoutes(brand: BrandService): AnyRoute[] {
  return [
    route({
      method: 'GET', path: '/api/web-identity', auth: 'none', tag: 'system',
      summary: "The probe's name, accent colour, sign-in notice and brand assets, as the web interface and the sign-in page show them",
      response: WebIdentity,
      handler: () => brand.identity(),
    }),
    route({
      method: 'POST', path: '/api/web-identity', admin: true, tag: 'system',
      summary: "Set the probe's name, accent colour and sign-in notice (admin); fields left out stay as they are",
      description: 'Stored in the configuration (probe.name, system.accent_color, system.login_notice) and applied at once.',
      body: UpdateBody, response: WebIdentity,
      handler: async (ctx) => {
        const b = ctx.body;
        await ctx.app.config.update({
          ...(b.probe_name !== undefined ? { probe: { name: b.probe_name } } : {}),
          ...(b.accent_color !== undefined || b.login_notice !== undefined
            ? { system: { accent_color: b.accent_color, login_notice: b.login_notice } } : {}),
        });
        await ctx.audit('web_identity.update', null, { fields: Object.keys(b).filter((k) => b[k as keyof typeof b] !== undefined) });
        return brand.identity();
      },
    }),
    route({
      method: 'GET', path: '/api/web-identity/logo', auth: 'none', tag: 'system', produces: 'image/*',
      summary: 'The uploaded logo, typed from its bytes (404 when there is none)',
      handler: ({ req, res }) => sendAsset(brand, 'logo', req, res),
    }),
    route({
      method: 'GET', path: '/api/web-identity/favicon', auth: 'none', tag: 'system', produces: 'image/*',
      summary: 'The uploaded favicon, typed from its bytes (404 when there is none)',
      handler: ({ req, res }) => sendAsset(brand, 'favicon', req, res),
    }),
  ];
}
