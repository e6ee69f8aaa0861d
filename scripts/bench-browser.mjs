// Browser benchmarks of the built page (dist/, from `trunk build --release`) in
// headless Chromium. Measurements, not tests: they print numbers and pass.
//
//   node scripts/bench-browser.mjs demo [RUNS=5]
//       time to report for the demo trace (4.2 MB gzip, 12.3 MB raw, ~570k
//       events): click "Open the demo trace" until the frame that shows the
//       report's head (verdict, findings, timeline) and until the whole
//       report, timed in the page; the worker's own time for the file (gunzip,
//       decode, analysis in wasm); and from the file's result reaching the page
//       to the frame that shows the timeline drawn.
//       When dial9's analyze.js is in the cargo registry, it runs on the same
//       trace before each browser run, and the speed-ups are taken run by run.
//       With two or more cores the file gets two workers (one unpacks, one
//       decodes and analyzes); CORES=1 makes the page see one core, hence one
//       worker doing it all (the A/B of that pipeline).
//
//   TRACE=file.json (demo, timeline): a Chrome trace of the last run's click
//       to the timeline drawn, or of the pan/zoom frames.
//
//   node scripts/bench-browser.mjs timeline [COPIES=10] [STEPS=200]
//       the timeline of COPIES copies of the demo trace (~100k polls each):
//       paint time of each pan/zoom frame, p50/p95, and bytes per poll.
//
//   node scripts/bench-browser.mjs flame [COPIES=15] [STEPS=100]
//       the flamegraph of COPIES copies of the demo trace's idle-park samples
//       (6,764 each): from the click on "Idle parking" to the frame that shows
//       it (the graph's build and first paint, timed in the page), then STEPS
//       keyboard zooms in and out (ArrowDown + Enter, Escape), paint per frame.
//
//   node scripts/bench-browser.mjs fleet [COUNT=240] [RUNS=1]
//       COUNT busy segments under 20 hosts (as scripts/bench-fleet.sh lays
//       them out for the CLI) on the local S3 server: the page lists,
//       samples all and analyzes them; time to the first and to the whole
//       report, Chromium's memory before and at its peak (by process, the
//       renderer's by kind, the page's and workers' heaps), the page's
//       main-thread time, the workers' time. Chromium runs without
//       Playwright (scripts/bare-chromium.mjs). S3S_FS=target/release/
//       d9lens-s3-server serves from a release build of the S3 server,
//       which answers CORS itself (VIA_FRONT=1: through the tests' front);
//       PROFILE=file.cpuprofile writes the page thread's CPU profile, and
//       each worker's beside it (file.worker-N.cpuprofile). After
//       each run, the CLI (CLI=PATH, default target/release/d9lens) on the
//       same files: the page's throughput as a share of the CLI's.
//       WARM=1: then the same selection again in the same tab, from the
//       segment cache.
//       FILE=PATH: every segment a copy of that one (a small one: what a
//       file costs apart from its analysis, at thousands of files).
//
//   node scripts/bench-browser.mjs explorer [COPIES=2] [RUNS=5]
//       the span explorer over COPIES copies of the demo trace (~52k span
//       instances each): a field filter (MetricName=cpu) typed and applied,
//       and slow versus typical (p99) of the two most frequent spans in turn;
//       the answer's own time in wasm and the wall time to the frame showing it.
//
//   node scripts/bench-browser.mjs listing [KEYS=100000] [RUNS=3]
//       a generated bucket of KEYS segment keys (dial9's v1 layout, 10 services
//       × 20 hosts, two boots each, busy and quiet hosts) served as ListObjectsV2
//       pages of 1000 by a local S3-shaped listing server (signatures are not
//       checked: this measures listing, not signing). The page fetches every
//       page; the catalog worker parses and catalogues each one and summarizes
//       the bucket. Printed: wall time to the rendered summary, the worker's own
//       time (pages, last summary), and the page's main-thread long tasks while
//       the listing streamed in (how responsive the page stayed).
//
//   node scripts/bench-browser.mjs window [RUNS=3]
//       the 30-day bucket of tests/s3/days-bucket.mjs (103,680 keys, 12 hosts,
//       v1 layout) on the local S3 server, through the tests' front, whose
//       request log counts the listings. The page connects (the bucket's
//       shape: wall time to the window bar, listings), then lists the last
//       hour, the last 24 hours, or a 7-day range (wall time to the listed
//       window, listings, keys found), each from a fresh tab; then the CLI
//       (CLI=PATH, default target/release/d9lens) with --last 1h / 24h / 7d
//       against the same front: wall time and listings.
import os from 'node:os';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS, serveDir } from './serve.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const [mode = 'demo', ...args] = process.argv.slice(2);

const execFileAsync = promisify(execFile);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * dial9's analyze.js in the local cargo registry (crates.io dial9-viewer 0.5.7;
 * scripts/bench-vs-node.sh fetches it), or null.
 */
function referenceAnalyzer() {
  const registry = path.join(process.env.CARGO_HOME ?? path.join(os.homedir(), '.cargo'), 'registry', 'src');
  for (const index of fs.existsSync(registry) ? fs.readdirSync(registry) : []) {
    const js = path.join(registry, index, 'dial9-viewer-0.5.7', 'skills', 'dial9-toolkit', 'scripts', 'analyze.js');
    if (fs.existsSync(js)) return js;
  }
  return null;
}

/** Wall time (ms) of `node analyze.js TRACE`, the reference the speed targets compare with. */
function timeReference(js, trace) {
  const t0 = performance.now();
  execFileSync('node', [js, trace], { stdio: ['ignore', 'ignore', 'ignore'], maxBuffer: 1 << 28 });
  return performance.now() - t0;
}

async function withBrowser(run) {
  const server = await serveDir(path.resolve(process.env.D9LENS_DIST ?? path.join(root, 'dist')));
  const url = `http://127.0.0.1:${server.address().port}/`;
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'd9lens-bench-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  try {
    await run(context, url, profile);
  } finally {
    await context.close();
    server.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
}

/**
 * Runs `measure()`; with TRACE=file.json, under a Chrome trace of the page
 * written to that file (open it in Perfetto or chrome://tracing to see
 * where a frame's time went).
 */
