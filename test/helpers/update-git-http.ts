// A private git source on loopback: `git http-backend` run as CGI behind token authentication (Basic with any
// user name and the token as password, or Bearer), as a git host serves it. While it answers a request it
// looks at every process's command line for the token (it must never be there) and, as root, at the
// environment of the git processes (where it is passed). `dropFetchAfter` cuts the connection in the middle
// of a fetch's pack data, like a source that goes away mid-fetch.
import { spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface GitHttp {
  url: (repo: string) => string;
  requests: { method: string; path: string; auth: 'none' | 'basic' | 'bearer' | 'wrong'; status: number }[];
  /** Command lines (of any process) that held the token while a request was answered. */
  tokenInArgv: string[];
  /** Git processes whose environment held the token (read as root only). */
  tokenInEnv: string[];
  dropFetchAfter: number | null;
  close(): Promise<void>;
}

async function scan(token: string, into: { argv: string[]; env: string[] }): Promise<void> {
  for (const pid of await readdir('/proc').catch(() => [] as string[])) {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue;
    const cmd = await readFile(`/proc/${pid}/cmdline`).catch(() => null);
    if (!cmd) continue;
    if (cmd.includes(token)) into.argv.push(cmd.toString().replace(/\0/g, ' '));
    if (/^git/.test(cmd.toString()) || cmd.includes('git-remote-http')) {
      const env = await readFile(`/proc/${pid}/environ`).catch(() => null);
      if (env?.includes(Buffer.from(token).toString('base64')) || env?.includes(token)) into.env.push(cmd.toString().replace(/\0/g, ' '));
    }
  }
}

export async function startGitHttp(root: string, token: string): Promise<GitHttp> {
  const found = { argv: [] as string[], env: [] as string[] };
  const state: GitHttp = {
    url: () => '', requests: [], tokenInArgv: found.argv, tokenInEnv: found.env, dropFetchAfter: null, close: async () => {},
  };
  const server: Server = createServer((req, res) => {
    void (async () => {
      const u = new URL(req.url ?? '/', 'http://x');
      const h = req.headers.authorization ?? '';
      const basicOk = h.startsWith('Basic ') && Buffer.from(h.slice(6), 'base64').toString().split(':').slice(1).join(':') === token;
      const auth = !h ? 'none' : basicOk ? 'basic' : h === `Bearer ${token}` ? 'bearer' : 'wrong';
      await scan(token, found);
      if (auth === 'none' || auth === 'wrong') {
        state.requests.push({ method: req.method!, path: u.pathname, auth, status: 401 });
        res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="netprobe releases"' }).end('authentication required\n');
        return;
      }
      const cgi = spawn('git', ['http-backend'], {
        env: {
          PATH: process.env.PATH, GIT_PROJECT_ROOT: root, GIT_HTTP_EXPORT_ALL: '1', REQUEST_METHOD: req.method, PATH_INFO: u.pathname,
          QUERY_STRING: u.search.slice(1), CONTENT_TYPE: req.headers['content-type'] ?? '', REMOTE_USER: 'probe', REMOTE_ADDR: '127.0.0.1',
          GIT_PROTOCOL: String(req.headers['git-protocol'] ?? ''), HTTP_CONTENT_ENCODING: String(req.headers['content-encoding'] ?? ''),
        },
        stdio: ['pipe', 'pipe', 'ignore'],
      });
      req.pipe(cgi.stdin);
      let head = Buffer.alloc(0), body = false, sent = 0;
      const isFetch = req.method === 'POST' && u.pathname.endsWith('/git-upload-pack');
      cgi.stdout.on('data', (chunk: Buffer) => {
        if (!body) {
          head = Buffer.concat([head, chunk]);
          const end = head.indexOf('\r\n\r\n');
          if (end < 0) return;
          let status = 200;
          const headers: Record<string, string> = {};
          for (const line of head.subarray(0, end).toString().split('\r\n')) {
            const [k, ...v] = line.split(':');
            if (k!.toLowerCase() === 'status') status = Number(v.join(':').trim().split(' ')[0]);
            else headers[k!] = v.join(':').trim();
          }
          state.requests.push({ method: req.method!, path: u.pathname, auth, status });
          res.writeHead(status, headers);
          body = true;
          chunk = head.subarray(end + 4);
        }
        if (isFetch && state.dropFetchAfter !== null && sent + chunk.length > state.dropFetchAfter) {
          res.write(chunk.subarray(0, Math.max(0, state.dropFetchAfter - sent)));
          cgi.kill('SIGKILL');
          req.socket.destroy(); // the source goes away in the middle of the pack
          return;
        }
        sent += chunk.length;
        res.write(chunk);
      });
      cgi.on('close', () => { if (!res.destroyed) res.end(); });
    })();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  state.url = (repo) => `http://127.0.0.1:${port}/${repo}`;
  state.close = () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); });
  return state;
}
