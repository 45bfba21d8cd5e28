// An SMTP sink on loopback (the smtp-server package): receives every message and keeps it raw, for tests of
// what the service sends by e-mail.
import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';

export interface Received { to: string[]; raw: string; user: string | undefined; secure: boolean }

export interface Sink { port: number; mails: Received[]; close(): Promise<void> }

export async function sink(opts: Partial<SMTPServerOptions> = {}): Promise<Sink> {
  const mails: Received[] = [];
  const server = new SMTPServer({
    logger: false, authOptional: true, disabledCommands: ['STARTTLS'], allowInsecureAuth: true,
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        mails.push({
          to: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks).toString('utf8'),
          user: session.user as string | undefined, secure: session.secure,
        });
        cb();
      });
    },
    ...opts,
  });
  // A client that gives up mid-handshake (a certificate it refuses) is an error of that session, not of the test.
  server.on('error', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return { port, mails, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** Polls `f` until it returns something other than undefined (a message arriving in the background). */
export async function until<T>(what: string, f: () => Promise<T | undefined> | T | undefined, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