async function traced(page, measure) {
  if (!process.env.TRACE) return measure();
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Tracing.start', {
    transferMode: 'ReturnAsStream',
    // v8.wasm: the lazy compile of each wasm function run for the first time.
    traceConfig: { includedCategories: ['devtools.timeline', 'disabled-by-default-devtools.timeline.frame', 'blink', 'cc', 'viz', 'gpu', 'toplevel', 'benchmark', 'v8.execute', 'v8.wasm', 'disabled-by-default-v8.wasm.detailed', 'v8'] },
  });
  const result = await measure();
  const done = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
  await cdp.send('Tracing.end');
  const { stream } = await done;
  const out = fs.createWriteStream(process.env.TRACE);
  for (;;) {
    const { data, eof, base64Encoded } = await cdp.send('IO.read', { handle: stream });
    out.write(base64Encoded ? Buffer.from(data, 'base64') : data);
    if (eof) break;
  }
  await new Promise((resolve) => out.end(resolve));
  await cdp.send('IO.close', { handle: stream });
  console.log(`Chrome trace: ${process.env.TRACE}`);
  return result;
}

async function demo(runs) {
  await withBrowser(async (context, url) => {
    const times = [];
    const workerTimes = [];
    const timelineTimes = [];
    const readyTimes = [];
    // The machine is shared and its speed drifts: the reference runs right
    // before each browser run, and the ratios are taken pair by pair.
    const reference = referenceAnalyzer();
    const ratios = [];
    const trace = path.join(root, 'tests/fixtures/demo-trace.bin');
    for (let i = 0; i < runs; i++) {
      const nodeMs = reference ? timeReference(reference, trace) : null;
      const page = await context.newPage();
      if (process.env.CORES) {
        await page.addInitScript((n) => Object.defineProperty(navigator, 'hardwareConcurrency', { get: () => n }), Number(process.env.CORES));
      }
      // A link as slow as a shared page's readers may have (the page's own
      // requests; the workers' are their own targets and stay unthrottled).
      if (process.env.LINK_KBPS) {
        const cdp = await context.newCDPSession(page);
        const bytesPerSecond = (Number(process.env.LINK_KBPS) * 1000) / 8;
        await cdp.send('Network.enable');
        await cdp.send('Network.emulateNetworkConditions', {
          offline: false,
          latency: Number(process.env.LINK_RTT_MS ?? 50),
          downloadThroughput: bytesPerSecond,
          uploadThroughput: bytesPerSecond,
        });
      }
      // Every message a worker posts, timed as it reaches the page: this
      // listener is added before the page's own handler, so it runs first.
      await page.addInitScript(() => {
        const Worker = window.Worker;
        window.__messages = [];
        window.Worker = class extends Worker {
          constructor(...args) {
            super(...args);
            this.addEventListener('message', () => window.__messages.push(performance.now()));
          }
        };
        // The first paint: navigation → the first frame showing the drop
        // zone's demo button (the page's wasm fetched, compiled and started).
        const shown = () => (document.querySelector('[data-testid=open-demo]') ? (window.__ready = performance.now()) : requestAnimationFrame(shown));
        requestAnimationFrame(shown);
      });
      await page.goto(url);
      await page.waitForSelector('[data-testid=open-demo]');
      // Let the worker pool load its wasm before the clock starts.
      await page.waitForTimeout(1500);
      // In-page clocks: the click, the first frame showing the report's head,
      // and the first frame with the whole report (the sections are built a
      // frame later). Polling from here would add its own delay.
      await page.evaluate(() => {
        const seen = (sel, key) => {
          const check = () => (document.querySelector(sel) ? requestAnimationFrame(() => (window[key] = performance.now())) : requestAnimationFrame(check));
          check();
        };
        seen('[data-testid=overview]', '__summary');
        seen('[data-testid=section-spans], [data-testid=section-memory]', '__whole');
        // The timeline: the start of the first frame in which it is drawn
        // (that frame presents it; the clocks above wait one frame more).
        const drawn = () => (document.querySelector('[data-testid=timeline][data-paint-ms]') ? (window.__timeline = performance.now()) : requestAnimationFrame(drawn));
        requestAnimationFrame(drawn);
        document.querySelector('[data-testid=open-demo]').addEventListener('click', () => (window.__click = performance.now()), { capture: true });
      });
      // The last run under TRACE: click → the timeline drawn.
      const click = async () => {
        await page.click('[data-testid=open-demo]');
        await page.waitForFunction(() => window.__whole && window.__timeline, null, { timeout: 120_000 });
      };
      await (i === runs - 1 ? traced(page, click) : click());
      const [ms, whole, ready] = await page.evaluate(() => [window.__summary - window.__click, window.__whole - window.__click, window.__ready].map(Math.round));
      readyTimes.push(ready);
      // The worker's own time for the file: gunzip, decode and analysis, in wasm.
      await page.waitForSelector('[data-testid=progress-row][data-analysis-ms]');
      const worker = Math.round(Number(await page.getAttribute('[data-testid=progress-row]', 'data-analysis-ms')));
      const workers = await page.getAttribute('[data-testid=progress-row]', 'data-workers');
      // The timeline: from the worker's answer reaching the page (the last
      // message before the timeline) to the frame that shows it drawn.
      await page.waitForFunction(() => window.__timeline, null, { timeout: 60_000 });
      const drawn = Math.round(await page.evaluate(() => window.__timeline - window.__messages.filter((t) => t < window.__timeline).pop()));
      const paint = Number(await page.getAttribute('[data-testid=timeline]', 'data-paint-ms'));
      timelineTimes.push(drawn);
      times.push(ms);
      workerTimes.push(worker);
      const vs = nodeMs ? `; node analyze.js ${Math.round(nodeMs)} ms: ${(nodeMs / worker).toFixed(1)}× the worker, ${(nodeMs / ms).toFixed(1)}× the page` : '';
      if (nodeMs) ratios.push([nodeMs / worker, nodeMs / ms]);
      console.log(`run ${i + 1}: page shown ${ready} ms after navigation; ${ms} ms to the report's head (verdict, findings, timeline) on screen, ${whole} ms to the whole report; the workers' (${workers}) analysis ${worker} ms${vs}; timeline on screen ${drawn} ms after the worker's answer (its paint ${paint} ms)`);
      await page.close();
    }
    console.log(`median time from navigation to the page shown: ${median(readyTimes)} ms`);
    console.log(`median time to the report's head on screen (demo-trace.bin, ${runs} runs): ${median(times)} ms`);
    console.log(`median time of the worker's analysis (gunzip + decode + analysis in wasm): ${median(workerTimes)} ms`);
    console.log(`median time from the worker's answer to the timeline drawn on screen: ${median(timelineTimes)} ms`);
    if (ratios.length) {
      console.log(
        `median speed-up over node analyze.js, run by run: the worker ${median(ratios.map((r) => r[0])).toFixed(1)}×, ` +
          `click to summary ${median(ratios.map((r) => r[1])).toFixed(1)}×`,
      );
    } else {
      console.log('node analyze.js not found (scripts/bench-vs-node.sh fetches it): no speed-up printed');
    }
  });
}

