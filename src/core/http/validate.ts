// Turns zod failures into 400 problem details that name every invalid field.
import { z } from 'zod';
import { HttpError, type FieldError } from '../errors.js';

export function fieldErrors(err: z.ZodError, prefix?: string): FieldError[] {
  return err.issues.map((i) => {
    const path = i.path.map(String).join('.');
    return { path: [prefix, path].filter(Boolean).join('.') || (prefix ?? ''), message: i.message };
  });
}

export function validationError(where: 'body' | 'query' | 'params', err: z.ZodError): HttpError {
  const errors = fieldErrors(err, where === 'body' ? undefined : where);
  const first = errors.slice(0, 3).map((e) => (e.path ? `${e.path}: ${e.message}` : e.message)).join('; ');
  const more = errors.length > 3 ? ` (and ${errors.length - 3} more)` : '';
  const status = where === 'params' ? 404 : 400;
  if (status === 404) return new HttpError(404, 'not_found', `No such resource: ${first}`, { errors });
  return new HttpError(400, 'validation_failed', `Invalid request ${where}: ${first}${more}`, { errors });
}

/** Parses input with a schema or throws the 400 (or 404 for path parameters). */
export function parseInput<T extends z.ZodType>(where: 'body' | 'query' | 'params', schema: T, input: unknown): z.infer<T> {
  const r = schema.safeParse(input);
  if (!r.success) throw validationError(where, r.error);
  return r.data;
}
