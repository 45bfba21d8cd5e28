// The route registry: every endpoint is declared once, as data. It is the single source for routing,
// authentication and authorisation, request validation, the OpenAPI document, /api/developer/routes
// and the authorisation-matrix test.
import type { z } from 'zod';
import type { Actor } from '../audit/types.js';
import type { Scope } from '../auth/scopes.js';
import type { AnyRoute, Method, RequestCtx, RouteDef, Routes } from '../context.js';
import { pathSegments } from './path.js';

export type { Actor } from '../audit/types.js';
export type { AnyRoute, Method, RequestCtx, RouteDef } from '../context.js';

/** The actor of a request, for services that record history and audit entries. */
export const actorOf = (ctx: RequestCtx): Actor => ({
  actor: ctx.principal?.actor ?? null,
  auditEntry: (action, target, details) => ctx.auditEntry(action, target, details),
});

/** A response other than 200 JSON. Handlers return reply(...) for 201, 202, custom headers. */
export class Reply {
  constructor(public status: number, public body?: unknown, public headers: Record<string, string> = {}) {}
}
export const reply = (status: number, body?: unknown, headers?: Record<string, string>) => new Reply(status, body, headers);


/** Declares a route with its schemas' types flowing into the handler. */
export function route<P extends z.ZodType = z.ZodType, Q extends z.ZodType = z.ZodType, B extends z.ZodType = z.ZodType>(
  def: RouteDef<P, Q, B>,
): RouteDef<P, Q, B> {
  const file = def.file ?? declaringFile();
  return { ...def, file, module: def.module ?? /^src\/modules\/([^/]+)\//.exec(file)?.[1] ?? 'core' };
}

/** The source file that called route(), as src/...ts (the compiled dist/src/...js maps back to it). */
function declaringFile(): string {
  const holder: { stack?: string } = {};
  Error.captureStackTrace(holder, route);
  const frame = holder.stack?.split('\n')[1] ?? '';
  const path = /(?:file:\/\/)?(\/[^():]+\.[cm]?[jt]s):\d+:\d+/.exec(frame)?.[1] ?? '';
  const at = path.lastIndexOf('/src/');
  if (at < 0) return 'unknown';
  return path.slice(at + 1).replace(/\.js$/, '.ts');
}

const READ_METHODS = new Set<Method>(['GET']);

export class RouteRegistry implements Routes {
  private list: AnyRoute[] = [];
  /** The routes, in list order, with their paths split, by segment count: a request is compared with its length's only. */
  private byLength = new Map<number, { route: AnyRoute; pattern: string[] }[]>();
  /** Method and pattern (parameters unnamed) of each route, to refuse one declared twice. */
  private keys = new Set<string>();

  add(...defs: AnyRoute[]): void {
    for (const def of defs) {
      if (!def.path.startsWith('/api/')) throw new Error(`route ${def.path}: paths start with /api/`);
      const key = `${def.method} ${patternKey(def.path)}`;
      if (this.keys.has(key)) throw new Error(`route ${def.method} ${def.path} is declared twice`);
      if (def.auth !== 'none' && def.auth !== 'user' && !def.admin && !def.scope)
        throw new Error(`route ${def.method} ${def.path} needs a scope, admin: true or auth`);
      if (def.authRequiredIf && (def.auth !== 'none' || !def.scope))
        throw new Error(`route ${def.method} ${def.path}: authRequiredIf is for auth: 'none' routes and needs the scope they then require`);
      if (def.scope && def.scope !== 'admin') {
        const want = READ_METHODS.has(def.method) ? ':read' : ':write';
        if (!def.scope.endsWith(want)) throw new Error(`route ${def.method} ${def.path}: a ${def.method} needs a ${want} scope`);
      }
      this.list.push(def);
      this.keys.add(key);
    }
    this.list.sort(compareRoutes);
    this.byLength.clear();
    for (const route of this.list) {
      const pattern = splitPath(route.path);
      const same = this.byLength.get(pattern.length) ?? [];
      same.push({ route, pattern });
      this.byLength.set(pattern.length, same);
    }
  }

  /** All routes, literal segments before parameters so that /api/monitors/stats wins over :id. */
  all(): readonly AnyRoute[] { return this.list; }

  /**
   * Finds the route for a method and a raw (percent-encoded) path; `allowed` lists the methods the path
   * answers to. Throws a 400 for a path that does not decode to plain segments (path.ts).
   */
  match(method: string, path: string): { route?: AnyRoute; params: Record<string, string>; allowed: Method[] } {
    const segs = pathSegments(path);
    const allowed: Method[] = [];
    let found: { route: AnyRoute; params: Record<string, string> } | undefined;
    for (const { route: r, pattern } of this.byLength.get(segs.length) ?? []) {
      const params = matchSegments(pattern, segs);
      if (!params) continue;
      if (!allowed.includes(r.method)) allowed.push(r.method);
      if (!found && (r.method === method || (method === 'HEAD' && r.method === 'GET'))) found = { route: r, params };
    }
    return { route: found?.route, params: found?.params ?? {}, allowed };
  }

  /** The scope a route needs, or its access rule summarised, for docs and the developer listing. */
  static accessOf(r: AnyRoute): string {
    if (r.auth === 'none') return r.authRequiredIf ? `none (${r.scope as Scope} when the configuration requires sign-in)` : 'none';
    if (r.admin) return 'admin';
    if (r.auth === 'user') return 'any signed-in user';
    return (r.scope as Scope) + (r.alsoScope ? ` and ${r.alsoScope}` : '') + (r.self ? ' (or own record)' : '');
  }
}

function splitPath(p: string): string[] {
  return p.split('/').filter(Boolean);
}

/** The parameters of decoded segments that fit a pattern, or null. */
function matchSegments(pattern: string[], segs: string[]): Record<string, string> | null {
  if (pattern.length !== segs.length) return null;
  // Literal segments first: most routes differ there, and are passed over without making anything.
  for (let i = 0; i < pattern.length; i++) if (pattern[i]![0] !== ':' && pattern[i] !== segs[i]) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) if (pattern[i]![0] === ':') params[pattern[i]!.slice(1)] = segs[i]!;
  return params;
}

/** A path pattern with its parameters unnamed: /api/monitors/:id and /api/monitors/:monitor are one route. */
function patternKey(p: string): string {
  return splitPath(p).map((s) => (s.startsWith(':') ? ':' : s)).join('/');
}

function compareRoutes(a: AnyRoute, b: AnyRoute): number {
  const sa = splitPath(a.path), sb = splitPath(b.path);
  for (let i = 0; i < Math.min(sa.length, sb.length); i++) {
    const pa = sa[i]!.startsWith(':'), pb = sb[i]!.startsWith(':');
    if (pa !== pb) return pa ? 1 : -1;
    if (!pa && sa[i] !== sb[i]) return sa[i]! < sb[i]! ? -1 : 1;
  }
  return sa.length - sb.length || a.method.localeCompare(b.method);
}
