// ACME orders (Let's Encrypt or any RFC 8555 server) as jobs: probe the directory (a readable error in
// seconds rather than acme-client's TypeError after 75 s), the account (its key kept in <data>/tls/, 0600),
// the order and its challenges (http-01 answered by this probe, dns-01 written by RFC 2136 or acme-dns, dns01.ts), the
// new key and CSR, the certificate, then the same checks as an upload and the swap. Cancellable; every
// request and wait is bounded; a failure leaves the previous certificate serving.
import { generateKeyPairSync } from 'node:crypto';
import { Agent, request } from 'node:https';
import type { AppContext } from '../../../core/context.js';
import { conflict, HttpError } from '../../../core/errors.js';
import type { Job, JobControl } from '../../../core/jobs.js';
import type { Logger } from '../../../core/log.js';
import { loadAcme, orderContext, type OrderContext } from './acme-client.js';
import type { AcmeSettings, AcmeStateStore } from './acme-state.js';
import { checkCertificate, renewalDue, splitPem } from './certificate.js';
import { dns01Writer, type Dns01Writer } from './dns01.js';
import { challengeName } from './dns-rfc2136.js';
import type { TlsService } from './service.js';

export const ACME_JOB = 'tls.acme';
const ACCOUNT_KEY_FILE = 'acme-account.key';
/** An order that has not finished in this time is given up (each request and wait is bounded too). */
const ORDER_DEADLINE_MS = 5 * 60_000;
const DIRECTORY_TIMEOUT_MS = 10_000;
/** Waits for a pending validation or order: about 35 s in all before giving up. */
const BACKOFF = { backoffAttempts: 10, backoffMin: 500, backoffMax: 5000 };

export interface OrderRequest extends AcmeSettings {
  /** Check the challenge from here before asking the CA (acme-client's own check: the system resolver, port 80). */
  self_check: boolean;
}

export interface OrderResult {
  names: string[];
  fingerprint_sha256: string;
  valid_to: string;
  next_renewal_at: string | null;
}

/** How renewal failures reach the webhooks (subscribed in feature.ts). */
export interface RenewalFailed { error: string; domains: string[]; days_left: number | null; attempt_at: string }

declare module '../../../core/events.js' {
  interface EventMap { 'tls.renewal_failed': RenewalFailed }
}

const TLS_TRUST_CODES = new Set(['SELF_SIGNED_CERT_IN_CHAIN', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'UNABLE_TO_GET_ISSUER_CERT', 'CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'CERT_UNTRUSTED', 'CERT_SIGNATURE_FAILURE']);

/** Transport errors in words a person can act on. */
export function explainTransport(e: Error & { code?: string }, url: string): string {
  const u = new URL(url);
  const where = `${u.hostname}:${u.port || 443}`;
  const code = e.code ?? (e.cause as { code?: string } | undefined)?.code;
  if (code && TLS_TRUST_CODES.has(code)) {
    return `the ACME server ${where} presents a TLS certificate this probe does not trust (${code}: ${e.message}); ` +
      'for a private ACME server, give the CA that signed its certificate as server_ca.certificate';
  }
  if (code === 'ECONNREFUSED') return `nothing answers at ${where} (connection refused)`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `the name ${u.hostname} does not resolve (${code})`;
  if (code === 'ECONNRESET' || code === 'EPIPE') return `the ACME server ${where} closed the connection (${code})`;
  if (code === 'ETIMEDOUT' || code === 'ECONNABORTED' || /timeout/i.test(e.message)) return `the ACME server ${where} did not answer in time`;
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return `${where} cannot be reached from the probe (${code})`;
  return `the ACME server ${where} cannot be reached: ${code ? `${code}: ` : ''}${e.message}`;
}

/** GETs the directory with the order's trust and a bound; resolves its JSON or rejects with a readable Error. */
export function probeDirectory(url: string, agent: Agent, signal: AbortSignal): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent, signal, timeout: DIRECTORY_TIMEOUT_MS, headers: { accept: 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > 256 * 1024) req.destroy(new Error('directory too large'));
        else chunks.push(c);
      });
      res.on('end', () => {
        if (res.statusCode !== 200) { reject(new Error(`the ACME directory ${url} answered HTTP ${res.statusCode}`)); return; }
        try {
          const dir = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
          if (typeof dir.newOrder !== 'string' || typeof dir.newAccount !== 'string') throw new Error('no newOrder');
          resolve(dir);
        } catch { reject(new Error(`${url} is not an ACME directory (no newAccount and newOrder in its answer)`)); }
      });
      res.on('error', (e) => reject(new Error(explainTransport(e, url))));
    });
    req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })));
    req.on('error', (e) => reject(signal.aborted ? e : new Error(explainTransport(e, url))));
    req.end();
  });
}

