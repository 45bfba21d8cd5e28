// TLS clients for the TLS tests: what certificate a new connection gets, verified or not.
import { connect, type TLSSocket } from 'node:tls';

export interface Seen { fingerprint256: string; subject: string; authorized: boolean; authorizationError: string | null }

/** Opens a connection, reads the peer certificate and closes it; `ca` makes it a verified connection. */
export function peerCertificate(port: number, opts: { servername?: string; ca?: string } = {}): Promise<Seen> {
  return new Promise((resolve, reject) => {
    const s = connect({
      host: '127.0.0.1', port, servername: opts.servername ?? 'localhost', ca: opts.ca, rejectUnauthorized: false,
    }, () => {
      const c = s.getPeerCertificate();
      const err = s.authorizationError;
      resolve({
        fingerprint256: c.fingerprint256, subject: String(c.subject?.CN ?? ''), authorized: s.authorized,
        authorizationError: err ? String(err) : null,
      });
      s.end();
    });
    s.on('error', reject);
    s.setTimeout(10_000, () => s.destroy(new Error('TLS handshake timed out')));
  });
}

/** A connection kept open (keep-alive) to check that it keeps the certificate it started with. */
export function openConnection(port: number, servername = 'localhost'): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: '127.0.0.1', port, servername, rejectUnauthorized: false }, () => resolve(s));
    s.on('error', reject);
  });
}

/** One HTTP/1.1 request over an open TLS socket; resolves the status line. */
export function requestOver(s: TLSSocket, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let buf = '';
    const onData = (d: Buffer) => {
      buf += d.toString('latin1');
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      const len = Number(/content-length:\s*(\d+)/i.exec(buf.slice(0, end))?.[1] ?? 0);
      if (buf.length >= end + 4 + len) { s.off('data', onData); resolve(buf.split('\r\n')[0]!); }
    };
    s.on('data', onData);
    s.once('error', reject);
    s.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive\r\n\r\n`);
  });
}
