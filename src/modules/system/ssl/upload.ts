// POST /api/ssl/upload behind the route: the PFX from a raw body or a multipart form, its password from
// the X-PFX-Password header or the form's `password` field (never the URL: URLs are logged), read,
// checked and installed. Every refusal is a 400 that says why; the certificate in use stays.
import type { IncomingMessage } from 'node:http';
import { readBody } from '../../../core/http/body.js';
import { HttpError } from '../../../core/errors.js';
import { checkCertificate, type CheckedCertificate } from './certificate.js';
import { parseMultipart } from './multipart.js';
import { readPfx } from './pfx.js';

export const PFX_MAX_BYTES = 10 * 1024 * 1024;
export const PFX_TYPES = ['application/x-pkcs12', 'application/pkcs12', 'application/octet-stream'];
export const PASSWORD_HEADER = 'x-pfx-password';

/** Reads the request into the file's bytes and its password. */
export async function readUpload(req: IncomingMessage): Promise<{ file: Buffer; password: string | undefined }> {
  const type = String(req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'multipart/form-data' && !PFX_TYPES.includes(type)) {
    throw new HttpError(415, 'unsupported_media_type',
      'Send the PFX file as the body (application/x-pkcs12 or application/octet-stream, password in the X-PFX-Password header) ' +
      'or as multipart/form-data with the fields "file" and "password"');
  }
  const body = await readBody(req, PFX_MAX_BYTES);
  const header = req.headers[PASSWORD_HEADER];
  let password = typeof header === 'string' ? header : undefined;
  let file = body;
  if (type === 'multipart/form-data') {
    const parts = parseMultipart(body, String(req.headers['content-type']));
    const filePart = parts.find((p) => p.name === 'file') ?? parts.find((p) => p.filename !== null);
    if (!filePart) {
      throw new HttpError(400, 'validation_failed', 'The form has no "file" field with the PFX file',
        { errors: [{ path: 'file', message: 'Required' }] });
    }
    file = filePart.data;
    const pw = parts.find((p) => p.name === 'password');
    if (pw) password = pw.data.toString('utf8');
  }
  if (password !== undefined && password.length > 1024) {
    throw new HttpError(400, 'validation_failed', 'The password is longer than 1024 characters',
      { errors: [{ path: 'password', message: 'Too long' }] });
  }
  if (!file.length) throw new HttpError(400, 'tls_pfx_unreadable', 'The PFX file is empty');
  return { file, password };
}

/** Reads and checks a PFX: one key, the certificate it belongs to, the chain, the dates and names. */
export async function checkPfx(file: Buffer, password: string | undefined, now: number): Promise<CheckedCertificate> {
  const { keys, certs } = await readPfx(file, password);
  return checkCertificate(keys[0]!, certs, now);
}
