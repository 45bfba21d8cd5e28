// ACME against Debian's pebble on loopback: http-01 (pebble fetches the challenge from the probe's HTTP
// port) and dns-01 (RFC 2136 updates, signed with a TSIG key, to a real BIND `named` that pebble uses as
// its DNS server), the order as a job (SSE, cancel), an untrusted or absent ACME server (a fast readable
// error), pebble killed in the middle of an order, renewal (success, and failure alerting through a
// webhook), and a restart that keeps the issued certificate. Every server listens on 127.0.0.1 only.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { RenewalFailed } from '../../src/modules/system/ssl/acme.js';
import { sslOf } from '../../src/modules/system/ssl/feature.js';
import { startTestApp, type TestApp } from '../helpers/harness.js';
import { freePort } from '../helpers/net.js';
import { Receiver } from '../helpers/webhook-receiver.js';
import { peerCertificate } from '../helpers/ssl-client.js';
import { startAcmeDns } from '../helpers/ssl-acme-dns.js';
import { haveNamed, startNamed, ZONE, type Named } from '../helpers/ssl-named.js';
import { havePebble, startChallTestSrv, startPebble, type Pebble } from '../helpers/ssl-pebble.js';

const pebbleSkip = (await havePebble()) ? false : 'pebble is not installed (apt-get install pebble)';
const named = !pebbleSkip && (await haveNamed());
const namedSkip = pebbleSkip || (named ? false : 'BIND is not installed (apt-get install bind9 bind9-dnsutils)');

let t: TestApp;
let key: string;
let dataDir: string;
let pebble: Pebble;
let dns: Named | null = null;
let challtest: { dns: string; stop(): Promise<void> } | null = null;
let dnsServer = '';

const httpsPort = () => (t.service.http.httpsServer!.address() as { port: number }).port;
const httpPort = () => Number(new URL(t.url).port);
const status = async () => (await t.request('GET', '/api/ssl/status', { key })).body;

function orderBody(extra: Record<string, unknown>) {
  return { terms_of_service_agreed: true, directory_url: pebble.directoryUrl, server_ca: { certificate: pebble.caPem }, self_check: false, email: 'ops@netprobe.test', ...extra };
}

/** Starts an order and waits for its job to end; returns the job as the API shows it. */
async function order(extra: Record<string, unknown>) {
  const r = await t.request('POST', '/api/ssl/letsencrypt', { key, body: orderBody(extra) });
  assert.equal(r.status, 202, r.text);
  await t.service.app.jobs.waitFor(r.body.job_id);
  const j = await t.request('GET', `/api/ssl/letsencrypt/${r.body.job_id}`, { key });
  assert.equal(j.status, 200, j.text);
  return j.body;
}

async function startTheirPebble(): Promise<Pebble> {
  return startPebble({ httpPort: httpPort(), dnsServer });
}

