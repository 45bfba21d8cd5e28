// The tcp check against real local servers: a plain TCP listener, a TLS server with a fresh
// self-signed certificate, and a listener that accepts TCP but never answers a TLS ClientHello.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import tls from 'node:tls';
import type { AddressInfo } from 'node:net';
import { runCheck } from '../../src/modules/monitors/checks/index.js';
import { validateTarget } from '../../src/modules/monitors/checks/tcp.js';
import { selfSigned } from '../helpers/certs.js';
import { freePort } from '../helpers/net.js';

let plain: net.Server;
let secure: tls.Server;
let silent: net.Server;
const sockets = new Set<net.Socket>();
let plainPort = 0;
let tlsPort = 0;
let silentPort = 0;

async function listen(server: net.Server): Promise<number> {
  server.on('connection', (s: net.Socket) => { sockets.add(s); s.on('close', () => sockets.delete(s)); s.on('error', () => {}); });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as AddressInfo).port;
}

before(async () => {
  plain = net.createServer((s) => s.end());
  plainPort = await listen(plain);
  const c = await selfSigned(30);
  secure = tls.createServer({ key: c.key, cert: c.cert }, (s) => s.end());
  secure.on('tlsClientError', () => {});
  tlsPort = await listen(secure);
  silent = net.createServer(() => { /* accept and say nothing */ });
  silentPort = await listen(silent);
});

after(async () => {
  for (const s of sockets) s.destroy();
  await Promise.all([plain, secure, silent].map((s) => new Promise<void>((r) => (s ? s.close(() => r()) : r()))));
});

const ctx = { timeout: 5 };

describe('tcp check', () => {
  test('open port: up with connect time and remote address', async () => {
    const r = await runCheck('tcp', `127.0.0.1:${plainPort}`, {}, ctx);
    assert.equal(r.status, 'up', r.message);
    assert.equal(r.message, 'connected');
    assert.equal(typeof r.details.connect_ms, 'number');
    assert.equal(r.details.remote_address, '127.0.0.1');
    assert.equal(r.details.remote_port, plainPort);
    assert.equal(r.details.dns_ms, null);
  });

  test('host name target resolves and connects', async () => {
    const r = await runCheck('tcp', `localhost:${plainPort}`, {}, ctx);
    // localhost may resolve to ::1 first; the listener is IPv4-only, and Node tries both families.
    assert.equal(r.status, 'up', r.message);
  });

  test('closed port: down, connection refused', async () => {
    const r = await runCheck('tcp', `127.0.0.1:${await freePort()}`, {}, ctx);
    assert.equal(r.status, 'down');
    assert.equal(r.message, 'connection refused');
    assert.equal(r.response_time_ms, null);
  });

  test('TLS handshake records the certificate; verification on rejects a self-signed one', async () => {
    const off = await runCheck('tcp', `127.0.0.1:${tlsPort}`, { tls: true, verify_tls: false }, ctx);
    assert.equal(off.status, 'up', off.message);
    assert.match(off.message, /^connected, TLSv1\.[23] handshake done, certificate valid for (29|30) more days$/);
    const cert = off.details.cert as Record<string, unknown>;
    assert.equal(cert.subject_cn, 'localhost');
    assert.ok(cert.days_left === 29 || cert.days_left === 30);
    assert.equal(typeof off.details.tls_ms, 'number');
    assert.match(String((off.details.tls as Record<string, unknown>).cipher), /\w/);

    const on = await runCheck('tcp', `127.0.0.1:${tlsPort}`, { tls: true }, ctx);
    assert.equal(on.status, 'down');
    assert.match(on.message, /self-signed certificate/);
    assert.ok(on.details.cert, 'certificate recorded even when rejected');
  });

  test('servername sets SNI and the name the certificate is checked against', { timeout: 10_000 }, async () => {
    // The server sees the handshake end after the client does (TLS 1.3), so wait for its event; an
    // earlier test's connection (to the IP, so without SNI) may still be finishing.
    const seen = new Promise<string>((resolve) => {
      const on = (s: tls.TLSSocket & { servername?: string | false }) => {
        if (s.servername) { secure.off('secureConnection', on); resolve(s.servername); }
      };
      secure.on('secureConnection', on);
    });
    const r = await runCheck('tcp', `127.0.0.1:${tlsPort}`, { tls: true, verify_tls: false, servername: 'localhost' }, ctx);
    assert.equal(r.status, 'up', r.message);
    assert.equal(await seen, 'localhost');
    const wrong = await runCheck('tcp', `127.0.0.1:${tlsPort}`, { tls: true, servername: 'other.example' }, ctx);
    assert.equal(wrong.status, 'down');
  });

  test('TLS against a server that accepts TCP but never completes the handshake: timeout', async () => {
    const r = await runCheck('tcp', `127.0.0.1:${silentPort}`, { tls: true }, { timeout: 0.5 });
    assert.equal(r.status, 'down');
    assert.equal(r.message, 'timed out after 0.5 s during the TLS handshake');
    assert.equal(r.details.phase, 'tls');
  });

  test('TLS against a plain port that closes: down with a message', async () => {
    const r = await runCheck('tcp', `127.0.0.1:${plainPort}`, { tls: true }, ctx);
    assert.equal(r.status, 'down');
    assert.ok(r.message.length > 0);
  });

  test('degraded_ms applies to tcp too', async () => {
    const r = await runCheck('tcp', `127.0.0.1:${silentPort}`, {}, { timeout: 5, degraded_ms: 0 });
    // A loopback connect always takes some time above 0 ms.
    assert.equal(r.status, 'degraded', r.message);
  });

  test('validateTarget', () => {
    assert.equal(validateTarget('127.0.0.1:22'), null);
    assert.equal(validateTarget('[::1]:443'), null);
    assert.equal(validateTarget('example.com:65535'), null);
    assert.match(validateTarget('example.com:0') ?? '', /1-65535/);
    assert.match(validateTarget('example.com:65536') ?? '', /1-65535/);
    assert.match(validateTarget('example.com') ?? '', /host:port/);
    assert.match(validateTarget('::1:443') ?? '', /brackets/);
    assert.match(validateTarget('bad_host!:80') ?? '', /not a valid host/);
    assert.match(validateTarget('300.1.1.1:80') ?? '', /IPv4/);
  });
});