/**
 * The timeline at scale: COPIES copies of the demo trace (or of FILE, a
 * path from the repository's root) dropped together (each demo ~100k polls
 * on 4 workers, all on one wall-clock axis), then STEPS
 * frames of wheel zoom and key pans dispatched one per animation frame.
 * Printed: the paint time of the first frame, each frame's paint time (the
 * page's own `data-paint-ms`: level of detail + drawing) and the interval
 * between frames, p50/p95, and the timeline's bytes per poll in the page.
 */
/**
 * Opens the page at 1400 × 1000 with `copies` copies of the demo trace (or
 * of FILE) dropped on it, runs `measure(page)` and cleans up.
 */
async function withDemoCopies(copies, measure) {
  const source = path.resolve(root, process.env.FILE ?? 'tests/fixtures/demo-trace.bin');
  const ext = source.endsWith('.gz') ? '.bin.gz' : '.bin';
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'd9lens-copies-'));
  const files = Array.from({ length: copies }, (_, i) => {
    const f = path.join(dir, `copy-${String(i).padStart(3, '0')}${ext}`);
    fs.copyFileSync(source, f);
    return f;
  });
  try {
    await withBrowser(async (context, url) => {
      const page = await context.newPage();
      await page.setViewportSize({ width: 1400, height: 1000 });
      await page.goto(url);
      await page.waitForSelector('[data-testid=file-input]', { state: 'attached' });
      await page.waitForTimeout(1500);
      await page.setInputFiles('[data-testid=file-input]', files);
      await measure(page);
      await page.close();
    });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function timelineBench(copies, steps) {
  await withDemoCopies(copies, async (page) => {
    const tl = page.locator('[data-testid=timeline]');
    await tl.waitFor({ timeout: 600_000 });
    await page.waitForTimeout(500);
    const polls = Number(await tl.getAttribute('data-polls'));
    const bytes = Number(await tl.getAttribute('data-bytes'));
    const first = Number(await tl.getAttribute('data-paint-ms'));
    const frames = await traced(page, () => page.evaluate(async (n) => {
      const t = document.querySelector('[data-testid=timeline]');
      const c = document.querySelector('.tl-canvas');
      const r = c.getBoundingClientRect();
      const nextFrame = () => new Promise((done) => requestAnimationFrame(done));
      const out = [];
      let last = await nextFrame();
      for (let i = 0; i < n; i++) {
        const zoom = i % 4 < 2;
        const ev = zoom
          ? new WheelEvent('wheel', { deltaY: i % 16 < 8 ? -120 : 120, clientX: r.left + (r.width * ((i * 37) % 100)) / 100, clientY: r.top + 40, bubbles: true, cancelable: true })
          : new KeyboardEvent('keydown', { key: i % 2 ? 'a' : 'd', bubbles: true, cancelable: true });
        (zoom ? c : t).dispatchEvent(ev);
        const now = await nextFrame();
        out.push([Number(t.dataset.paintMs), now - last]);
        last = now;
      }
      return out;
    }, steps));
    const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
    const paint = frames.map((f) => f[0]);
    const interval = frames.map((f) => f[1]);
    console.log(`${copies} × ${path.basename(process.env.FILE ?? 'demo-trace.bin')}: ${polls} polls, timeline data ${(bytes / polls).toFixed(1)} bytes per poll (${(bytes / 1e6).toFixed(1)} MB)`);
    console.log(`first frame painted in ${first.toFixed(1)} ms`);
    const oneVsync = interval.filter((t) => t < 17.5).length / interval.length;
    console.log(`${steps} pan/zoom frames: paint p50 ${pct(paint, 50).toFixed(1)} ms, p95 ${pct(paint, 95).toFixed(1)} ms; frame interval p50 ${pct(interval, 50).toFixed(1)} ms, p90 ${pct(interval, 90).toFixed(1)} ms, p95 ${pct(interval, 95).toFixed(1)} ms (${(100 * oneVsync).toFixed(0)}% of frames in one vsync)`);
  });
}

async function flameBench(copies, steps) {
  await withDemoCopies(copies, async (page) => {
    const flame = page.locator('[data-testid=section-flamegraph]');
    await flame.waitFor({ timeout: 600_000 });
    await page.waitForTimeout(500);
    const shown = await page.evaluate(async () => {
      const s = document.querySelector('[data-testid=section-flamegraph]');
      const c = document.querySelector('[data-testid=flame-canvas]');
      const nextFrame = () => new Promise((done) => requestAnimationFrame(done));
      const t0 = performance.now();
      s.querySelector('[data-kind=idle]').click();
      while (c.dataset.kind !== 'idle') await nextFrame();
      const t1 = await nextFrame();
      return { samples: Number(c.dataset.rootTotal), wall: t1 - t0, build: Number(s.dataset.buildMs), paint: Number(s.dataset.paintMs) };
    });
    const frames = await page.evaluate(async (n) => {
      const s = document.querySelector('[data-testid=section-flamegraph]');
      const c = document.querySelector('[data-testid=flame-canvas]');
      const nextFrame = () => new Promise((done) => requestAnimationFrame(done));
      const key = (k) => c.dispatchEvent(new KeyboardEvent('keydown', { key: k, bubbles: true, cancelable: true }));
      const out = [];
      for (let i = 0; i < n; i++) {
        if (i % 6 < 3) {
          key('ArrowDown');
          key('Enter');
        } else key('Escape');
        await nextFrame();
        out.push(Number(s.dataset.paintMs));
      }
      return out;
    }, steps);
    const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
    console.log(`${copies} × demo-trace.bin: idle-park flamegraph of ${shown.samples} samples`);
    console.log(`click → shown ${shown.wall.toFixed(1)} ms (build ${shown.build.toFixed(1)} ms, first paint ${shown.paint.toFixed(1)} ms)`);
    console.log(`${steps} zoom frames: paint p50 ${pct(frames, 50).toFixed(2)} ms, p95 ${pct(frames, 95).toFixed(2)} ms, max ${Math.max(...frames).toFixed(2)} ms`);
  });
}

async function explorerBench(copies, runs) {
  await withDemoCopies(copies, async (page) => {
    const section = page.locator('[data-testid=section-requests]');
    await section.waitFor({ timeout: 600_000 });
    await page.waitForTimeout(500);
    const instances = await section.locator('[data-testid=explorer-row]').evaluateAll((rows) =>
      rows.reduce((n, r) => n + Number(r.dataset.count), 0),
    );
    const filter = [];
    const slow = [];
    for (let i = 0; i < runs; i++) {
      // A field filter: typed, applied, the table answered.
      filter.push(
        await page.evaluate(async () => {
          const nextFrame = () => new Promise((done) => requestAnimationFrame(done));
          const input = document.querySelector('[data-testid=span-filter]');
          const t0 = performance.now();
          input.value = 'MetricName=cpu';
          input.dispatchEvent(new Event('input', { bubbles: true }));
          input.form.requestSubmit();
          while (!document.querySelector('[data-testid=span-filter-chip]')) await nextFrame();
          const t1 = await nextFrame();
          const compute = Number(document.querySelector('[data-testid=explorer-table]').dataset.exploreMs);
          document.querySelector('[data-testid=span-filter-chip] button').click();
          while (document.querySelector('[data-testid=span-filter-chip]')) await nextFrame();
          return { wall: t1 - t0, compute };
        }),
      );
      // Slow (over p99) versus typical of one of the two most frequent spans,
      // in turn (a panel is answered when it opens).
      slow.push(
        await page.evaluate(async (k) => {
          const nextFrame = () => new Promise((done) => requestAnimationFrame(done));
          const row = document.querySelectorAll('[data-testid=explorer-row]')[k % 2];
          const sel = `[data-testid=span-panel][data-name="${CSS.escape(row.dataset.name)}"] [data-testid=slow-answer]`;
          const t0 = performance.now();
          row.querySelector('[data-testid=explorer-open]').click();
          while (!document.querySelector(sel)) await nextFrame();
          const t1 = await nextFrame();
          return { wall: t1 - t0, compute: Number(document.querySelector(sel).dataset.slowMs) };
        }, i),
      );
    }
    const show = (xs, k) => `${k} p50 ${median(xs.map((x) => x[k])).toFixed(1)} ms`;
    console.log(`${copies} × demo-trace.bin: ${instances} span instances`);
    console.log(`filter MetricName=cpu: ${show(filter, 'compute')} (explore), ${show(filter, 'wall')} (to the frame showing it)`);
    console.log(`slow vs typical (p99): ${show(slow, 'compute')} (answer), ${show(slow, 'wall')} (click to the frame showing it)`);
  });
}

/** `count` segment keys in S3's (lexicographic) listing order, with sizes. */
function generateBucket(count) {
  const SERVICES = 10;
  const HOSTS = 20;
  const hosts = SERVICES * HOSTS;
  const perHost = Math.ceil(count / hosts);
  const start = Date.UTC(2026, 10, 30, 8, 0, 0) / 1000;
  const objects = [];
  for (let i = 0; i < count; i++) {
    const h = i % hosts;
    const n = Math.floor(i / hosts);
    const service = `svc-${h % SERVICES}`;
    const host = Math.floor(h / SERVICES);
    const instance = `ip-10-0-${host % 4}-${10 + host}`;
    // A restart halfway: a second boot, a minute after the first one's last segment.
    const second = n >= perHost / 2;
    const boot = `${second ? 'bbbb' : 'aaaa'}-${20000 + h}`;
    const index = second ? n - Math.ceil(perHost / 2) : n;
    const epoch = start + n * 15 + (second ? 60 : 0);
    const at = new Date(epoch * 1000);
    const date = at.toISOString().slice(0, 10);
    const time = at.toISOString().slice(11, 16).replace(':', '');
    const busy = host % 5 === 0;
    const size = (busy ? 1_000_000 : 60_000) + ((i * 7919) % 50_000);
    objects.push({
      key: `version=1/date=${date}/service=${service}/time=${time}/instance=${instance}/boot=${boot}/${epoch}-${index}.bin.gz`,
      size,
      modified: new Date((epoch + 15) * 1000).toISOString(),
      etag: `"${(i * 2654435761 >>> 0).toString(16).padStart(8, '0')}${'0'.repeat(24)}"`,
    });
  }
  return objects.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** First index of sorted `keys` at or after `key`. */
function lowerBound(keys, key) {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (keys[mid] < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Serves `objects` (sorted by key) as bucket `bench`: ListObjectsV2 with
 * prefix, delimiter (common prefixes count against max-keys, as in S3),
 * max-keys and continuation tokens, CORS for any origin.
 */
function listingServer(objects) {
  const keys = objects.map((o) => o.key);
  const xml = (s) => s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
  const srv = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://bench');
    const cors = {
      'Access-Control-Allow-Origin': req.headers.origin ?? '*',
      'Access-Control-Expose-Headers': 'ETag, Content-Length, Date, x-amz-request-id, x-amz-bucket-region',
    };
    if (url.searchParams.get('list-type') !== '2') {
      res.writeHead(404, cors);
      return res.end();
    }
    const prefix = url.searchParams.get('prefix') ?? '';
    const delimiter = url.searchParams.get('delimiter') ?? '';
    const maxKeys = Math.min(1000, Number(url.searchParams.get('max-keys') ?? 1000));
    const token = url.searchParams.get('continuation-token');
    let i = token !== null ? Number(token) : lowerBound(keys, prefix);
    const contents = [];
    const common = [];
    while (i < keys.length && keys[i].startsWith(prefix) && contents.length + common.length < maxKeys) {
      const cut = delimiter ? keys[i].indexOf(delimiter, prefix.length) : -1;
      if (cut >= 0) {
        const cp = keys[i].slice(0, cut + delimiter.length);
        common.push(`<CommonPrefixes><Prefix>${xml(cp)}</Prefix></CommonPrefixes>`);
        i = lowerBound(keys, cp + '\uffff');
      } else {
        const o = objects[i++];
        contents.push(
          `<Contents><Key>${xml(o.key)}</Key><LastModified>${o.modified}</LastModified><ETag>${o.etag.replaceAll('"', '&quot;')}</ETag><Size>${o.size}</Size><StorageClass>STANDARD</StorageClass></Contents>`,
        );
      }
    }
    const next = i < keys.length && keys[i].startsWith(prefix) ? String(i) : null;
    const body =
      '<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">' +
      `<Name>bench</Name><Prefix>${xml(prefix)}</Prefix>${delimiter ? `<Delimiter>${xml(delimiter)}</Delimiter>` : ''}` +
      `<KeyCount>${contents.length + common.length}</KeyCount><MaxKeys>${maxKeys}</MaxKeys>` +
      `<IsTruncated>${next !== null}</IsTruncated>${next !== null ? `<NextContinuationToken>${next}</NextContinuationToken>` : ''}` +
      `${contents.join('')}${common.join('')}</ListBucketResult>`;
    res.writeHead(200, { 'Content-Type': 'application/xml', 'Content-Length': Buffer.byteLength(body), Date: new Date().toUTCString(), ...cors });
    res.end(body);
  });
  return new Promise((resolve) => srv.listen(0, '127.0.0.1', () => resolve(srv)));
}

async function listing(keys, runs) {
  const objects = generateBucket(keys);
  const s3 = await listingServer(objects);
  const endpoint = `http://127.0.0.1:${s3.address().port}`;
  const results = [];
  await withBrowser(async (context, url) => {
    for (let i = 0; i < runs; i++) {
      const page = await context.newPage();
      await page.goto(url);
      await page.waitForSelector('[data-testid=s3-connect]');
      await page.waitForTimeout(1500);
      await page.evaluate(() => {
        // Main-thread tasks over 50 ms (what makes a page feel stuck), and the longest gap between frames.
        window.__long = [];
        new PerformanceObserver((list) => window.__long.push(...list.getEntries().map((e) => e.duration))).observe({ type: 'longtask' });
        window.__maxFrameGap = 0;
        let last = performance.now();
        const tick = (now) => {
          window.__maxFrameGap = Math.max(window.__maxFrameGap, now - last);
          last = now;
          if (!window.__stopFrames) requestAnimationFrame(tick);
        };
        requestAnimationFrame(tick);
      });
      await page.fill('[data-testid=s3-endpoint]', endpoint);
      await page.fill('[data-testid=s3-bucket]', 'bench');
      await page.fill('[data-testid=s3-region]', 'us-east-1');
      await page.fill('[data-testid=s3-access-key]', 'AKIDBENCHMARK');
      await page.fill('[data-testid=s3-secret-key]', 'bench-secret');
      await page.fill('[data-testid=s3-max-keys]', '1000');
      const t0 = Date.now();
      await page.click('[data-testid=s3-connect]');
      await page.locator('[data-testid=discovery][data-done=true]').waitFor({ timeout: 600_000 });
      await page.locator('[data-testid=host]').first().waitFor();
      const wallMs = Date.now() - t0;
      const status = page.locator('[data-testid=listing-status]');
      const r = {
        wallMs,
        listingMs: Number(await status.getAttribute('data-elapsed-ms')),
        workerPagesMs: Number(await status.getAttribute('data-worker-pages-ms')),
        workerSummaryMs: Number(await status.getAttribute('data-worker-summary-ms')),
        text: (await status.textContent()).trim(),
        ...(await page.evaluate(() => {
          window.__stopFrames = true;
          const long = window.__long;
          return { longTasks: long.length, longestTaskMs: Math.max(0, ...long), longTasksMs: long.reduce((a, b) => a + b, 0), maxFrameGapMs: window.__maxFrameGap };
        })),
        hostsShown: await page.locator('[data-testid=host]').count(),
      };
      results.push(r);
      console.log(
        `run ${i + 1}: ${r.text}; wall ${r.wallMs} ms to the rendered summary; worker: pages ${r.workerPagesMs.toFixed(0)} ms, ` +
          `summary ${r.workerSummaryMs.toFixed(0)} ms; main thread: ${r.longTasks} long tasks (longest ${r.longestTaskMs.toFixed(0)} ms, ` +
          `total ${r.longTasksMs.toFixed(0)} ms), longest frame gap ${r.maxFrameGapMs.toFixed(0)} ms; ${r.hostsShown} hosts shown`,
      );
      await page.close();
    }
  });
  s3.close();
  const m = (k) => median(results.map((r) => r[k])).toFixed(0);
  console.log(
    `median of ${runs} (${keys} keys, pages of 1000): wall ${m('wallMs')} ms, worker pages ${m('workerPagesMs')} ms, ` +
      `worker summary ${m('workerSummaryMs')} ms, longest main-thread task ${m('longestTaskMs')} ms, longest frame gap ${m('maxFrameGapMs')} ms`,
  );
}

async function windowBench(runs) {
  const { startServers } = await import('../tests/s3/servers.mjs');
  const { DAYS_BUCKET, prepareDaysBucket } = await import('../tests/s3/days-bucket.mjs');
  const servers = await startServers({ s3sPort: 0, frontPort: 0 });
  const s3 = servers.endpoints;
  const keys = prepareDaysBucket(s3.dataDir).length;
  const requests = async (method = 'GET') => (await fetch(`${s3.controlUrl}/requests`, { method })).json();
  const listings = async () => {
    const log = (await requests()).filter((r) => r.path.includes('list-type=2'));
    return { listings: log.length, delimited: log.filter((r) => /[?&]delimiter=/.test(r.path)).length };
  };
  console.log(`window: ${keys} keys over 30 days on the local S3 server (debug build unless S3S_FS says otherwise), ${os.cpus().length} cores`);
  const windows = [
    ['last 1 h', (page) => page.click('[data-testid=window-last-3600]')],
    ['last 24 h', (page) => page.click('[data-testid=window-last-86400]')],
    ['7 days', async (page) => {
      await page.fill('[data-testid=window-from]', '2026-11-30 00:00');
      await page.fill('[data-testid=window-to]', '2026-12-07 00:00');
      await page.click('[data-testid=window-range]');
    }],
  ];
  const rows = [];
  try {
    await withBrowser(async (context, url) => {
      for (let r = 0; r < runs; r++) {
        for (const [name, pick] of windows) {
          const page = await context.newPage();
          await page.goto(url);
          await page.waitForSelector('[data-testid=s3-connect]');
          const fields = { endpoint: s3.corsEndpoint, bucket: DAYS_BUCKET, region: s3.region, 'access-key': s3.accessKeyId, 'secret-key': s3.secretAccessKey, 'max-keys': '1000' };
          for (const [field, value] of Object.entries(fields)) await page.fill(`[data-testid=s3-${field}]`, value);
          await requests('DELETE');
          let t0 = Date.now();
          await page.click('[data-testid=s3-connect]');
          await page.locator('[data-testid=window-bar][data-awaits=true]').waitFor({ timeout: 120_000 });
          const shapeMs = Date.now() - t0;
          const shape = await listings();
          await requests('DELETE');
          const before = await page.textContent('[data-testid=window-listed]').catch(() => '');
          t0 = Date.now();
          await pick(page);
          await page.waitForFunction(
            (before) => {
              const listed = document.querySelector('[data-testid=window-listed]')?.textContent ?? '';
              const idle = document.querySelector('[data-testid=window-range]')?.disabled === false;
              return listed && listed !== before && idle && document.querySelector('[data-testid=discovery][data-done=true]');
            },
            before,
            { timeout: 300_000, polling: 'raf' },
          );
          const windowMs = Date.now() - t0;
          const listed = await listings();
          const objects = (await page.textContent('[data-testid=disc-objects]')).trim();
          rows.push({ name, shapeMs, windowMs, shape, listed, objects });
          console.log(`  page, run ${r + 1}, ${name}: shape ${shapeMs} ms (${shape.listings} listings), window ${windowMs} ms (${listed.listings} listings, ${objects} keys found)`);
          await page.close();
        }
      }
    });
    const cli = process.env.CLI ?? path.join(root, 'target/release/d9lens');
    const env = { ...process.env, AWS_ACCESS_KEY_ID: s3.accessKeyId, AWS_SECRET_ACCESS_KEY: s3.secretAccessKey, AWS_REGION: s3.region, AWS_PROFILE: '' };
    for (const last of ['1h', '24h', '7d']) {
      const times = [];
      let listed;
      for (let r = 0; r < runs; r++) {
        await requests('DELETE');
        const t0 = process.hrtime.bigint();
        // Not execFileSync: the front answering it runs in this process.
        await execFileAsync(cli, ['s3', 'ls', `s3://${DAYS_BUCKET}`, '--endpoint', s3.corsEndpoint, '--last', last, '--quiet', '--json'], { env, maxBuffer: 1 << 30 });
        times.push(Number(process.hrtime.bigint() - t0) / 1e6);
        listed = await listings();
      }
      console.log(`  CLI --last ${last}: median ${median(times).toFixed(0)} ms over ${runs} (shape and window: ${listed.listings} listings, ${listed.delimited} of them delimited)`);
    }
  } finally {
    await servers.stop();
  }
  for (const [name] of windows) {
    const of = rows.filter((row) => row.name === name);
    const m = (f) => median(of.map(f)).toFixed(0);
    console.log(
      `page median of ${runs}, ${name}: shape ${m((x) => x.shapeMs)} ms (${of[0].shape.listings} listings); ` +
        `window ${m((x) => x.windowMs)} ms (${of[0].listed.listings} listings, ${of[0].objects} keys)`,
    );
  }
}

/** Resident memory of every process of the Chromium that uses `profile`, MB (Linux /proc). */
function chromiumRssMb(profile) {
  return Object.values(chromiumRssByKind(profile)).reduce((a, b) => a + b, 0);
}

/** The RSS (MB) of the browser's processes by kind: `browser`, `renderer`, `gpu-process`, each utility service. */
function chromiumRssByKind(profile) {
  const mb = {};
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (!cmd.includes(profile)) continue;
      const kind = /--utility-sub-type=([^\s\0]+)/.exec(cmd)?.[1] ?? /--type=([^\s\0]+)/.exec(cmd)?.[1] ?? 'browser';
      const rss = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
      mb[kind] = (mb[kind] ?? 0) + (rss ? Number(rss[1]) : 0) / 1024;
    } catch {
      // gone meanwhile
    }
  }
  return mb;
}

