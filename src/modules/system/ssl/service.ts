// The certificate HTTPS serves: loaded from <data>/tls/ at start (a self-signed one is made at the first
// start), swapped into the running server with setSecureContext() when an upload or an ACME order
// installs a new one (new connections get it, open ones keep theirs, no restart), and described for
// GET /api/ssl/status. Also the hooks the HTTP core calls: the HTTP-01 responder and the redirect.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import { isIP } from 'node:net';
import type { AppContext } from '../../../core/context.js';
import type { TlsHooks } from '../../../core/http/app.js';
import type { Logger } from '../../../core/log.js';
import { CertFiles, type CertSet, type TlsMode } from './cert-files.js';
import { checkCertificate, describe, keyTypeOf, splitPem, type CertificateInfo, type CheckedCertificate } from './certificate.js';
import { hostNames, makeSelfSigned } from './self-signed.js';
import { createPrivateKey } from 'node:crypto';

/** A self-signed certificate is made again when it has fewer days left than this. */
const SELF_SIGNED_RENEW_DAYS = 30;
const CHALLENGE_PATH = '/.well-known/acme-challenge/';

export interface Installed {
  mode: TlsMode;
  installed_at: string;
  info: CertificateInfo;
}

export class TlsService implements TlsHooks {
  readonly files: CertFiles;
  private readonly log: Logger;
  private current: { set: CertSet; info: CertificateInfo } | null = null;
  private server: HttpsServer | null = null;
  private port: number | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  /** HTTP-01 key authorizations being served, by token, while an order runs. */
  private readonly challenges = new Map<string, string>();

  constructor(private readonly app: AppContext) {
    this.files = new CertFiles(app.config.dataDir);
    this.log = app.log.child('tls');
  }

  /** Loads the current certificate, or makes the self-signed one; never throws (HTTPS is not worth a failed start). */
  async init(): Promise<void> {
    try {
      const set = await this.files.current();
      const loaded = set ? this.load(set) : null;
      if (!loaded) {
        if (set) this.log.error(`the installed certificate (${set.meta.mode}) cannot be used; making a new self-signed one`);
        await this.installSelfSigned(true);
      } else if (loaded.set.meta.mode === 'self-signed' && loaded.info.days_left < SELF_SIGNED_RENEW_DAYS) {
        await this.installSelfSigned(true);
      } else this.current = loaded;
    } catch (e) {
      // The data directory is not writable, say: serve a certificate from memory this time.
      this.log.error(`cannot store a TLS certificate: ${(e as Error).message}; using one kept in memory`);
      const made = makeSelfSigned(hostNames(), this.app.clock.now());
      const checked = checkCertificate(made.key, splitPem(made.cert), this.app.clock.now());
      const meta = { mode: 'self-signed' as const, installed_at: this.app.clock.iso() };
      this.current = { set: { id: 'memory', key: checked.key, chain: checked.chain, meta }, info: checked.info };
    }
    const c = this.current!;
    this.log.info(`TLS certificate (${c.set.meta.mode}) for ${c.info.names.join(', ')}: SHA-256 fingerprint ${c.info.fingerprint_sha256}`,
      { valid_to: c.info.valid_to });
  }

  private load(set: CertSet): { set: CertSet; info: CertificateInfo } | null {
    try {
      const key = createPrivateKey(set.key);
      const chain = splitPem(set.chain);
      if (!chain.length || !chain[0]!.checkPrivateKey(key)) return null;
      return { set, info: describe(chain, keyTypeOf(key), this.app.clock.now()) };
    } catch { return null; }
  }

  private async installSelfSigned(quiet = false): Promise<void> {
    const made = makeSelfSigned(hostNames(), this.app.clock.now());
    const checked = checkCertificate(made.key, splitPem(made.cert), this.app.clock.now());
    await this.install(checked, 'self-signed', quiet);
  }

