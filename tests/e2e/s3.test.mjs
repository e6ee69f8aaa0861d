// End-to-end: the S3 half of the built page (dist/, from `trunk build --release`)
// in headless Chromium against a real SigV4-checking S3 server (s3s-fs) with the
// fixture bucket, behind a CORS front (tests/s3/front.mjs). Run with
// `node --test tests/e2e/`. All traffic stays on 127.0.0.1.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serveDir } from '../../scripts/serve.mjs';
import { startServers } from '../s3/servers.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const dist = path.resolve(process.env.D9LENS_DIST ?? path.join(root, 'dist'));
const out = path.join(here, 'out');
const reference = path.join(root, 'tests/fixtures/s3-bucket.reference');

const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = [
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
const TIMEOUT = 90_000;

let servers;
let s3;
let web;
let baseUrl;
let context;
let profileDir;

before(async () => {
  assert.ok(fs.existsSync(path.join(dist, 'index.html')), 'dist/ is missing: run `trunk build --release` first');
  fs.mkdirSync(out, { recursive: true });
  // The demo button points at 127.0.0.1:9001: use it when free.
  try {
    servers = await startServers({ s3sPort: 0, frontPort: 9001 });
  } catch {
    servers = await startServers({ s3sPort: 0, frontPort: 0 });
  }
  s3 = servers.endpoints;
  web = await serveDir(dist, 0);
  baseUrl = `http://127.0.0.1:${web.address().port}/`;
  profileDir = fs.mkdtempSync(path.join(os.tmpdir(), 'd9lens-e2e-s3-'));
  context = await chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1280, height: 900 },
  });
});

after(async () => {
  await context?.close();
  await new Promise((r) => (web ? web.close(r) : r()));
  await servers?.stop();
  if (profileDir) fs.rmSync(profileDir, { recursive: true, force: true });
});

/** Opens the page (optionally at a URL), recording every console message. */
async function openPage(url = baseUrl) {
  const page = await context.newPage();
  const consoleLines = [];
  const errors = [];
  page.on('console', (msg) => consoleLines.push(msg.text()));
  page.on('pageerror', (err) => errors.push(err.message));
  await page.goto(url);
  await page.waitForSelector('[data-testid=s3-connect]');
  return { page, consoleLines, errors };
}

async function control(method, what, body) {
  const res = await fetch(`${s3.controlUrl}/${what}`, {
    method,
    headers: body ? { 'content-type': 'application/json' } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  return res.json();
}

/** Fills the connection form and connects. */
async function connect(page, { endpoint = s3.corsEndpoint, secret = s3.secretAccessKey, maxKeys = '7' } = {}) {
  await page.fill('[data-testid=s3-endpoint]', endpoint);
  await page.fill('[data-testid=s3-bucket]', s3.bucket);
  await page.fill('[data-testid=s3-region]', s3.region);
  await page.fill('[data-testid=s3-access-key]', s3.accessKeyId);
  await page.fill('[data-testid=s3-secret-key]', secret);
  await page.fill('[data-testid=s3-max-keys]', maxKeys);
  await page.click('[data-testid=s3-connect]');
}

async function listed(page) {
  await page.locator('[data-testid=discovery][data-done=true]').waitFor({ timeout: TIMEOUT });
}

const attrs = (page, selector, name) =>
  page.locator(selector).evaluateAll((els, name) => els.map((e) => e.getAttribute(name)), name);

/** Segment GETs (not listings) the front passed through for keys containing `part`. */
async function segmentGets(part) {
  const log = await control('GET', 'requests');
  return log.filter((r) => r.method === 'GET' && !r.path.includes('list-type') && r.path.includes(part));
}

/** Merged long-poll count and worst from the per-file reference JSONs. */
function expectedLongPolls(instance) {
  const files = [];
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (p.endsWith('.reference.json') && p.includes(`instance=${instance}/`)) files.push(p);
    }
  };
  walk(reference);
  const refs = files.map((f) => JSON.parse(fs.readFileSync(f, 'utf8')));
  const count = refs.reduce((n, r) => n + r.longPolls.count, 0);
  const worst = Math.max(...refs.map((r) => r.longPolls.worstNs ?? 0));
  return { files: files.length, count, worst: `${(worst / 1e6).toFixed(2)}ms` };
}

