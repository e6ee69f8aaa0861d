// Local S3 for tests and the demo: d9lens-s3-server (tests/s3/server: s3s-fs with real
// SigV4 checks, plus anonymous read of chosen prefixes) serving a copy of
// tests/fixtures/s3-bucket/ as bucket `d9lens-demo`, a CORS front before it (like S3
// with a bucket CORS rule), and the server's own port as the endpoint WITHOUT CORS.
// Build the server with `cargo build -p d9lens-s3-server` (scripts/setup.sh does).
//
//   node tests/s3/servers.mjs run      foreground; stops on Ctrl-C, SIGTERM or when stdin closes
//                                      (with --watch-stdin: how tests tie it to their own life)
//   node tests/s3/servers.mjs start    in the background; writes the state file, returns
//   node tests/s3/servers.mjs stop     stops what `start` started (by the pids in the state file)
//
// Environment (all optional):
//   S3_PORT=9000          the S3 server's port: the plain endpoint, no CORS (0: a free port)
//   S3_CORS_PORT=9001     CORS front port (0: a free port)
//   S3_CORS_ORIGINS=*     allowed origins, comma separated ("*": echo any origin)
//   S3_REGION=us-east-1   the bucket's region (the front refuses other signing regions)
//   S3S_FS=…              the server binary (default: $CARGO_TARGET_DIR or target/, then
//                         debug/d9lens-s3-server; a plain s3s-fs works unless S3_PUBLIC_READ is set)
//   S3S_LOG=off           the server's log filter (RUST_LOG syntax, e.g. info)
//   S3_PUBLIC_READ=       comma-separated BUCKET/PREFIX list: anonymous GetObject/HeadObject
//                         of keys under each is allowed (like a public-read bucket policy on a
//                         site prefix); each such bucket is created empty if missing. Every
//                         other request still needs a valid SigV4 signature.
//                         (startServers({ publicRead: ['bucket/prefix/'] }) does the same.)
//   D9LENS_S3_STATE=target/s3-servers.json   where endpoints, credentials and pids go
//
// The endpoints JSON (printed on stdout by `run`/`start`, and written to the state file):
//   {"bucket","region","accessKeyId","secretAccessKey","corsEndpoint","plainEndpoint",
//    "controlUrl","dataDir","publicRead":[…],"pids":{…}}
//   plainEndpoint also serves the public-read prefixes anonymously, path-style:
//   `${plainEndpoint}/BUCKET/PREFIX…/index.html`.
// The credentials are a public demo pair, valid only for this local server.

import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startFront } from './front.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
export const BUCKET = 'd9lens-demo';
export const ACCESS_KEY_ID = 'd9lensdemo';
export const SECRET_ACCESS_KEY = 'd9lens-demo-secret-key';
const HOST = '127.0.0.1';

function log(msg) {
  console.error(`[s3-servers] ${msg}`);
}

/** A port nobody listens on right now (tiny race until s3s-fs binds it; start retries). */
function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, HOST, () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