before(async () => {
  if (pebbleSkip) return;
  dataDir = await mkdtemp(join(tmpdir(), 'netprobe-acme-'));
  if (named) {
    dns = await startNamed();
    dnsServer = `127.0.0.1:${dns.port}`;
    await writeFile(join(dataDir, 'config.yaml'), [
      'tls:', '  rfc2136_server: 127.0.0.1', `  rfc2136_port: ${dns.port}`, `  rfc2136_zone: ${ZONE}`,
      `  rfc2136_key_name: ${dns.keyName}`, `  rfc2136_key_algorithm: ${dns.algorithm}`, `  rfc2136_key_secret: "${dns.secret}"`,
      '  dns_propagation_seconds: 0', '',
    ].join('\n'));
  } else {
    challtest = await startChallTestSrv();
    dnsServer = challtest.dns;
  }
  t = await startTestApp({ dataDir });
  key = (await t.admin()).key;
  pebble = await startTheirPebble();
});
after(async () => {
  if (pebbleSkip) return;
  await t.close({ keepData: true });
  await pebble.stop();
  await dns?.stop();
  await challtest?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

describe('ACME with pebble', { skip: pebbleSkip }, () => {
  test('http-01: issued, installed without a restart, and trusted by a client that trusts pebble\'s root', async () => {
    const before = await status();
    assert.equal(before.mode, 'self-signed');
    const job = await order({ domains: ['probe.netprobe.test'], challenge: 'http-01' });
    assert.equal(job.state, 'completed', job.error);
    assert.deepEqual(job.result.names, ['probe.netprobe.test']);
    const s = await status();
    assert.equal(s.mode, 'acme');
    assert.deepEqual(s.names, ['probe.netprobe.test']);
    assert.equal(s.fingerprint_sha256, job.result.fingerprint_sha256);
    assert.equal(s.acme.configured, true);
    assert.equal(s.acme.challenge, 'http-01');
    assert.equal(s.acme.last_error, null);
    assert.equal(s.acme.last_attempt_kind, 'order');
    // Renewal is due when a third of the lifetime is left.
    const from = Date.parse(s.valid_from), to = Date.parse(s.valid_to);
    assert.ok(Math.abs(Date.parse(s.acme.next_renewal_at) - (from + ((to - from) * 2) / 3)) < 1000);
    const seen = await peerCertificate(httpsPort(), { servername: 'probe.netprobe.test', ca: await pebble.issuingRoot() });
    assert.equal(seen.fingerprint256, s.fingerprint_sha256);
    assert.equal(seen.authorized, true, seen.authorizationError ?? '');
    // The account key persists, 0600; the challenge is no longer served.
    assert.equal((await stat(join(dataDir, 'tls', 'acme-account.key'))).mode & 0o777, 0o600);
    assert.ok(t.logs.some((l) => l.includes('answered an ACME HTTP-01 challenge')));
  });

  test('the order\'s SSE stream replays its progress and ends with completed', async () => {
    const r = await t.request('POST', '/api/ssl/letsencrypt', { key, body: orderBody({ domains: ['sse.netprobe.test'], challenge: 'http-01' }) });
    assert.equal(r.status, 202, r.text);
    const res = await fetch(`${t.url}/api/ssl/letsencrypt/${r.body.job_id}/stream`, { headers: { 'x-api-key': key } });
    const text = await res.text();
    const events = text.split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6)) as { type: string; step?: string });
    assert.deepEqual([events[0]!.type, events.at(-1)!.type], ['started', 'completed'], text);
    assert.deepEqual(events.filter((e) => e.step).map((e) => e.step), ['directory', 'account', 'order', 'challenge', 'finalize', 'install']);
  });

  test('dns-01 by RFC 2136 with a wildcard: TXT records written to BIND, then removed', { skip: namedSkip }, async () => {
    const job = await order({ domains: ['dns.netprobe.test', '*.dns.netprobe.test'], challenge: 'dns-01' });
    assert.equal(job.state, 'completed', job.error);
    const s = await status();
    assert.deepEqual(s.names, ['dns.netprobe.test', '*.dns.netprobe.test']);
    assert.equal(s.acme.challenge, 'dns-01');
    const seen = await peerCertificate(httpsPort(), { servername: 'any.dns.netprobe.test', ca: await pebble.issuingRoot() });
    assert.equal(seen.authorized, true, seen.authorizationError ?? '');
    assert.deepEqual(await dns!.txt('_acme-challenge.dns.netprobe.test'), [], 'cleaned up');
    // The TSIG secret is nowhere in the API, the audit log or the log.
    const everything = JSON.stringify([s, (await t.request('GET', '/api/config/json', { key })).body,
      (await t.request('GET', '/api/audit-log?limit=200', { key })).body, t.logs]);
    assert.ok(!everything.includes(dns!.secret));
  });

  test('a cancelled order stops, its DNS records are removed, and the certificate in use stays', { skip: namedSkip }, async () => {
    const inUse = (await status()).fingerprint_sha256;
    await t.service.app.config.update({ tls: { dns_propagation_seconds: 120 } });
    try {
      const r = await t.request('POST', '/api/ssl/letsencrypt', { key, body: orderBody({ domains: ['cancel.netprobe.test'], challenge: 'dns-01' }) });
      assert.equal(r.status, 202, r.text);
      const id = r.body.job_id as string;
      await new Promise<void>((resolve) => {
        const off = t.service.app.jobs.subscribe(id, (e) => { if (e.step === 'propagation') { resolve(); queueMicrotask(() => off()); } });
      });
      assert.deepEqual((await dns!.txt('_acme-challenge.cancel.netprobe.test')).length, 1, 'the record was written');
      const busy = await t.request('POST', '/api/ssl/letsencrypt', { key, body: orderBody({ domains: ['other.netprobe.test'], challenge: 'http-01' }) });
      assert.equal(busy.status, 409, busy.text);
      const c = await t.request('DELETE', `/api/ssl/letsencrypt/${id}`, { key });
      assert.equal(c.status, 204, c.text);
      assert.equal((await t.request('GET', `/api/ssl/letsencrypt/${id}`, { key })).body.state, 'cancelled');
      // The run ends and cleans up (its wait is aborted at once).
      for (let i = 0; i < 100 && (await dns!.txt('_acme-challenge.cancel.netprobe.test')).length; i++) await new Promise((r) => setTimeout(r, 50));
      assert.deepEqual(await dns!.txt('_acme-challenge.cancel.netprobe.test'), []);
      assert.equal((await status()).fingerprint_sha256, inUse);
      assert.equal((await status()).acme.last_error, 'cancelled');
    } finally {
      await t.service.app.config.update({ tls: { dns_propagation_seconds: 0 } });
    }
  });

  test('dns-01 through an acme-dns delegation: the value posted to acme-dns, found by the CA through the CNAME', { skip: namedSkip }, async () => {
    const acmeDns = await startAcmeDns(dns!, ZONE);
    const keep = t.service.app.config.get().tls;
    try {
      await acmeDns.delegate('ad.netprobe.test');
      await t.service.app.config.update({ tls: {
        dns01_method: 'acme-dns', acme_dns_url: acmeDns.url, acme_dns_username: acmeDns.username,
        acme_dns_password: acmeDns.password, acme_dns_subdomain: acmeDns.subdomain } });
      const tooMany = await t.request('POST', '/api/ssl/letsencrypt', { key,
        body: orderBody({ domains: ['a.netprobe.test', 'b.netprobe.test', 'c.netprobe.test'], challenge: 'dns-01' }) });
      assert.equal(tooMany.status, 400, tooMany.text);
      assert.equal(tooMany.body.code, 'tls_too_many_names');

      const job = await order({ domains: ['ad.netprobe.test', '*.ad.netprobe.test'], challenge: 'dns-01' });
      assert.equal(job.state, 'completed', job.error);
      assert.equal(acmeDns.updates.length, 2, 'one value for the name, one for its wildcard');
      const s = await status();
      assert.deepEqual(s.names, ['ad.netprobe.test', '*.ad.netprobe.test']);
      const seen = await peerCertificate(httpsPort(), { servername: 'ad.netprobe.test', ca: await pebble.issuingRoot() });
      assert.equal(seen.authorized, true, seen.authorizationError ?? '');
      const everything = JSON.stringify([s, (await t.request('GET', '/api/config/json', { key })).body,
        (await t.request('GET', '/api/audit-log?limit=200', { key })).body, t.logs]);
      assert.ok(!everything.includes(acmeDns.password), 'the acme-dns password is nowhere to be read');

      // Wrong credentials: the job fails with acme-dns's own answer, the certificate in use stays. A name this
      // account never validated: Pebble reuses a valid authorization 1 time in 100 even at PEBBLE_AUTHZREUSE=0.
      const inUse = s.fingerprint_sha256;
      await t.service.app.config.update({ tls: { acme_dns_password: 'x'.repeat(40) } });
      const bad = await order({ domains: ['wrong.ad.netprobe.test'], challenge: 'dns-01' });
      assert.equal(bad.state, 'failed');
      assert.match(bad.error, /acme-dns server .* refused the update: 401 forbidden/);
      assert.equal((await status()).fingerprint_sha256, inUse);
    } finally {
      await t.service.app.config.update({ tls: { dns01_method: keep.dns01_method, acme_dns_url: '', acme_dns_username: '',
        acme_dns_password: '', acme_dns_subdomain: '' } });
      // Later tests renew this order's names by RFC 2136, which cannot write beside a CNAME.
      await acmeDns.undelegate();
      await acmeDns.stop();
    }
  });

  test('an ACME server whose TLS certificate is not trusted: a readable error in seconds, not a TypeError after 75 s', async () => {
    const inUse = (await status()).fingerprint_sha256;
    const job = await order({ domains: ['untrusted.netprobe.test'], challenge: 'http-01', server_ca: undefined });
    assert.equal(job.state, 'failed');
    assert.match(job.error, /does not trust/);
    assert.match(job.error, /server_ca/);
    assert.ok(Date.parse(job.finished_at) - Date.parse(job.started_at) < 15_000, 'bounded by the directory probe\'s timeout');
    const s = await status();
    assert.equal(s.fingerprint_sha256, inUse);
    assert.equal(s.acme.last_error, job.error);
  });

  test('no ACME server at the address: connection refused, said so', async () => {
    const port = await freePort();
    const job = await order({ domains: ['nobody.netprobe.test'], challenge: 'http-01', directory_url: `https://127.0.0.1:${port}/dir` });
    assert.equal(job.state, 'failed');
    assert.match(job.error, new RegExp(`nothing answers at 127\\.0\\.0\\.1:${port}`));
  });

  test('refused before a job: a wildcard with http-01, an invalid body', async () => {
    const w = await t.request('POST', '/api/ssl/letsencrypt', { key, body: orderBody({ domains: ['*.netprobe.test'], challenge: 'http-01' }) });
    assert.equal(w.status, 400, w.text);
    assert.equal(w.body.code, 'tls_wildcard_needs_dns');
    const v = await t.request('POST', '/api/ssl/letsencrypt', { key, body: orderBody({ domains: ['not a name'], challenge: 'http-01', terms_of_service_agreed: false }) });
    assert.equal(v.status, 400, v.text);
    assert.deepEqual(v.body.errors.map((e: { path: string }) => e.path).sort(), ['domains.0', 'terms_of_service_agreed']);
  });

  test('renewal: due, renewed with the stored settings; then, with the ACME server gone, a failure alerts and retries daily', async () => {
    const { state, renewal } = sslOf(t.service.app);
    // The stored settings are the last successful order's (dns-01 when BIND is here): renewal repeats them.
    const before = await status();
    await state.update({ next_renewal_at: new Date(Date.now() - 1000).toISOString() });
    await renewal.check();
    const renewed = await status();
    assert.equal(renewed.mode, 'acme');
    assert.notEqual(renewed.fingerprint_sha256, before.fingerprint_sha256);
    assert.equal(renewed.acme.last_attempt_kind, 'renewal');
    assert.equal(renewed.acme.last_error, null);
    assert.ok(Date.parse(renewed.acme.next_renewal_at) > Date.now());

    const receiver = await Receiver.start();
    try {
      const w = await t.request('POST', '/api/webhooks', { key, body: { name: 'ops', url: `${receiver.url}/hook`, alert_types: ['system_health'] } });
      assert.equal(w.status, 201, w.text);
      const failures: RenewalFailed[] = [];
      const off = t.service.app.bus.on('tls.renewal_failed', (e) => { failures.push(e); });
      await pebble.kill();
      await state.update({ next_renewal_at: new Date(Date.now() - 1000).toISOString() });
      await renewal.check();
      off();
      const s = await status();
      assert.equal(s.fingerprint_sha256, renewed.fingerprint_sha256, 'the certificate in use stays');
      assert.equal(s.acme.last_attempt_kind, 'renewal');
      assert.match(s.acme.last_error, /nothing answers at 127\.0\.0\.1:\d+ \(connection refused\)/);
      const retry = Date.parse(s.acme.next_renewal_at) - Date.now();
      assert.ok(retry > 23 * 3600_000 && retry <= 24 * 3600_000, `retried in a day (${retry} ms)`);
      assert.equal(failures.length, 1);
      const [req] = await receiver.waitFor(1, 10_000);
      assert.match(req!.body, /Certificate renewal failed/);
      assert.match(req!.body, /connection refused/);
    } finally {
      await receiver.close();
      pebble = await startTheirPebble();
    }
  });

  test('pebble killed in the middle of an order: the job fails with a readable error, the previous certificate serves', async () => {
    const inUse = (await status()).fingerprint_sha256;
    const r = await t.request('POST', '/api/ssl/letsencrypt', { key, body: orderBody({ domains: ['killed.netprobe.test'], challenge: 'http-01' }) });
    assert.equal(r.status, 202, r.text);
    const id = r.body.job_id as string;
    // Killed when the challenge step starts: the order exists at the CA, the validation and certificate never come.
    t.service.app.jobs.subscribe(id, (e) => { if (e.step === 'challenge') void pebble.kill(); });
    const done = await t.service.app.jobs.waitFor(id);
    assert.equal(done.state, 'failed');
    assert.match(done.error!, /nothing answers at 127\.0\.0\.1:\d+ \(connection refused\)|closed the connection/);
    assert.doesNotMatch(done.error!, /TypeError|reading 'config'/);
    assert.equal((await status()).fingerprint_sha256, inUse);
    assert.equal((await peerCertificate(httpsPort())).fingerprint256, inUse);
    assert.equal((await t.request('GET', '/api/version')).status, 200);
    pebble = await startTheirPebble();
  });

  test('a restart keeps the issued certificate', async () => {
    const s = await status();
    await t.close({ keepData: true });
    t = await startTestApp({ dataDir });
    const cookie = await t.login('root-admin', 'correct horse battery staple');
    key = (await t.request('POST', '/api/api-keys', { cookie, body: { name: 'again', scopes: ['admin'] } })).body.key;
    const again = await status();
    assert.equal(again.mode, 'acme');
    assert.equal(again.fingerprint_sha256, s.fingerprint_sha256);
    assert.equal((await peerCertificate(httpsPort())).fingerprint256, s.fingerprint_sha256);
    assert.ok((await readFile(join(dataDir, 'tls', 'acme-account.key'), 'utf8')).includes('PRIVATE KEY'));
  });
});
