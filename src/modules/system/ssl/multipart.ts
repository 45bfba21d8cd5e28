// A small multipart/form-data reader (RFC 7578) for the certificate upload: the body is already read
// whole under its size limit, so this only splits it at the boundary and reads each part's name.
import { HttpError } from '../../../core/errors.js';

export interface FormPart {
  name: string;
  filename: string | null;
  data: Buffer;
}

const bad = (detail: string) => new HttpError(400, 'multipart_invalid', `Invalid multipart/form-data body: ${detail}`);

export function boundaryOf(contentType: string): string {
  const m = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;]{1,70}))/i.exec(contentType);
  const b = m?.[1] ?? m?.[2];
  if (!b) throw bad('the Content-Type has no boundary');
  return b;
}

export function parseMultipart(body: Buffer, contentType: string): FormPart[] {
  const delimiter = Buffer.from(`--${boundaryOf(contentType)}`);
  const parts: FormPart[] = [];
  let pos = body.indexOf(delimiter);
  if (pos < 0) throw bad('the boundary does not occur in the body');
  for (;;) {
    pos += delimiter.length;
    if (body.subarray(pos, pos + 2).toString() === '--') return parts; // the closing delimiter
    if (body.subarray(pos, pos + 2).toString() !== '\r\n') throw bad('a boundary is not followed by a line break');
    pos += 2;
    const headerEnd = body.indexOf('\r\n\r\n', pos);
    if (headerEnd < 0) throw bad('a part has no end of headers');
    const headers = body.subarray(pos, headerEnd).toString('utf8');
    const next = body.indexOf(Buffer.concat([Buffer.from('\r\n'), delimiter]), headerEnd + 4);
    if (next < 0) throw bad('the body ends before the closing boundary');
    const disposition = /^content-disposition:\s*form-data(.*)$/im.exec(headers)?.[1];
    if (disposition === undefined) throw bad('a part has no Content-Disposition: form-data header');
    const name = /;\s*name="([^"]*)"/i.exec(disposition)?.[1];
    if (name === undefined) throw bad('a part has no name');
    const filename = /;\s*filename="([^"]*)"/i.exec(disposition)?.[1] ?? null;
    parts.push({ name, filename, data: body.subarray(headerEnd + 4, next) });
    if (parts.length > 20) throw bad('too many parts');
    pos = next + 2;
  }
}
