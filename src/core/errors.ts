// RFC 9457 problem details. Every failure a client can see is an HttpError turned into
// application/problem+json by the HTTP core; anything else becomes a 500 with no internals.

/**
 * One field at fault. `suggestion`: a value the API would take in its place (the network of a CIDR with
 * host bits set), which a form offers as a one-click fix.
 */
export interface FieldError { path: string; message: string; suggestion?: string }

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  instance?: string;
  request_id?: string;
  errors?: FieldError[];
  [extra: string]: unknown;
}

const TITLES: Record<number, string> = {
  400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed',
  409: 'Conflict', 410: 'Gone', 413: 'Content Too Large', 415: 'Unsupported Media Type', 422: 'Unprocessable Content',
  423: 'Locked', 429: 'Too Many Requests', 500: 'Internal Server Error', 502: 'Bad Gateway',
  503: 'Service Unavailable', 504: 'Gateway Timeout', 507: 'Insufficient Storage',
};

export class HttpError extends Error {
  readonly status: number;
  readonly code: string;
  readonly errors?: FieldError[];
  readonly headers?: Record<string, string>;
  readonly extra?: Record<string, unknown>;

  constructor(status: number, code: string, detail: string,
    opts: { errors?: FieldError[]; headers?: Record<string, string>; extra?: Record<string, unknown> } = {}) {
    super(detail);
    this.name = 'HttpError';
    this.status = status;
    this.code = code;
    this.errors = opts.errors;
    this.headers = opts.headers;
    this.extra = opts.extra;
  }

  toProblem(requestId?: string, instance?: string): Problem {
    const p: Problem = {
      type: `https://netprobe.local/problems/${this.code}`,
      title: TITLES[this.status] ?? 'Error',
      status: this.status,
      detail: this.message,
      code: this.code,
      ...this.extra,
    };
    if (instance) p.instance = instance;
    if (requestId) p.request_id = requestId;
    if (this.errors?.length) p.errors = this.errors;
    return p;
  }
}

export const badRequest = (detail: string, errors?: FieldError[]) =>
  new HttpError(400, 'validation_failed', detail, { errors });
export const notFound = (what: string) => new HttpError(404, 'not_found', `${what} not found`);
export const conflict = (detail: string, code = 'conflict') => new HttpError(409, code, detail);
export const forbidden = (detail = 'You do not have permission for this operation') =>
  new HttpError(403, 'forbidden', detail);
export const unauthorized = (detail = 'Authentication required: sign in or send an X-API-Key header') =>
  new HttpError(401, 'unauthenticated', detail);
export const tooMany = (detail: string, retryAfterSec: number) =>
  new HttpError(429, 'rate_limited', detail, { headers: { 'Retry-After': String(Math.ceil(retryAfterSec)) } });
export const unavailable = (detail: string, code = 'unavailable', extra?: Record<string, unknown>) =>
  new HttpError(503, code, detail, { extra });

/**
 * Schema issues (zod's) as field errors with dotted paths; each unknown key is named on its own. A custom
 * issue's `params.suggestion` (a string) becomes the error's suggestion.
 */
export function fieldErrors(
  issues: readonly {
    path: readonly PropertyKey[]; message: string; code?: string; keys?: readonly string[]; params?: Record<string, unknown>;
  }[],
  opts: { prefix?: string; unknown?: string } = {},
): FieldError[] {
  const out: FieldError[] = [];
  const join = (parts: readonly PropertyKey[]) => [opts.prefix, ...parts.map(String)].filter(Boolean).join('.');
  for (const i of issues) {
    if (i.code === 'unrecognized_keys' && i.keys) {
      for (const k of i.keys) out.push({ path: join([...i.path, k]), message: opts.unknown ?? 'Unknown field' });
    } else {
      const suggestion = i.params?.suggestion;
      out.push({ path: join(i.path), message: i.message, ...(typeof suggestion === 'string' ? { suggestion } : {}) });
    }
  }
  return out;
}

/** The 400 for invalid input, its detail naming the first three fields: "Invalid monitor: name: Required; ...". */
export function invalid(what: string, errors: FieldError[], code = 'validation_failed'): HttpError {
  const first = errors.slice(0, 3).map((e) => (e.path ? `${e.path}: ${e.message}` : e.message)).join('; ');
  const more = errors.length > 3 ? ` (and ${errors.length - 3} more)` : '';
  return new HttpError(400, code, `Invalid ${what}: ${first}${more}`, { errors });
}
