// End-to-end: the built page (dist/, from `trunk build --release`) in headless
// Chromium. Run with `node --test tests/e2e/`.
//
// Serves dist/ on a free localhost port, opens the page, feeds it traces the
// ways a person would (file picker, drag and drop, the demo button) and checks
// the report against dial9's reference numbers (tests/fixtures, from
// the shared *.reference.json files).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { FINAL_REPORT, REPORT_TIMEOUT, assertClean, dropFiles, fixtures, openPage as open, out, startBrowser, workersReady } from './browser.mjs';

let browser;

before(async () => {
  browser = await startBrowser();
});

after(async () => {
  await browser?.close();
});

const openPage = (options) => open(browser.context, browser.baseUrl, undefined, options);

async function text(page, selector) {
  return (await page.locator(selector).first().textContent())?.trim();
}

/** The reference numbers for blocking.bin. */
async function assertBlockingReport(page) {
  const section = page.locator('[data-testid=section-long-polls]');
  await section.waitFor({ timeout: REPORT_TIMEOUT });
  const sectionText = await section.innerText();
  assert.match(sectionText, /(^|\s)37 long poll\(s\) — worst 50\.26ms/);
  assert.equal(await text(page, '[data-testid=long-polls-count]'), '37');
  assert.equal(await text(page, '[data-testid=long-polls-worst]'), '50.26ms');
  const utilization = await page.locator('[data-testid=worker-utilization]').allTextContents();
  assert.deepEqual(utilization.map((s) => s.trim()), ['16.6%', '10.8%']);
  assert.equal(await text(page, '[data-testid=summary-duration]'), '5309.5ms');
  assert.equal(await text(page, '[data-testid=summary-events]'), '25,114');
  assert.equal(await page.locator('[data-testid=long-poll-row]').count(), 10);
}

const blocking = () => fs.readFileSync(path.join(fixtures, 'blocking.bin'));

test('a file chosen with the file input gives the reference report', { timeout: 180_000 }, async () => {
  const { page, problems } = await openPage();
  await page.setInputFiles('[data-testid=file-input]', path.join(fixtures, 'blocking.bin'));
  await assertBlockingReport(page);
  const row = page.locator('[data-testid=progress-row]');
  assert.equal(await row.count(), 1);
  assert.equal(await row.getAttribute('data-status'), 'done');
  assert.equal(await page.locator('[data-testid=errors]').count(), 0);
  // The sections after the long polls are built a frame after the headline ones.
  await page.locator('[data-testid=section-spans]').waitFor();
  for (const id of ['section-summary', 'section-setup', 'section-workers', 'section-sched-delays', 'section-poll-by-spawn', 'section-lifecycle', 'section-blocking', 'section-cpu-hotspots', 'section-queue', 'section-kernel-wait', 'section-spans']) {
    assert.equal(await page.locator(`[data-testid=${id}]`).count(), 1, `${id} is shown`);
  }
  // Open the first long poll's first stack: frames are rendered with formatFrame.
  const firstStack = page.locator('[data-testid=section-long-polls] details.stack-details').first();
  await firstStack.locator('summary').click();
  await firstStack.locator('ol.stack li').first().waitFor();
  assert.match(await firstStack.textContent(), /legacy_sync_lookup workload\.rs:108/);
  // Back to the top: a full-page shot taken while scrolled paints the sticky header mid-page.
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: path.join(out, 'blocking.png'), fullPage: true });
  await assertClean(page, problems);
  await page.close();
});

test('a file dropped on the page gives the same report', { timeout: 180_000 }, async () => {
  const { page, problems } = await openPage();
  await dropFiles(page, [{ name: 'blocking.bin', bytes: blocking() }]);
  await assertBlockingReport(page);
  assert.equal(await page.locator('.drop-overlay.visible').count(), 0, 'the drop overlay is gone after the drop');
  await assertClean(page, problems);
  await page.close();
});

test('the demo trace opens with one click', { timeout: 180_000 }, async () => {
  const { page, problems } = await openPage({ cores: 2 });
  await workersReady(page, 2);
  await page.click('[data-testid=open-demo]');
  await page.locator('[data-testid=report]').waitFor({ timeout: REPORT_TIMEOUT });
  // One file and two workers: one unpacks it while the other decodes and analyzes.
  assert.equal(await page.locator('[data-testid=progress-row]').getAttribute('data-workers'), '0 1');
  assert.match(await text(page, '[data-testid=summary-workers]'), /^4 \(IDs: 0, 1, 2, 3\)$/);
  assert.equal(await text(page, '[data-testid=long-polls-count]'), '3');
  assert.equal(await text(page, '[data-testid=long-polls-worst]'), '32.33ms');
  await page.screenshot({ path: path.join(out, 'demo.png'), fullPage: false });
  await assertClean(page, problems);
  await page.close();
});

test('a gzip cut short, alone on two workers, is reported with its byte offset, and the workers go on', { timeout: 180_000 }, async () => {
  const { page, problems } = await openPage({ cores: 2 });
  await workersReady(page, 2);
  const gz = zlib.gzipSync(blocking());
  await dropFiles(page, [{ name: 'cut.bin.gz', bytes: gz.subarray(0, 20_000) }]);
  const error = page.locator('[data-testid=errors] [data-testid=error][data-file="cut.bin.gz"]');
  await error.waitFor({ timeout: REPORT_TIMEOUT });
  assert.equal(await error.getAttribute('data-offset'), '20000');
  assert.match(await error.textContent(), /gzip stream ends early \(truncated file\)/);
  const row = page.locator('[data-testid=progress-row][data-file="cut.bin.gz"]');
  assert.equal(await row.getAttribute('data-workers'), '0 1');
  assert.equal(await row.getAttribute('data-status'), 'error');
  // Both workers are free again: the next file is analyzed as usual.
  await dropFiles(page, [{ name: 'blocking.bin.gz', bytes: gz }]);
  await assertBlockingReport(page);
  await assertClean(page, problems);
  await page.close();
});

