// /api/config: the configuration file as YAML, as JSON, as CSV, and its import (all admin). Saves are
// strict (400 naming each key, with its line for YAML and CSV), atomic, applied live where the key
// allows, and audited with the names of the changed keys only.
import { z } from 'zod';
import type { AppContext } from '../../../core/context.js';
import { mediaTypeOf, readTextBody } from '../../../core/http/body.js';
import { parseGuardedJson } from '../../../core/http/json-guard.js';
import { route, type AnyRoute, type RequestCtx } from '../../../core/http/registry.js';
import { SecretsDropped } from '../../../core/http/schemas.js';
import { ConfigApiService, type ImportFormat, type SaveResult as Saved } from './service.js';

const SaveResult = z.object({
  changed: z.array(z.string()), applied_live: z.array(z.string()), restart_required: z.array(z.string()),
  secrets_dropped: SecretsDropped.optional()
    .describe('Stored secrets dropped because a key they are bound to (smtp.host, smtp.port, ...) changed and this save did not ' +
      'send them again, as dotted keys; absent when none'),
});
const ImportResult = SaveResult.extend({
  dry_run: z.boolean(),
  changes: z.array(z.object({ key: z.string(), from: z.unknown(), to: z.unknown() })),
});
const ImportQuery = z.strictObject({
  dry_run: z.enum(['true', 'false', '1', '0']).optional().describe('true: validate and list the changes without applying them'),
});

const YAML_TYPES = ['application/yaml', 'application/x-yaml', 'text/yaml', 'text/x-yaml', 'text/plain'];
const CSV_TYPES = ['text/csv', 'application/csv'];

const mediaType = (ctx: RequestCtx) => mediaTypeOf(ctx.req);
const readText = (ctx: RequestCtx, allowed: string[], what: string) =>
  readTextBody(ctx.req, ctx.app.config.get().http.json_limit_kb * 1024, allowed, what);

export function configRoutes(app: AppContext): AnyRoute[] {
  const svc = new ConfigApiService(app);
  const audited = async (ctx: RequestCtx, via: string, r: Saved) => {
    // Key names only: values (secrets among them) never reach the audit log.
    if (r.changed.length) {
      await ctx.audit('config.save', null, { via, keys: r.changed, ...(r.secrets_dropped ? { secrets_dropped: r.secrets_dropped } : {}) });
    }
  };
  return [
    route({
      method: 'GET', path: '/api/config', admin: true, tag: 'system', produces: 'application/yaml',
      summary: 'The configuration file as YAML (admin); secrets shown as {set: true|false}',
      handler: ({ res }) => {
        const text = svc.yamlText();
        res.writeHead(200, {
          'Content-Type': 'application/yaml; charset=utf-8', 'Cache-Control': 'no-store',
          'Content-Length': String(Buffer.byteLength(text)),
        }).end(text);
      },
    }),
    route({
      method: 'POST', path: '/api/config', admin: true, tag: 'system', rawBody: true, consumes: YAML_TYPES,
      summary: 'Save the configuration file from YAML (admin)',
      description: 'The whole file, validated before anything is written: 400 lists each invalid key with its line. ' +
        'A secret left out or sent as {set: true} keeps its value (not when a key it is bound to changes: secrets_dropped); ' +
        '{set: false} clears it. The answer names the changed keys, those applied live and those that need a restart.',
      response: SaveResult,
      handler: async (ctx) => {
        const r = await svc.saveYaml(await readText(ctx, YAML_TYPES, 'the configuration'));
        await audited(ctx, 'yaml', r);
        return r;
      },
    }),
    route({
      method: 'GET', path: '/api/config/json', admin: true, tag: 'system',
      summary: 'The configuration as JSON, defaults filled in (admin); secrets shown as {set: true|false}',
      response: z.record(z.string(), z.unknown()),
      handler: () => svc.json(),
    }),
    route({
      method: 'POST', path: '/api/config/json', admin: true, tag: 'system',
      summary: 'Save the whole configuration from JSON (admin); keys left out take their defaults, secrets left out are kept',
      body: z.record(z.string(), z.unknown()), response: SaveResult,
      handler: async (ctx) => {
        const r = await svc.saveJson(ctx.body);
        await audited(ctx, 'json', r);
        return r;
      },
    }),
    route({
      method: 'GET', path: '/api/config/export', admin: true, tag: 'system', produces: 'text/csv',
      summary: 'The configuration as CSV: key,value,default,description (admin); secrets never in clear',
      handler: ({ res }) => {
        const csv = svc.exportCsv();
        res.writeHead(200, {
          'Content-Type': 'text/csv; charset=utf-8', 'Cache-Control': 'no-store',
          'Content-Disposition': 'attachment; filename="netprobe-config.csv"', 'Content-Length': String(Buffer.byteLength(csv)),
        }).end(csv);
      },
    }),
    route({
      method: 'POST', path: '/api/config/import', admin: true, tag: 'system', rawBody: true,
      consumes: [...CSV_TYPES, ...YAML_TYPES], query: ImportQuery, response: ImportResult,
      summary: 'Import keys from a CSV export, YAML or JSON (admin); dry_run=true lists the changes only',
      description: 'Keys left out stay as they are. Everything is validated before anything changes (400 names each key, ' +
        'with its line for CSV). A secret sent as {"set":true} is kept, {"set":false} clears it; a stored secret whose ' +
        'destination keys change (smtp.host or smtp.port for smtp.password) is dropped unless sent again (secrets_dropped).',
      handler: async (ctx) => {
        const type = mediaType(ctx);
        const format: ImportFormat = CSV_TYPES.includes(type) ? 'csv'
          : type === 'application/json' || type.endsWith('+json') ? 'json' : 'yaml';
        const text = await readText(ctx, [...CSV_TYPES, ...YAML_TYPES, 'application/json'], 'the import');
        if (format === 'json') parseGuardedJson(text); // prototype keys, depth and control characters refused
        const dryRun = ctx.query.dry_run === 'true' || ctx.query.dry_run === '1';
        const r = await svc.import(text, format, dryRun);
        if (!dryRun) await audited(ctx, `import-${format}`, r);
        return r;
      },
    }),
  ];
}
