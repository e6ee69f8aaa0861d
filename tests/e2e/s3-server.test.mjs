// The S3 test server itself (tests/s3/server, started by tests/s3/servers.mjs), no
// browser: SigV4 is required for everything except anonymous GetObject / HeadObject
// under a public-read prefix (what `d9lens deploy`'s site needs, opened from the S3
// server itself); objects keep the Content-Type (and Cache-Control) they were put
// with; the demo bucket lists as before, directly and through the CORS front.
// Needs `cargo build -p d9lens-s3-server` (scripts/setup.sh builds it).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { startServers } from '../s3/servers.mjs';
import { presign, signHeaders, signedFetch } from '../s3/sign.mjs';

const SITE = 'd9lens-site';
const PREFIX = 'tools/d9lens/';
const DEMO_KEY =
  'version=1/date=2026-12-01/service=inventory-svc/time=1000/instance=ip-10-0-3-102/boot=ganz-25992/1796119202-1.bin.gz';

let servers;
let s3;
let creds;
const url = (bucketAndKey) => `${s3.plainEndpoint}/${bucketAndKey}`;

before(async () => {
  servers = await startServers({ s3sPort: 0, frontPort: 0, publicRead: [`${SITE}/${PREFIX}`] });
  s3 = servers.endpoints;
  creds = { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey, region: s3.region };
});

after(async () => {
  await servers?.stop();
});

async function put(key, body, headers = {}) {
  const res = await signedFetch(url(`${SITE}/${key}`), { method: 'PUT', body, headers }, creds);
  assert.equal(res.status, 200, `signed PUT ${key}: ${await res.text()}`);
}

/** An S3 XML error's code. */
async function errorCode(res) {
  const text = await res.text();
  return /<Code>([^<]*)<\/Code>/.exec(text)?.[1] ?? text;
}

/** A GET with the path sent exactly as written (fetch would resolve `..`). */
function rawGet(rawPath) {
  return new Promise((resolve, reject) => {
    const { hostname, port } = new URL(s3.plainEndpoint);
    http
      .get({ host: hostname, port, path: rawPath }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode));
      })
      .on('error', reject);
  });
}