test('crafted stacks (100,000 frames deep; 30 million frames once expanded) give a report, and the page goes on', { timeout: 180_000 }, async () => {
  const { page, problems } = await openPage();
  const crafted = ['crafted-deep-stack.bin.gz', 'crafted-inline-chain.bin.gz'];
  await dropFiles(page, crafted.map((name) => ({ name, bytes: fs.readFileSync(path.join(fixtures, name)) })));
  await page.locator(`${FINAL_REPORT} [data-testid=section-cpu-hotspots]`).waitFor({ timeout: REPORT_TIMEOUT });
  for (const name of crafted) {
    assert.equal(await page.locator(`[data-testid=progress-row][data-file="${name}"]`).getAttribute('data-status'), 'done');
  }
  // Their three samples, each stack cut where it is too deep, and the cut said.
  const flame = page.locator('[data-testid=section-flamegraph] [data-testid=flame-canvas]');
  await flame.waitFor();
  assert.equal(await flame.getAttribute('data-root-total'), '3');
  await page.locator('[data-testid=section-flamegraph] [data-testid=flame-search]').fill('outer frames cut');
  assert.equal(await page.locator('[data-testid=section-flamegraph] [data-testid=flame-match]').getAttribute('data-weight'), '3');
  // The page goes on: the next file is analyzed as usual.
  await dropFiles(page, [{ name: 'blocking.bin', bytes: blocking() }]);
  await assertBlockingReport(page);
  await assertClean(page, problems);
  await page.close();
});

test('a corrupt file is reported by name while the healthy one is still analyzed', { timeout: 180_000 }, async () => {
  const { page, problems } = await openPage();
  const full = blocking();
  const corrupt = full.subarray(0, Math.floor(full.length / 2));
  await dropFiles(page, [
    { name: 'corrupt.bin', bytes: corrupt },
    { name: 'healthy.bin', bytes: fs.readFileSync(path.join(fixtures, 'healthy.bin')) },
  ]);
  await page.locator(FINAL_REPORT).waitFor({ timeout: REPORT_TIMEOUT });
  const errors = page.locator('[data-testid=errors]');
  await errors.waitFor();
  const error = errors.locator('[data-testid=error][data-file="corrupt.bin"]');
  assert.equal(await error.count(), 1, 'the errors panel names the corrupt file');
  assert.match(await error.textContent(), /corrupt\.bin/);
  assert.equal(await errors.locator('[data-testid=error][data-file="healthy.bin"]').count(), 0);
  assert.equal(await page.locator('[data-testid=progress-row][data-file="healthy.bin"]').getAttribute('data-status'), 'done');
  assert.equal(await page.locator('[data-testid=progress-row][data-file="corrupt.bin"]').getAttribute('data-status'), 'error');
  assert.equal(await page.locator('[data-testid=section-summary]').count(), 1);
  await page.screenshot({ path: path.join(out, 'corrupt.png'), fullPage: false });
  await assertClean(page, problems);
  await page.close();
});

test('a run of hundreds of files lists where the work is and counts the rest; every file is merged', { timeout: 240_000 }, async () => {
  // 260 copies of a small healthy segment: past the 200 rows a run lists
  // (core `run::rows`), so the table lists a window and counts the others.
  const count = 260;
  const source = path.join(fixtures, 's3-bucket/version=1/date=2026-11-30/service=checkout-api/time=1405/instance=ip-10-0-1-57/boot=nzuq-22983/1796047541-0.bin.gz');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'd9lens-many-'));
  try {
    const files = Array.from({ length: count }, (_, i) => {
      const f = path.join(dir, `seg-${String(i).padStart(3, '0')}.bin.gz`);
      fs.copyFileSync(source, f);
      return f;
    });
    const { page, problems } = await openPage();
    await page.setInputFiles('[data-testid=file-input]', files);
    // While it runs: a window of rows, and a count of the others.
    const leftOut = page.locator('[data-testid=progress-left-out]');
    await leftOut.waitFor({ timeout: REPORT_TIMEOUT });
    await page.locator(FINAL_REPORT).waitFor({ timeout: REPORT_TIMEOUT });
    await page.waitForFunction(() => !document.querySelector('[data-testid=report-progress][role=status]'), null, { timeout: REPORT_TIMEOUT });
    assert.equal(await page.locator('[data-testid=report-progress]').getAttribute('data-merged'), String(count));
    // Finished: the last 200 rows, all done; the first 60 counted as done.
    const rows = page.locator('[data-testid=progress-row]');
    assert.equal(await rows.count(), 200);
    assert.equal(await page.locator('[data-testid=progress-row][data-status=done]').count(), 200);
    assert.equal(await rows.first().getAttribute('data-file'), 'seg-060.bin.gz');
    assert.equal(await rows.last().getAttribute('data-file'), 'seg-259.bin.gz');
    assert.equal(await leftOut.getAttribute('data-count'), '60');
    assert.equal((await leftOut.textContent()).trim(), 'Not listed: 60 more files (60 done).');
    await assertClean(page, problems);
    await page.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
