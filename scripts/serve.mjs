// A small static file server for the built page (dist/): GET/HEAD only, no
// directory listing, correct MIME types (.wasm must be application/wasm).
// Used by `scripts/run.sh`, the end-to-end tests and the browser benchmarks,
// which also take their Chromium flags from here.
//
//   node scripts/serve.mjs DIR [PORT]
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

/** Headless Chromium flags: off the (closed) network, light on a shared 2-core machine. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

/** The Chromium binary (Debian's; never one downloaded by playwright). */
export const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';

/** Serves `dir` on 127.0.0.1:`port` (0 = any free port); resolves to the server. */
export function serveDir(dir, port = 0) {
  const root = path.resolve(dir);
  return new Promise((resolve, reject) => {
    const srv = http.createServer((req, res) => {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.writeHead(405, { allow: 'GET, HEAD' });
        return res.end();
      }
      let rel = decodeURIComponent(new URL(req.url, 'http://localhost').pathname);
      if (rel.endsWith('/')) rel += 'index.html';
      const file = path.join(root, path.normalize(rel));
      if (!file.startsWith(root + path.sep) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
        res.writeHead(404, { 'content-type': 'text/plain' });
        return res.end('not found');
      }
      const type = MIME[path.extname(file)] ?? 'application/octet-stream';
      res.writeHead(200, { 'content-type': type, 'content-length': fs.statSync(file).size, 'cache-control': 'no-store' });
      if (req.method === 'HEAD') return res.end();
      fs.createReadStream(file).pipe(res);
    });
    srv.on('error', reject);
    srv.listen(port, '127.0.0.1', () => resolve(srv));
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [dir = 'dist', port = '8080'] = process.argv.slice(2);
  const srv = await serveDir(dir, Number(port));
  console.log(`d9lens is served at http://127.0.0.1:${srv.address().port}/  (Ctrl-C to stop)`);
}
