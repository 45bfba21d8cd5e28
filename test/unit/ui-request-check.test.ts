// The browser's check of a field against the server's schema (ui/lib/request-check.js, run as a form's
// field is left) refuses only what the server refuses: for every field of every JSON body the API takes
// (the inventory's types through their own schemas), with values of every kind, each field error the
// browser finds is one the server's zod schema finds too, at the same place. And it does find what JSON
// Schema can say (a latitude of 91, an e-mail address without an @, a username with a space).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { z } from 'zod';
import { fieldErrors } from '../../src/core/errors.js';
import type { Service } from '../../src/main.js';
import { startQuietService } from '../helpers/quiet-service.js';
// @ts-expect-error plain browser JavaScript without type declarations
import { fieldSchema, schemaErrors } from '../../ui/lib/request-check.js';

let service: Service;
let stop: (() => Promise<void>) | undefined;

before(async () => {
  ({ service, close: stop } = await startQuietService('request-check'));
});

after(async () => { await stop?.(); });

/** Every JSON body schema the API applies: each route's, and each inventory type's create and update. */
function bodies(): { what: string; schema: z.ZodType }[] {
  const out: { what: string; schema: z.ZodType }[] = [];
  for (const r of service.app.routes.all()) {
    if (r.body && !r.rawBody) out.push({ what: `${r.method} ${r.path}`, schema: r.body as z.ZodType });
  }
  for (const r of service.app.routes.all().filter((x) => x.bodySchemaFor)) {
    for (const type of ['sites', 'locations', 'endpoints', 'assets', 'applications', 'subnets', 'credentials']) {
      const s = r.bodySchemaFor!({ type, id: 'x' });
      if (s) out.push({ what: `${r.method} ${r.path} (${type})`, schema: s });
    }
  }
  return out;
}

const VALUES: unknown[] = [
  '', ' ', 'x', ' padded ', 'two\nlines', 'not-an-email', 'a b', '2024-13-01', '2024-05-01', '10.0.0.5/24', 'https://example.org',
  'x'.repeat(70), 'x'.repeat(300), 'x'.repeat(3000), 0, -1, 1.5, 91, 65536, 1e9, true, false, null, [], ['x'], [1], [''], {}, { a: 'b' },
];

test('what the browser refuses, the server refuses too, at the same field', () => {
  const problems: string[] = [];
  let checked = 0, refused = 0;
  for (const { what, schema } of bodies()) {
    const js = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as { properties?: Record<string, unknown> };
    for (const name of Object.keys(js.properties ?? {})) {
      const field = fieldSchema(js, name);
      if (!field) continue;
      for (const value of VALUES) {
        const browser: { path: string }[] = schemaErrors(field, value, name);
        checked++;
        if (!browser.length) continue;
        refused++;
        const r = schema.safeParse({ [name]: value });
        const server = r.success ? [] : fieldErrors(r.error.issues).map((e) => e.path);
        const at = (p: string) => server.some((s) => s === p || s.startsWith(`${p}.`) || p.startsWith(`${s}.`));
        for (const e of browser) {
          if (!at(e.path)) problems.push(`${what}: ${name} = ${JSON.stringify(value).slice(0, 40)}: the browser refuses ${e.path}, the server does not`);
        }
      }
    }
  }
  console.log(`${checked} field values checked, ${refused} refused in the browser`);
  assert.ok(refused > 1000, `the browser refused only ${refused} of ${checked}: the check does next to nothing`);
  assert.deepEqual(problems, []);
});

test('the browser finds what JSON Schema says: a range, an e-mail address, a pattern, a type, a choice', () => {
  const route = (method: string, path: string, params: Record<string, string> = {}) => {
    const r = service.app.routes.all().find((x) => x.method === method && x.path === path)!;
    return z.toJSONSchema((r.bodySchemaFor?.(params) ?? r.body) as z.ZodType, { io: 'input', unrepresentable: 'any' });
  };
  const site = route('POST', '/api/brain/:type', { type: 'sites' });
  const first = (schema: unknown, name: string, value: unknown) => schemaErrors(fieldSchema(schema, name), value, name)[0]?.message;
  assert.equal(first(site, 'latitude', 91), 'Too big: expected number to be <=90');
  assert.equal(first(site, 'latitude', '47,3'), 'Invalid input: expected number, received string');
  assert.equal(first(site, 'latitude', 47.3), undefined);
  assert.equal(first(site, 'contact_email', 'not-an-email'), 'Invalid email address');
  assert.equal(first(site, 'contact_email', 'noc@example.org'), undefined);
  assert.equal(first(site, 'address', 'Bahnhofstrasse 1\n8001 Zürich'), undefined);
  const users = route('POST', '/api/users');
  assert.match(first(users, 'username', 'a b') ?? '', /^Invalid string: must match pattern/);
  assert.match(first(users, 'role', 'owner') ?? '', /^Invalid option: expected one of "admin"\|"operator"\|"viewer"$/);
  const subnet = route('POST', '/api/brain/:type', { type: 'subnets' });
  assert.equal(first(subnet, 'vlan_id', 5000), 'Too big: expected number to be <=4094');
  assert.equal(first(subnet, 'vlan_id', 1.5), 'Invalid input: expected int, received number');
  // What JSON Schema cannot say is the server's: a CIDR with host bits passes here.
  assert.equal(first(subnet, 'cidr', '10.0.0.5/24'), undefined);
});
