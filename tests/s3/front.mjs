// A front for s3s-fs that answers like AWS S3 with a bucket CORS rule, plus fault
// injection for tests. No dependencies.
//
// - OPTIONS preflights are answered here, the way S3 answers them for a rule with
//   AllowedMethods GET/HEAD/PUT/POST, AllowedHeaders "*", MaxAgeSeconds 3600.
// - Every other request is passed through to the upstream unchanged (method, raw
//   path and query, raw headers including Host, body): SigV4 signs the Host header,
//   so clients sign for this front's address and the upstream verifies that.
// - Responses get Access-Control-Allow-Origin (the request's Origin when allowed) and
//   Access-Control-Expose-Headers, like S3 with a matching rule.
// - Like S3, a request signed for another region than the bucket's is refused with
//   400 AuthorizationQueryParametersError / AuthorizationHeaderMalformed naming the
//   right region (s3s-fs itself accepts any region).
// - Test control (never forwarded):
//     POST   /__d9lens/fault    {"status":503,"count":1,"pathContains":"…","code":"SlowDown",
//                                "message":"…","reset":false,"pass":false,"delayMs":0,
//                                "location":"…"}
//            the next `count` requests whose path+query contains `pathContains` fail with
//            that status and an S3 XML error (or, with "reset": true, a dropped connection;
//            with "pass": true, go through unchanged), after `delayMs`; `location` adds
//            a Location header (S3's 307 TemporaryRedirect carries one)
//     DELETE /__d9lens/fault    clears pending faults
//     GET    /__d9lens/requests the log of proxied requests [{method, path, status, fault,
//                                agent, startMs, endMs}] (times on this process's clock; endMs is
//                                null until the answer is sent)
//     DELETE /__d9lens/requests clears the log
//
// Usage: node tests/s3/front.mjs --port 9001 --upstream 127.0.0.1:9000
//          [--host 127.0.0.1] [--origins "*" | "http://localhost:8080,https://…"] [--region us-east-1]
// or import { startFront } from './front.mjs'.

import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';

export const EXPOSE_HEADERS = ['ETag', 'Content-Length', 'Content-Range', 'Date', 'x-amz-request-id', 'x-amz-bucket-region'];
const ALLOW_METHODS = ['GET', 'HEAD', 'PUT', 'POST'];
const CONTROL = '/__d9lens/';
const MAX_LOG = 10_000;

const DEFAULT_CODES = {
  400: ['InvalidRequest', 'The request is invalid.'],
  403: ['AccessDenied', 'Access Denied'],
  404: ['NoSuchKey', 'The specified key does not exist.'],
  500: ['InternalError', 'We encountered an internal error. Please try again.'],
  503: ['SlowDown', 'Please reduce your request rate.'],
};

function xmlEscape(s) {
  return String(s).replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c]);
}

