// End-to-end: the S3 half of the built page (dist/, from `trunk build --release`)
// in headless Chromium against a real SigV4-checking S3 server (s3s-fs) with the
// fixture bucket, behind a CORS front (tests/s3/front.mjs) that logs requests and
// injects faults. Reports are checked against dial9's per-segment reports and,
// for merged selections, against the CLI on the same fixture files. Run with
// `node --test tests/e2e/`. All traffic stays on 127.0.0.1.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import net from 'node:net';
import { promisify } from 'node:util';
import fs from 'node:fs';
import path from 'node:path';
import { REPORT_TIMEOUT, assertClean, fixtures, openPage as open, out, reportNumbers, root, shownNumbers, startBrowser } from './browser.mjs';
import { startServers } from '../s3/servers.mjs';
import { DAYS_BUCKET, prepareDaysBucket } from '../s3/days-bucket.mjs';

const DEMO_ENDPOINT = 'http://127.0.0.1:9001';
const bucketDir = path.join(fixtures, 's3-bucket');

let servers;
let s3;
let browser;

before(async () => {
  // The demo button points at 127.0.0.1:9001: serve there when it is free (when
  // it is not, e.g. under `scripts/run.sh`, the demo server there is the same bucket).
  try {
    servers = await startServers({ s3sPort: 0, frontPort: 9001 });
  } catch {
    servers = await startServers({ s3sPort: 0, frontPort: 0 });
  }
  s3 = servers.endpoints;
  browser = await startBrowser();
});

after(async () => {
  await browser?.close();
  await servers?.stop();
});

const openPage = (url = browser.baseUrl) => open(browser.context, url, '[data-testid=s3-connect]');

