// A route's declared response schema (what OpenAPI publishes), so a test can check the body it got
// against it: the schema is documentation the code must keep.
import assert from 'node:assert/strict';
import type { ZodType } from 'zod';
import type { TestApp } from './harness.js';

export function assertMatchesResponse(t: TestApp, method: string, path: string, body: unknown): void {
  const r = t.service.app.routes.all().find((x) => x.method === method && x.path === path);
  assert.ok(r, `no route ${method} ${path}`);
  const schema = (r as { response?: ZodType }).response;
  assert.ok(schema, `${method} ${path} declares no response schema`);
  const got = schema.safeParse(body);
  assert.ok(got.success, `${method} ${path}: the body does not match its response schema: ${got.success ? '' : got.error.message}`);
}
