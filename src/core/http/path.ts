// A request path as the route registry compares it: split at '/' and each segment percent-decoded
// once, literals and parameters alike, so /api/brain/%63redentials is /api/brain/credentials and meets
// that route's access rule. Nothing downstream decodes again (%2525 stays %25).
import { HttpError } from '../errors.js';
import { stringProblem } from './json-guard.js';

const badPath = (detail: string) => new HttpError(400, 'invalid_path', detail);

/** One raw segment decoded; a segment that could be read as more or other than one segment is a 400. */
export function decodeSegment(raw: string): string {
  let s: string;
  try { s = decodeURIComponent(raw); } catch { throw badPath(`The path segment "${raw}" is not valid percent-encoded UTF-8`); }
  // An encoded '/' (or '\', a separator to some proxies and clients) would be one segment here and two
  // elsewhere; '.' and '..' mean something else to anything that normalises the path on the way.
  if (s.includes('/') || s.includes('\\')) throw badPath(`The path segment "${raw}" encodes a path separator ('/' or '\\')`);
  if (s === '.' || s === '..') throw badPath(`The path segment "${raw}" is a relative path step`);
  const problem = stringProblem(s, false);
  if (problem) throw badPath(`The path segment "${raw}": ${problem}`);
  return s;
}

/** The decoded segments of a path; empty segments (a doubled or trailing '/') are dropped. */
export function pathSegments(path: string): string[] {
  return path.split('/').filter(Boolean).map(decodeSegment);
}

/** Whether a request is for the API: its first segment, decoded, is `api` (so /%61pi/... is one too). */
export function isApiPath(path: string): boolean {
  const first = path.split('/').find(Boolean);
  if (first === undefined) return false;
  try { return decodeSegment(first) === 'api'; } catch { return false; }
}