const sleep = (ms: number, signal: AbortSignal) => new Promise<void>((resolve, reject) => {
  if (signal.aborted) { reject(signal.reason as Error); return; }
  const t = setTimeout(() => { signal.removeEventListener('abort', onAbort); resolve(); }, ms);
  const onAbort = () => { clearTimeout(t); reject(signal.reason as Error); };
  signal.addEventListener('abort', onAbort, { once: true });
});

export class AcmeService {
  private readonly log: Logger;
  private runningJob: string | null = null;

  constructor(private readonly app: AppContext, private readonly tls: TlsService, private readonly state: AcmeStateStore) {
    this.log = app.log.child('acme');
  }

  /** The running order's job id, if any. */
  running(): string | null { return this.runningJob; }

  /** Checks what can be checked before a job starts (400/409/503), then starts the order as a job. */
  async start(req: OrderRequest, kind: 'order' | 'renewal'): Promise<Job> {
    if (this.runningJob) {
      throw conflict(`A certificate order is already running (job ${this.runningJob}); wait for it or cancel it`, 'tls_order_running');
    }
    let dns: Dns01Writer | null = null;
    if (req.challenge === 'dns-01') {
      dns = await dns01Writer(this.app.config.get().tls, req.domains);
    } else if (req.domains.some((d) => d.startsWith('*.'))) {
      throw new HttpError(400, 'tls_wildcard_needs_dns', 'A wildcard name (*.example.com) can only be validated with dns-01');
    }
    const job = this.app.jobs.start(ACME_JOB, (ctl) => this.run(ctl, req, kind, dns),
      { meta: { kind, domains: req.domains, challenge: req.challenge } });
    this.runningJob = job.id;
    void this.app.jobs.waitFor(job.id).then(() => { if (this.runningJob === job.id) this.runningJob = null; });
    return job;
  }

  private async run(ctl: JobControl, req: OrderRequest, kind: 'order' | 'renewal', dns: Dns01Writer | null): Promise<OrderResult> {
    const started = this.app.clock.iso();
    await this.state.attempted(kind, started);
    const signal = AbortSignal.any([ctl.signal, AbortSignal.timeout(ORDER_DEADLINE_MS)]);
    const ctx: OrderContext = { agent: new Agent({ ca: req.ca_pem || undefined, keepAlive: false }), signal };
    try {
      return await orderContext.run(ctx, () => this.order(ctl, req, kind, dns, ctx));
    } catch (e) {
      const message = this.explain(e, ctx, req, ctl.signal);
      await this.state.failed(message).catch(() => undefined);
      this.log.warn(`certificate ${kind} for ${req.domains.join(', ')} failed: ${message}`);
      if (kind === 'renewal') {
        this.app.bus.emit('tls.renewal_failed', {
          error: message, domains: req.domains, days_left: this.tls.installed()?.info.days_left ?? null, attempt_at: started,
        });
      }
      throw new Error(message);
    } finally {
      ctx.agent.destroy();
    }
  }

  /** The error as the job and the status show it. */
  private explain(e: unknown, ctx: OrderContext, req: OrderRequest, cancel: AbortSignal): string {
    if (cancel.aborted) return 'cancelled';
    if (ctx.signal.aborted) return `the order did not finish within ${ORDER_DEADLINE_MS / 60_000} minutes`;
    if (e instanceof HttpError) return e.message;
    const msg = e instanceof Error ? e.message : String(e);
    // acme-client's end for any transport error; the real one was kept by the adapter.
    if (ctx.transportError && (e instanceof TypeError || /reading 'config'/.test(msg) || /ECONN|ETIMEDOUT|socket/.test(msg))) {
      return explainTransport(ctx.transportError, req.directory_url);
    }
    return msg.replace(/\s+/g, ' ').slice(0, 1000);
  }