test('the endpoints are those of before, with the public-read prefixes', () => {
  assert.equal(s3.bucket, 'd9lens-demo');
  assert.match(s3.plainEndpoint, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.match(s3.corsEndpoint, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.equal(s3.controlUrl, `${s3.corsEndpoint}/__d9lens`);
  assert.deepEqual(s3.publicRead, [`${SITE}/${PREFIX}`]);
  assert.ok(fs.statSync(path.join(s3.dataDir, SITE)).isDirectory(), 'the public bucket exists');
});

test('anonymous GET and HEAD under the public prefix return the object with the type it was put with', async () => {
  const html = '<!doctype html><title>d9lens</title>';
  await put(`${PREFIX}index.html`, html, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache' });
  const wasm = Buffer.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]);
  await put(`${PREFIX}app-0123456789abcdef_bg.wasm`, wasm, { 'content-type': 'application/wasm' });

  const get = await fetch(url(`${SITE}/${PREFIX}index.html`));
  assert.equal(get.status, 200);
  assert.equal(get.headers.get('content-type'), 'text/html; charset=utf-8');
  assert.equal(get.headers.get('cache-control'), 'no-cache');
  assert.equal(await get.text(), html);

  const head = await fetch(url(`${SITE}/${PREFIX}index.html`), { method: 'HEAD' });
  assert.equal(head.status, 200);
  assert.equal(head.headers.get('content-type'), 'text/html; charset=utf-8');
  assert.equal(head.headers.get('content-length'), String(Buffer.byteLength(html)));

  const bin = await fetch(url(`${SITE}/${PREFIX}app-0123456789abcdef_bg.wasm`));
  assert.equal(bin.status, 200);
  assert.equal(bin.headers.get('content-type'), 'application/wasm');
  assert.deepEqual(Buffer.from(await bin.arrayBuffer()), wasm);

  // A range, as a browser may ask for.
  const range = await fetch(url(`${SITE}/${PREFIX}index.html`), { headers: { range: 'bytes=0-8' } });
  assert.equal(range.status, 206);
  assert.equal(await range.text(), html.slice(0, 9));
});

test('every other anonymous request is denied', async () => {
  await put('outside.html', 'not public', { 'content-type': 'text/html' });
  const denied = async (what, res) => {
    assert.equal(res.status, 403, what);
    if (!what.startsWith('HEAD')) assert.equal(await errorCode(res), 'AccessDenied', what);
  };
  await denied('GET outside the prefix', await fetch(url(`${SITE}/outside.html`)));
  await denied('HEAD outside the prefix', await fetch(url(`${SITE}/outside.html`), { method: 'HEAD' }));
  await denied('GET in the demo bucket', await fetch(url(`d9lens-demo/${DEMO_KEY}`)));
  await denied('ListObjectsV2 of the site', await fetch(url(`${SITE}?list-type=2&prefix=${encodeURIComponent(PREFIX)}`)));
  await denied('ListObjectsV2 of the demo bucket', await fetch(url('d9lens-demo?list-type=2')));
  await denied('ListBuckets', await fetch(`${s3.plainEndpoint}/`));
  await denied('GetObjectAcl under the prefix', await fetch(url(`${SITE}/${PREFIX}index.html?acl`)));
  await denied('PUT under the prefix', await fetch(url(`${SITE}/${PREFIX}index.html`), { method: 'PUT', body: 'defaced' }));
  await denied('PUT of a new key', await fetch(url(`${SITE}/${PREFIX}new.html`), { method: 'PUT', body: 'new' }));
  await denied('DELETE under the prefix', await fetch(url(`${SITE}/${PREFIX}index.html`), { method: 'DELETE' }));
  // Out of the prefix by dot segments (s3s-fs resolves them on the file system).
  assert.equal(await rawGet(`/${SITE}/${PREFIX}../../outside.html`), 403);
  assert.equal(await rawGet(`/${SITE}/${PREFIX}%2E%2E/%2E%2E/%2E%2E/d9lens-demo/${DEMO_KEY}`), 403);
  // Nothing changed.
  assert.equal(await (await fetch(url(`${SITE}/${PREFIX}index.html`))).text(), '<!doctype html><title>d9lens</title>');
  assert.equal((await fetch(url(`${SITE}/${PREFIX}new.html`))).status, 404);
});

test('a bad signature is refused, even under the public prefix', async () => {
  const wrong = { ...creds, secretAccessKey: 'not-the-secret' };
  for (const target of [`${SITE}/${PREFIX}index.html`, `${SITE}?list-type=2`, `d9lens-demo?list-type=2`]) {
    const res = await signedFetch(url(target), {}, wrong);
    assert.equal(res.status, 403, target);
    assert.equal(await errorCode(res), 'SignatureDoesNotMatch', target);
  }
  const unknownKey = await signedFetch(url(`${SITE}/${PREFIX}index.html`), {}, { ...creds, accessKeyId: 'nobody' });
  assert.equal(unknownKey.status, 403);
  // A signed PUT whose body is not the one signed: refused, nothing stored (s3s-fs
  // 0.14.1 answers 500 InternalError where S3 says 400 XAmzContentSHA256Mismatch).
  const target = url(`${SITE}/${PREFIX}index.html`);
  const headers = signHeaders({ method: 'PUT', url: target, body: 'signed body' }, creds);
  const swapped = await fetch(target, { method: 'PUT', body: 'other body!', headers });
  assert.ok(swapped.status >= 400, `swapped body: ${swapped.status}`);
  assert.equal(await (await fetch(target)).text(), '<!doctype html><title>d9lens</title>');
});

test('signed requests work as before: the demo bucket lists and serves, directly and through the CORS front', async () => {
  for (const endpoint of [s3.plainEndpoint, s3.corsEndpoint]) {
    const list = await signedFetch(`${endpoint}/d9lens-demo?list-type=2&prefix=version%3D1%2F&max-keys=1000`, {}, creds);
    assert.equal(list.status, 200, endpoint);
    const xml = await list.text();
    assert.ok(xml.includes(`<Key>${DEMO_KEY}</Key>`), `${endpoint}: ${xml.slice(0, 300)}`);
    const obj = await signedFetch(`${endpoint}/d9lens-demo/${DEMO_KEY}`, {}, creds);
    assert.equal(obj.status, 200, endpoint);
    assert.equal(obj.headers.get('content-type'), 'application/gzip');
    assert.equal(obj.headers.get('x-amz-meta-host'), 'ip-10-0-3-102');
    const bytes = Buffer.from(await obj.arrayBuffer());
    assert.deepEqual(bytes.subarray(0, 2), Buffer.from([0x1f, 0x8b]));
  }
  // Presigned, as the page's workers fetch segments; tampered with, refused.
  const presigned = presign(url(`d9lens-demo/${DEMO_KEY}`), creds);
  assert.equal((await fetch(presigned)).status, 200);
  const tampered = presigned.replace(/X-Amz-Signature=([0-9a-f])/, (_, c) => `X-Amz-Signature=${c === '0' ? '1' : '0'}`);
  assert.equal((await fetch(tampered)).status, 403);
  const otherKey = presigned.replace('1796119202-1.bin.gz', '1796119202-0.bin.gz');
  assert.equal((await fetch(otherKey)).status, 403);
  // The site bucket lists too, signed.
  const site = await signedFetch(url(`${SITE}?list-type=2`), {}, creds);
  assert.equal(site.status, 200);
  assert.ok((await site.text()).includes(`<Key>${PREFIX}index.html</Key>`));
});

test('with --cors-origin the server answers CORS itself, as S3 with a bucket CORS rule', async () => {
  const page = 'http://page.test:8080';
  const own = await startServers({ s3sPort: 0, frontPort: 0, s3sCors: [page] });
  try {
    const endpoint = own.endpoints.plainEndpoint;
    const objectUrl = `${endpoint}/d9lens-demo/${DEMO_KEY}`;
    const preflight = (origin, method = 'GET') =>
      fetch(objectUrl, {
        method: 'OPTIONS',
        headers: { Origin: origin, 'Access-Control-Request-Method': method, 'Access-Control-Request-Headers': 'range' },
      });
    const ok = await preflight(page);
    assert.equal(ok.status, 200);
    assert.equal(ok.headers.get('access-control-allow-origin'), page);
    assert.equal(ok.headers.get('access-control-allow-headers'), 'range');
    assert.match(ok.headers.get('access-control-allow-methods'), /\bGET\b/);
    assert.equal((await preflight('http://elsewhere.test')).status, 403);
    assert.equal((await preflight(page, 'DELETE')).status, 403);
    // The answer itself carries the rule (presigned, as the page's workers fetch).
    const got = await fetch(presign(objectUrl, creds), { headers: { Origin: page } });
    assert.equal(got.status, 200);
    assert.equal(got.headers.get('access-control-allow-origin'), page);
    assert.match(got.headers.get('access-control-expose-headers'), /\bETag\b/);
    assert.deepEqual(Buffer.from(await got.arrayBuffer()).subarray(0, 2), Buffer.from([0x1f, 0x8b]));
    // Unsigned stays refused: the rule opens nothing but CORS.
    assert.equal((await fetch(objectUrl, { headers: { Origin: page } })).status, 403);
  } finally {
    await own.stop();
  }
  // Without the option (the shared servers), no CORS headers at all.
  const plain = await fetch(presign(url(`d9lens-demo/${DEMO_KEY}`), creds), { headers: { Origin: page } });
  assert.equal(plain.status, 200);
  assert.equal(plain.headers.get('access-control-allow-origin'), null);
  await plain.arrayBuffer();
});
