// Builds the OpenAPI 3.1 document from the route registry; nothing here is written by hand per route.
import { z } from 'zod';
import type { Routes } from '../context.js';
import type { AnyRoute } from './registry.js';
import { RouteRegistry as Registry } from './registry.js';

type Json = Record<string, unknown>;

function schemaOf(s: z.ZodType, io: 'input' | 'output'): Json {
  const out = z.toJSONSchema(s, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as Json;
  delete out.$schema;
  return out;
}

const PROBLEM: Json = {
  type: 'object',
  required: ['type', 'title', 'status', 'detail', 'code'],
  properties: {
    type: { type: 'string' }, title: { type: 'string' }, status: { type: 'integer' },
    detail: { type: 'string' }, code: { type: 'string' }, request_id: { type: 'string' },
    errors: { type: 'array', items: { type: 'object', properties: {
      path: { type: 'string' }, message: { type: 'string' },
      suggestion: { type: 'string', description: 'A value the API would take in its place (a CIDR\'s network)' },
    } } },
  },
};

const problemRef = (description: string) => ({
  description, content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
});

function parameters(r: AnyRoute): Json[] {
  const out: Json[] = [];
  const pathNames = r.path.split('/').filter((s) => s.startsWith(':')).map((s) => s.slice(1));
  const pSchema = r.params ? schemaOf(r.params, 'input') : undefined;
  for (const name of pathNames) {
    const s = (pSchema?.properties as Json | undefined)?.[name] ?? { type: 'string' };
    out.push({ name, in: 'path', required: true, schema: s });
  }
  if (r.query) {
    const q = schemaOf(r.query, 'input');
    const required = new Set((q.required as string[] | undefined) ?? []);
    for (const [name, s] of Object.entries((q.properties as Json | undefined) ?? {})) {
      const desc = (s as Json).description;
      out.push({ name, in: 'query', required: required.has(name), schema: s, ...(desc ? { description: desc } : {}) });
    }
  }
  return out;
}

function operation(r: AnyRoute): Json {
  const okStatus = String(r.status ?? (r.response || r.produces ? 200 : 204));
  const ok: Json = { description: 'Success' };
  if (r.produces) ok.content = { [r.produces]: {
    schema: r.produces.includes('json') && r.response ? schemaOf(r.response, 'output') : { type: 'string' } } };
  else if (r.response) ok.content = { 'application/json': { schema: schemaOf(r.response, 'output') } };
  const responses: Json = { [okStatus]: ok, 400: problemRef('Invalid input'), 500: problemRef('Unexpected error') };
  if (r.auth !== 'none') {
    responses[401] = problemRef('No or invalid credentials');
    responses[403] = problemRef('Missing scope or role');
  }
  if (r.path.includes(':')) responses[404] = problemRef('Unknown resource');
  const op: Json = {
    operationId: opId(r),
    summary: r.summary,
    tags: [r.tag ?? r.path.split('/')[2] ?? 'api'],
    parameters: parameters(r),
    responses,
    'x-access': Registry.accessOf(r),
  };
  if (r.description) op.description = r.description;
  if (r.auth === 'none') op.security = [];
  if (r.body) {
    const types = ['application/json', ...(r.consumes ?? [])];
    op.requestBody = { required: true, content: Object.fromEntries(types.map((t) => [t, { schema: schemaOf(r.body!, 'input') }])) };
  } else if (r.rawBody && r.consumes?.length) {
    op.requestBody = { required: true,
      content: Object.fromEntries(r.consumes.map((t) => [t, { schema: { type: 'string', format: 'binary' } }])) };
  }
  return op;
}

function opId(r: AnyRoute): string {
  const words = r.path.replace(/^\/api\//, '').split(/[/_-]/).filter(Boolean)
    .map((w) => (w.startsWith(':') ? 'By' + cap(w.slice(1)) : cap(w)));
  return r.method.toLowerCase() + words.join('');
}
const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1).replace(/[^A-Za-z0-9]/g, '');

export function buildOpenApi(registry: Pick<Routes, 'all'>, info: { version: string; title?: string }): Json {
  const paths: Record<string, Json> = {};
  for (const r of registry.all()) {
    const p = r.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    (paths[p] ??= {})[r.method.toLowerCase()] = operation(r);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: info.title ?? 'netprobe API',
      version: info.version,
      description: 'The REST API of a netprobe appliance. Errors are RFC 9457 application/problem+json.',
    },
    servers: [{ url: '/' }],
    security: [{ apiKey: [] }, { session: [] }],
    paths,
    components: {
      schemas: { Problem: PROBLEM },
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        session: { type: 'apiKey', in: 'cookie', name: 'np_session' },
      },
    },
  };
}
