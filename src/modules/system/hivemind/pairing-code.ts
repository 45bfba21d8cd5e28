// The pairing code a controller hands out for one probe: base64url of the JSON
// {v: 1, url, id, secret, ca, ca_sha256}. It carries the broker's address, the probe's MQTT client id
// (also its user name and the <id> of its topics), its password, and the CA certificate the broker's
// certificate must chain to (pinned: no other authority is trusted), with that certificate's SHA-256
// fingerprint so a code damaged in transit is refused rather than trusted. Pure: no I/O.
import { X509Certificate } from 'node:crypto';
import { z } from 'zod';
import { HttpError, invalid, type FieldError } from '../../../core/errors.js';

/** Longest pairing code accepted (a code with an embedded CA is about 1,100 characters). */
export const MAX_CODE_LENGTH = 16_384;
/** A probe id is one topic level: no '/', '+', '#', nothing a topic filter could widen. */
export const PROBE_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export interface Pairing {
  /** Normalised broker URL: mqtts://host:port (or mqtt://host:port when insecure brokers are allowed). */
  url: string;
  tls: boolean;
  host: string;
  port: number;
  id: string;
  secret: string;
  /** PEM of the pinned CA; null only for a plain mqtt:// broker. */
  ca: string | null;
  /** Lower-case hex SHA-256 of the CA certificate (DER), as `openssl x509 -fingerprint -sha256` shows it without colons. */
  ca_sha256: string | null;
}

const CodeJson = z.object({
  v: z.literal(1, 'Unsupported pairing code version (this probe reads version 1)'),
  url: z.string().min(1).max(512),
  id: z.string().regex(PROBE_ID, 'Must be 1-64 letters, digits, ".", "_" or "-" (one topic level)'),
  secret: z.string().min(1).max(512),
  ca: z.string().max(12_000).nullable().optional(),
  ca_sha256: z.string().max(128).nullable().optional(),
});

const bad = (errors: FieldError[]) => invalid('pairing code', errors, 'invalid_pairing_code');
const badCode = (message: string) => bad([{ path: 'code', message }]);

/** The fingerprint as lower-case hex, from hex with or without colons; null when it is not 32 bytes of hex. */
export function normaliseFingerprint(s: string): string | null {
  const hex = s.trim().replace(/^sha256[:=]/i, '').replace(/:/g, '').toLowerCase();
  return /^[0-9a-f]{64}$/.test(hex) ? hex : null;
}

/** The SHA-256 fingerprint of a PEM certificate, lower-case hex. */
export function certificateSha256(pem: string): string {
  return new X509Certificate(pem).fingerprint256.replace(/:/g, '').toLowerCase();
}

function parseBrokerUrl(text: string, allowInsecure: boolean): Pick<Pairing, 'url' | 'tls' | 'host' | 'port'> {
  let u: URL;
  try { u = new URL(text); } catch { throw bad([{ path: 'code.url', message: 'Not a URL (expected mqtts://host:port)' }]); }
  const scheme = u.protocol.replace(/:$/, '');
  if (scheme !== 'mqtts' && scheme !== 'mqtt') {
    throw bad([{ path: 'code.url', message: `Unsupported scheme ${scheme}: (expected mqtts://host:port)` }]);
  }
  if (scheme === 'mqtt' && !allowInsecure) {
    throw new HttpError(400, 'insecure_broker',
      'The pairing code names a plain mqtt:// broker (no TLS). Only mqtts:// is accepted unless an administrator sets ' +
      'hivemind.allow_insecure (for a lab broker)', { errors: [{ path: 'code.url', message: 'mqtt:// (no TLS) is refused' }],
        extra: { config_key: 'hivemind.allow_insecure' } });
  }
  if (u.username || u.password) {
    throw bad([{ path: 'code.url', message: 'The URL must not carry credentials (they are the code\'s id and secret)' }]);
  }
  if ((u.pathname && u.pathname !== '/') || u.search || u.hash) {
    throw bad([{ path: 'code.url', message: 'The URL must be only a scheme, a host and a port' }]);
  }
  const host = u.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!host) throw bad([{ path: 'code.url', message: 'The URL has no host' }]);
  const port = u.port ? Number(u.port) : scheme === 'mqtts' ? 8883 : 1883;
  const hostText = host.includes(':') ? `[${host}]` : host;
  return { url: `${scheme}://${hostText}:${port}`, tls: scheme === 'mqtts', host, port };
}

/** Decodes and checks a pairing code; a 400 naming what is wrong (never echoing the secret). */
export function decodePairingCode(code: string, opts: { allowInsecure: boolean }): Pairing {
  const text = code.trim().replace(/=+$/, '');
  if (!text) throw badCode('Empty pairing code');
  if (text.length > MAX_CODE_LENGTH) throw badCode(`Too long for a pairing code (at most ${MAX_CODE_LENGTH} characters)`);
  if (!/^[A-Za-z0-9_-]+$/.test(text)) throw badCode('Not a pairing code: expected base64url text (letters, digits, "-" and "_")');
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw badCode('Not a pairing code: the text does not decode to JSON');
  }
  const parsed = CodeJson.safeParse(json);
  if (!parsed.success) {
    // Paths only, with the schema's message: a value (the secret among them) is never echoed.
    throw bad(parsed.error.issues.map((i) => ({ path: ['code', ...i.path.map(String)].join('.'), message: i.message })));
  }
  const c = parsed.data;
  const broker = parseBrokerUrl(c.url, opts.allowInsecure);
  if (!broker.tls) return { ...broker, id: c.id, secret: c.secret, ca: null, ca_sha256: null };

  if (!c.ca) throw bad([{ path: 'code.ca', message: 'An mqtts:// broker needs the CA certificate to pin' }]);
  if (!c.ca_sha256) throw bad([{ path: 'code.ca_sha256', message: 'The CA certificate\'s SHA-256 fingerprint is missing' }]);
  const want = normaliseFingerprint(c.ca_sha256);
  if (!want) throw bad([{ path: 'code.ca_sha256', message: 'Must be a SHA-256 fingerprint (64 hex digits, colons allowed)' }]);
  const pems = c.ca.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (pems.length !== 1) throw bad([{ path: 'code.ca', message: 'Must be exactly one PEM certificate' }]);
  let got: string;
  try { got = certificateSha256(pems[0]!); } catch {
    throw bad([{ path: 'code.ca', message: 'Not a readable X.509 certificate' }]);
  }
  if (got !== want) {
    throw bad([{ path: 'code.ca_sha256', message: 'Does not match the CA certificate in the code (damaged or altered code)' }]);
  }
  return { ...broker, id: c.id, secret: c.secret, ca: `${pems[0]!}\n`, ca_sha256: got };
}

/** Makes a pairing code (controllers and tests): the inverse of decodePairingCode. */
export function encodePairingCode(p: { url: string; id: string; secret: string; ca?: string | null; ca_sha256?: string | null }): string {
  const ca = p.ca ?? null;
  const body = { v: 1, url: p.url, id: p.id, secret: p.secret, ca, ca_sha256: p.ca_sha256 ?? (ca ? certificateSha256(ca) : null) };
  return Buffer.from(JSON.stringify(body), 'utf8').toString('base64url');
}
