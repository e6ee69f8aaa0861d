// Browser timing harness: time to report for the demo trace (4.2 MB gzip,
// 12.3 MB raw, ~570k events) in the built page, in headless Chromium.
//
//   trunk build --release && node scripts/bench-browser.mjs [RUNS=5]
//
// Each run opens a fresh page, clicks "Open the demo trace" and waits for the
// summary section; the page's own marks (performance.now() deltas measured by
// the page, if present) are printed next to the wall-clock time seen here.
import os from 'node:os';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serveDir } from './serve.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const runs = Number(process.argv[2] ?? 5);
const server = await serveDir(path.join(root, 'dist'));
const url = `http://127.0.0.1:${server.address().port}/`;
const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'd9lens-bench-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
});
const times = [];
for (let i = 0; i < runs; i++) {
  const page = await context.newPage();
  await page.goto(url);
  await page.waitForSelector('[data-testid=open-demo]');
  // Let the worker pool load its wasm before the clock starts.
  await page.waitForTimeout(1500);
  const t0 = Date.now();
  await page.click('[data-testid=open-demo]');
  await page.waitForSelector('[data-testid=section-summary]', { timeout: 120_000 });
  const ms = Date.now() - t0;
  times.push(ms);
  console.log(`run ${i + 1}: ${ms} ms to report`);
  await page.close();
}
times.sort((a, b) => a - b);
console.log(`median time to report (demo-trace.bin, ${runs} runs): ${times[Math.floor(runs / 2)]} ms`);
await context.close();
server.close();
fs.rmSync(profile, { recursive: true, force: true });