  /**
   * Makes a checked certificate the one HTTPS serves: written to disk first (atomically), then swapped
   * into the running server. One at a time. A failure leaves the previous certificate in place.
   */
  install(c: CheckedCertificate, mode: TlsMode, quiet = false): Promise<Installed> {
    const run = async (): Promise<Installed> => {
      const set = await this.files.install(c.key, c.chain, { mode, installed_at: this.app.clock.iso() });
      this.server?.setSecureContext({ key: set.key, cert: set.chain });
      this.current = { set, info: c.info };
      if (!quiet) {
        const names = c.info.names.join(', ');
        this.log.info(`TLS certificate installed (${mode}) for ${names}: SHA-256 fingerprint ${c.info.fingerprint_sha256}`,
          { valid_to: c.info.valid_to });
      }
      return this.installed()!;
    };
    const next = this.queue.then(run, run);
    this.queue = next.catch(() => undefined);
    return next;
  }

  installed(): Installed | null {
    const c = this.current;
    if (!c) return null;
    // days_left moves with time; the rest is fixed for a certificate.
    const info = { ...c.info, days_left: Math.floor((Date.parse(c.info.valid_to) - this.app.clock.now()) / 86_400_000) };
    return { mode: c.set.meta.mode, installed_at: c.set.meta.installed_at, info };
  }

  https(): { enabled: boolean; port: number | null; listening: boolean } {
    return { enabled: this.app.config.get().tls.https_port !== 0, port: this.port, listening: !!this.server?.listening };
  }

  // ---- HTTP-01 challenges (acme.ts adds and removes them) -------------------------------------------

  addChallenge(token: string, keyAuthorization: string): void { this.challenges.set(token, keyAuthorization); }
  removeChallenge(token: string): void { this.challenges.delete(token); }

  // ---- hooks of the HTTP core (core/http/app.ts TlsHooks) -------------------------------------------

  httpsPort(): number { return this.app.config.get().tls.https_port; }

  secureContext() {
    const c = this.current!;
    return { key: c.set.key, cert: c.set.chain };
  }

  listening(server: HttpsServer, port: number): void {
    this.server = server;
    this.port = port;
  }

  intercept(req: IncomingMessage, res: ServerResponse, pathname: string): boolean {
    if (!pathname.startsWith(CHALLENGE_PATH)) return false;
    const token = pathname.slice(CHALLENGE_PATH.length);
    const answer = /^[A-Za-z0-9_-]{1,256}$/.test(token) ? this.challenges.get(token) : undefined;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8' }).end('Method not allowed\n');
    } else if (answer === undefined) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' }).end('No such ACME challenge\n');
    } else {
      this.log.info('answered an ACME HTTP-01 challenge', { token });
      res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': String(Buffer.byteLength(answer)), 'Cache-Control': 'no-store' })
        .end(req.method === 'HEAD' ? undefined : answer);
    }
    return true;
  }

  redirect(req: IncomingMessage, pathname: string): string | null {
    if (!this.app.config.get().tls.redirect_http || !this.server?.listening || !this.port) return null;
    if (this.current?.set.meta.mode === 'self-signed') return null; // browsers would warn: keep HTTP working
    if (req.method !== 'GET' && req.method !== 'HEAD') return null;
    const host = hostOnly(req.headers.host);
    if (!host) return null;
    const query = (req.url ?? '').includes('?') ? (req.url ?? '').slice((req.url ?? '').indexOf('?')) : '';
    const port = this.port === 443 ? '' : `:${this.port}`;
    return `https://${host}${port}${pathname}${query}`;
  }
}

/** The host part of a Host header (without the port), when it is a plain host name or address. */
function hostOnly(header: string | undefined): string | null {
  if (!header) return null;
  const v6 = /^\[([0-9a-fA-F:.]+)\](?::\d+)?$/.exec(header);
  if (v6 && isIP(v6[1]!) === 6) return `[${v6[1]}]`;
  const m = /^([A-Za-z0-9.-]{1,253})(?::\d+)?$/.exec(header);
  return m ? m[1]! : null;
}
