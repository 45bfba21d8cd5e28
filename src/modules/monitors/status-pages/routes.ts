// /api/monitors/status-pages: public status pages. Editors use the monitors scopes (monitors:read for GET,
// monitors:write for the rest), every change audited; readers need no sign-in: the page's public form as
// JSON (/public/:slug) and as HTML (/public/:slug/page, which the HTTP core also answers at /status/<slug>),
// both from the cached documents (documents.ts). See docs/monitors.md, "Status pages".
import { z } from 'zod';
import { notFound } from '../../../core/errors.js';
import { actorOf, reply, route, type AnyRoute } from '../../../core/http/registry.js';
import type { StatusDocuments } from './documents.js';
import type { StatusPages } from './pages.js';
import {
  CreatePageBody, PageIdParams, PageSchema, PublicPageSchema, ReaderSlugParams, SlugParams, UpdatePageBody,
} from './schemas.js';

/** The address readers use for a page's HTML; the HTTP core maps it to the route below (core/http/app.ts). */
export const STATUS_PAGE_PREFIX = '/status/';

export function statusPageRoutes(pages: StatusPages, docs: StatusDocuments): AnyRoute[] {
  return [
    route({
      method: 'GET', path: '/api/monitors/status-pages', scope: 'monitors:read',
      summary: 'Status pages, by title',
      response: z.object({ items: z.array(PageSchema), total: z.number().int() }),
      handler: () => {
        const items = pages.list();
        return { items, total: items.length };
      },
    }),
    route({
      method: 'POST', path: '/api/monitors/status-pages', scope: 'monitors:write', status: 201,
      summary: 'Create a status page',
      description: 'Readers find it at /status/<slug> (HTML) and /api/monitors/status-pages/public/<slug> (JSON), without signing in. ' +
        'It shows its title, its groups with the monitors chosen (by the alias given, else the monitor\'s name), each one\'s state ' +
        'and 90 days of daily uptime, and notices: its own and, with show_maintenance, maintenance windows that touch its monitors. ' +
        'Nothing else of a monitor. 409 slug_taken when another page has the slug. Audited.',
      body: CreatePageBody, response: PageSchema,
      handler: async (ctx) => reply(201, await pages.create(ctx.body, actorOf(ctx))),
    }),
    route({
      method: 'GET', path: '/api/monitors/status-pages/:id', scope: 'monitors:read',
      summary: 'One status page',
      params: PageIdParams, response: PageSchema,
      handler: (ctx) => pages.get(ctx.params.id),
    }),
    route({
      method: 'PUT', path: '/api/monitors/status-pages/:id', scope: 'monitors:write',
      summary: 'Change a status page (the fields given)',
      description: 'groups, when given, replaces all the groups. Readers see the change at once. Audited.',
      params: PageIdParams, body: UpdatePageBody, response: PageSchema,
      handler: (ctx) => pages.update(ctx.params.id, ctx.body, actorOf(ctx)),
    }),
    route({
      method: 'DELETE', path: '/api/monitors/status-pages/:id', scope: 'monitors:write',
      summary: 'Delete a status page',
      description: 'Its address answers 404 at once. Audited.',
      params: PageIdParams,
      handler: async (ctx) => { await pages.remove(ctx.params.id, actorOf(ctx)); return undefined; },
    }),
    route({
      method: 'GET', path: '/api/monitors/status-pages/public/:slug', auth: 'none',
      summary: 'A status page as JSON, for other tools (no sign-in)',
      description: 'The page\'s public form: what its HTML shows, nothing more (no monitor ids, targets, tags or messages). ' +
        'Served from a cached document with an ETag (If-None-Match answers 304) and Cache-Control: public, max-age=10.',
      params: SlugParams, response: PublicPageSchema,
      handler: (ctx) => {
        if (!docs.serve(ctx.req, ctx.res, ctx.params.slug, 'json')) throw notFound('Status page');
      },
    }),
    route({
      method: 'GET', path: '/api/monitors/status-pages/public/:slug/page', auth: 'none', produces: 'text/html',
      summary: 'A status page as HTML (no sign-in); also at /status/<slug>',
      description: 'One small server-rendered document without scripts, cached as the JSON form is. Not to be framed ' +
        '(X-Frame-Options: DENY, frame-ancestors \'none\'). At /status/<slug> an unknown slug is an HTML 404 page.',
      params: ReaderSlugParams,
      handler: (ctx) => {
        if (docs.serve(ctx.req, ctx.res, ctx.params.slug, 'html')) return;
        if ((ctx.req.url ?? '').startsWith(STATUS_PAGE_PREFIX)) { docs.serveMissing(ctx.req, ctx.res); return; }
        throw notFound('Status page');
      },
    }),
  ];
}