function assertNoSecret(where, text) {
  assert.ok(!String(text).includes(s3.secretAccessKey), `the secret key must not be in ${where}`);
}

test('the demo button fills the form for the local demo bucket', { timeout: 120_000 }, async () => {
  const { page } = await openPage();
  await page.click('[data-testid=s3-demo]');
  assert.equal(await page.inputValue('[data-testid=s3-endpoint]'), 'http://127.0.0.1:9001');
  assert.equal(await page.inputValue('[data-testid=s3-bucket]'), 'd9lens-demo');
  assert.equal(await page.inputValue('[data-testid=s3-region]'), 'us-east-1');
  assert.equal(await page.inputValue('[data-testid=s3-access-key]'), 'd9lensdemo');
  assert.equal(await page.inputValue('[data-testid=s3-secret-key]'), 'd9lens-demo-secret-key');
  if (s3.corsEndpoint === 'http://127.0.0.1:9001') await listed(page);
  await page.close();
});

test('connecting lists the whole bucket page by page and summarizes it', { timeout: 180_000 }, async () => {
  await control('DELETE', 'requests');
  const { page, consoleLines, errors } = await openPage();
  await connect(page);
  await listed(page);
  const listings = (await control('GET', 'requests')).filter((r) => r.path.includes('list-type=2'));
  assert.equal(listings.length, 5, '30 objects at 7 keys per page is 5 pages');
  assert.match(await page.textContent('[data-testid=listing-status]'), /Listed 30 objects in 5 pages/);
  assert.equal((await page.textContent('[data-testid=disc-objects]')).trim(), '30');

  assert.deepEqual(await attrs(page, '[data-testid=service]', 'data-service'), ['checkout-api', 'inventory-svc', 'payments/api']);
  const hosts = await page.locator('[data-testid=host]').evaluateAll((els) =>
    els.map((e) => `${e.getAttribute('data-service')} ${e.getAttribute('data-host')}`),
  );
  assert.deepEqual(hosts, [
    'checkout-api ip-10-0-1-23',
    'checkout-api ip-10-0-1-57',
    'checkout-api ip-10-0-2-14',
    'inventory-svc ip-10-0-3-101',
    'inventory-svc ip-10-0-3-102',
    'payments/api ip-10-0-1-88',
  ]);
  const dates = await page.textContent('[data-testid=discovery-dates]');
  assert.match(dates, /2026-11-30/);
  assert.match(dates, /2026-12-01/);

  const host23 = page.locator('[data-testid=host][data-host=ip-10-0-1-23]');
  assert.deepEqual(await attrs(host23, '[data-testid=boot]', 'data-boot'), ['gauu-25994', 'qghy-22982', 'zgmu-24044']);
  assert.deepEqual(await attrs(host23, '[data-testid=boot]', 'data-restart'), ['false', 'true', 'true']);
  assert.match(await host23.locator('[data-testid=restart]').first().textContent(), /restart after/);
  // Busy vs quiet: file size is the load signal.
  assert.equal(await page.getAttribute('[data-testid=host][data-host=ip-10-0-3-101]', 'data-load'), 'busy');
  assert.equal(await page.getAttribute('[data-testid=host][data-host=ip-10-0-2-14]', 'data-load'), 'quiet');
  assert.ok((await page.locator('[data-testid=density] rect').count()) > 6, 'density strips are drawn');
  // Missing indices and the empty segment of ip-10-0-1-57 are flagged.
  const anomalies = await page.locator('[data-testid=host][data-host=ip-10-0-1-57] [data-testid=anomaly]').allTextContents();
  assert.ok(anomalies.some((a) => /missing/.test(a)), anomalies.join('; '));
  assert.ok(anomalies.some((a) => /empty/.test(a)), anomalies.join('; '));

  const others = await attrs(page, '[data-testid=non-segment]', 'data-key');
  for (const junk of ['README.txt', '_SUCCESS', 'index.json', 'upload.lock']) {
    assert.ok(others.some((k) => k.endsWith(junk)), `${junk} is listed as a non-segment`);
  }
  assert.equal(others.length, 4);
  await page.screenshot({ path: path.join(out, 's3-discovery.png'), fullPage: true });

  // No secret anywhere the page keeps or shows things.
  const stores = await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }));
  assertNoSecret('localStorage/sessionStorage', stores);
  assertNoSecret('the URL', page.url());
  assertNoSecret('the console', consoleLines.join('\n'));
  assert.ok(!page.url().includes(s3.accessKeyId), 'no access key in the URL');
  assert.deepEqual(errors, []);
  await page.close();
});

