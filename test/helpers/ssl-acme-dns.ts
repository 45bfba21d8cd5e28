// An acme-dns server (github.com/joohoi/acme-dns, pkg/api) on a free loopback port, for dns-01 through a
// CNAME delegation. acme-dns is not packaged in Debian, so its HTTP API is reproduced as its source
// answers: POST /update with X-Api-User (a UUID) and X-Api-Key (40 characters of the URL-safe base64
// alphabet), body {subdomain, txt}; 401 {"error": "forbidden"} for unknown credentials or another
// registration's subdomain, 400 {"error": "bad_txt"} unless txt is 43 such characters, 200 {"txt": "..."};
// the two latest values per subdomain are served. The DNS side, which acme-dns serves itself, is the
// test's BIND: the values are written there, at <subdomain>.<zone>, by RFC 2136 (nsupdate), and the
// delegating CNAME _acme-challenge.<name> -> <subdomain>.<zone> is added the same way.
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { run } from '../../src/core/exec.js';
import type { Named } from './ssl-named.js';

export interface AcmeDns {
  url: string;
  username: string;
  password: string;
  subdomain: string;
  /** The name the registration's values are served at. */
  fqdn: string;
  /** Every accepted update, in order (for the test to check what the probe sent). */
  updates: { subdomain: string; txt: string }[];
  /** Makes _acme-challenge.<name> a CNAME to this registration (what a person does once at the DNS provider). */
  delegate(name: string): Promise<void>;
  /** Takes the CNAMEs away again. */
  undelegate(): Promise<void>;
  stop(): Promise<void>;
}

const SAFE = /^[A-Za-z0-9_-]+$/;

async function nsupdate(named: Named, lines: string[]): Promise<void> {
  const script = [`server 127.0.0.1 ${named.port}`, `key ${named.algorithm}:${named.keyName} ${named.secret}`, ...lines, 'send', ''].join('\n');
  const r = await run('nsupdate', ['-t', '10'], { input: script, timeoutMs: 20_000 });
  if (r.code !== 0) throw new Error(`nsupdate: ${r.stderr || r.stdout}`);
}

export async function startAcmeDns(named: Named, zone: string): Promise<AcmeDns> {
  const username = randomUUID();
  const password = randomBytes(30).toString('base64url'); // 40 characters
  const subdomain = randomUUID();
  const fqdn = `${subdomain}.auth.${zone}.`;
  const values: string[] = [];
  const updates: AcmeDns['updates'] = [];
  const delegated: string[] = [];
  const answer = (res: import('node:http').ServerResponse, status: number, body: string) => {
    res.writeHead(status, { 'Content-Type': 'application/json' }).end(body);
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        if (req.method !== 'POST' || req.url !== '/update') { answer(res, 404, '{"error": "not_found"}'); return; }
        const user = String(req.headers['x-api-user'] ?? '');
        const key = String(req.headers['x-api-key'] ?? '');
        let post: { subdomain?: unknown; txt?: unknown } = {};
        try { post = JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof post; } catch { /* acme-dns logs json_error and goes on */ }
        if (user !== username || key.length !== 40 || !SAFE.test(key) || key !== password || post.subdomain !== subdomain) {
          answer(res, 401, '{"error": "forbidden"}'); return;
        }
        const txt = typeof post.txt === 'string' ? post.txt : '';
        if (txt.length !== 43 || !SAFE.test(txt)) { answer(res, 400, '{"error": "bad_txt"}'); return; }
        // The two latest values: the oldest is replaced.
        values.push(txt);
        if (values.length > 2) values.shift();
        updates.push({ subdomain, txt });
        try {
          await nsupdate(named, [`update delete ${fqdn} TXT`, ...values.map((v) => `update add ${fqdn} 60 TXT "${v}"`)]);
        } catch {
          answer(res, 500, '{"error": "db_error"}'); return;
        }
        answer(res, 200, `{"txt": "${txt}"}`);
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`, username, password, subdomain, fqdn, updates,
    async delegate(name) {
      await nsupdate(named, [`update delete _acme-challenge.${name}.`, `update add _acme-challenge.${name}. 60 CNAME ${fqdn}`]);
      delegated.push(name);
    },
    async undelegate() {
      for (const name of delegated.splice(0)) await nsupdate(named, [`update delete _acme-challenge.${name}. CNAME`]);
    },
    stop: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
