// GET /api/request-schema: the JSON Schema of the body an endpoint takes, for the web UI to check a form's
// request before sending it (ui/lib/request-check.js), with the server's own rules. The schema is the
// route's `body`, or what its `bodySchemaFor` names for the request's path parameters (an inventory
// type's fields); each is turned into JSON Schema once.
import { z } from 'zod';
import { HttpError } from '../../../core/errors.js';
import { route, type AnyRoute } from '../../../core/http/registry.js';
import type { AppContext } from '../../../core/context.js';

const METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'] as const;

export function requestSchemaRoutes(app: AppContext): AnyRoute[] {
  // One JSON Schema per zod schema: a bounded set (the routes' bodies and the inventory types').
  const made = new WeakMap<z.ZodType, Record<string, unknown>>();
  const jsonSchema = (s: z.ZodType) => {
    let js = made.get(s);
    if (!js) {
      js = z.toJSONSchema(s, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
      delete js.$schema;
      made.set(s, js);
    }
    return js;
  };
  return [
    route({
      method: 'GET', path: '/api/request-schema', auth: 'none', tag: 'system',
      summary: 'The JSON Schema of the body an endpoint takes (what a form checks before sending)',
      description: 'As in the OpenAPI document, narrowed to the request: `path` is a concrete path, so the inventory\'s ' +
        '`POST /api/brain/sites` gives the fields of a site. Checks that JSON Schema cannot express (an IP address, a time ' +
        'zone, fields that go together) are the server\'s alone. `schema` is null when the endpoint takes no JSON body.',
      query: z.object({
        method: z.enum(METHODS).describe('The request\'s method'),
        path: z.string().trim().min(5).max(500).regex(/^\/api\//, 'starts with /api/').describe('The request\'s path, e.g. /api/users/42'),
      }),
      response: z.object({
        method: z.enum(METHODS), path: z.string().describe('The route\'s path pattern, e.g. /api/users/:id'),
        schema: z.record(z.string(), z.unknown()).nullable(),
      }),
      handler: ({ query }) => {
        const { route: r, params } = app.routes.match(query.method, query.path.split('?')[0]!);
        if (!r) throw new HttpError(404, 'route_not_found', `There is no API endpoint ${query.method} ${query.path}`);
        const body = r.rawBody ? undefined : r.bodySchemaFor?.(params) ?? r.body;
        return { method: query.method, path: r.path, schema: body ? jsonSchema(body as z.ZodType) : null };
      },
    }),
  ];
}