  private async order(ctl: JobControl, req: OrderRequest, kind: 'order' | 'renewal', dns: Dns01Writer | null,
    ctx: OrderContext): Promise<OrderResult> {
    const { signal } = ctx;
    ctl.progress(2, { step: 'directory', message: `Contacting ${req.directory_url}` });
    await probeDirectory(req.directory_url, ctx.agent, signal);

    ctl.progress(10, { step: 'account', message: 'Loading acme-client and the ACME account' });
    const acme = await loadAcme();
    signal.throwIfAborted();
    const accountKey = await this.accountKey();
    const client = new acme.Client({ directoryUrl: req.directory_url, accountKey, ...BACKOFF });
    await client.createAccount({ termsOfServiceAgreed: true, ...(req.email ? { contact: [`mailto:${req.email}`] } : {}) });
    const accountUrl = client.getAccountUrl();

    ctl.progress(20, { step: 'order', message: `Ordering a certificate for ${req.domains.join(', ')}` });
    const order = await client.createOrder({ identifiers: req.domains.map((value) => ({ type: 'dns', value })) });
    const authorizations = await client.getAuthorizations(order);
    const cleanups: (() => Promise<void>)[] = [];
    try {
      const pending: { authz: (typeof authorizations)[number]; challenge: { type: string; url: string; token: string } }[] = [];
      for (const authz of authorizations) {
        if (authz.status === 'valid') continue;
        const challenge = authz.challenges.find((c) => c.type === req.challenge);
        if (!challenge) throw new Error(`the ACME server offers no ${req.challenge} challenge for ${authz.identifier.value}`);
        const keyAuthorization = await client.getChallengeKeyAuthorization(challenge);
        if (req.challenge === 'http-01') {
          this.tls.addChallenge(challenge.token, keyAuthorization);
          cleanups.push(async () => { this.tls.removeChallenge(challenge.token); });
        } else {
          const name = challengeName(authz.identifier.value);
          ctl.emit('dns_record', { name, message: `Writing TXT ${name}` });
          await dns!.add(name, keyAuthorization, signal);
          cleanups.push(() => dns!.remove(name, keyAuthorization));
        }
        pending.push({ authz, challenge });
      }
      const wait = this.app.config.get().tls.dns_propagation_seconds;
      if (req.challenge === 'dns-01' && pending.length && wait > 0) {
        ctl.progress(30, { step: 'propagation', message: `Waiting ${wait} s for the DNS record to reach every server` });
        await sleep(wait * 1000, signal);
      }
      let done = 0;
      for (const { authz, challenge } of pending) {
        ctl.progress(35 + Math.round((40 * done) / pending.length),
          { step: 'challenge', message: `Validating ${authz.identifier.value} by ${req.challenge}` });
        if (req.self_check) await client.verifyChallenge(authz, challenge as never);
        await client.completeChallenge(challenge as never);
        await client.waitForValidStatus(challenge as never);
        done++;
      }
    } finally {
      for (const c of cleanups) await c().catch((e: Error) => this.log.warn(`cleaning up a challenge failed: ${e.message}`));
    }

    ctl.progress(80, { step: 'finalize', message: 'Sending the certificate request' });
    const key = await acme.crypto.createPrivateEcdsaKey('P-256');
    const [, csr] = await acme.crypto.createCsr({ commonName: req.domains[0], altNames: req.domains }, key);
    const finalized = await client.finalizeOrder(order, csr);
    const pem = await client.getCertificate(finalized);
    signal.throwIfAborted();

    ctl.progress(95, { step: 'install', message: 'Installing the certificate' });
    const checked = checkCertificate(key.toString(), splitPem(pem), this.app.clock.now());
    const installed = await this.tls.install(checked, 'acme');
    const next = renewalDue(installed.info);
    const { domains, email, directory_url, challenge, ca_pem } = req;
    await this.state.succeeded({ domains, email, directory_url, challenge, ca_pem }, accountUrl, this.app.clock.iso(), next);
    const info = installed.info;
    this.log.info(`certificate ${kind === 'renewal' ? 'renewed' : 'issued'} for ${info.names.join(', ')} by ${info.issuer}`);
    return { names: info.names, fingerprint_sha256: info.fingerprint_sha256, valid_to: info.valid_to, next_renewal_at: next };
  }

  /** The account key: made once (ECDSA P-256), kept 0600 beside the certificates. */
  private async accountKey(): Promise<string> {
    const have = await this.tls.files.readFile(ACCOUNT_KEY_FILE);
    if (have) return have;
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    await this.tls.files.writeFile(ACCOUNT_KEY_FILE, pem);
    return pem;
  }
}
