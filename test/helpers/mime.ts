// Reads a message as an SMTP sink received it (RFC 5322 with MIME), for tests of what the service sends:
// unfolded headers with encoded words (RFC 2047) decoded, and the leaf parts of a multipart body decoded
// from quoted-printable or base64. Enough for the messages nodemailer writes; not a general parser.

export interface MimePart { type: string; headers: Map<string, string>; body: string }
export interface ParsedMail { headers: Map<string, string>; subject: string; parts: MimePart[]; text?: string; html?: string }

/** RFC 2047 encoded words (=?utf-8?Q?...?= and =?utf-8?B?...?=) decoded; the space between two of them dropped. */
export function decodeWords(v: string): string {
  return v.replace(/(=\?[^?]+\?[BbQq]\?[^?]*\?=)\s+(?==\?)/g, '$1').replace(/=\?([^?]+)\?([BbQq])\?([^?]*)\?=/g, (_, _cs: string, enc: string, text: string) =>
    (enc.toUpperCase() === 'B' ? Buffer.from(text, 'base64')
      : Buffer.from(text.replace(/_/g, ' ').replace(/=([0-9A-Fa-f]{2})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16))), 'latin1'))
      .toString('utf8'));
}

function split(raw: string): { headers: Map<string, string>; body: string } {
  const at = raw.indexOf('\r\n\r\n');
  const head = at < 0 ? raw : raw.slice(0, at);
  const body = at < 0 ? '' : raw.slice(at + 4);
  const headers = new Map<string, string>();
  for (const line of head.replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const i = line.indexOf(':');
    if (i > 0) headers.set(line.slice(0, i).trim().toLowerCase(), decodeWords(line.slice(i + 1).trim()));
  }
  return { headers, body };
}

function decodeBody(body: string, encoding: string | undefined): string {
  switch ((encoding ?? '7bit').toLowerCase()) {
    case 'quoted-printable':
      return Buffer.from(body.replace(/=\r\n/g, '').replace(/=([0-9A-Fa-f]{2})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16))), 'latin1')
        .toString('utf8');
    case 'base64': return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
    default: return body;
  }
}

function leaves(raw: string): MimePart[] {
  const { headers, body } = split(raw);
  const type = headers.get('content-type') ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (type.toLowerCase().startsWith('multipart/') && boundary) {
    const pieces = body.split(`--${boundary}`).slice(1);
    return pieces.filter((p) => !p.startsWith('--')).flatMap((p) => leaves(p.replace(/^\r\n/, '').replace(/\r\n$/, '')));
  }
  return [{ type: type.split(';')[0]!.trim().toLowerCase(), headers, body: decodeBody(body, headers.get('content-transfer-encoding')) }];
}

export function parseMail(raw: string): ParsedMail {
  const { headers } = split(raw);
  const parts = leaves(raw);
  return {
    headers, subject: headers.get('subject') ?? '', parts,
    text: parts.find((p) => p.type === 'text/plain')?.body, html: parts.find((p) => p.type === 'text/html')?.body,
  };
}
