// The page as a shared static site: the production dist/ under a sub-path of a
// plain static server, deployed with `d9lens deploy` into the S3 test server and
// opened from that server itself (same origin as the bucket, no CORS front), and
// the single-file build. These use the production build (dist/, no loopback in
// its CSP), not the local test copy the other e2e files serve.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS, serveDir } from '../../scripts/serve.mjs';
import { singleFile } from '../../scripts/single-file.mjs';
import { REPORT_TIMEOUT, assertClean, dropFiles, fixtures, openPage, out, reportNumbers, root, shownNumbers } from './browser.mjs';
import { startServers } from '../s3/servers.mjs';

const run = promisify(execFile);
const dist = path.join(root, 'dist');
const SITE_BUCKET = 'd9lens-site';
const SITE_PREFIX = 'tools/d9lens/';
const CONTENT_TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.bin': 'application/octet-stream',
};

let context;
let profileDir;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'd9lens-site-'));

before(async () => {
  assert.ok(fs.existsSync(path.join(dist, 'index.html')), 'dist/ is missing: run `trunk build --release` first');
  fs.mkdirSync(out, { recursive: true });
  profileDir = fs.mkdtempSync(path.join(os.tmpdir(), 'd9lens-e2e-'));
  context = await chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1280, height: 900 },
  });
});