test('"remember in this tab" keeps the keys in sessionStorage only', { timeout: 120_000 }, async () => {
  const { page } = await openPage();
  await page.check('[data-testid=s3-remember]');
  await connect(page);
  await listed(page);
  const session = await page.evaluate(() => JSON.stringify({ ...sessionStorage }));
  assert.ok(session.includes(s3.secretAccessKey), 'remembered in sessionStorage');
  assertNoSecret('localStorage', await page.evaluate(() => JSON.stringify({ ...localStorage })));
  await page.uncheck('[data-testid=s3-remember]');
  await page.click('[data-testid=s3-connect]');
  await listed(page);
  assertNoSecret('sessionStorage after unticking', await page.evaluate(() => JSON.stringify({ ...sessionStorage })));
  await page.close();
});

test('a wrong secret key explains the signature mismatch', { timeout: 120_000 }, async () => {
  const { page, consoleLines } = await openPage();
  const wrong = 'not-the-right-secret-key-123';
  await connect(page, { secret: wrong });
  const error = page.locator('[data-testid=s3-error]');
  await error.waitFor({ timeout: TIMEOUT });
  assert.equal(await error.getAttribute('data-kind'), 'signature');
  assert.match(await page.textContent('[data-testid=s3-error-cause]'), /signature does not match/i);
  assert.match(await page.textContent('[data-testid=s3-error-fix]'), /secret access key field/i);
  const shown = await error.textContent();
  assert.ok(!shown.includes(wrong), 'the secret is not in the error');
  assert.ok(!consoleLines.join('\n').includes(wrong), 'the secret is not in the console');
  await page.screenshot({ path: path.join(out, 's3-wrong-secret.png') });
  await page.close();
});

test('an endpoint without CORS shows the CORS explanation and rule', { timeout: 120_000 }, async () => {
  const { page } = await openPage();
  await connect(page, { endpoint: s3.plainEndpoint });
  const error = page.locator('[data-testid=s3-error]');
  await error.waitFor({ timeout: TIMEOUT });
  assert.equal(await error.getAttribute('data-kind'), 'network');
  assert.match(await page.textContent('[data-testid=s3-error-cause]'), /CORS/);
  const rule = JSON.parse(await page.textContent('[data-testid=cors-rule]'));
  const origin = new URL(baseUrl).origin;
  assert.deepEqual(rule.CORSRules[0].AllowedOrigins, [origin]);
  assert.deepEqual(rule.CORSRules[0].AllowedMethods, ['GET', 'HEAD']);
  await page.screenshot({ path: path.join(out, 's3-no-cors.png') });
  await page.close();
});

let sharedUrl;

test('one host downloads exactly its segments and matches the merged reference', { timeout: 180_000 }, async () => {
  const { page, consoleLines } = await openPage();
  await connect(page);
  await listed(page);
  const host = page.locator('[data-testid=host][data-host=ip-10-0-2-14]');
  await host.locator('[data-testid=boot][data-boot=mioh-24043] [data-testid=boot-pick]').click();
  const summary = page.locator('[data-testid=selection-summary]');
  await page.waitForFunction(() => document.querySelector('[data-testid=selection-summary]')?.getAttribute('data-count') === '3');
  assert.equal(await summary.getAttribute('data-bytes'), String(59402 + 64574 + 59007));
  await control('DELETE', 'requests');
  await page.click('[data-testid=s3-analyze]');
  await page.locator('[data-testid=report]').waitFor({ timeout: TIMEOUT });
  const expected = expectedLongPolls('ip-10-0-2-14');
  assert.equal(expected.files, 3);
  assert.equal((await page.textContent('[data-testid=long-polls-count]')).trim(), String(expected.count));
  assert.equal((await page.textContent('[data-testid=long-polls-worst]')).trim(), expected.worst);
  // `d9lens analyze <the 3 files> --json`: summary.eventCount 8462.
  assert.equal((await page.textContent('[data-testid=summary-events]')).trim(), '8,462');
  const gets = await segmentGets('ip-10-0-2-14');
  assert.equal(gets.length, 3, 'exactly the 3 segments were downloaded');
  assert.equal((await segmentGets('/')).length, 3, 'nothing else was downloaded');
  assert.equal(await page.locator('[data-testid=breakdown-row]').count(), 1);
  assert.match(page.url(), /sel=host/);
  assertNoSecret('the URL', page.url());
  assertNoSecret('the console', consoleLines.join('\n'));
  sharedUrl = page.url();
  await page.screenshot({ path: path.join(out, 's3-host-report.png'), fullPage: true });
  await page.locator('[data-testid=retrieval]').screenshot({ path: path.join(out, 's3-retrieval.png') });
  await page.close();
});