function errorXml(code, message, requestId, extra = '') {
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<Error><Code>${xmlEscape(code)}</Code><Message>${xmlEscape(message)}</Message>${extra}` +
    `<RequestId>${requestId}</RequestId><HostId>${randomBytes(24).toString('base64')}</HostId></Error>`
  );
}

function requestId() {
  return randomBytes(8).toString('hex').toUpperCase();
}

/// The region a SigV4 request was signed for (query or Authorization header), if any.
function signedRegion(req) {
  const url = new URL(req.url, 'http://front');
  const credential = url.searchParams.get('X-Amz-Credential');
  if (credential) return { region: credential.split('/')[2], presigned: true };
  const auth = req.headers.authorization || '';
  const m = /Credential=[^/]+\/\d{8}\/([^/]+)\//.exec(auth);
  return m ? { region: m[1], presigned: false } : null;
}

/**
 * Starts the front. Resolves to { server, port, url, close() }.
 * @param {{host?: string, port?: number, upstreamHost: string, upstreamPort: number,
 *          origins?: string[] | '*', region?: string, quiet?: boolean}} opts
 */
export function startFront(opts) {
  const host = opts.host ?? '127.0.0.1';
  const origins = opts.origins ?? '*';
  const region = opts.region ?? 'us-east-1';
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const faults = [];
  const log = [];

  const originAllowed = (origin) => !!origin && (origins === '*' || origins.includes(origin));
  const corsHeaders = (req) => {
    const origin = req.headers.origin;
    if (!originAllowed(origin)) return {};
    return {
      'Access-Control-Allow-Origin': origin,
      'Access-Control-Expose-Headers': EXPOSE_HEADERS.join(', '),
      Vary: 'Origin, Access-Control-Request-Headers, Access-Control-Request-Method',
    };
  };
  // Each entry's answer time, once sent: how many requests overlap is visible.
  const record = (entry, req, res) => {
    if (log.length >= MAX_LOG) log.shift();
    const timed = { ...entry, agent: req?.headers['user-agent'] ?? null, startMs: req?.startMs ?? null, endMs: null };
    log.push(timed);
    res?.once('close', () => (timed.endMs = performance.now()));
  };

  const sendError = (req, res, status, code, message, extra = '', headers = {}) => {
    const id = requestId();
    const body = errorXml(code, message, id, extra);
    res.writeHead(status, {
      'Content-Type': 'application/xml',
      'Content-Length': Buffer.byteLength(body),
      'x-amz-request-id': id,
      ...headers,
      ...corsHeaders(req),
    });
    res.end(req.method === 'HEAD' ? undefined : body);
  };

  const control = (req, res, path) => {
    const reply = (status, value) => {
      const body = JSON.stringify(value);
      res.writeHead(status, { 'Content-Type': 'application/json', 'Access-Control-Allow-Origin': '*' });
      res.end(body);
    };
    if (req.method === 'OPTIONS') {
      res.writeHead(204, {
        'Access-Control-Allow-Origin': '*',
        'Access-Control-Allow-Methods': 'GET, POST, DELETE',
        'Access-Control-Allow-Headers': 'content-type',
      });
      return res.end();
    }
    if (path === 'fault' && req.method === 'POST') {
      let text = '';
      req.setEncoding('utf8');
      req.on('data', (c) => (text += c));
      req.on('end', () => {
        let f;
        try {
          f = JSON.parse(text || '{}');
        } catch {
          return reply(400, { error: 'body must be JSON' });
        }
        const status = Number(f.status ?? 503);
        const [code, message] = DEFAULT_CODES[status] ?? ['ServiceUnavailable', 'Service is unavailable.'];
        faults.push({
          status,
          count: Number(f.count ?? 1),
          pathContains: String(f.pathContains ?? ''),
          code: f.code ?? code,
          message: f.message ?? message,
          reset: !!f.reset,
          pass: !!f.pass,
          delayMs: Number(f.delayMs ?? 0),
          location: f.location == null ? null : String(f.location),
        });
        reply(200, { pending: faults.length });
      });
      return;
    }
    if (path === 'fault' && req.method === 'DELETE') {
      faults.length = 0;
      return reply(200, { pending: 0 });
    }
    if (path === 'requests' && req.method === 'GET') return reply(200, log);
    if (path === 'requests' && req.method === 'DELETE') {
      log.length = 0;
      return reply(200, []);
    }
    reply(404, { error: `unknown control ${req.method} ${path}` });
  };

  const preflight = (req, res) => {
    const origin = req.headers.origin;
    const method = req.headers['access-control-request-method'];
    if (!origin || !method) {
      return sendError(req, res, 400, 'BadRequest', 'Insufficient information. Origin request header needed.');
    }
    if (!originAllowed(origin) || !ALLOW_METHODS.includes(method)) {
      record({ method: 'OPTIONS', path: req.url, status: 403, fault: false }, req, res);
      return sendError(req, res, 403, 'AccessForbidden', 'CORSResponse: This CORS request is not allowed. This is usually because the evalution of Origin, request method / Access-Control-Request-Method or Access-Control-Request-Headers are not whitelisted by the resource\'s CORS spec.');
    }
    const headers = {
      'Access-Control-Allow-Origin': origin,
      'Access-Control-Allow-Methods': ALLOW_METHODS.join(', '),
      'Access-Control-Expose-Headers': EXPOSE_HEADERS.join(', '),
      'Access-Control-Max-Age': '3600',
      Vary: 'Origin, Access-Control-Request-Headers, Access-Control-Request-Method',
      'Content-Length': '0',
      'x-amz-request-id': requestId(),
    };
    // AllowedHeaders "*": S3 echoes whatever the browser asks for.
    const asked = req.headers['access-control-request-headers'];
    if (asked) headers['Access-Control-Allow-Headers'] = asked;
    record({ method: 'OPTIONS', path: req.url, status: 200, fault: false }, req, res);
    res.writeHead(200, headers);
    res.end();
  };

  const proxy = (req, res) => {
    const raw = [];
    for (let i = 0; i < req.rawHeaders.length; i += 2) raw.push([req.rawHeaders[i], req.rawHeaders[i + 1]]);
    const up = http.request({
      host: opts.upstreamHost,
      port: opts.upstreamPort,
      method: req.method,
      path: req.url,
      headers: raw,
      agent,
      setHost: false,
    });
    up.on('response', (ur) => {
      const headers = [];
      for (let i = 0; i < ur.rawHeaders.length; i += 2) {
        const name = ur.rawHeaders[i];
        if (!/^access-control-/i.test(name)) headers.push([name, ur.rawHeaders[i + 1]]);
      }
      for (const [k, v] of Object.entries(corsHeaders(req))) headers.push([k, v]);
      record({ method: req.method, path: req.url, status: ur.statusCode, fault: !!req.delayed }, req, res);
      res.writeHead(ur.statusCode, ur.statusMessage, headers.flat());
      ur.pipe(res);
    });
    up.on('error', (e) => {
      record({ method: req.method, path: req.url, status: 502, fault: false }, req, res);
      if (!res.headersSent) sendError(req, res, 502, 'BadGateway', `upstream s3s-fs: ${e.message}`);
      else res.destroy();
    });
    req.pipe(up);
  };

  const server = http.createServer((req, res) => {
    req.startMs = performance.now();
    const path = new URL(req.url, 'http://front').pathname;
    if (path.startsWith(CONTROL)) return control(req, res, path.slice(CONTROL.length));
    if (req.method === 'OPTIONS') return preflight(req, res);

    const i = faults.findIndex((f) => f.count > 0 && req.url.includes(f.pathContains));
    if (i >= 0) {
      const f = faults[i];
      if (--f.count <= 0) faults.splice(i, 1);
      if (f.pass) {
        // Logged when its answer comes; the body waits in the socket meanwhile.
        req.pause();
        req.delayed = true;
        setTimeout(() => answer(req, res), f.delayMs);
        return;
      }
      record({ method: req.method, path: req.url, status: f.reset ? 0 : f.status, fault: true }, req, res);
      req.resume();
      setTimeout(() => {
        if (f.reset) return req.socket.destroy();
        const location = f.location ? { Location: f.location } : {};
        sendError(req, res, f.status, f.code, f.message, '', { 'Retry-After': '0', ...location });
      }, f.delayMs);
      return;
    }
    answer(req, res);
  });

  /** Like S3: a request signed for another region is refused, anything else goes upstream. */
  const answer = (req, res) => {
    const signed = signedRegion(req);
    if (signed && signed.region !== region) {
      record({ method: req.method, path: req.url, status: 400, fault: false }, req, res);
      req.resume();
      const code = signed.presigned ? 'AuthorizationQueryParametersError' : 'AuthorizationHeaderMalformed';
      const what = signed.presigned ? 'Error parsing the X-Amz-Credential parameter; the' : 'The authorization header is malformed; the';
      return sendError(req, res, 400, code, `${what} region '${signed.region}' is wrong; expecting '${region}'`,
        `<Region>${xmlEscape(region)}</Region>`, { 'x-amz-bucket-region': region });
    }
    proxy(req, res);
  };
  server.keepAliveTimeout = 5000;

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => {
      const port = server.address().port;
      if (!opts.quiet) console.error(`[front] CORS front on http://${host}:${port} -> ${opts.upstreamHost}:${opts.upstreamPort}`);
      resolve({
        server,
        port,
        url: `http://${host}:${port}`,
        close: () =>
          new Promise((done) => {
            agent.destroy();
            server.close(() => done());
            server.closeAllConnections?.();
          }),
      });
    });
  });
}

function parseArgs(argv) {
  const out = {};
  for (let i = 0; i < argv.length; i += 2) out[argv[i].replace(/^--/, '')] = argv[i + 1];
  return out;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const a = parseArgs(process.argv.slice(2));
  const [upstreamHost, upstreamPort] = (a.upstream ?? '127.0.0.1:9000').split(':');
  const origins = !a.origins || a.origins === '*' ? '*' : a.origins.split(',').map((s) => s.trim()).filter(Boolean);
  const front = await startFront({
    host: a.host ?? '127.0.0.1',
    port: Number(a.port ?? 9001),
    upstreamHost,
    upstreamPort: Number(upstreamPort),
    origins,
    region: a.region ?? 'us-east-1',
  });
  const stop = () => front.close().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
