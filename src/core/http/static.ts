// Serves the web UI from ui/: files by path, index.html for client-side routes, nothing outside ui/.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.json': 'application/json; charset=utf-8', '.svg': 'image/svg+xml',
  '.png': 'image/png', '.ico': 'image/x-icon', '.webp': 'image/webp', '.woff2': 'font/woff2', '.txt': 'text/plain; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
};

export function createStaticHandler(root: string) {
  const base = normalize(root + sep);
  return async function serveStatic(req: IncomingMessage, res: ServerResponse, pathname: string): Promise<void> {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8' }).end('Method Not Allowed');
      return;
    }
    let rel: string;
    try { rel = decodeURIComponent(pathname); } catch { rel = ''; }
    const file = normalize(join(base, rel));
    let target = file.startsWith(base) && !rel.includes('\0') ? file : null;
    let st = target ? await stat(target).catch(() => null) : null;
    if (st?.isDirectory()) {
      target = join(target!, 'index.html');
      st = await stat(target).catch(() => null);
    }
    // Unknown paths without an extension are client-side routes of the single-page app.
    if ((!st || !st.isFile()) && !extname(rel)) {
      target = join(base, 'index.html');
      st = await stat(target).catch(() => null);
    }
    if (!st || !st.isFile() || !target) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Not Found');
      return;
    }
    const isHtml = target.endsWith('.html');
    const etag = `W/"${st.size.toString(16)}-${Math.floor(st.mtimeMs).toString(16)}"`;
    const headers: Record<string, string> = {
      'Content-Type': TYPES[extname(target)] ?? 'application/octet-stream',
      'Cache-Control': isHtml ? 'no-cache' : 'public, max-age=300',
      ETag: etag,
    };
    if (req.headers['if-none-match'] === etag) {
      res.writeHead(304, headers).end();
      return;
    }
    headers['Content-Length'] = String(st.size);
    res.writeHead(200, headers);
    if (req.method === 'HEAD') { res.end(); return; }
    createReadStream(target).on('error', () => res.destroy()).pipe(res);
  };
}