/** The renderers' resident memory (MB): anonymous, file-backed, shared. */
function rendererRss(profile) {
  const out = { anon: 0, file: 0, shmem: 0 };
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (!cmd.includes(profile) || !cmd.includes('--type=renderer')) continue;
      const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
      for (const [k, field] of [['anon', 'RssAnon'], ['file', 'RssFile'], ['shmem', 'RssShmem']]) {
        out[k] += Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024;
      }
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/**
 * The heaps of the tab and of each of its workers (MB): its wasm memories
 * (every `WebAssembly.Memory`, found with `Runtime.queryObjects`, which
 * collects garbage first: only after a run) and its JS heap in use. Wasm
 * memory never shrinks, so after a run it is each heap's peak.
 */
async function heaps(tab, wasm) {
  const of = async (send, withWasm) => {
    const use = await send('Runtime.getHeapUsage');
    const heap = { js: use.usedSize / 2 ** 20, wasm: NaN };
    if (withWasm) {
      const { result } = await send('Runtime.evaluate', { expression: 'WebAssembly.Memory.prototype' });
      const { objects } = await send('Runtime.queryObjects', { prototypeObjectId: result.objectId });
      const sum = await send('Runtime.callFunctionOn', {
        objectId: objects.objectId,
        functionDeclaration: 'function () { return this.reduce((a, m) => a + m.buffer.byteLength, 0); }',
        returnByValue: true,
      });
      heap.wasm = sum.result.value / 2 ** 20;
    }
    return heap;
  };
  const show = (h) => (Number.isNaN(h.wasm) ? `JS ${h.js.toFixed(0)}` : `wasm ${h.wasm.toFixed(0)} + JS ${h.js.toFixed(0)}`);
  // The page's wasm memory is not summed: `Runtime.queryObjects` crashes
  // Chromium's renderer (156: SIGSEGV) in any realm where a wasm module
  // exports a funcref table, as the page's main module does once split
  // (scripts/build-page.sh). It shows in the renderer's RSS.
  const page = await of((method, params) => tab.send(method, params), false);
  const workers = [];
  for (const id of tab.workers) workers.push(await of((method, params) => tab.browser.send(method, params, id), wasm));
  return `page ${show(page)}; workers ${workers.map(show).join(', ')}`;
}

/**
 * A fleet from S3 (issue 18): COUNT busy segments (the fixture bucket's
 * ~1 MB ones, copied round-robin) under 20 hosts of one service in v1 keys,
 * as scripts/bench-fleet.sh lays them out, served by the local S3 server
 * (real SigV4 checks), which answers CORS itself as S3 does: the tests' CORS
 * front, a proxy in JavaScript, would take its share of the same two cores
 * and be measured with the page (VIA_FRONT=1 goes through it, to compare).
 * The page connects, lists them,
 * samples all COUNT and analyzes: time to the first report (interim) and to
 * the whole one after the click, and Chromium's memory (every process of
 * the browser, RSS summed, sampled every 100 ms) before and at its peak,
 * with the renderer's share and its heaps.
 *
 * Chromium runs without Playwright (scripts/bare-chromium.mjs): Playwright's
 * network instrumentation keeps every downloaded body in the renderer.
 */
async function fleet(count, runs) {
  const { startServers } = await import('../tests/s3/servers.mjs');
  const { BareChromium } = await import('./bare-chromium.mjs');
  const servers = await startServers({ s3sPort: 0, frontPort: 0, s3sCors: ['*'] });
  const s3 = servers.endpoints;
  const endpoint = process.env.VIA_FRONT ? s3.corsEndpoint : s3.plainEndpoint;
  const busy = [];
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.bin.gz') && fs.statSync(p).size > 500_000) busy.push(p);
    }
  };
  if (process.env.FILE) busy.push(path.resolve(root, process.env.FILE));
  else walk(path.join(root, 'tests/fixtures/s3-bucket'));
  busy.sort();
  let gz = 0;
  for (let i = 0; i < count; i++) {
    const [host, seg] = [i % 20, Math.floor(i / 20)];
    // A segment every 15 s per host; date= and time= are its start's, as
    // dial9's uploader writes them (so key order is time order).
    const ts = 1796047535 + 15 * seg;
    const [date, hhmm] = new Date(ts * 1000).toISOString().replace(/:/g, '').split('T');
    const dir = path.join(s3.dataDir, s3.bucket, 'fleet', 'version=1', `date=${date}`, 'service=checkout-api', `time=${hhmm.slice(0, 4)}`, `instance=ip-10-0-9-${host}`, `boot=fleet-${host}`);
    fs.mkdirSync(dir, { recursive: true });
    const to = path.join(dir, `${ts}-${seg}.bin.gz`);
    fs.copyFileSync(busy[i % busy.length], to);
    gz += fs.statSync(to).size;
  }
  console.log(`fleet: ${count} segments, ${(gz / 1e6).toFixed(1)} MB gzip, ${os.cpus().length} cores`);
  // The window sampled, as the page's fields take it (UTC); the CLI's run below takes the same.
  const [from, to] = ['2026-11-30 00:00:00', '2026-12-01 00:00:00'];
  const cliTime = (t) => `${t.replace(' ', 'T')}Z`;
  const site = await serveDir(path.resolve(process.env.D9LENS_DIST ?? path.join(root, 'dist')));
  try {
    const cli = process.env.CLI ?? path.join(root, 'target/release/d9lens');
    for (let r = 0; r < runs; r++) {
      let wholeMs;
      const browser = await BareChromium.launch();
      try {
        const { profile } = browser;
        const tab = await browser.open(`http://127.0.0.1:${site.address().port}/`);
        await tab.waitFor(() => document.querySelector('[data-testid=s3-connect]'));
        await tab.evaluate(async () => Promise.all((await caches.keys()).map((k) => caches.delete(k))));
        const fields = { endpoint, bucket: s3.bucket, region: s3.region, 'access-key': s3.accessKeyId, 'secret-key': s3.secretAccessKey, prefix: 'fleet/', 'max-keys': '1000' };
        for (const [field, value] of Object.entries(fields)) await tab.fill(`[data-testid=s3-${field}]`, value);
        await tab.click('[data-testid=s3-connect]');
        await tab.waitFor(() => document.querySelector('[data-testid=discovery][data-done=true]'), null, 120_000);
        await tab.click('[data-testid=mode-sample]');
        await tab.waitFor(() => document.querySelector('[data-testid=sel-sample-n]'));
        await tab.fill('[data-testid=sel-from]', from);
        await tab.fill('[data-testid=sel-to]', to);
        await tab.fill('[data-testid=sel-sample-n]', String(count));
        await tab.waitFor((n) => {
          const el = document.querySelector('[data-testid=selection-summary]');
          return el?.getAttribute('data-resolved') === 'true' && el.getAttribute('data-count') === String(n);
        }, count);
        await new Promise((resolve) => setTimeout(resolve, 1000));
        const before = chromiumRssMb(profile);
        const kindsBefore = chromiumRssByKind(profile);
        const rendererBefore = rendererRss(profile);
        console.log(`  heaps before (MB): ${await heaps(tab, true)}`);
        let peak = before;
        let kindsAtPeak = kindsBefore;
        let rendererAtPeak = rendererBefore;
        const sampler = setInterval(() => {
          const kinds = chromiumRssByKind(profile);
          const total = Object.values(kinds).reduce((a, b) => a + b, 0);
          if (total > peak) [peak, kindsAtPeak, rendererAtPeak] = [total, kinds, rendererRss(profile)];
        }, 100);
        await tab.evaluate(() => {
          window.__first = window.__whole = undefined;
          // The page's thread as a user feels it: every task over 50 ms
          // (a frame the page could not paint, an input it could not take).
          window.__long = [];
          new PerformanceObserver((list) => window.__long.push(...list.getEntries().map((e) => e.duration))).observe({ type: 'longtask' });
          // Once a frame, yet cheap: an attribute selector walks the whole
          // page (the report, the progress rows), so elements found are kept
          // while they stay in the page.
          const found = {};
          const find = (key, selector) => (found[key]?.isConnected ? found[key] : (found[key] = document.querySelector(selector)));
          const check = () => {
            const report = find('report', '[data-testid=report]');
            if (report && window.__first === undefined) window.__first = performance.now();
            const progress = find('progress', '[data-testid=report-progress]');
            const done = progress && progress.getAttribute('role') !== 'status';
            if (report && done && !report.hasAttribute('data-partial')) window.__whole = performance.now();
            else requestAnimationFrame(check);
          };
          document.querySelector('[data-testid=s3-analyze]').addEventListener('click', () => ((window.__click = performance.now()), requestAnimationFrame(check)), { capture: true });
        });
        await tab.send('Performance.enable');
        const busy = async () => Object.fromEntries((await tab.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
        const busyBefore = await busy();
        // The page's thread, then every worker's (each its own session).
        const threads = [['', (m, p) => tab.send(m, p)], ...tab.workers.map((w, i) => [`.worker-${i}`, (m, p) => browser.send(m, p, w)])];
        if (process.env.PROFILE) {
          for (const [, send] of threads) await send('Profiler.enable').then(() => send('Profiler.setSamplingInterval', { interval: 500 })).then(() => send('Profiler.start'));
        }
        const t0 = Date.now();
        await tab.click('[data-testid=s3-analyze]');
        await tab.waitFor(() => window.__whole, null, 600_000);
        clearInterval(sampler);
        const busyAfter = await busy();
        if (process.env.PROFILE) {
          for (const [suffix, send] of threads) {
            const { profile: cpu } = await send('Profiler.stop');
            fs.writeFileSync(process.env.PROFILE.replace(/(\.cpuprofile)?$/, `${suffix}$1`), JSON.stringify(cpu));
          }
        }
        const spent = (k) => `${k} ${((busyAfter[k] - busyBefore[k]) * 1000).toFixed(0)} ms`;
        console.log(`  the page's main thread: ${['TaskDuration', 'ScriptDuration', 'LayoutDuration', 'RecalcStyleDuration'].map(spent).join(', ')}; layouts ${busyAfter.LayoutCount - busyBefore.LayoutCount}`);
        const long = await tab.evaluate(() => window.__long);
        long.sort((a, b) => b - a);
        console.log(`  its long tasks (> 50 ms): ${long.length}, ${long.reduce((a, b) => a + b, 0).toFixed(0)} ms in all, the longest ${long.slice(0, 5).map((d) => d.toFixed(0)).join(' / ')} ms`);
        const [first, whole, merged, perFile] = await tab.evaluate(() => [
          window.__first - window.__click,
          window.__whole - window.__click,
          document.querySelector('[data-testid=report-progress]').getAttribute('data-merged'),
          // The workers' own time per file (download excluded), against the wall.
          [...document.querySelectorAll('[data-testid=progress-row][data-analysis-ms]')].map((row) => Number(row.dataset.analysisMs)),
        ]);
        // A number is only worth reading if every file was analyzed.
        const failures = await tab.evaluate(() => {
          const why = {};
          for (const e of document.querySelectorAll('[data-testid=error]')) {
            const text = e.textContent.replace(/[0-9]+/g, 'N').slice(0, 300);
            why[text] = (why[text] ?? 0) + 1;
          }
          return why;
        });
        if (Object.keys(failures).length) console.log(`  failed files, by reason: ${JSON.stringify(failures)}`);
        perFile.sort((a, b) => a - b);
        const workerSum = perFile.reduce((a, b) => a + b, 0);
        console.log(
          `run ${r + 1}: first report ${first.toFixed(0)} ms after the click, whole report (${merged} files merged) ${whole.toFixed(0)} ms ` +
            `(${((gz / 1e6) / (whole / 1000)).toFixed(1)} MB gzip/s); Chromium ${before.toFixed(0)} MB before, peak ${peak.toFixed(0)} MB ` +
            `(+${(peak - before).toFixed(0)} MB); wall ${Date.now() - t0} ms; the workers' analysis per file (${perFile.length} listed rows): median ` +
            `${perFile[perFile.length >> 1]?.toFixed(0)} ms, ${(workerSum / 1000).toFixed(1)} s in all`,
        );
        const growth = Object.entries(kindsAtPeak)
          .map(([kind, mb]) => [kind, mb - (kindsBefore[kind] ?? 0)])
          .filter(([, mb]) => Math.abs(mb) >= 5)
          .sort((a, b) => b[1] - a[1]);
        console.log(`  growth at the peak by process: ${growth.map(([k, mb]) => `${k} ${mb >= 0 ? '+' : ''}${mb.toFixed(0)} MB`).join(', ')}`);
        const delta = (k) => `${k} ${(rendererAtPeak[k] - rendererBefore[k]).toFixed(0)}`;
        console.log(`  the renderer's growth (MB): ${['anon', 'file', 'shmem'].map(delta).join(', ')}; heaps after (MB): ${await heaps(tab, true)}`);
        wholeMs = whole;
        if (process.env.WARM) {
          // The same selection again in the same tab: what the segment cache saves.
          await tab.evaluate(() => (window.__first = window.__whole = undefined));
          const warmBefore = await busy();
          await tab.click('[data-testid=s3-analyze]');
          await tab.waitFor(() => window.__whole, null, 600_000);
          const warmAfter = await busy();
          const [again, cached] = await tab.evaluate(() => [
            window.__whole - window.__click,
            document.querySelector('[data-testid=retrieval-progress]')?.getAttribute('data-cached'),
          ]);
          const task = ((warmAfter.TaskDuration - warmBefore.TaskDuration) * 1000).toFixed(0);
          console.log(`  again (WARM): whole report ${again.toFixed(0)} ms, ${cached} files from the cache; the page's main thread ${task} ms`);
        }
      } finally {
        await browser.close();
      }
      // The issue's measure is a ratio, and this machine's speed drifts:
      // the CLI runs on the same files (as a directory) right after.
      if (fs.existsSync(cli)) {
        const t = performance.now();
        execFileSync(cli, ['analyze', path.join(s3.dataDir, s3.bucket, 'fleet')], { stdio: 'ignore' });
        const cliMs = performance.now() - t;
        console.log(`  the CLI on the same files, right after: ${cliMs.toFixed(0)} ms; the page's throughput ${((100 * cliMs) / wholeMs).toFixed(0)}% of the CLI's`);
        // The page's own job for the CLI: the same selection listed and
        // downloaded from the same S3 server, sharing these cores with it.
        const t2 = performance.now();
        const out = execFileSync(
          cli,
          ['s3', 'analyze', `s3://${s3.bucket}/fleet/`, '--endpoint', endpoint, '--region', s3.region, '--from', cliTime(from), '--to', cliTime(to), '--sample', String(count), '--json'],
          { env: { ...process.env, AWS_ACCESS_KEY_ID: s3.accessKeyId, AWS_SECRET_ACCESS_KEY: s3.secretAccessKey }, stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 1 << 30 },
        );
        const s3Ms = performance.now() - t2;
        const files = JSON.parse(out).files?.length ?? '?';
        console.log(`  the CLI from the same S3 server (${files} files), right after: ${s3Ms.toFixed(0)} ms; the page's throughput ${((100 * s3Ms) / wholeMs).toFixed(0)}% of it`);
      } else console.log(`  (no ${cli}: \`cargo build --release -p d9lens-cli\` for the CLI's time beside the page's)`);
    }
  } finally {
    site.close();
    await servers.stop();
  }
}

if (mode === 'demo') await demo(Number(args[0] ?? 5));
else if (mode === 'fleet') await fleet(Number(args[0] ?? 240), Number(args[1] ?? 1));
else if (mode === 'listing') await listing(Number(args[0] ?? 100_000), Number(args[1] ?? 3));
else if (mode === 'timeline') await timelineBench(Number(args[0] ?? 10), Number(args[1] ?? 200));
else if (mode === 'flame') await flameBench(Number(args[0] ?? 15), Number(args[1] ?? 100));
else if (mode === 'explorer') await explorerBench(Number(args[0] ?? 2), Number(args[1] ?? 5));
else if (mode === 'window') await windowBench(Number(args[0] ?? 3));
else {
  console.error('usage: node scripts/bench-browser.mjs demo [RUNS] | listing [KEYS] [RUNS] | timeline [COPIES] [STEPS] | flame [COPIES] [STEPS] | fleet [COUNT] [RUNS] | explorer [COPIES] [RUNS] | window [RUNS]');
  process.exit(2);
}