function canConnect(port) {
  return new Promise((resolve) => {
    const s = net.connect({ host: HOST, port });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function b64url(s) {
  return Buffer.from(s, 'utf8').toString('base64url');
}

/**
 * Copies the fixture bucket to DIR/d9lens-demo/, with s3s-fs metadata sidecars
 * (Content-Type and x-amz-meta-* as the uploader set them) and each segment's
 * modification time (= S3 LastModified) at its upload time: start + duration.
 */
export function prepareData(dataDir) {
  const src = path.join(root, 'tests/fixtures/s3-bucket');
  const listing = JSON.parse(fs.readFileSync(path.join(root, 'tests/fixtures/s3-bucket.listing.json'), 'utf8'));
  const bucketDir = path.join(dataDir, BUCKET);
  fs.mkdirSync(bucketDir, { recursive: true });
  for (const obj of listing.objects) {
    // Keys map to paths one to one (`%2F`, `=` stay literal characters of the name).
    const from = path.join(src, ...obj.key.split('/'));
    const to = path.join(bucketDir, ...obj.key.split('/'));
    fs.mkdirSync(path.dirname(to), { recursive: true });
    fs.copyFileSync(from, to);
    const size = fs.statSync(to).size;
    if (size !== obj.bytes) throw new Error(`${obj.key}: ${size} bytes, the listing says ${obj.bytes}`);
    if (obj.epochSecs != null) {
      const durationSecs = obj.trace ? Math.ceil(obj.trace.durationMs / 1000) : 15;
      const uploaded = new Date((obj.epochSecs + durationSecs) * 1000);
      fs.utimesSync(to, uploaded, uploaded);
    }
    if (obj.objectMetadata) {
      const sidecar = path.join(dataDir, `.bucket-${b64url(BUCKET)}.object-${b64url(obj.key)}.metadata.json`);
      fs.writeFileSync(sidecar, JSON.stringify(obj.objectMetadata));
    }
  }
  return { objects: listing.objects.length };
}

/** Creates an empty bucket (a directory of the data dir) unless it exists. */
export function createBucket(dataDir, bucket) {
  fs.mkdirSync(path.join(dataDir, bucket), { recursive: true });
}

/** `cargo build -p d9lens-s3-server`'s binary, or $S3S_FS. */
export function s3sBinary() {
  if (process.env.S3S_FS) return process.env.S3S_FS;
  const targetDir = path.resolve(root, process.env.CARGO_TARGET_DIR || 'target');
  return path.join(targetDir, 'debug/d9lens-s3-server');
}

async function startS3s(dataDir, wantedPort, detached, publicRead = [], corsOrigins = []) {
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = wantedPort || (await freePort());
    // Someone else's server there would look like ours starting.
    if (await canConnect(port)) {
      if (wantedPort) throw new Error(`port ${port} is already in use (set S3_PORT)`);
      continue;
    }
    const child = spawn(
      s3sBinary(),
      ['--host', HOST, '--port', String(port), '--access-key', ACCESS_KEY_ID, '--secret-key', SECRET_ACCESS_KEY,
        ...publicRead.flatMap((p) => ['--public-read', p]), ...corsOrigins.flatMap((o) => ['--cors-origin', o]), dataDir],
      // Its log goes to our stderr (stdout carries the endpoints JSON); S3S_LOG=info shows requests.
      { stdio: detached ? 'ignore' : ['ignore', 2, 2], detached, env: { ...process.env, RUST_LOG: process.env.S3S_LOG ?? 'off' } },
    );
    let exited = null;
    child.once('exit', (code) => (exited = code ?? -1));
    child.once('error', (e) => (exited = e.message));
    for (let i = 0; i < 200 && exited === null; i++) {
      if (await canConnect(port)) return { child, port };
      await sleep(50);
    }
    if (exited === null) {
      child.kill('SIGKILL');
      throw new Error(`${s3sBinary()} did not start listening on ${HOST}:${port}`);
    }
    if (typeof exited === 'string') throw new Error(`${s3sBinary()} failed to start: ${exited} ${missingHint()}`);
    if (wantedPort) throw new Error(`${s3sBinary()} failed to start on port ${port}: ${exited}`);
  }
  throw new Error(`${s3sBinary()} could not bind a free port`);
}

function missingHint() {
  return fs.existsSync(s3sBinary()) ? '' : '(build it with `cargo build -p d9lens-s3-server`, or set S3S_FS)';
}

function endpointsOf({ s3sPort, frontPort, dataDir, region, publicRead, pids }) {
  return {
    bucket: BUCKET,
    region,
    accessKeyId: ACCESS_KEY_ID,
    secretAccessKey: SECRET_ACCESS_KEY,
    corsEndpoint: `http://${HOST}:${frontPort}`,
    plainEndpoint: `http://${HOST}:${s3sPort}`,
    controlUrl: `http://${HOST}:${frontPort}/__d9lens`,
    dataDir,
    publicRead,
    pids,
  };
}

function envPort(name, fallback) {
  const v = process.env[name];
  return v === undefined || v === '' ? fallback : Number(v);
}

function settings() {
  const origins = process.env.S3_CORS_ORIGINS;
  return {
    s3sPort: envPort('S3_PORT', 9000),
    frontPort: envPort('S3_CORS_PORT', 9001),
    region: process.env.S3_REGION || 'us-east-1',
    origins: !origins || origins === '*' ? '*' : origins.split(',').map((s) => s.trim()).filter(Boolean),
    publicRead: (process.env.S3_PUBLIC_READ || '').split(',').map((s) => s.trim()).filter(Boolean),
    stateFile: process.env.D9LENS_S3_STATE || path.join(root, 'target/s3-servers.json'),
  };
}

/** Public-read buckets exist (empty) before the server starts. */
function preparePublic(dataDir, publicRead) {
  for (const p of publicRead) {
    const bucket = p.split('/')[0];
    if (!bucket) throw new Error(`public read ${JSON.stringify(p)}: expected BUCKET/PREFIX`);
    createBucket(dataDir, bucket);
  }
}

/**
 * Starts everything in this process (front) and a child (the S3 server). Resolves to
 * {endpoints, stop()}. Options override the environment: {s3sPort, frontPort, region,
 * origins, publicRead: ['bucket/prefix/', …]}. `s3sCors: ['*']` (or origins) has the S3
 * server answer CORS itself, as S3 does with a bucket CORS rule: then plainEndpoint
 * serves pages too, without the front (and its fault injection) in between.
 */
export async function startServers(opts = {}) {
  const s = { ...settings(), ...opts };
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'd9lens-s3-'));
  let s3s;
  let front;
  try {
    prepareData(dataDir);
    preparePublic(dataDir, s.publicRead);
    s3s = await startS3s(dataDir, s.s3sPort, false, s.publicRead, s.s3sCors);
    front = await startFront({ host: HOST, port: s.frontPort, upstreamHost: HOST, upstreamPort: s3s.port, origins: s.origins, region: s.region, quiet: true });
  } catch (e) {
    s3s?.child.kill('SIGTERM');
    fs.rmSync(dataDir, { recursive: true, force: true });
    throw e;
  }
  const endpoints = endpointsOf({ s3sPort: s3s.port, frontPort: front.port, dataDir, region: s.region, publicRead: s.publicRead, pids: { s3s: s3s.child.pid, front: process.pid } });
  let stopping = null;
  const stop = () =>
    (stopping ??= (async () => {
      await front.close();
      if (s3s.child.exitCode === null) {
        const exited = new Promise((r) => s3s.child.once('exit', r));
        s3s.child.kill('SIGTERM');
        await Promise.race([exited, sleep(3000)]);
        if (s3s.child.exitCode === null && s3s.child.signalCode === null) s3s.child.kill('SIGKILL');
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    })());
  return { endpoints, stop };
}

async function run(watchStdin) {
  const { endpoints, stop } = await startServers();
  const s = settings();
  fs.mkdirSync(path.dirname(s.stateFile), { recursive: true });
  fs.writeFileSync(s.stateFile, JSON.stringify(endpoints, null, 2));
  console.log(JSON.stringify(endpoints));
  log(`bucket ${endpoints.bucket} (region ${endpoints.region}); with CORS: ${endpoints.corsEndpoint}; without CORS: ${endpoints.plainEndpoint}`);
  for (const p of endpoints.publicRead) log(`public read: ${endpoints.plainEndpoint}/${p}…`);
  log(`credentials: AWS_ACCESS_KEY_ID=${endpoints.accessKeyId} AWS_SECRET_ACCESS_KEY=${endpoints.secretAccessKey}`);
  let finishing = false;
  const finish = async () => {
    if (finishing) return;
    finishing = true;
    await stop();
    try {
      if (JSON.parse(fs.readFileSync(s.stateFile, 'utf8')).dataDir === endpoints.dataDir) fs.rmSync(s.stateFile);
    } catch {}
    process.exit(0);
  };
  process.on('SIGTERM', finish);
  process.on('SIGINT', finish);
  if (watchStdin) {
    process.stdin.on('data', () => {});
    process.stdin.on('end', finish);
    process.stdin.on('close', finish);
  }
}

async function startDetached() {
  const s = settings();
  if (fs.existsSync(s.stateFile)) {
    throw new Error(`${s.stateFile} exists: servers already started? Run \`node tests/s3/servers.mjs stop\` first.`);
  }
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'd9lens-s3-'));
  prepareData(dataDir);
  preparePublic(dataDir, s.publicRead);
  const s3s = await startS3s(dataDir, s.s3sPort, true, s.publicRead);
  const frontPort = s.frontPort || (await freePort());
  if (await canConnect(frontPort)) {
    process.kill(s3s.child.pid, 'SIGTERM');
    fs.rmSync(dataDir, { recursive: true, force: true });
    throw new Error(`port ${frontPort} is already in use (set S3_CORS_PORT)`);
  }
  const front = spawn(
    process.execPath,
    [path.join(here, 'front.mjs'), '--host', HOST, '--port', String(frontPort), '--upstream', `${HOST}:${s3s.port}`,
      '--origins', s.origins === '*' ? '*' : s.origins.join(','), '--region', s.region],
    { stdio: 'ignore', detached: true },
  );
  let frontExit = null;
  front.once('exit', (code) => (frontExit = code ?? -1));
  for (let i = 0; i < 200 && frontExit === null && !(await canConnect(frontPort)); i++) await sleep(50);
  if (frontExit !== null || !(await canConnect(frontPort))) {
    process.kill(s3s.child.pid, 'SIGTERM');
    fs.rmSync(dataDir, { recursive: true, force: true });
    throw new Error(`the CORS front did not start on port ${frontPort}`);
  }
  s3s.child.unref();
  front.unref();
  const endpoints = endpointsOf({ s3sPort: s3s.port, frontPort, dataDir, region: s.region, publicRead: s.publicRead, pids: { s3s: s3s.child.pid, front: front.pid } });
  fs.mkdirSync(path.dirname(s.stateFile), { recursive: true });
  fs.writeFileSync(s.stateFile, JSON.stringify(endpoints, null, 2));
  console.log(JSON.stringify(endpoints));
  log(`started; state in ${s.stateFile}; stop with \`node tests/s3/servers.mjs stop\``);
}

