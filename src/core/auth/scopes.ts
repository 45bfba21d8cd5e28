// Scopes and roles, and the one function that decides whether a principal may call a route.
// GET/HEAD need `<area>:read`, other methods `<area>:write`; `:write` implies `:read`; the `admin`
// scope implies every scope. A key never exceeds its owner's role.

export const AREAS = ['monitors', 'brain', 'v1sion', 'snmp', 'webhooks', 'system'] as const;
export type Area = (typeof AREAS)[number];
export type Scope = `${Area}:read` | `${Area}:write` | 'admin';
export const SCOPES: Scope[] = [...AREAS.flatMap((a) => [`${a}:read`, `${a}:write`] as Scope[]), 'admin'];

export const ROLES = ['admin', 'operator', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

/** What a signed-in user of each role may do, expressed as scopes. */
export function roleScopes(role: Role): Set<Scope> {
  if (role === 'admin') return new Set(SCOPES);
  if (role === 'operator') return new Set(SCOPES.filter((s) => s !== 'admin'));
  return new Set(SCOPES.filter((s) => s.endsWith(':read')));
}

/** Expands implications: admin -> everything, x:write -> x:read. */
export function expandScopes(scopes: Iterable<Scope>): Set<Scope> {
  const out = new Set<Scope>();
  for (const s of scopes) {
    if (s === 'admin') return new Set(SCOPES);
    out.add(s);
    if (s.endsWith(':write')) out.add(s.replace(':write', ':read') as Scope);
  }
  return out;
}

/** Effective scopes of an API key: its own scopes, capped by its owner's role. */
export function keyScopes(keyScopes: Iterable<Scope>, ownerRole: Role): Set<Scope> {
  const allowed = roleScopes(ownerRole);
  return new Set([...expandScopes(keyScopes)].filter((s) => allowed.has(s)));
}

export interface Principal {
  kind: 'session' | 'api_key';
  user: { id: string; username: string; role: Role };
  /** Effective scopes after role capping and implications. */
  scopes: Set<Scope>;
  session_id?: string;
  key_id?: string;
  /** How the audit log and change history name this caller, e.g. "admin" or "admin (key ci-runner)". */
  actor: string;
}

export interface AccessRule {
  auth?: 'none' | 'user';
  scope?: Scope;
  admin?: boolean;
  /** Any signed-in user may call it; the handler restricts it to the caller's own record. */
  self?: boolean;
  /**
   * A second scope needed besides `scope`: an operation that reads or changes two modules' data (parent
   * proposals read a session and set monitors' parents). Checked here, like `scope`, before the handler.
   */
  alsoScope?: Scope;
}

/** null when allowed, else the reason for a 403. */
export function denyReason(p: Principal, rule: AccessRule): string | null {
  if (rule.auth === 'none' || rule.auth === 'user') return null;
  if (rule.admin) {
    if (p.user.role !== 'admin') return 'This operation needs the admin role';
    if (!p.scopes.has('admin')) return 'This API key lacks the admin scope';
    return null;
  }
  if (rule.scope && !p.scopes.has(rule.scope)) {
    if (rule.self) {
      if (p.kind === 'session') return null;
      // A key never exceeds its owner's role, and a viewer's role holds no :write scope at all.
      if (!roleScopes(p.user.role).has(rule.scope)) {
        return `API keys of a ${p.user.role} are read-only; sign in to the web interface to change your own account or keys`;
      }
      return `This API key lacks the ${rule.scope} scope`;
    }
    if (p.kind === 'session') return `Your role (${p.user.role}) does not allow this operation`;
    return `This API key lacks the ${rule.scope} scope`;
  }
  if (rule.alsoScope && !p.scopes.has(rule.alsoScope)) {
    if (p.kind === 'session') return `Your role (${p.user.role}) does not allow this operation`;
    return `This API key lacks the ${rule.alsoScope} scope (the operation needs ${rule.scope} and ${rule.alsoScope})`;
  }
  return null;
}
