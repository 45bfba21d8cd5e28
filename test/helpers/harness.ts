// Starts the real service in-process on 127.0.0.1 with a fresh data directory, and talks to it over
// real HTTP. Log lines are kept in memory (printed only when NETPROBE_TEST_LOG=1).
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startService, type Service } from '../../src/main.js';
import type { Clock } from '../../src/core/clock.js';

export interface TestResponse<T = any> {
  status: number;
  headers: Headers;
  /** Parsed JSON when the response is JSON, else the text. */
  body: T;
  text: string;
}

export interface RequestOptions {
  body?: unknown;
  /** Raw body sent as is (with its own content type in headers). */
  raw?: string | Buffer;
  cookie?: string;
  key?: string;
  headers?: Record<string, string>;
}

export interface TestApp {
  url: string;
  service: Service;
  dataDir: string;
  /** The one-time admin password the first start wrote. */
  initialPassword: string;
  logs: string[];
  request<T = any>(method: string, path: string, opts?: RequestOptions): Promise<TestResponse<T>>;
  /** Signs in and returns the Cookie header value. */
  login(username: string, password: string): Promise<string>;
  /** Bootstraps a real admin (once) and returns an admin session cookie and an all-scopes admin API key. */
  admin(): Promise<{ cookie: string; key: string; username: string; password: string }>;
  /** Creates a user with a role (as the admin) and returns its cookie and an API key with the given scopes. */
  user(role: 'admin' | 'operator' | 'viewer', scopes?: string[]): Promise<{ id: string; cookie: string; key: string; username: string; password: string }>;
  close(opts?: { keepData?: boolean }): Promise<void>;
}

let userSeq = 0;

export async function startTestApp(opts: { dataDir?: string; env?: Record<string, string>; clock?: Clock } = {}): Promise<TestApp> {
  const dataDir = opts.dataDir ?? (await mkdtemp(join(tmpdir(), 'netprobe-test-')));
  const logs: string[] = [];
  const service = await startService({
    env: { NETPROBE_DATA_DIR: dataDir, ...opts.env },
    clock: opts.clock,
    logWrite: (line) => { logs.push(line); if (process.env.NETPROBE_TEST_LOG) console.log(line); },
  });
  const addr = await service.listen(0, '127.0.0.1');
  const url = `http://127.0.0.1:${addr.port}`;
  const initialPassword = await readFile(join(dataDir, 'initial-admin-password'), 'utf8').then((s) => s.trim(), () => '');
  let adminCache: Awaited<ReturnType<TestApp['admin']>> | undefined;

  const t: TestApp = {
    url, service, dataDir, initialPassword, logs,
    async request(method, path, o = {}) {
      const headers: Record<string, string> = { ...o.headers };
      if (o.cookie) { headers.cookie = o.cookie; headers.origin ??= url; }
      if (o.key) headers['x-api-key'] = o.key;
      let body: string | Buffer | undefined;
      if (o.raw !== undefined) body = o.raw;
      else if (o.body !== undefined) { body = JSON.stringify(o.body); headers['content-type'] ??= 'application/json'; }
      const res = await fetch(url + path, { method, headers, body: body as BodyInit | undefined, redirect: 'manual' });
      const text = await res.text();
      const ct = res.headers.get('content-type') ?? '';
      const parsed = ct.includes('json') && text ? JSON.parse(text) : text;
      return { status: res.status, headers: res.headers, body: parsed, text };
    },
    async login(username, password) {
      const r = await t.request('POST', '/api/auth/login', { body: { username, password }, headers: { origin: url } });
      if (r.status !== 200 || r.body?.signed_in !== true) throw new Error(`login ${username} failed: ${r.status} ${r.text}`);
      const set = r.headers.get('set-cookie') ?? '';
      return set.split(';')[0]!;
    },
    async admin() {
      if (adminCache) return adminCache;
      const username = 'root-admin', password = 'correct horse battery staple';
      const b = await t.request('POST', '/api/setup/bootstrap', { body: { setup_code: initialPassword, username, password } });
      if (b.status !== 201) throw new Error(`bootstrap failed: ${b.status} ${b.text}`);
      const cookie = await t.login(username, password);
      const k = await t.request('POST', '/api/api-keys', { cookie, body: { name: 'test-admin', scopes: ['admin'] } });
      if (k.status !== 201) throw new Error(`admin key failed: ${k.status} ${k.text}`);
      return (adminCache = { cookie, key: k.body.key, username, password });
    },
    async user(role, scopes) {
      const a = await t.admin();
      const username = `${role}-${++userSeq}`, password = `pass-${role}-${userSeq}-long-enough`;
      const u = await t.request('POST', '/api/users', { key: a.key, body: { username, password, role } });
      if (u.status !== 201) throw new Error(`create user failed: ${u.status} ${u.text}`);
      const cookie = await t.login(username, password);
      const wanted = scopes ?? (role === 'viewer' ? ['monitors:read'] : ['monitors:write']);
      const k = await t.request('POST', '/api/api-keys', { cookie, body: { name: `${username}-key`, scopes: wanted } });
      if (k.status !== 201) throw new Error(`user key failed: ${k.status} ${k.text}`);
      return { id: u.body.id ?? u.body.user?.id, cookie, key: k.body.key, username, password };
    },
    async close(o = {}) {
      await service.shutdown('test end');
      if (!o.keepData && !opts.dataDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
  return t;
}

/** Asserts an RFC 9457 problem response with this status, and (when given) an error naming `field`. */
export function assertProblem(r: TestResponse, status: number, field?: string): void {
  assert.equal(r.status, status, r.text);
  assert.match(r.headers.get('content-type') ?? '', /application\/problem\+json/);
  if (field) {
    const errors: { path: string; message: string }[] = r.body.errors ?? [];
    assert.ok(errors.some((e) => e.path === field || e.message.includes(`"${field}"`)),
      `expected an error naming ${field}: ${JSON.stringify(errors)}`);
  }
}
