// The API client: JSON over fetch with the session cookie (same origin). Every failure is thrown as an
// ApiError carrying the problem+json fields {status, code, detail, errors: [{path, message, suggestion?}]}; a 401
// (the session ended) also tells the app, which sends the user to the sign-in page.

export class ApiError extends Error {
  /**
   * @param {number} status HTTP status, 0 when the probe did not answer
   * @param {string} code machine-readable code from the problem document
   * @param {string} detail human-readable explanation, shown as is
   * @param {{path: string, message: string}[]} errors one per invalid field
   */
  constructor(status, code, detail, errors = []) {
    super(detail);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.detail = detail;
    this.errors = errors;
  }
}

let onUnauthorized = () => {};
/** The app's reaction to a 401 on an authenticated call (not sign-in or setup calls themselves). */
export function setUnauthorizedHandler(fn) { onUnauthorized = fn; }

/** ?a=1&b=x from an object; undefined, null and '' values are left out. */
export function qs(query) {
  if (!query) return '';
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined || v === null || v === '') continue;
    for (const one of Array.isArray(v) ? v : [v]) p.append(k, String(one));
  }
  const s = p.toString();
  return s ? `?${s}` : '';
}

/**
 * One API call. `path` starts with /api. Resolves to the parsed JSON body, or undefined for 204.
 * @param {string} method
 * @param {string} path
 * `raw` sends a body as it is (a file, YAML) with its content type instead of JSON; `headers` adds headers.
 * @param {{body?: unknown, raw?: {body: BodyInit, type: string}, headers?: Record<string, string>,
 *   query?: Record<string, unknown>, signal?: AbortSignal, quiet401?: boolean}} [opts]
 */
export async function request(method, path, opts = {}) {
  const headers = { Accept: 'application/json', ...opts.headers };
  let body;
  if (opts.raw) {
    headers['Content-Type'] = opts.raw.type;
    body = opts.raw.body;
  } else if (opts.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(opts.body);
  }
  let res;
  try {
    res = await fetch(path + qs(opts.query), { method, headers, body, signal: opts.signal, credentials: 'same-origin' });
  } catch (e) {
    if (e?.name === 'AbortError') throw e;
    throw new ApiError(0, 'network', 'The probe did not answer. Check the connection and try again.');
  }
  if (res.status === 204) return undefined;
  const type = res.headers.get('content-type') ?? '';
  // A body that is not JSON reads as null; an abort while the body is read stays an abort (callers ignore
  // those), never a successful null.
  const data = type.includes('json')
    ? await res.json().catch((e) => { if (e?.name === 'AbortError') throw e; return null; })
    : await res.text();
  if (res.ok) return data;
  const problem = data && typeof data === 'object' ? data : {};
  const err = new ApiError(res.status, problem.code ?? `http_${res.status}`,
    problem.detail || (typeof data === 'string' && data.trim()) || `${res.status} ${res.statusText}`,
    Array.isArray(problem.errors) ? problem.errors : []);
  // The whole problem document, for fields beyond the common ones (a YAML error's line).
  err.problem = problem;
  if (res.status === 401 && !opts.quiet401) onUnauthorized(err);
  throw err;
}

export const api = {
  get: (path, query, opts) => request('GET', path, { ...opts, query }),
  post: (path, body, opts) => request('POST', path, { ...opts, body }),
  put: (path, body, opts) => request('PUT', path, { ...opts, body }),
  del: (path, opts) => request('DELETE', path, opts),
};