async function control(method, what, body) {
  const res = await fetch(`${s3.controlUrl}/${what}`, {
    method,
    headers: body ? { 'content-type': 'application/json' } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  return res.json();
}

/** Fills the connection form and connects. */
async function connect(page, { endpoint = s3.corsEndpoint, secret = s3.secretAccessKey, maxKeys = '7', bucket = s3.bucket } = {}) {
  await page.fill('[data-testid=s3-endpoint]', endpoint);
  await page.fill('[data-testid=s3-bucket]', bucket);
  await page.fill('[data-testid=s3-region]', s3.region);
  await page.fill('[data-testid=s3-access-key]', s3.accessKeyId);
  await page.fill('[data-testid=s3-secret-key]', secret);
  await page.fill('[data-testid=s3-max-keys]', maxKeys);
  await page.click('[data-testid=s3-connect]');
}

async function listed(page) {
  await page.locator('[data-testid=discovery][data-done=true]').waitFor({ timeout: REPORT_TIMEOUT });
}

const attrs = (page, selector, name) =>
  page.locator(selector).evaluateAll((els, name) => els.map((e) => e.getAttribute(name)), name);

/** Waits until the selection panel shows `count` segments, resolved by the catalog worker. */
async function selected(page, count) {
  await page.waitForFunction(
    (n) => {
      const el = document.querySelector('[data-testid=selection-summary]');
      return el?.getAttribute('data-resolved') === 'true' && el.getAttribute('data-count') === String(n);
    },
    count,
    { timeout: REPORT_TIMEOUT },
  );
}

/** Segment GETs (not listings) the front passed through for keys containing `part`. */
async function segmentGets(part) {
  const log = await control('GET', 'requests');
  return log.filter((r) => r.method === 'GET' && !r.path.includes('list-type') && r.path.includes(part));
}

/**
 * Analyzes payments/api's host (one boot across midnight, three segments) on
 * a listed page and checks the report against the CLI on the same keys.
 */
async function analyzePaymentsHost(page, beforeAnalyze = async () => {}) {
  await page.locator('[data-testid=host][data-host=ip-10-0-1-88] [data-testid=host-pick]').click();
  await selected(page, 3);
  await beforeAnalyze();
  await page.click('[data-testid=s3-analyze]');
  const shown = await shownNumbers(page);
  const keys = await analyzedKeys(page);
  assert.ok(keys.every((k) => k.includes('service=payments%2Fapi/')), keys.join(', '));
  assert.deepEqual(shown, (await cli(keys)).numbers);
}

/** The keys a page analyzed (its progress rows). */
const analyzedKeys = (page) => attrs(page, '[data-testid=progress-row]', 'data-file');

/**
 * The CLI on the same fixture files (`d9lens analyze --reference-compatible`):
 * its report numbers and its per-file errors (file name, byte offset).
 */
async function cli(keys) {
  const files = keys.map((k) => path.join(bucketDir, ...k.split('/')));
  // Asynchronously: the CORS front runs in this process and must keep answering.
  const args = ['run', '-q', '-p', 'd9lens-cli', '--', 'analyze', '--reference-compatible', ...files];
  const r = await promisify(execFile)('cargo', args, { cwd: root, maxBuffer: 64 << 20 }).then(
    (ok) => ({ ...ok, status: 0 }),
    (failed) => ({ stdout: failed.stdout, stderr: failed.stderr, status: failed.code }),
  );
  // Exit code 1: some file had an error (and the rest is reported).
  assert.ok(r.status === 0 || r.status === 1, `d9lens analyze failed (${r.status}): ${r.stderr}`);
  const errors = [...r.stderr.matchAll(/^d9lens: (\S+) @(\d+): /gm)].map((m) => `${m[1]} @${m[2]}`).sort();
  return { numbers: reportNumbers(r.stdout), errors };
}

/** The errors the page lists, as `basename @offset`. */
async function shownErrors(page) {
  const rows = await page
    .locator('[data-testid=error]')
    .evaluateAll((els) => els.map((e) => [e.getAttribute('data-file'), e.getAttribute('data-offset')]));
  return rows.map(([file, offset]) => `${file.split('/').pop()} @${offset}`).sort();
}

function assertNoSecret(where, text) {
  assert.ok(!String(text).includes(s3.secretAccessKey), `the secret key must not be in ${where}`);
}

/** Everything the page stores or shows holds no secret; it talked only to itself and S3. */
async function assertPrivate(page, { consoleLines, requestOrigins }, s3Endpoint = s3.corsEndpoint) {
  const stores = await page.evaluate(async () => {
    const cached = [];
    for (const name of await caches.keys()) {
      for (const req of await (await caches.open(name)).keys()) cached.push(req.url);
    }
    return JSON.stringify({ local: { ...localStorage }, session: { ...sessionStorage }, cached });
  });
  assertNoSecret('localStorage/sessionStorage/Cache Storage', stores);
  assert.ok(!/X-Amz-(Signature|Credential)/i.test(stores), 'no presigned URL is stored');
  assertNoSecret('the URL', page.url());
  assert.ok(!page.url().includes(s3.accessKeyId), 'no access key in the URL');
  assertNoSecret('the console', consoleLines.join('\n'));
  assertNoSecret('the page', await page.content());
  const allowed = new Set([browser.origin, new URL(s3Endpoint).origin]);
  assert.deepEqual([...requestOrigins].filter((o) => !allowed.has(o)), [], 'requests go only to the page and the S3 endpoint');
}

/** A listing request as `D prefix` (delimiter) or `F prefix` (flat). */
function listingOf(entry) {
  const q = new URL(entry.path, 'http://front').searchParams;
  return `${q.get('delimiter') ? 'D' : 'F'} ${q.get('prefix') ?? ''}`;
}

/** The most requests of `log` the front was answering at one moment. */
function maxOverlap(log) {
  const edges = log.flatMap((r) => [[r.startMs, 1], [r.endMs, -1]]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let open = 0;
  let most = 0;
  for (const [, d] of edges) most = Math.max(most, (open += d));
  return most;
}

test('a bucket of many days lists its shape, then only the window picked, and widening only what is new', { timeout: 300_000 }, async () => {
  // 30 days of 12 hosts, a segment every 5 minutes: 103,680 keys, the last at 2026-12-06 23:55:11.
  const keys = prepareDaysBucket(s3.dataDir, { days: 30, hosts: 12, step: 300 });
  assert.equal(keys.length, 103_680);
  /** The keys under any of `prefixes` (of host `host`, if given): what listing them finds. */
  const under = (prefixes, host) =>
    keys.filter((k) => prefixes.some((p) => k.startsWith(p)) && (host === undefined || k.includes(`/instance=${host}/`))).length;
  await control('DELETE', 'requests');
  const { page, problems } = await openPage();
  await connect(page, { bucket: DAYS_BUCKET, maxKeys: '1000' });
  await listed(page);
  const bar = page.locator('[data-testid=window-bar][data-awaits=true]');
  await bar.waitFor({ timeout: REPORT_TIMEOUT });
  assert.match(
    await page.textContent('[data-testid=window-shape]'),
    /Data on 30 days, 2026-11-07 → 2026-12-06; the newest at 2026-12-06 23:55:00 UTC/,
  );
  const listings = async () => (await control('GET', 'requests')).filter((r) => r.path.includes('list-type=2')).map(listingOf);
  const shape = await listings();
  // The root, version=1/, the 30 days (their services: the calendar) and the newest day's service.
  assert.equal(shape.length, 33, shape.join('\n'));
  assert.ok(shape.every((p) => p.startsWith('D ')), `the shape lists no key: ${shape.join(', ')}`);
  assert.equal((await page.textContent('[data-testid=disc-objects]')).trim(), '0');

  // The last hour (22:56 → 23:56, from 22:46 for segments running into it): its 10-minute blocks only.
  await control('DELETE', 'requests');
  await page.click('[data-testid=window-last-3600]');
  await page.locator('[data-testid=window-bar][data-awaits=false]').waitFor({ timeout: REPORT_TIMEOUT });
  await page.waitForFunction(() => !document.querySelector('[data-testid=window-last-3600]')?.disabled);
  assert.match(await page.textContent('[data-testid=window-listed]'), /Listed 2026-12-06 22:56:00 → 2026-12-06 23:56:00 UTC/);
  const day = 'version=1/date=2026-12-06/service=api/time=';
  const hourBlocks = ['224', '225', '230', '231', '232', '233', '234', '235'].map((t) => day + t);
  // Exactly the keys of those blocks (22:40 to 23:55, twelve hosts), once their listings are in.
  assert.equal(under(hourBlocks), 16 * 12);
  await page.waitForFunction(
    (n) => document.querySelector('[data-testid=disc-objects]')?.textContent.trim() === n,
    String(under(hourBlocks)),
    { timeout: REPORT_TIMEOUT },
  );
  const hour = await listings();
  assert.deepEqual(new Set(hour), new Set(hourBlocks.map((p) => `F ${p}`)));

  // Six hours: only what the hour did not list.
  await control('DELETE', 'requests');
  await page.click('[data-testid=window-last-21600]');
  await page.waitForFunction(
    () => /17:56:00/.test(document.querySelector('[data-testid=window-listed]')?.textContent ?? ''),
    null,
    { timeout: REPORT_TIMEOUT },
  );
  const widerBlocks = ['174', '175', '18', '19', '20', '21', '220', '221', '222', '223'].map((t) => day + t);
  const sixHours = [...hourBlocks, ...widerBlocks];
  // The new window shows at once; its keys as its listings come in: wait for all of them.
  await page.waitForFunction(
    (n) => document.querySelector('[data-testid=disc-objects]')?.textContent.trim() === n,
    String(under(sixHours)),
    { timeout: REPORT_TIMEOUT },
  );
  const wider = await listings();
  assert.deepEqual(new Set(wider), new Set(widerBlocks.map((p) => `F ${p}`)));
  await page.locator('[data-testid=discovery]').screenshot({ path: path.join(out, 's3-window-bar.png') });

  // A shared link of a selection lists the shape, then only the selection's window.
  await page.locator('[data-testid=host][data-host=host-0] [data-testid=host-pick]').click();
  await selected(page, under(sixHours, 'host-0'));
  await page.waitForFunction(() => location.hash.includes('sel='));
  const link = page.url();
  await assertClean(page, problems);
  await page.close();
  await control('DELETE', 'requests');
  const reopened = await openPage(link);
  await reopened.page.fill('[data-testid=s3-access-key]', s3.accessKeyId);
  await reopened.page.fill('[data-testid=s3-secret-key]', s3.secretAccessKey);
  await reopened.page.click('[data-testid=s3-connect]');
  await reopened.page.click('[data-testid=s3-endpoint-approve]');
  await selected(reopened.page, under(sixHours, 'host-0'));
  const relisted = await listings();
  const flat = relisted.filter((p) => p.startsWith('F '));
  assert.ok(flat.length > 0 && flat.every((p) => p.startsWith(`F ${day}`)), flat.join('\n'));
  assert.equal(relisted.length - flat.length, 33, 'the shape, then the window');

  // A from–to range of another day: that day's services, then its blocks and hours.
  await control('DELETE', 'requests');
  await reopened.page.fill('[data-testid=window-from]', '2026-11-20 10:00');
  await reopened.page.fill('[data-testid=window-to]', '2026-11-20 11:00');
  await reopened.page.click('[data-testid=window-range]');
  await reopened.page.waitForFunction(
    () => /2026-11-20 10:00:00/.test(document.querySelector('[data-testid=window-listed]')?.textContent ?? ''),
    null,
    { timeout: REPORT_TIMEOUT },
  );
  const other = 'version=1/date=2026-11-20/service=api/';
  assert.deepEqual(new Set(await listings()), new Set([`D ${other}`, `F ${other}time=095`, `F ${other}time=10`]));
  await reopened.page.close();
});

test('a search finds hosts, boots and keys, and each selects what it names', { timeout: 180_000 }, async () => {
  const { page, problems } = await openPage();
  await connect(page, { maxKeys: '1000' });
  await listed(page);
  const find = async (text, kind, count) => {
    await page.fill('[data-testid=disc-find]', text);
    await page.waitForFunction(
      ([kind, count]) => document.querySelectorAll(`[data-testid=found][data-kind=${kind}]`).length === count,
      [kind, count],
      { timeout: REPORT_TIMEOUT },
    );
  };
  // Every host of the fixture bucket is in 10.0.0.0/16.
  await find('ip-10-0-', 'host', 6);
  // A boot: payments/api's host across midnight, three segments.
  await find('LOVG', 'boot', 1);
  assert.equal(await page.locator('[data-testid=found]').count(), 1);
  await page.click('[data-testid=found-pick]');
  await selected(page, 3);
  // A file name: the one segment.
  await find('1796047573-98', 'key', 1);
  await page.click('[data-testid=found-pick]');
  await selected(page, 1);
  await find('nothing-like-this', 'host', 0);
  assert.equal(await page.locator('[data-testid=found]').count(), 0);
  await assertClean(page, problems);
  await page.close();
});

test('a listing that gets no answer is given up after the core\'s timeout and retried', { timeout: 180_000 }, async () => {
  await control('DELETE', 'requests');
  // The first listing of the bucket's root is held far past the page's 30 s.
  await control('POST', 'fault', { pass: true, delayMs: 45_000, count: 1, pathContains: 'list-type=2' });
  const { page, problems } = await openPage();
  const started = Date.now();
  await connect(page);
  await listed(page);
  const waited = Date.now() - started;
  await control('DELETE', 'fault');
  // Unretried, the held listing would have been answered at 45 s.
  assert.ok(waited >= 30_000 && waited < 45_000, `listed after ${waited} ms: the stalled try was aborted at 30 s, then retried`);
  assert.match(await page.textContent('[data-testid=listing-status]'), /Listed 30 objects in 18 pages/);
  await assertClean(page, problems);
  await page.close();
});

test('a redirect is not followed: the signed request goes nowhere else', { timeout: 120_000 }, async () => {
  await control('DELETE', 'requests');
  // S3 answers a bucket that moved region (or was created minutes ago) with a
  // 307 naming another host; a signed request must not go there.
  await control('POST', 'fault', {
    status: 307,
    code: 'TemporaryRedirect',
    message: 'Please re-send this request to the specified temporary endpoint.',
    location: `${s3.corsEndpoint}/redirected-here?list-type=2`,
    count: 1,
    pathContains: 'list-type=2',
  });
  const { page } = await openPage();
  await connect(page);
  const error = page.locator('[data-testid=s3-error]');
  await error.waitFor({ timeout: REPORT_TIMEOUT });
  await control('DELETE', 'fault');
  assert.equal(await error.getAttribute('data-kind'), 'region');
  const log = await control('GET', 'requests');
  assert.ok(log.some((r) => r.status === 307), 'the redirect was sent');
  assert.deepEqual(log.filter((r) => r.path.includes('redirected-here')), [], 'and not followed');
  await page.close();
});

test('connecting walks the bucket by partition, several listings at once, and summarizes it', { timeout: 180_000 }, async () => {
  await control('DELETE', 'requests');
  // Every listing is held 40 ms, so listings the page sends together are measured
  // in flight together however fast the local server answers.
  await control('POST', 'fault', { pass: true, delayMs: 40, count: 100, pathContains: 'list-type=2' });
  const opened = await openPage();
  const { page, problems } = opened;
  await connect(page);
  await listed(page);
  await control('DELETE', 'fault');
  const listings = (await control('GET', 'requests')).filter((r) => r.path.includes('list-type=2'));
  // Root, positional date, version=1/, 2 dates, 4 services (delimiter listings), then
  // hours and other folders flat; checkout-api's hour 14 holds 16 keys: 3 pages of 7.
  const partitions = new Set(listings.map(listingOf));
  assert.equal(partitions.size, 16, [...partitions].join('\n'));
  for (const p of [
    'D ',
    'D version=1/',
    'D version=1/date=2026-11-30/',
    'D version=1/date=2026-11-30/service=payments%2Fapi/',
    'F version=1/date=2026-11-30/service=checkout-api/time=14',
    'F version=1/date=2026-12-01/service=inventory-svc/_tmp/',
    'D 2026-11-30/',
    'F 2026-11-30/08',
  ]) {
    assert.ok(partitions.has(p), `${p} was listed`);
  }
  assert.equal(listings.length, 18);
  assert.equal(listings.filter((r) => r.path.includes('continuation-token')).length, 2, "pages 2 and 3 of hour 14 continue from a token");
  const overlap = maxOverlap(listings);
  assert.ok(overlap >= 2 && overlap <= 6, `listings in flight at once: ${overlap} (2 to 6)`);
  assert.match(await page.textContent('[data-testid=listing-status]'), /Listed 30 objects in 18 pages over 16 prefixes/);
  assert.equal(await page.locator('[data-testid=listing-truncated]').count(), 0, 'nothing left out');
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

  // Every host with its boots; ip-10-0-1-23 restarted (twice: positional, then two v1 boots).
  const boots = {};
  for (const host of await attrs(page, '[data-testid=host]', 'data-host')) {
    boots[host] = await attrs(page.locator(`[data-testid=host][data-host=${host}]`), '[data-testid=boot]', 'data-boot');
  }
  assert.deepEqual(boots, {
    'ip-10-0-1-23': ['gauu-25994', 'qghy-22982', 'zgmu-24044'],
    'ip-10-0-1-57': ['nzuq-22983'],
    'ip-10-0-2-14': ['mioh-24043'],
    'ip-10-0-3-101': ['mvkz-24844'],
    'ip-10-0-3-102': ['ganz-25992'],
    'ip-10-0-1-88': ['lovg-24843'],
  });
  const host23 = page.locator('[data-testid=host][data-host=ip-10-0-1-23]');
  assert.deepEqual(await attrs(host23, '[data-testid=boot]', 'data-restart'), ['false', 'true', 'true']);
  assert.match(await host23.locator('[data-testid=restart]').first().textContent(), /restart after/);
  // Busy vs quiet: file size is the load signal.
  const loads = await page
    .locator('[data-testid=host]')
    .evaluateAll((els) => Object.fromEntries(els.map((e) => [e.getAttribute('data-host'), e.getAttribute('data-load')])));
  assert.deepEqual(loads, {
    'ip-10-0-1-23': 'busy',
    'ip-10-0-1-57': 'quiet',
    'ip-10-0-2-14': 'quiet',
    'ip-10-0-3-101': 'busy',
    'ip-10-0-3-102': 'quiet',
    'ip-10-0-1-88': 'quiet',
  });
  // Density strips: one per host, busy bars where the busy hosts uploaded.
  assert.equal(await page.locator('[data-testid=density]').count(), 6);
  assert.equal(await page.locator('[data-testid=host][data-host=ip-10-0-3-101] [data-testid=density] path.d-busy').count(), 1);
  assert.equal(await page.locator('[data-testid=host][data-host=ip-10-0-2-14] [data-testid=density] path.d-busy').count(), 0);
  assert.match(await page.getAttribute('[data-testid=host][data-host=ip-10-0-2-14] [data-testid=density] path.d-quiet', 'd'), /^M[\d.]+ [\d.]+h/);
  // Missing indices and the empty segment of ip-10-0-1-57 are flagged.
  const anomalies = await page.locator('[data-testid=host][data-host=ip-10-0-1-57] [data-testid=anomaly]').allTextContents();
  assert.ok(anomalies.some((a) => /missing/.test(a)), anomalies.join('; '));
  assert.ok(anomalies.some((a) => /empty/.test(a)), anomalies.join('; '));

  const others = await attrs(page, '[data-testid=non-segment]', 'data-key');
  assert.deepEqual(others.map((k) => k.split('/').pop()).sort(), ['README.txt', '_SUCCESS', 'index.json', 'upload.lock']);
  await page.screenshot({ path: path.join(out, 's3-discovery.png'), fullPage: true });

  await assertPrivate(page, opened);
  await assertClean(page, problems);
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
  // Forgotten at once, before any other connect.
  assertNoSecret('sessionStorage after unticking', await page.evaluate(() => JSON.stringify({ ...sessionStorage })));
  await page.click('[data-testid=s3-connect]');
  await listed(page);
  assertNoSecret('sessionStorage after connecting again', await page.evaluate(() => JSON.stringify({ ...sessionStorage })));
  await page.close();
});

test('pasted credential JSON fills the key fields and leaves the box empty', { timeout: 60_000 }, async () => {
  const { page, consoleLines } = await openPage();
  const pasted = {
    Credentials: {
      AccessKeyId: 'ASIAEXAMPLEPASTED',
      SecretAccessKey: 'pasted-secret-value-0123456789',
      SessionToken: 'pasted-session-token',
      Expiration: '2026-12-02T18:00:00Z',
    },
  };
  await page.click('[data-testid=s3-connect-panel] details.paste summary');
  await page.fill('[data-testid=s3-paste]', JSON.stringify(pasted));
  assert.equal(await page.inputValue('[data-testid=s3-access-key]'), 'ASIAEXAMPLEPASTED');
  assert.equal(await page.inputValue('[data-testid=s3-secret-key]'), 'pasted-secret-value-0123456789');
  assert.equal(await page.inputValue('[data-testid=s3-session-token]'), 'pasted-session-token');
  assert.equal(await page.inputValue('[data-testid=s3-paste]'), '', 'the pasted secret does not stay on screen');
  assert.match(await page.textContent('[data-testid=s3-note]'), /expire/);
  assert.ok(!consoleLines.join('\n').includes('pasted-secret-value'), 'nothing pasted is logged');
  await page.close();
});

test('a wrong secret key explains the signature mismatch and names the field', { timeout: 120_000 }, async () => {
  const { page, consoleLines } = await openPage();
  const wrong = 'not-the-right-secret-key-123';
  await connect(page, { secret: wrong });
  const error = page.locator('[data-testid=s3-error]');
  await error.waitFor({ timeout: REPORT_TIMEOUT });
  assert.equal(await error.getAttribute('data-kind'), 'signature');
  assert.match(await page.textContent('[data-testid=s3-error-cause]'), /signature does not match/i);
  assert.match(await page.textContent('[data-testid=s3-error-fix]'), /secret access key field/i);
  assert.ok(!(await error.textContent()).includes(wrong), 'the secret is not in the error');
  assert.ok(!consoleLines.join('\n').includes(wrong), 'the secret is not in the console');
  await page.screenshot({ path: path.join(out, 's3-wrong-secret.png') });
  await page.close();
});

test('"List buckets" lists what the keys may see, and a pick opens that bucket', { timeout: 120_000 }, async () => {
  // s3s-fs serves each folder of its data dir as a bucket.
  fs.mkdirSync(path.join(s3.dataDir, 'd9lens-picker-b'), { recursive: true });
  const { page, problems } = await openPage();
  await page.fill('[data-testid=s3-endpoint]', s3.corsEndpoint);
  await page.fill('[data-testid=s3-region]', s3.region);
  await page.fill('[data-testid=s3-access-key]', s3.accessKeyId);
  await page.fill('[data-testid=s3-secret-key]', s3.secretAccessKey);
  await control('DELETE', 'requests');
  await page.click('[data-testid=s3-list-buckets]');
  await page.locator('[data-testid=bucket-picker][data-state=listed]').waitFor({ timeout: REPORT_TIMEOUT });
  const names = await attrs(page, '[data-testid=bucket-choice]', 'data-bucket');
  assert.deepEqual(names, [...names].sort(), 'by name');
  assert.ok(names.includes(s3.bucket) && names.includes('d9lens-picker-b'), names.join(', '));
  // One signed ListBuckets at the service's root, and nothing of any bucket.
  const asked = (await control('GET', 'requests')).map((r) => r.path);
  assert.equal(asked.length, 1, asked.join('\n'));
  assert.match(asked[0], /^\/\?/);
  assert.match(asked[0], /[?&]max-buckets=1000(&|$)/);
  assert.match(asked[0], /[?&]X-Amz-Signature=/);
  await page.click(`[data-testid=bucket-choice][data-bucket=${s3.bucket}]`);
  await listed(page);
  assert.equal(await page.inputValue('[data-testid=s3-bucket]'), s3.bucket);
  assert.equal(await page.locator('[data-testid=bucket-picker]').count(), 0);
  await assertClean(page, problems);
  await page.close();

  // Where the endpoint sends no CORS headers (as AWS S3 does for ListBuckets): what to do instead.
  const bare = await openPage();
  await bare.page.fill('[data-testid=s3-endpoint]', s3.plainEndpoint);
  await bare.page.fill('[data-testid=s3-access-key]', s3.accessKeyId);
  await bare.page.fill('[data-testid=s3-secret-key]', s3.secretAccessKey);
  await bare.page.click('[data-testid=s3-list-buckets]');
  const error = bare.page.locator('[data-testid=s3-error]');
  await error.waitFor({ timeout: REPORT_TIMEOUT });
  assert.equal(await error.getAttribute('data-kind'), 'network');
  assert.match(await error.textContent(), /AWS S3 answers ListBuckets without CORS[\s\S]*d9lens s3 ls/);
  assert.equal(await bare.page.locator('[data-testid=cors-rule]').count(), 0);
  await bare.page.close();
});

test('an endpoint without CORS shows the CORS explanation and the exact rule for this origin', { timeout: 120_000 }, async () => {
  const { page } = await openPage();
  await connect(page, { endpoint: s3.plainEndpoint });
  const error = page.locator('[data-testid=s3-error]');
  await error.waitFor({ timeout: REPORT_TIMEOUT });
  assert.equal(await error.getAttribute('data-kind'), 'network');
  assert.match(await page.textContent('[data-testid=s3-error-cause]'), /CORS/);
  const rule = JSON.parse(await page.textContent('[data-testid=cors-rule]'));
  // The rule docs/s3.md documents (for http://localhost:8080), with this page's origin.
  const docs = fs.readFileSync(path.join(root, 'docs/s3.md'), 'utf8');
  const documented = JSON.parse(docs.match(/```json\n(\{\n {2}"CORSRules"[\s\S]*?)```/)[1]);
  documented.CORSRules[0].AllowedOrigins = [browser.origin];
  assert.deepEqual(rule, documented);
  // And the readers' IAM policy for this bucket (d9lens deploy --print-policy's).
  const policy = JSON.parse(await page.textContent('[data-testid=iam-policy]'));
  assert.deepEqual(
    policy.Statement.map((st) => [st.Action, st.Resource]),
    [
      ['s3:ListBucket', `arn:aws:s3:::${s3.bucket}`],
      ['s3:GetObject', `arn:aws:s3:::${s3.bucket}/*`],
    ],
  );
  await page.screenshot({ path: path.join(out, 's3-no-cors.png') });
  await page.close();
});

test('one segment downloads, decodes and reports with its reference numbers', { timeout: 180_000 }, async () => {
  const { page, problems } = await openPage();
  await connect(page);
  await listed(page);
  const key =
    'version=1/date=2026-12-01/service=inventory-svc/time=1000/instance=ip-10-0-3-102/boot=ganz-25992/1796119202-1.bin.gz';
  await page.locator('[data-testid=host][data-host=ip-10-0-3-102] [data-testid=host-pick]').click();
  await page.locator(`[data-testid=segment-chip][data-key="${key}"]`).click();
  await selected(page, 1);
  await control('DELETE', 'requests');
  await page.click('[data-testid=s3-analyze]');
  const shown = await shownNumbers(page);
  const reference = fs.readFileSync(path.join(fixtures, 's3-bucket.reference', `${key}.report.txt`), 'utf8');
  assert.deepEqual(shown, reportNumbers(reference));
  assert.deepEqual(await analyzedKeys(page), [key]);
  assert.equal((await segmentGets('/')).length, 1, 'one download');
  await assertClean(page, problems);
  await page.close();
});

let sharedUrl;

test('a host and window downloads exactly its segments and the report equals the merged reference', { timeout: 180_000 }, async () => {
  const opened = await openPage();
  const { page } = opened;
  await connect(page);
  await listed(page);
  const host = page.locator('[data-testid=host][data-host=ip-10-0-2-14]');
  await host.locator('[data-testid=boot][data-boot=mioh-24043] [data-testid=boot-pick]').click();
  await selected(page, 3);
  assert.equal(await page.getAttribute('[data-testid=selection-summary]', 'data-bytes'), String(59402 + 64574 + 59007));
  await control('DELETE', 'requests');
  await page.click('[data-testid=s3-analyze]');
  const shown = await shownNumbers(page);
  const keys = await analyzedKeys(page);
  assert.deepEqual(
    keys.map((k) => k.split('/').pop()),
    ['1796047538-0.bin.gz', '1796047553-1.bin.gz', '1796047568-2.bin.gz'],
  );
  assert.deepEqual(shown, (await cli(keys)).numbers);
  const gets = await segmentGets('/');
  assert.equal(gets.length, 3, 'exactly the 3 segments were downloaded, nothing else');
  assert.ok(gets.every((g) => g.path.includes('ip-10-0-2-14')));
  assert.equal(await page.locator('[data-testid=breakdown-row]').count(), 1);
  // On the timeline: the host's boot is one lane group of its 3 segments.
  const groups = page.locator('[data-testid=timeline-group]');
  assert.equal(await groups.count(), 1);
  assert.equal(await groups.first().innerText(), 'ip-10-0-2-14 · mioh-24043');
  assert.equal(await groups.first().getAttribute('data-files'), '3');
  assert.match(page.url(), /sel=host/);
  await assertPrivate(page, opened);
  sharedUrl = page.url();
  await page.screenshot({ path: path.join(out, 's3-host-report.png'), fullPage: true });
  await page.locator('[data-testid=retrieval]').screenshot({ path: path.join(out, 's3-retrieval.png') });
  await page.close();
});

test('a shared link reopens the selection after the keys are entered, from the cache', { timeout: 180_000 }, async () => {
  assert.ok(sharedUrl, 'needs the previous test');
  await control('DELETE', 'requests');
  const { page } = await openPage(sharedUrl);
  // Each cached segment's recorded last use: a hit soon after the write
  // reads the entry, it does not write it again.
  const lastUses = () =>
    page.evaluate(async () => {
      const used = {};
      for (const name of await caches.keys()) {
        const cache = await caches.open(name);
        for (const req of await cache.keys()) used[req.url] = (await cache.match(req)).headers.get('x-d9lens-used');
      }
      return used;
    });
  const usedBefore = await lastUses();
  assert.ok(Object.keys(usedBefore).length >= 3, JSON.stringify(usedBefore));
  assert.equal(await page.inputValue('[data-testid=s3-bucket]'), s3.bucket);
  assert.equal(await page.inputValue('[data-testid=s3-endpoint]'), s3.corsEndpoint);
  assert.equal(await page.inputValue('[data-testid=s3-access-key]'), '', 'keys are not in the link');
  assert.equal(await page.inputValue('[data-testid=s3-secret-key]'), '');
  await page.fill('[data-testid=s3-access-key]', s3.accessKeyId);
  await page.fill('[data-testid=s3-secret-key]', s3.secretAccessKey);
  await page.click('[data-testid=s3-connect]');
  // The link named a host that is not AWS: it is shown, and nothing goes there before the OK.
  const approval = page.locator('[data-testid=s3-endpoint-approval]');
  await approval.waitFor();
  assert.equal(await approval.getAttribute('data-host'), new URL(s3.corsEndpoint).host);
  assert.equal((await control('GET', 'requests')).length, 0, 'no request before the OK');
  await page.click('[data-testid=s3-endpoint-approve]');
  const shown = await shownNumbers(page);
  const keys = await analyzedKeys(page);
  assert.equal(keys.length, 3);
  assert.deepEqual(shown, (await cli(keys)).numbers);
  await page.waitForFunction(() => !document.querySelector('[data-testid=s3-cancel]'));
  assert.equal(await page.getAttribute('[data-testid=retrieval-progress]', 'data-cached'), '3');
  assert.equal((await segmentGets('/')).length, 0, 'no segment was downloaded again');
  assert.deepEqual(await lastUses(), usedBefore, 'the hits rewrote no entry');
  // The page says what it keeps, and forgets it on request.
  const usage = page.locator('[data-testid=cache-usage]');
  await usage.waitFor();
  assert.ok(Number(await usage.getAttribute('data-entries')) >= 3);
  await page.click('[data-testid=cache-clear]');
  await usage.waitFor({ state: 'detached' });
  const left = await page.evaluate(async () => {
    let n = 0;
    for (const name of await caches.keys()) n += (await (await caches.open(name)).keys()).length;
    return n;
  });
  assert.equal(left, 0, 'no segment is kept');
  await page.close();
});

test('a broken segment shows its error (key and byte offset) while the rest is reported', { timeout: 180_000 }, async () => {
  const { page } = await openPage();
  await connect(page);
  await listed(page);
  await page.locator('[data-testid=host][data-host=ip-10-0-1-57] [data-testid=host-pick]').click();
  await selected(page, 7);
  await page.click('[data-testid=s3-analyze]');
  const shown = await shownNumbers(page);
  await page.locator('[data-testid=errors]').waitFor({ timeout: REPORT_TIMEOUT });
  const keys = await analyzedKeys(page);
  const expected = await cli(keys);
  assert.deepEqual(shown, expected.numbers, 'the readable segments are reported');
  // The truncated gzip, the empty object and the XML document, each with where it broke.
  assert.deepEqual(await shownErrors(page), expected.errors);
  assert.ok(expected.errors.includes('1796047573-98.bin.gz @37576'), expected.errors.join(', '));
  const truncated = page.locator('[data-testid=error][data-file$="1796047573-98.bin.gz"]');
  assert.match(await truncated.textContent(), /at byte 37,576/);
  assert.equal(await page.locator('[data-testid=progress-row][data-status=done]').count(), 4);
  await page.screenshot({ path: path.join(out, 's3-broken-segment.png'), fullPage: true });
  await page.close();
});

test('the workers keep at most twelve downloads under way, two per connection a browser opens to S3', { timeout: 180_000 }, async () => {
  // Eight workers, fifteen segments: the workers would hold them all at once;
  // their shares of twelve are 2, 2, 2, 2, 1, 1, 1 and 1.
  const { page, problems } = await open(browser.context, browser.baseUrl, '[data-testid=s3-connect]', { cores: 8 });
  await clearCache(page);
  await connect(page);
  await listed(page);
  await page.click('[data-testid=mode-sample]');
  await page.fill('[data-testid=sel-from]', '2026-11-30 00:00:00');
  await page.fill('[data-testid=sel-to]', '2026-12-01 23:59:59');
  await page.fill('[data-testid=sel-sample-n]', '15');
  await selected(page, 15);
  // Every segment is held 500 ms, so the downloads overlap however fast the
  // server. Counted as the page issues them: a request beyond the browser's
  // six connections waits in the browser, its answer deadline running.
  await control('POST', 'fault', { pass: true, delayMs: 500, count: 100, pathContains: '.bin.gz' });
  const segment = (req) => req.method() === 'GET' && new URL(req.url()).pathname.endsWith('.bin.gz');
  let underWay = 0;
  let most = 0;
  const issued = (req) => segment(req) && (most = Math.max(most, ++underWay));
  const ended = (req) => segment(req) && underWay--;
  browser.context.on('request', issued);
  browser.context.on('requestfinished', ended);
  browser.context.on('requestfailed', ended);
  try {
    await page.click('[data-testid=s3-analyze]');
    await shownNumbers(page);
  } finally {
    browser.context.off('request', issued);
    browser.context.off('requestfinished', ended);
    browser.context.off('requestfailed', ended);
    await control('DELETE', 'fault');
  }
  // (The sample holds the fixture bucket's broken segment: its error is the decoder's.)
  const errors = await page.locator('[data-testid=error]').allTextContents();
  assert.ok(!errors.some((e) => e.includes('Download failed')), `no download failed: ${errors}`);
  assert.ok(most <= 12, `${most} downloads under way at once`);
  assert.ok(most >= 10, `the downloads overlapped (${most} at once at most)`);
  await assertClean(page, problems);
  // The tests after this one count downloads of segments it cached.
  await clearCache(page);
  await page.close();
});

test('a 503 from S3 is retried, for listings and downloads', { timeout: 180_000 }, async () => {
  await control('DELETE', 'requests');
  await control('POST', 'fault', { status: 503, count: 1, pathContains: 'list-type=2' });
  // `/` is literal in an object's path but encoded in a listing's continuation token.
  await control('POST', 'fault', { status: 503, count: 1, pathContains: 'ip-10-0-1-88/boot' });
  const { page } = await openPage();
  await connect(page);
  await listed(page);
  assert.equal(await page.locator('[data-testid=s3-error]').count(), 0);
  await page.locator('[data-testid=host][data-host=ip-10-0-1-88] [data-testid=host-pick]').click();
  await selected(page, 3);
  await page.click('[data-testid=s3-analyze]');
  await shownNumbers(page);
  assert.equal(await page.locator('[data-testid=errors]').count(), 0, 'no segment failed');
  const log = await control('GET', 'requests');
  assert.equal(log.filter((r) => r.fault && r.status === 503).length, 2, 'both faults were hit');
  assert.equal(log.filter((r) => r.path.includes('list-type=2') && r.status === 200).length, 18);
  const gets = (await segmentGets('ip-10-0-1-88')).map((r) => r.status);
  assert.deepEqual(gets.sort(), [200, 200, 200, 503], 'one fault, then every segment arrived');
  await page.close();
});

test('a dropped download can be retried, and a selection over the budget asks first', { timeout: 180_000 }, async () => {
  const { page } = await openPage();
  await connect(page);
  await listed(page);
  // 3 busy segments of ~1 MB against a 1 MB budget.
  await page.fill('[data-testid=sel-budget]', '1');
  await page.locator('[data-testid=host][data-host=ip-10-0-3-101] [data-testid=host-pick]').click();
  await selected(page, 3);
  await page.locator('[data-testid=budget-warning]').waitFor();
  assert.ok(await page.isDisabled('[data-testid=s3-analyze]'), 'over the budget: not without confirming');
  await page.check('[data-testid=budget-confirm]');
  // Chromium itself retries a request whose reused keep-alive connection drops (and
  // the listing leaves up to six idle ones), so drop every attempt until it gives up.
  await control('POST', 'fault', { reset: true, count: 50, pathContains: '1796119197-1' });
  await page.click('[data-testid=s3-analyze]');
  const retry = page.locator('[data-testid=s3-retry]');
  await retry.waitFor({ timeout: REPORT_TIMEOUT });
  assert.match(await retry.textContent(), /Retry 1 failed download/);
  assert.equal(await page.getAttribute('[data-testid=retrieval-progress]', 'data-failed'), '1');
  await control('DELETE', 'fault');
  await retry.click();
  await page.waitForFunction(
    () => document.querySelectorAll('[data-testid=progress-row][data-status=done]').length === 3,
    null,
    { timeout: REPORT_TIMEOUT },
  );
  const shown = await shownNumbers(page);
  assert.deepEqual(shown, (await cli(await analyzedKeys(page))).numbers);
  assert.equal(await page.locator('[data-testid=errors]').count(), 0, 'the retried download replaced its error');
  await page.close();
});

test('a listing cap says which prefixes it left out', { timeout: 120_000 }, async () => {
  const { page, problems } = await openPage();
  await page.fill('[data-testid=s3-max-objects]', '10');
  await connect(page, { maxKeys: '3' });
  await listed(page);
  const truncated = page.locator('[data-testid=listing-truncated]');
  assert.match(await truncated.textContent(), /not listed completely/);
  const items = await truncated.locator('[data-testid=not-listed]').allTextContents();
  assert.ok(items.length > 0 && items.length === Number(await truncated.getAttribute('data-count')), items.join('\n'));
  assert.ok(items.every((t) => t.includes('the listing stopped at 10 objects')), items.join('\n'));
  const objects = Number(await page.getAttribute('[data-testid=listing-status]', 'data-objects'));
  assert.ok(objects >= 10 && objects < 30, `${objects} objects listed`);
  // Every fixture key the summary lacks lies under a prefix named as left out.
  const prefixes = await attrs(page, '[data-testid=not-listed]', 'data-prefix');
  const listing = JSON.parse(fs.readFileSync(path.join(fixtures, 's3-bucket.listing.json'), 'utf8'));
  const uncovered = listing.objects.filter((o) => !prefixes.some((p) => o.key.startsWith(p))).length;
  assert.ok(objects >= uncovered, `${uncovered} keys under no left-out prefix, ${objects} listed`);
  assert.match(page.url(), /maxObjects=10/);
  await page.locator('[data-testid=discovery]').screenshot({ path: path.join(out, 's3-listing-cap.png') });
  await assertClean(page, problems);
  await page.close();
});

/** `d9lens s3 analyze` on the same bucket (s3s-fs without the front, so its requests are not counted). */
async function cliS3(args) {
  const env = { ...process.env, AWS_ACCESS_KEY_ID: s3.accessKeyId, AWS_SECRET_ACCESS_KEY: s3.secretAccessKey };
  for (const v of ['AWS_SESSION_TOKEN', 'AWS_REGION', 'AWS_DEFAULT_REGION', 'AWS_ENDPOINT_URL', 'AWS_ENDPOINT_URL_S3']) delete env[v];
  const run = (extra) =>
    promisify(execFile)(
      'cargo',
      ['run', '-q', '-p', 'd9lens-cli', '--', 's3', 'analyze', `s3://${s3.bucket}`, '--endpoint', s3.plainEndpoint, ...args, ...extra],
      { cwd: root, env, maxBuffer: 64 << 20 },
    );
  const text = await run(['--reference-compatible']);
  const json = JSON.parse((await run(['--json'])).stdout);
  const coverage = text.stderr.match(/the sample covers (.*)\n/)?.[1];
  return { numbers: reportNumbers(text.stdout), files: json.files, coverage };
}

/** The selection's window as the URL carries it (Unix seconds, `to` exclusive). */
function urlWindow(page) {
  const q = new URLSearchParams(new URL(page.url()).hash.slice(1));
  return ['--from', q.get('from'), '--to', q.get('to')];
}

/** Empties the segment cache, so every segment of the next run is downloaded. */
async function clearCache(page) {
  await page.evaluate(async () => Promise.all((await caches.keys()).map((k) => caches.delete(k))));
}

/**
 * On a fresh, listed page with an empty segment cache: selection mode `mode`
 * over [from, to] (plus `extra` fields), `count` segments, analyzed with a
 * clean request log. Returns the page and the report's numbers.
 */
async function analyzeMode(mode, from, to, count, extra = {}) {
  const opened = await openPage();
  const { page } = opened;
  await clearCache(page);
  await connect(page);
  await listed(page);
  await page.click(`[data-testid=mode-${mode}]`);
  await page.fill('[data-testid=sel-from]', from);
  await page.fill('[data-testid=sel-to]', to);
  for (const [testid, value] of Object.entries(extra)) await page.fill(`[data-testid=${testid}]`, value);
  await selected(page, count);
  await control('DELETE', 'requests');
  await page.click('[data-testid=s3-analyze]');
  return { ...opened, shown: await shownNumbers(page) };
}

test('a fleet overview downloads one segment per host from the window, and equals the CLI', { timeout: 180_000 }, async () => {
  const { page, problems, shown } = await analyzeMode('fleet', '2026-11-30 23:00:00', '2026-12-01 10:00:00', 3);
  // Each host's segment starting nearest the window's middle (04:30).
  const expected = [
    'version=1/date=2026-12-01/service=payments%2Fapi/time=0000/instance=ip-10-0-1-88/boot=lovg-24843/1796083210-2.bin.gz',
    'version=1/date=2026-12-01/service=inventory-svc/time=0959/instance=ip-10-0-3-101/boot=mvkz-24844/1796119182-0.bin.gz',
    'version=1/date=2026-12-01/service=inventory-svc/time=0959/instance=ip-10-0-3-102/boot=ganz-25992/1796119187-0.bin.gz',
  ];
  assert.deepEqual((await analyzedKeys(page)).sort(), [...expected].sort());
  const gets = await segmentGets('/');
  assert.equal(gets.length, 3, 'exactly one download per host');
  for (const host of ['ip-10-0-1-88', 'ip-10-0-3-101', 'ip-10-0-3-102']) {
    assert.equal(gets.filter((g) => g.path.includes(`instance%3D${host}/`)).length, 1, host);
  }
  assert.deepEqual(
    (await attrs(page, '[data-testid=breakdown-row]', 'data-host')).sort(),
    ['inventory-svc / ip-10-0-3-101', 'inventory-svc / ip-10-0-3-102', 'payments/api / ip-10-0-1-88'],
  );
  assert.match(page.url(), /sel=fleet/);
  // One lane group per host and boot, one segment each.
  assert.deepEqual(
    (await page.locator('[data-testid=timeline-group]').allInnerTexts()).sort(),
    ['ip-10-0-1-88 · lovg-24843', 'ip-10-0-3-101 · mvkz-24844', 'ip-10-0-3-102 · ganz-25992'],
  );
  const cli = await cliS3(['--fleet', ...urlWindow(page)]);
  assert.deepEqual(cli.files, [...expected].sort(), 'the CLI picks the same segments');
  assert.deepEqual(shown, cli.numbers);
  await assertClean(page, problems);
  await page.close();
});

test('sample N spreads N segments over hosts, equals the CLI, and adding N more downloads only those', { timeout: 240_000 }, async () => {
  const { page, problems, shown } = await analyzeMode('sample', '2026-11-30 00:00:00', '2026-12-01 23:59:59', 5, { 'sel-sample-n': '5' });
  // The window's 26 segments on 6 hosts: the first segment of each of five
  // hosts, in the hosts' hash order.
  const expected = [
    '2026-11-30/0814/checkout-api/ip-10-0-1-23/gauu-25994/1796026492-0.bin.gz',
    'version=1/date=2026-11-30/service=checkout-api/time=1405/instance=ip-10-0-2-14/boot=mioh-24043/1796047538-0.bin.gz',
    'version=1/date=2026-11-30/service=payments%2Fapi/time=2359/instance=ip-10-0-1-88/boot=lovg-24843/1796083180-0.bin.gz',
    'version=1/date=2026-12-01/service=inventory-svc/time=0959/instance=ip-10-0-3-101/boot=mvkz-24844/1796119182-0.bin.gz',
    'version=1/date=2026-12-01/service=inventory-svc/time=0959/instance=ip-10-0-3-102/boot=ganz-25992/1796119187-0.bin.gz',
  ];
  assert.deepEqual((await analyzedKeys(page)).sort(), expected);
  const gets = await segmentGets('/');
  assert.equal(gets.length, 5, 'exactly the five were downloaded');
  assert.deepEqual(gets.map((g) => g.path.split('?')[0].split('/').pop()).sort(), expected.map((k) => k.split('/').pop()).sort());
  assert.match(page.url(), /sel=sample&n=5/);
  const cli = await cliS3(['--sample', '5', ...urlWindow(page)]);
  assert.deepEqual(cli.files, expected);
  assert.deepEqual(shown, cli.numbers);
  // What the sample covers, as the CLI says it.
  const coverage = await page.textContent('[data-testid=sel-coverage]');
  assert.ok(coverage.includes(`The sample covers ${cli.coverage}.`), `${coverage} vs ${cli.coverage}`);
  assert.match(cli.coverage, /^5 of 26 segments \(.* of .*\), 5 of 6 hosts, starting /);
  // Five more: the first five stay, and only the new five are downloaded.
  await control('DELETE', 'requests');
  await page.click('[data-testid=sel-sample-more]');
  await selected(page, 10);
  await page.click('[data-testid=s3-analyze]');
  const shownTen = await shownNumbers(page);
  const ten = await analyzedKeys(page);
  assert.equal(ten.length, 10);
  assert.ok(expected.every((k) => ten.includes(k)), 'the first five are kept');
  const newGets = await segmentGets('/');
  assert.equal(newGets.length, 5, `only the five new segments were downloaded: ${newGets.map((g) => g.path).join(', ')}`);
  const cliTen = await cliS3(['--sample', '10', ...urlWindow(page)]);
  assert.deepEqual(cliTen.files, [...ten].sort());
  assert.deepEqual(shownTen, cliTen.numbers);
  await assertClean(page, problems);
  await page.close();
});

test('the report of the files in shows before the last one, stop keeps it, and retry completes it', { timeout: 240_000 }, async () => {
  const { page } = await openPage();
  await clearCache(page);
  await connect(page);
  await listed(page);
  // ip-10-0-1-23: 7 segments; its last boot's two arrive only after 20 s.
  await page.locator('[data-testid=host][data-host=ip-10-0-1-23] [data-testid=host-pick]').click();
  await selected(page, 7);
  await control('DELETE', 'requests');
  await control('POST', 'fault', { pass: true, delayMs: 20_000, count: 2, pathContains: 'boot%3Dzgmu-24044/' });
  await page.click('[data-testid=s3-analyze]');
  await page.waitForFunction(
    () =>
      document.querySelectorAll('[data-testid=progress-row][data-status=done]').length === 5 &&
      document.querySelectorAll('[data-testid=progress-row][data-status=working]').length === 2,
    null,
    { timeout: REPORT_TIMEOUT },
  );
  // An interim report covers the five, as the CLI reports those five.
  const progress = page.locator('[data-testid=report-progress]');
  await page.locator('[data-testid=report-progress][data-merged="5"]').waitFor({ timeout: REPORT_TIMEOUT });
  assert.match(await progress.textContent(), /Partial report: 5 of 7 files merged so far/);
  assert.equal(await page.getAttribute('[data-testid=report]', 'data-partial'), '5/7');
  const interim = await shownNumbers(page, { partial: true });
  await progress.evaluate((e) => e.scrollIntoView({ block: 'center' }));
  await page.screenshot({ path: path.join(out, 'interim-report.png') });
  const cancelledAt = performance.now();
  await page.click('[data-testid=report-stop]');
  const shown = await shownNumbers(page);
  assert.deepEqual(shown, interim, 'stopping keeps what was merged');
  assert.match(await progress.textContent(), /^5 of 7 files merged; 2 stopped or failed\.$/);
  const rows = await page
    .locator('[data-testid=progress-row]')
    .evaluateAll((els) => els.map((e) => [e.getAttribute('data-file'), e.getAttribute('data-status')]));
  const finished = rows.filter(([, status]) => status === 'done').map(([key]) => key);
  const cancelled = rows.filter(([, status]) => status === 'error').map(([key]) => key);
  assert.equal(finished.length, 5);
  assert.deepEqual(cancelled.map((k) => k.split('/').pop()).sort(), ['1796048405-0.bin.gz', '1796048420-1.bin.gz']);
  assert.ok(cancelled.every((k) => k.includes('boot=zgmu-24044/')));
  assert.deepEqual(shown, (await cli(finished)).numbers, 'the report covers the five that finished');
  assert.match(await page.locator('[data-testid=s3-retry]').textContent(), /Retry 2 failed downloads/);
  // Nothing was requested after the cancel.
  await new Promise((r) => setTimeout(r, 1000));
  const gets = await segmentGets('/');
  assert.equal(gets.filter((g) => g.startMs > cancelledAt).length, 0, 'no download started after the cancel');
  assert.equal(gets.filter((g) => !g.fault).length, 5);

  await control('DELETE', 'fault');
  await page.click('[data-testid=s3-retry]');
  await page.waitForFunction(
    () => document.querySelectorAll('[data-testid=progress-row][data-status=done]').length === 7,
    null,
    { timeout: REPORT_TIMEOUT },
  );
  const all = await shownNumbers(page);
  assert.deepEqual(all, (await cli(await analyzedKeys(page))).numbers, 'retried into the same report');
  assert.equal(await progress.textContent(), 'All 7 files merged.');
  assert.equal(await page.locator('[data-testid=errors]').count(), 0);
  await page.close();
});

test('"Try the demo bucket" fills the form and the whole discovery → selection → report path works', { timeout: 180_000 }, async () => {
  const opened = await openPage();
  const { page, problems } = opened;
  await page.click('[data-testid=s3-demo]');
  assert.equal(await page.inputValue('[data-testid=s3-endpoint]'), DEMO_ENDPOINT);
  assert.equal(await page.inputValue('[data-testid=s3-bucket]'), 'd9lens-demo');
  assert.equal(await page.inputValue('[data-testid=s3-region]'), 'us-east-1');
  assert.equal(await page.inputValue('[data-testid=s3-access-key]'), 'd9lensdemo');
  assert.equal(await page.inputValue('[data-testid=s3-secret-key]'), 'd9lens-demo-secret-key');
  await listed(page);
  assert.match(await page.textContent('[data-testid=listing-status]'), /Listed 30 objects/);
  await analyzePaymentsHost(page);
  await assertPrivate(page, opened, DEMO_ENDPOINT);
  await assertClean(page, problems);
  await page.screenshot({ path: path.join(out, 's3-demo-report.png'), fullPage: true });
  await page.close();
});

test('a wrong region is corrected from S3\'s answer and the listing goes on', { timeout: 120_000 }, async () => {
  const { page, problems } = await openPage();
  await control('DELETE', 'requests');
  await page.fill('[data-testid=s3-endpoint]', s3.corsEndpoint);
  await page.fill('[data-testid=s3-bucket]', s3.bucket);
  await page.fill('[data-testid=s3-region]', 'eu-west-3');
  await page.fill('[data-testid=s3-access-key]', s3.accessKeyId);
  await page.fill('[data-testid=s3-secret-key]', s3.secretAccessKey);
  await page.click('[data-testid=s3-connect]');
  await listed(page);
  assert.match(await page.textContent('[data-testid=listing-status]'), /Listed 30 objects/);
  assert.equal(await page.inputValue('[data-testid=s3-region]'), s3.region, "the form shows the bucket's region");
  assert.match(page.url(), new RegExp(`region=${s3.region}`));
  const log = await control('GET', 'requests');
  const refused = log.filter((r) => r.status === 400);
  assert.equal(refused.length, 1, 'one request signed for eu-west-3 was refused, then none');
  assert.match(refused[0].path, /eu-west-3/);
  // Chromium logs the refused request itself; nothing else may be logged.
  assert.deepEqual(problems.filter((p) => !/status of 400/.test(p)), []);
  await page.close();
});

/** The signing time of a presigned request, in ms since the epoch. */
function signedAt(entry) {
  const d = new URL(entry.path, 'http://front').searchParams.get('X-Amz-Date');
  return Date.UTC(+d.slice(0, 4), +d.slice(4, 6) - 1, +d.slice(6, 8), +d.slice(9, 11), +d.slice(11, 13), +d.slice(13, 15));
}

test('a page clock two hours ahead is corrected from S3\'s answer, for listings and downloads', { timeout: 120_000 }, async () => {
  const page = await browser.context.newPage();
  // The page's clock (where every request is signed) runs two hours ahead.
  await page.addInitScript(() => {
    const SKEW = 2 * 3600 * 1000;
    const Real = Date;
    globalThis.Date = class extends Real {
      constructor(...args) {
        super(...(args.length ? args : [Real.now() + SKEW]));
      }
      static now() {
        return Real.now() + SKEW;
      }
    };
  });
  await page.goto(browser.baseUrl);
  await page.waitForSelector('[data-testid=s3-connect]');
  await clearCache(page);
  await control('DELETE', 'requests');
  await connect(page);
  await listed(page);
  assert.match(await page.textContent('[data-testid=listing-status]'), /Listed 30 objects/);
  await analyzePaymentsHost(page);
  const log = (await control('GET', 'requests')).filter((r) => r.method === 'GET');
  const [first, ...rest] = log;
  assert.equal(first.status, 403, 'S3 refused the first request, signed two hours ahead');
  assert.ok(Math.abs(signedAt(first) - Date.now() - 2 * 3600 * 1000) < 5 * 60_000);
  assert.ok(rest.length >= 20 && rest.every((r) => r.status === 200), 'every later listing and download went through');
  assert.ok(rest.every((r) => Math.abs(signedAt(r) - Date.now()) < 5 * 60_000), 'signed with the corrected clock');
  await page.close();
});

/**
 * cargo-lambda's emulator of the Lambda APIs (`pip install cargo-lambda`,
 * scripts/setup.sh) with the d9lens-lambda function (`cargo build -p
 * d9lens-lambda`, scripts/test.sh) as its default function `_`, reading S3
 * with the demo keys as a role's would be. Its function URL answers CORS.
 */
async function startLambda(env = {}) {
  const port = await new Promise((resolve) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
  const targetDir = process.env.CARGO_TARGET_DIR ?? path.join(root, 'target');
  const bootstrap = path.join(targetDir, 'debug', 'bootstrap');
  assert.ok(fs.existsSync(bootstrap), 'the Lambda function is built (cargo build -p d9lens-lambda)');
  const emulator = spawn('cargo', ['lambda', 'watch', '--only-lambda-apis', '--ignore-changes', '--invoke-port', String(port)], {
    cwd: root,
    stdio: 'ignore',
  });
  for (let up = false; !up; ) {
    up = await new Promise((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => resolve(socket.end() && true));
      socket.on('error', () => setTimeout(() => resolve(false), 100));
    });
  }
  const fn = spawn(bootstrap, [], {
    stdio: 'ignore',
    env: {
      ...process.env,
      AWS_LAMBDA_RUNTIME_API: `http://127.0.0.1:${port}/.rt`,
      AWS_LAMBDA_FUNCTION_NAME: '_',
      AWS_LAMBDA_FUNCTION_VERSION: '1',
      AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '2048',
      AWS_ACCESS_KEY_ID: s3.accessKeyId,
      AWS_SECRET_ACCESS_KEY: s3.secretAccessKey,
      ...env,
    },
  });
  return {
    url: `http://127.0.0.1:${port}/lambda-url/_/`,
    stop: () => {
      fn.kill();
      emulator.kill();
    },
  };
}

/** A page connected and listed, its Lambda row filled in with `fields` (test id suffix → value). */
async function connectedOnLambda(lambda, fields) {
  const { page } = await openPage();
  await page.click('[data-testid=s3-lambda] summary');
  await page.fill('[data-testid=s3-lambda-url]', lambda.url);
  for (const [field, value] of Object.entries(fields)) await page.fill(`[data-testid=s3-lambda-${field}]`, value);
  await connect(page);
  await listed(page);
  return page;
}

test('"Analyze on AWS Lambda" sends the selection to the function URL and the report equals the CLI', { timeout: 180_000 }, async () => {
  const lambda = await startLambda();
  try {
    const page = await connectedOnLambda(lambda, { jobs: '2' });
    await control('DELETE', 'requests');
    await analyzePaymentsHost(page, async () => {
      // What the run will cost, before it starts: three small segments, one invocation.
      const estimate = await page.textContent('[data-testid=lambda-estimate]');
      assert.match(estimate, /^On AWS Lambda: 1 invocation, about 1s of function time at 2048 MB: about \$0\.0+\d+ at us-east-1 arm64 prices/);
    });
    const requests = await page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name));
    assert.ok(requests.some((u) => u.includes('/lambda-url/_/')), 'the page called the function URL');
    const gets = await segmentGets('ip-10-0-1-88');
    assert.equal(gets.length, 3, 'the three segments were downloaded once');
    assert.ok(gets.every((g) => g.agent?.startsWith('d9lens/')), 'by the function, not the page');
    await page.close();
  } finally {
    lambda.stop();
  }
});

test('results too large to answer are stored under the page\'s results prefix and read back', { timeout: 180_000 }, async () => {
  // The function's test hook: every answer counts as too large, so it is stored.
  const lambda = await startLambda({ D9LENS_INLINE_ANSWER_LIMIT: '0' });
  const results = path.join(s3.dataDir, s3.bucket, 'e2e-results');
  try {
    const page = await connectedOnLambda(lambda, { results: 'e2e-results/' });
    await analyzePaymentsHost(page);
    const stored = fs.readdirSync(results).filter((f) => /^[0-9a-f]{64}\.d9lens-batch$/.test(f));
    assert.equal(stored.length, 1, `one batch, stored once: ${fs.readdirSync(results)}`);
    await page.close();
  } finally {
    lambda.stop();
    // Out of the bucket again: other tests list all of it.
    fs.rmSync(results, { recursive: true, force: true });
  }
});
