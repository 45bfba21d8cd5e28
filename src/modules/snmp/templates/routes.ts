// Walk templates: list, create, read, update, delete and run now (SPEC.md, "SNMP"). The logic is in service.ts.
import { z } from 'zod';
import { clientGone } from '../../../core/http/abort.js';
import { actorOf, reply, route, type AnyRoute } from '../../../core/http/registry.js';
import { Template, TemplateCreateBody, TemplateUpdateBody, WalkResult } from '../schemas.js';
import type { TemplateService } from './service.js';

const IdParams = z.object({ id: z.uuid().describe('Template id') });

export function templateRoutes(templates: TemplateService): AnyRoute[] {
  return [
    route({
      method: 'GET', path: '/api/snmp/templates', scope: 'snmp:read', tag: 'snmp', summary: 'List walk templates',
      response: z.object({ items: z.array(Template), total: z.number().int() }),
      handler: () => templates.list(),
    }),
    route({
      method: 'POST', path: '/api/snmp/templates', scope: 'snmp:write', tag: 'snmp', status: 201,
      summary: 'Create a walk template (target, stored credential, OIDs, options)',
      body: TemplateCreateBody, response: Template,
      handler: async (ctx) => reply(201, await templates.create(ctx.body, actorOf(ctx))),
    }),
    route({
      method: 'GET', path: '/api/snmp/templates/:id', scope: 'snmp:read', tag: 'snmp', summary: 'One walk template',
      params: IdParams, response: Template,
      handler: (ctx) => templates.get(ctx.params.id),
    }),
    route({
      method: 'PUT', path: '/api/snmp/templates/:id', scope: 'snmp:write', tag: 'snmp',
      summary: 'Update a walk template (fields left out keep their values)',
      params: IdParams, body: TemplateUpdateBody, response: Template,
      handler: (ctx) => templates.update(ctx.params.id, ctx.body, actorOf(ctx)),
    }),
    route({
      method: 'DELETE', path: '/api/snmp/templates/:id', scope: 'snmp:write', tag: 'snmp', summary: 'Delete a walk template',
      params: IdParams,
      handler: async (ctx) => { await templates.remove(ctx.params.id, actorOf(ctx)); return undefined; },
    }),
    route({
      method: 'POST', path: '/api/snmp/templates/:id/run', scope: 'snmp:write', tag: 'snmp',
      summary: 'Run a template\'s walk now; the outcome is stored as its last run',
      params: IdParams, response: WalkResult,
      handler: (ctx) => templates.run(ctx.params.id, actorOf(ctx), clientGone(ctx)),
    }),
  ];
}