test('a shared link restores the selection after the keys are entered, from the cache', { timeout: 180_000 }, async () => {
  assert.ok(sharedUrl, 'needs the previous test');
  await control('DELETE', 'requests');
  const { page } = await openPage(sharedUrl);
  assert.equal(await page.inputValue('[data-testid=s3-bucket]'), s3.bucket);
  assert.equal(await page.inputValue('[data-testid=s3-endpoint]'), s3.corsEndpoint);
  assert.equal(await page.inputValue('[data-testid=s3-access-key]'), '', 'keys are not in the link');
  await page.fill('[data-testid=s3-access-key]', s3.accessKeyId);
  await page.fill('[data-testid=s3-secret-key]', s3.secretAccessKey);
  await page.click('[data-testid=s3-connect]');
  await page.locator('[data-testid=report]').waitFor({ timeout: TIMEOUT });
  const expected = expectedLongPolls('ip-10-0-2-14');
  assert.equal((await page.textContent('[data-testid=long-polls-count]')).trim(), String(expected.count));
  await page.waitForFunction(() => !document.querySelector('[data-testid=s3-cancel]'));
  assert.equal(await page.getAttribute('[data-testid=retrieval-progress]', 'data-cached'), '3');
  assert.equal((await segmentGets('/')).length, 0, 'no segment was downloaded again');
  await page.close();
});

test('a broken segment shows its error while the rest is reported', { timeout: 180_000 }, async () => {
  const { page } = await openPage();
  await connect(page);
  await listed(page);
  await page.locator('[data-testid=host][data-host=ip-10-0-1-57] [data-testid=host-pick]').click();
  await page.waitForFunction(() => document.querySelector('[data-testid=selection-summary]')?.getAttribute('data-count') === '7');
  await page.click('[data-testid=s3-analyze]');
  await page.locator('[data-testid=report]').waitFor({ timeout: TIMEOUT });
  await page.locator('[data-testid=errors]').waitFor({ timeout: TIMEOUT });
  const failed = await attrs(page, '[data-testid=error]', 'data-file');
  assert.ok(failed.some((k) => k.endsWith('1796047573-98.bin.gz')), `the corrupt segment is listed: ${failed.join(', ')}`);
  assert.ok(!failed.some((k) => k.endsWith('1796047541-0.bin.gz')), 'good segments are not');
  const done = await page.locator('[data-testid=progress-row][data-status=done]').count();
  assert.ok(done >= 3, `the good segments were analyzed (${done})`);
  await page.screenshot({ path: path.join(out, 's3-broken-segment.png'), fullPage: true });
  await page.close();
});

test('a 503 from S3 is retried, for listings and downloads', { timeout: 180_000 }, async () => {
  await control('DELETE', 'requests');
  await control('POST', 'fault', { status: 503, count: 1, pathContains: 'list-type=2' });
  await control('POST', 'fault', { status: 503, count: 1, pathContains: 'ip-10-0-1-88' });
  const { page } = await openPage();
  await connect(page);
  await listed(page);
  assert.equal(await page.locator('[data-testid=s3-error]').count(), 0);
  await page.locator('[data-testid=host][data-host=ip-10-0-1-88] [data-testid=host-pick]').click();
  await page.waitForFunction(() => document.querySelector('[data-testid=selection-summary]')?.getAttribute('data-count') === '3');
  await page.click('[data-testid=s3-analyze]');
  await page.locator('[data-testid=report]').waitFor({ timeout: TIMEOUT });
  assert.equal(await page.locator('[data-testid=errors]').count(), 0, 'no segment failed');
  const log = await control('GET', 'requests');
  assert.equal(log.filter((r) => r.fault && r.status === 503).length, 2, 'both faults were hit');
  assert.equal(log.filter((r) => r.path.includes('list-type=2') && r.status === 200).length, 5);
  await page.close();
});