function stopDetached() {
  const s = settings();
  if (!fs.existsSync(s.stateFile)) {
    log(`nothing to stop (no ${s.stateFile})`);
    return;
  }
  const state = JSON.parse(fs.readFileSync(s.stateFile, 'utf8'));
  // A state file of an older start may name s3s-fs itself.
  const expected = { s3s: ['d9lens-s3-server', 's3s-fs', path.basename(s3sBinary())].filter(Boolean), front: ['front.mjs'] };
  for (const [name, pid] of Object.entries(state.pids ?? {})) {
    // Only our own processes: a pid may have been reused since `start`.
    let cmdline = '';
    try {
      cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {}
    if (!(expected[name] ?? []).some((e) => cmdline.includes(e))) {
      log(`${name} (pid ${pid}) was not running`);
      continue;
    }
    try {
      process.kill(pid, 'SIGTERM');
      log(`stopped ${name} (pid ${pid})`);
    } catch {
      log(`${name} (pid ${pid}) was not running`);
    }
  }
  if (state.dataDir && path.basename(state.dataDir).startsWith('d9lens-s3-')) {
    fs.rmSync(state.dataDir, { recursive: true, force: true });
  }
  fs.rmSync(s.stateFile);
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [cmd, ...flags] = process.argv.slice(2);
  if (cmd !== 'stop' && spawnSync(s3sBinary(), ['--version']).error) {
    log(`the S3 server is not built (${s3sBinary()}): run scripts/setup.sh or \`cargo build -p d9lens-s3-server\`, or set S3S_FS`);
    process.exit(3);
  }
  try {
    if (cmd === 'run') await run(flags.includes('--watch-stdin'));
    else if (cmd === 'start') await startDetached();
    else if (cmd === 'stop') stopDetached();
    else {
      console.error('usage: node tests/s3/servers.mjs run [--watch-stdin] | start | stop');
      process.exit(2);
    }
  } catch (e) {
    log(e.message);
    process.exit(1);
  }
}