after(async () => {
  await context?.close();
  fs.rmSync(profileDir, { recursive: true, force: true });
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** Every request of the page and its workers that failed or was answered 4xx/5xx. */
function recordFailures() {
  const failures = [];
  const responses = [];
  const onFailed = (req) => failures.push(`${req.url()}: ${req.failure()?.errorText}`);
  const onResponse = (res) => {
    responses.push(res);
    if (res.status() >= 400) failures.push(`${res.url()}: HTTP ${res.status()}`);
  };
  context.on('requestfailed', onFailed);
  context.on('response', onResponse);
  const stop = () => {
    context.off('requestfailed', onFailed);
    context.off('response', onResponse);
  };
  return { failures, responses, stop };
}

async function analyzeDemoTraceByDropUntil(page, selector) {
  const name = 'demo-trace.bin';
  await dropFiles(page, [{ name, bytes: fs.readFileSync(path.join(fixtures, name)) }]);
  await page.locator(selector).waitFor({ timeout: REPORT_TIMEOUT });
}

async function analyzeDemoTraceByDrop(page) {
  await analyzeDemoTraceByDropUntil(page, '[data-testid=report]');
  const shown = await shownNumbers(page);
  const reference = fs.readFileSync(path.join(fixtures, 'demo-trace.bin.report.txt'), 'utf8');
  assert.deepEqual(shown, reportNumbers(reference));
}

test('the production dist/ works from a sub-path of a plain static server, with no failed request', { timeout: 180_000 }, async () => {
  const site = path.join(tmp, 'static');
  fs.mkdirSync(path.join(site, 'tools'), { recursive: true });
  fs.cpSync(dist, path.join(site, 'tools/d9lens'), { recursive: true });
  const server = await serveDir(site, 0);
  const url = `http://127.0.0.1:${server.address().port}/tools/d9lens/`;
  const rec = recordFailures();
  try {
    const { page, problems } = await openPage(context, `${url}index.html`);
    // Every asset is content-hashed; index.html is the one plain name.
    const names = fs.readdirSync(dist).filter((n) => n !== 'index.html');
    for (const n of names) assert.match(n, /-[0-9a-f]{16}[._]/, `${n} carries a content hash`);
    // The demo trace from the sub-path, analyzed by the workers from the sub-path.
    await page.click('[data-testid=open-demo]');
    const shown = await shownNumbers(page);
    const reference = fs.readFileSync(path.join(fixtures, 'demo-trace.bin.report.txt'), 'utf8');
    assert.deepEqual(shown, reportNumbers(reference));
    // A production build offers no local demo bucket away from loopback; here the
    // page is on loopback, so the button is there.
    assert.equal(await page.locator('[data-testid=s3-demo]').count(), 1);
    await assertClean(page, problems);
    await page.close();
    assert.deepEqual(rec.failures, []);
    const paths = rec.responses.map((r) => new URL(r.url()).pathname);
    assert.ok(paths.every((p) => p.startsWith('/tools/d9lens/')), `every request stays under the sub-path: ${paths}`);
  } finally {
    rec.stop();
    await new Promise((r) => server.close(r));
  }
});

/** What the first paint of a build needs: index.html, what it names, and what boot.js names. */
function firstPaintFiles(dir) {
  const named = (file) =>
    [...fs.readFileSync(path.join(dir, file), 'utf8').matchAll(/["']\.\/([^"'/]+)["']/g)]
      .map((m) => m[1])
      .filter((n) => fs.existsSync(path.join(dir, n)));
  const fromIndex = named('index.html');
  const boot = fromIndex.find((n) => n.startsWith('boot-'));
  // The worker and the demo trace are fetched once the page runs, not for its first paint.
  const later = (n) => n.startsWith('worker') || n.startsWith('demo-trace');
  return ['index.html', ...new Set([...fromIndex, ...named(boot)])].filter((n) => !later(n));
}

test('the first paint needs at most 600 KB gzip; the report comes in a chunk fetched after it', { timeout: 180_000 }, async () => {
  // Issue 16: a shared page is opened cold, often on a slow link.
  const files = firstPaintFiles(dist);
  const gzip = (n) => zlib.gzipSync(fs.readFileSync(path.join(dist, n)), { level: 9 }).length;
  const sizes = Object.fromEntries(files.map((n) => [n, gzip(n)]));
  const total = Object.values(sizes).reduce((a, b) => a + b, 0);
  assert.ok(files.some((n) => /^d9lens-web_bg-.*\.wasm$/.test(n)), `the page's wasm is counted: ${files}`);
  assert.ok(!files.some((n) => n.startsWith('split_')), `no chunk is part of the first paint: ${files}`);
  assert.ok(total <= 600_000, `first paint ${total} B gzip: ${JSON.stringify(sizes)}`);

  const server = await serveDir(dist, 0);
  const url = `http://127.0.0.1:${server.address().port}/`;
  const rec = recordFailures();
  try {
    // The report's chunk cannot be fetched: the page starts and says so where the report would be.
    await context.route('**/split_report-*.wasm', (route) => route.abort());
    const { page } = await openPage(context, url);
    await analyzeDemoTraceByDropUntil(page, '[data-testid=chunk-error]');
    assert.equal(await page.locator('[data-testid=report]').count(), 0);
    // Once it can be fetched again, analyzing again shows the report.
    await context.unroute('**/split_report-*.wasm');
    await analyzeDemoTraceByDrop(page);
    assert.equal(await page.locator('[data-testid=chunk-error]').count(), 0);
    await page.close();
    const fetched = rec.responses.map((r) => new URL(r.url()).pathname.slice(1));
    assert.ok(fetched.some((n) => n.startsWith('split_report-')), `the chunk was fetched: ${fetched}`);
  } finally {
    rec.stop();
    await context.unroute('**/split_report-*.wasm').catch(() => {});
    await new Promise((r) => server.close(r));
  }
});

test('d9lens deploy puts the page into S3; opened from the S3 server itself it lists and analyzes a bucket', { timeout: 300_000 }, async () => {
  const servers = await startServers({ s3sPort: 0, frontPort: 0, publicRead: [`${SITE_BUCKET}/${SITE_PREFIX}`] });
  const s3 = servers.endpoints;
  const rec = recordFailures();
  try {
    fs.mkdirSync(path.join(s3.dataDir, SITE_BUCKET), { recursive: true });
    const env = {
      ...process.env,
      AWS_ACCESS_KEY_ID: s3.accessKeyId,
      AWS_SECRET_ACCESS_KEY: s3.secretAccessKey,
      AWS_REGION: s3.region,
    };
    // Asynchronously: the S3 server must keep answering.
    const args = ['run', '-q', '-p', 'd9lens-cli', '--', 'deploy', `s3://${SITE_BUCKET}/${SITE_PREFIX}`];
    args.push('--endpoint', s3.plainEndpoint, '--dist', dist);
    const deploy = await run('cargo', args, { cwd: root, env });
    const open = deploy.stdout.match(/^Open: (\S+)$/m);
    assert.ok(open, `deploy prints the URL to open:\n${deploy.stdout}`);
    const pageUrl = `${s3.plainEndpoint}/${SITE_BUCKET}/${SITE_PREFIX}index.html`;
    assert.equal(open[1], pageUrl);

    const { page, problems } = await openPage(context, pageUrl, '[data-testid=s3-connect]');
    // Same origin as the bucket: the form knows the endpoint and bucket already.
    assert.equal(await page.inputValue('[data-testid=s3-endpoint]'), s3.plainEndpoint);
    assert.equal(await page.inputValue('[data-testid=s3-bucket]'), SITE_BUCKET);
    await page.locator('[data-testid=s3-note]').waitFor();
    await page.screenshot({ path: path.join(out, 'site-same-origin-form.png') });
    // The traces are in another bucket of the same server.
    await page.fill('[data-testid=s3-bucket]', s3.bucket);
    await page.fill('[data-testid=s3-access-key]', s3.accessKeyId);
    await page.fill('[data-testid=s3-secret-key]', s3.secretAccessKey);
    await page.click('[data-testid=s3-connect]');
    await page.locator('[data-testid=discovery][data-done=true]').waitFor({ timeout: REPORT_TIMEOUT });
    const key =
      'version=1/date=2026-12-01/service=inventory-svc/time=1000/instance=ip-10-0-3-102/boot=ganz-25992/1796119202-1.bin.gz';
    await page.locator('[data-testid=host][data-host=ip-10-0-3-102] [data-testid=host-pick]').click();
    await page.locator(`[data-testid=segment-chip][data-key="${key}"]`).click();
    await page.click('[data-testid=s3-analyze]');
    const shown = await shownNumbers(page);
    const reference = fs.readFileSync(path.join(fixtures, 's3-bucket.reference', `${key}.report.txt`), 'utf8');
    assert.deepEqual(shown, reportNumbers(reference));
    await page.screenshot({ path: path.join(out, 'site-same-origin.png') });
    await assertClean(page, problems);
    await page.close();

    assert.deepEqual(rec.failures, []);
    // Every file of the site came with the content type deploy set.
    const siteResponses = rec.responses.filter((r) => new URL(r.url()).pathname.startsWith(`/${SITE_BUCKET}/`));
    assert.ok(siteResponses.length >= 6, 'the page, its styles, scripts and wasm came from S3');
    for (const r of siteResponses) {
      const ext = path.extname(new URL(r.url()).pathname);
      assert.equal(r.headers()['content-type'], CONTENT_TYPES[ext], `${r.url()}`);
    }
    // The S3 requests were same-origin: nothing went anywhere else.
    const origins = new Set(rec.responses.map((r) => new URL(r.url()).origin));
    assert.deepEqual([...origins], [s3.plainEndpoint]);
  } finally {
    rec.stop();
    await servers.stop();
  }
});

test('the single-file build opens from a static server and analyzes the demo trace', { timeout: 180_000 }, async () => {
  const site = path.join(tmp, 'single');
  fs.mkdirSync(site, { recursive: true });
  fs.writeFileSync(path.join(site, 'd9lens.html'), singleFile(dist));
  assert.deepEqual(fs.readdirSync(site), ['d9lens.html']);
  const server = await serveDir(site, 0);
  const rec = recordFailures();
  try {
    const { page, problems } = await openPage(context, `http://127.0.0.1:${server.address().port}/d9lens.html`);
    assert.equal(await page.locator('[data-testid=open-demo]').count(), 0, 'no demo trace in the single file');
    await analyzeDemoTraceByDrop(page);
    await page.screenshot({ path: path.join(out, 'single-file.png') });
    await assertClean(page, problems);
    await page.close();
    assert.deepEqual(rec.failures, []);
    const fetched = rec.responses.map((r) => new URL(r.url())).filter((u) => u.protocol.startsWith('http'));
    assert.deepEqual(fetched.map((u) => u.pathname), ['/d9lens.html'], 'one file, nothing else fetched');
  } finally {
    rec.stop();
    await new Promise((r) => server.close(r));
  }
});
