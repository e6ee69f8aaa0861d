// Shared by the end-to-end tests (not a test file itself): one headless
// Chromium per test file over the built page, pages that record what they
// log and where they connect, drag and drop, and the report numbers as the
// page shows them next to the same numbers read from a text report.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS, serveDir } from '../../scripts/serve.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
export const root = path.resolve(here, '../..');
export const fixtures = path.join(root, 'tests/fixtures');
export const out = path.join(here, 'out');
export const REPORT_TIMEOUT = 90_000;

/** A viewport screenshot with `el` just under the page's sticky header. */
export async function shot(page, el, file) {
  await el.evaluate((e) => window.scrollTo(0, e.getBoundingClientRect().top + window.scrollY - 72));
  await page.screenshot({ path: path.join(out, file) });
}

/**
 * Serves dist/ and starts Chromium with a fresh profile. Resolves to
 * { context, baseUrl, origin, close() }.
 */
export async function startBrowser() {
  const dist = path.resolve(process.env.D9LENS_DIST ?? path.join(root, 'dist'));
  assert.ok(fs.existsSync(path.join(dist, 'index.html')), 'dist/ is missing: run `trunk build --release` first');
  fs.mkdirSync(out, { recursive: true });
  const server = await serveDir(dist, 0);
  const baseUrl = `http://127.0.0.1:${server.address().port}/`;
  const profileDir = fs.mkdtempSync(path.join(os.tmpdir(), 'd9lens-e2e-'));
  const context = await chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1280, height: 900 },
  });
  const close = async () => {
    await context.close();
    await new Promise((r) => server.close(r));
    fs.rmSync(profileDir, { recursive: true, force: true });
  };
  return { context, baseUrl, origin: new URL(baseUrl).origin, close };
}

/**
 * Opens `url` and records console lines, problems (errors, CSP reports, page
 * errors) and the origin of every request the page or its workers make.
 */
export async function openPage(context, url, readySelector = '[data-testid=file-input]', { cores } = {}) {
  const page = await context.newPage();
  // The page sizes its worker pool by the core count: pinned where a test needs it.
  if (cores) await page.addInitScript((n) => Object.defineProperty(navigator, 'hardwareConcurrency', { get: () => n }), cores);
  const consoleLines = [];
  const problems = [];
  const requestOrigins = new Set();
  page.on('console', (msg) => {
    consoleLines.push(msg.text());
    if (msg.type() === 'error' || /Content.Security.Policy/i.test(msg.text())) {
      problems.push(`console ${msg.type()}: ${msg.text()}`);
    }
  });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  // On the context, so the workers' requests (presigned segment GETs) count too;
  // the tests keep one page open at a time.
  const onRequest = (req) => requestOrigins.add(new URL(req.url()).origin);
  context.on('request', onRequest);
  page.on('close', () => context.off('request', onRequest));
  await page.goto(url);
  await page.waitForSelector(readySelector, { state: 'attached' });
  await page.evaluate(() => {
    window.__cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) =>
      window.__cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`),
    );
  });
  return { page, consoleLines, problems, requestOrigins };
}

/** No CSP violation and nothing logged as an error. */
export async function assertClean(page, problems) {
  assert.deepEqual(await page.evaluate(() => window.__cspViolations), [], 'no Content-Security-Policy violations');
  assert.deepEqual(problems, [], 'no errors in the console');
}

/** Drops files on the page the way a browser does: a `drop` event carrying a DataTransfer. */
/**
 * Waits until the page has `count` web workers with their message handler
 * installed (each says Ready to the page right then, before warming up).
 */
export async function workersReady(page, count) {
  for (let i = 0; i < 200; i++) {
    const ready = await Promise.all(page.workers().map((w) => w.evaluate(() => self.onmessage !== null).catch(() => false)));
    if (ready.filter(Boolean).length >= count) return;
    await page.waitForTimeout(50);
  }
  throw new Error(`fewer than ${count} workers ready`);
}

export async function dropFiles(page, files) {
  const payload = files.map(({ name, bytes }) => ({ name, b64: Buffer.from(bytes).toString('base64') }));
  await page.evaluate((files) => {
    const dt = new DataTransfer();
    for (const { name, b64 } of files) {
      const bin = atob(b64);
      const bytes = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
      dt.items.add(new File([bytes], name, { type: 'application/octet-stream' }));
    }
    const target = document.querySelector('main') ?? document.body;
    for (const type of ['dragenter', 'dragover', 'drop']) {
      target.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }));
    }
  }, payload);
}

/**
 * The report of the whole run: a run of several files first shows interim
 * reports (`data-partial`), each covering the files in so far.
 */
export const FINAL_REPORT = '[data-testid=report]:not([data-partial])';

/**
 * The summary, worker-utilization and long-poll numbers the page shows, once
 * the final report is in (`partial`: those of the interim report shown).
 */
export async function shownNumbers(page, { partial = false } = {}) {
  const report = partial ? '[data-testid=report][data-partial]' : FINAL_REPORT;
  await page.locator(`${report} [data-testid=section-long-polls]`).waitFor({ timeout: REPORT_TIMEOUT });
  const text = async (id) => (await page.locator(`[data-testid=${id}]`).first().textContent())?.trim();
  const longPolls = page.locator('[data-testid=section-long-polls]');
  const none = /None found/.test(await longPolls.innerText());
  return {
    duration: await text('summary-duration'),
    workers: await text('summary-workers'),
    events: await text('summary-events'),
    cpuSamples: await text('summary-cpu-samples'),
    tasks: await text('summary-tasks'),
    utilization: (await page.locator('[data-testid=worker-utilization]').allTextContents()).map((s) => s.trim()),
    longPolls: none
      ? { count: '0', worst: null }
      : { count: await text('long-polls-count'), worst: await text('long-polls-worst') },
  };
}

/** The same numbers from a text report (`*.report.txt`, or `d9lens analyze --reference-compatible`). */
export function reportNumbers(report) {
  // A section: the lines after its title and rule, up to the next rule.
  const lines = report.split('\n');
  const rule = (l) => /^[=─═]{20,}$/.test(l);
  const section = (title) => {
    const start = lines.findIndex((l) => l.startsWith(title));
    assert.ok(start >= 0, `the report has a ${title} section`);
    const body = lines.slice(start + 2);
    const end = body.findIndex(rule);
    return (end < 0 ? body : body.slice(0, end)).join('\n');
  };
  const summary = section('TRACE SUMMARY');
  const field = (label) => summary.match(new RegExp(`^${label}:\\s+(.+)$`, 'm'))?.[1].trim();
  const utilization = [...section('WORKER UTILIZATION').matchAll(/^ {2}Worker \d+: ([\d.]+%) active/gm)].map((m) => m[1]);
  const found = section('LONG POLLS').match(/Found (\d+) long poll\(s\) — worst (\S+)/);
  const numbers = {
    duration: field('Duration'),
    workers: field('Workers'),
    events: field('Events'),
    cpuSamples: field('CPU samples'),
    tasks: field('Tasks spawned'),
    utilization,
    longPolls: found ? { count: found[1], worst: found[2] } : { count: '0', worst: null },
  };
  for (const [name, value] of Object.entries(numbers)) assert.ok(value !== undefined && value.length !== 0, `the report prints ${name}`);
  return numbers;
}
