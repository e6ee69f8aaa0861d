// End-to-end: the flamegraphs of the built page in headless Chromium — the
// blocking flamegraph's search against the text report's share, blocking
// calls named by the application frame, the on-CPU root against the report's
// sample count, zoom and breadcrumbs from the keyboard, and the folded download.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { REPORT_TIMEOUT, assertClean, fixtures, openPage as open, out, root, shot, startBrowser } from './browser.mjs';

let browser;

before(async () => {
  browser = await startBrowser();
});

after(async () => {
  await browser?.close();
});

const openPage = (url = browser.baseUrl) => open(browser.context, url);
const cli = (...args) => execFileSync(path.join(root, 'target/debug/d9lens'), args, { maxBuffer: 1 << 28 }).toString();

/** How many distinct colours a canvas shows (sampled). */
const colours = (canvas) =>
  canvas.evaluate((c) => {
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    const seen = new Set();
    for (let i = 0; i < d.length; i += 4 * 53) seen.add(`${d[i]},${d[i + 1]},${d[i + 2]}`);
    return seen.size;
  });

test('blocking.bin: the search finds legacy_sync_lookup with the text report share', { timeout: 180_000 }, async () => {
  const { page, problems } = await openPage();
  await page.setInputFiles('[data-testid=file-input]', path.join(fixtures, 'blocking.bin'));
  const flame = page.locator('[data-testid=section-flamegraph]');
  await flame.waitFor({ timeout: REPORT_TIMEOUT });
  await flame.locator('[data-testid=flame-kind][data-kind=blocking]').click();
  const canvas = flame.locator('[data-testid=flame-canvas]');
  await page.waitForFunction(() => document.querySelector('[data-testid=section-flamegraph] [data-testid=flame-canvas]').dataset.kind === 'blocking');
  // The text report names the group by the function and gives its share.
  const text = cli('analyze', path.join(fixtures, 'blocking.bin'));
  const byCall = text.split('\n').findIndex((l) => l.includes('IN-POLL blocking by call'));
  const line = text.split('\n')[byCall + 1];
  assert.match(line, /samples \(.*\) — legacy_sync_lookup workload\.rs:108$/, 'the top group is legacy_sync_lookup');
  const [, count, share] = line.match(/(\d+) samples \(([\d.]+)%/);
  assert.equal(await canvas.getAttribute('data-root-total'), '143');
  await flame.locator('[data-testid=flame-search]').fill('legacy_sync_lookup');
  const match = flame.locator('[data-testid=flame-match]');
  await match.waitFor();
  assert.equal(await match.getAttribute('data-weight'), count);
  assert.match(await match.innerText(), new RegExp(`^${count} of 143 samples \\(${share.replace('.', '\\.')}%\\)`));
  assert.ok((await colours(canvas)) > 4);
  await shot(page, flame, 'flamegraph-blocking.png');
  // The blocking section names each group by the call that blocked, never a kernel address.
  const calls = await page.locator('[data-testid=section-blocking] [data-testid=blocking-call]').evaluateAll((rows) =>
    rows.map((r) => [...r.querySelectorAll('td')].map((td) => td.innerText.trim())),
  );
  const lookup = calls[0];
  assert.equal(lookup[4], 'legacy_sync_lookup workload.rs:108', 'the top group is named by the function');
  assert.deepEqual([lookup[1], lookup[3]], [count, `${share}%`]);
  assert.ok(calls.every((c) => !/^0x/.test(c[4])), JSON.stringify(calls));
  await assertClean(page, problems);
  await page.close();
});

test('the demo: the on-CPU root is every on-CPU sample; zoom and breadcrumbs by keyboard', { timeout: 180_000 }, async () => {
  const { page, problems } = await openPage();
  await page.click('[data-testid=open-demo]');
  const flame = page.locator('[data-testid=section-flamegraph]');
  await flame.waitFor({ timeout: REPORT_TIMEOUT });
  const report = JSON.parse(cli('analyze', path.join(fixtures, 'demo-trace.bin'), '--json'));
  // The distributions: every poll and every scheduling delay in a bar, and in its table.
  const polls = report.workers.reduce((s, w) => s + w.pollCount, 0);
  const chart = page.locator('[data-testid=section-distributions] [data-testid=chart][data-kind=polls]');
  assert.equal(await chart.getAttribute('data-total'), String(polls));
  assert.match(await chart.locator('svg').getAttribute('aria-label'), new RegExp(`^Poll duration: ${polls} values from `));
  const tableSum = (await chart.locator('td.num').allTextContents()).reduce((s, t) => s + Number(t), 0);
  assert.equal(tableSum, polls);
  assert.equal(
    await page.locator('[data-testid=section-distributions] [data-testid=chart][data-kind=delays]').getAttribute('data-total'),
    String(report.schedDelays.count),
  );
  // Worker load over time: a row per worker lane.
  assert.equal(await page.locator('[data-testid=chart][data-kind=load]').getAttribute('data-lanes'), '4');
  await shot(page, page.locator('[data-testid=section-distributions]'), 'distributions.png');
  // The worst long poll's own flamegraph: its 305 off-CPU samples.
  const row = page.locator('[data-testid=section-long-polls] tbody.poll').first();
  await row.locator('summary', { hasText: 'flamegraph of these samples' }).click();
  const pollFlame = row.locator('[data-testid=poll-flamegraph] [data-testid=flame-canvas]');
  await pollFlame.waitFor();
  assert.equal(await pollFlame.getAttribute('data-kind'), 'blocking');
  assert.equal(await pollFlame.getAttribute('data-root-total'), String(report.longPolls.worst[0].schedSamples.length));
  const canvas = flame.locator('[data-testid=flame-canvas]');
  assert.equal(await canvas.getAttribute('data-kind'), 'on-cpu');
  assert.equal(await canvas.getAttribute('data-root-total'), String(report.summary.onCpuSampleCount));
  assert.ok((await colours(canvas)) > 5);
  const crumbs = flame.locator('[data-testid=flame-crumb]');
  assert.equal(await crumbs.count(), 1);
  assert.equal(await canvas.getAttribute('data-focus'), 'all');
  // Walk down twice, zoom in, and the path grows by two.
  await canvas.focus();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  const picked = await flame.locator('[data-testid=flame-selected] strong').innerText();
  await page.keyboard.press('Enter');
  const focusOf = '[data-testid=section-flamegraph] [data-testid=flame-canvas]';
  await page.waitForFunction(([sel, t]) => document.querySelector(sel).dataset.focus === t, [focusOf, picked]);
  assert.equal(await crumbs.count(), 3);
  assert.equal(await crumbs.last().innerText(), picked);
  await shot(page, flame, 'flamegraph-demo.png');
  // The sandwich of the selected frame: its callers and callees weigh what it does.
  await flame.locator('[data-testid=flame-sandwich]').click();
  const callers = flame.locator('[data-testid=flame-callers]');
  await callers.waitFor();
  const weight = Number(await callers.getAttribute('data-root-total'));
  assert.ok(weight > 0 && weight <= report.summary.onCpuSampleCount, `${weight}`);
  assert.equal(await flame.locator('[data-testid=flame-callees]').getAttribute('data-root-total'), String(weight));
  assert.ok((await colours(callers)) > 2);
  await canvas.focus();
  // Escape zooms out one level; the first crumb goes back to the whole graph.
  await page.keyboard.press('Escape');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=section-flamegraph] [data-testid=flame-crumb]').length === 2);
  await crumbs.first().focus();
  await page.keyboard.press('Enter');
  await page.waitForFunction((sel) => document.querySelector(sel).dataset.focus === 'all', focusOf);
  // Hovering a frame says its share.
  const box = await canvas.boundingBox();
  await page.mouse.move(box.x + box.width / 2, box.y + 27);
  assert.match(await flame.locator('[data-testid=flame-tooltip]').innerText(), /total \d+ samples \([\d.]+%\)/);
  // The folded download weighs what the graph does.
  const [download] = await Promise.all([page.waitForEvent('download'), flame.locator('[data-testid=flame-download]').click()]);
  const folded = fs.readFileSync(await download.path(), 'utf8');
  const sum = folded.trim().split('\n').reduce((s, l) => s + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
  assert.equal(sum, report.summary.onCpuSampleCount);
  assert.equal(download.suggestedFilename(), 'on-cpu.folded.txt');
  // Allocation sites are named by the code that allocated, not by the allocator's frames.
  const sites = await page.locator('[data-testid=section-memory] [data-testid=alloc-site]').evaluateAll((l) => l.map((s) => s.dataset.by));
  assert.ok(sites.length > 0);
  assert.ok(sites.every((by) => by && !/alloc/i.test(by)), sites.join('\n'));
  await assertClean(page, problems);
  await page.close();
});

test('two windows of the demo: each reported as the CLI does, then compared', { timeout: 240_000 }, async () => {
  const demo = path.join(fixtures, 'demo-trace.bin');
  const { page, problems } = await openPage(`${browser.baseUrl}#demo&tw=0-2000000000`);
  const note = page.locator('[data-testid=window-sections]');
  await note.waitFor({ timeout: REPORT_TIMEOUT });
  // Every section now reads the window: as `d9lens analyze --window 0..2000`.
  const a = JSON.parse(cli('analyze', demo, '--window', '0..2000', '--json'));
  const utilization = (p) =>
    p.locator('[data-testid=section-workers] [data-testid=worker-row]').evaluateAll((rows) =>
      rows.map((r) => [Number(r.dataset.worker), r.querySelector('[data-testid=worker-utilization]').innerText]),
    );
  assert.deepEqual(await utilization(page), a.workers.map((w) => [w.worker, `${(w.utilization * 100).toFixed(1)}%`]));
  const flame = page.locator('[data-testid=section-flamegraph] [data-testid=flame-canvas]');
  assert.equal(await flame.getAttribute('data-root-total'), String(a.summary.onCpuSampleCount));
  await page.locator('[data-testid=set-baseline]').click();
  await page.locator('[data-testid=baseline-kept]').waitFor();
  // Brush another window: the sections compare it with the first.
  const canvas = page.locator('.tl-canvas');
  await canvas.scrollIntoViewIfNeeded();
  const box = await canvas.boundingBox();
  await page.keyboard.down('Shift');
  await page.mouse.move(box.x + box.width * 0.5, box.y + 40);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.8, box.y + 40, { steps: 4 });
  await page.mouse.up();
  await page.keyboard.up('Shift');
  await page.waitForFunction(() => !location.hash.includes('tw=0-2000000000') && /tw=\d+-\d+/.test(location.hash));
  const [, b0, b1] = page.url().match(/tw=(\d+)-(\d+)/).map(Number);
  const compare = page.locator('[data-testid=compare]');
  await compare.waitFor({ timeout: REPORT_TIMEOUT });
  const want = JSON.parse(
    cli('compare', demo, '--window', '0..2000', '--', demo, '--window', `${b0 / 1e6}..${b1 / 1e6}`, '--json'),
  );
  const names = await compare.locator('[data-testid=compare-figure]').evaluateAll((rows) => rows.map((r) => r.dataset.name));
  assert.deepEqual(names, want.figures.map((f) => f.name));
  assert.ok(names.length > 5);
  const diff = page.locator('[data-testid=compare-flamegraph] [data-testid=flame-canvas]');
  await diff.waitFor();
  assert.ok((await colours(diff)) > 3);
  await shot(page, compare, 'compare-windows.png');
  await assertClean(page, problems);
  await page.close();
});

test('keeping healthy.bin as A, blocking.bin compares against it', { timeout: 240_000 }, async () => {
  const { page, problems } = await openPage();
  await page.setInputFiles('[data-testid=file-input]', path.join(fixtures, 'healthy.bin'));
  await page.locator('[data-testid=set-baseline]').click({ timeout: REPORT_TIMEOUT });
  await page.locator('[data-testid=baseline-kept]').waitFor();
  await page.setInputFiles('[data-testid=file-input]', path.join(fixtures, 'blocking.bin'));
  const compare = page.locator('[data-testid=compare]');
  await compare.waitFor({ timeout: REPORT_TIMEOUT });
  // The same table as `d9lens compare healthy.bin -- blocking.bin --json`.
  const want = JSON.parse(cli('compare', path.join(fixtures, 'healthy.bin'), '--', path.join(fixtures, 'blocking.bin'), '--json'));
  const names = await compare.locator('[data-testid=compare-figure]').evaluateAll((rows) => rows.map((r) => r.dataset.name));
  assert.deepEqual(names, want.figures.map((f) => f.name));
  assert.equal(names[0], 'span legacy_sync_lookup p99');
  const onlyB = await compare.locator('[data-testid=compare-only-b] li').allInnerTexts();
  assert.equal(onlyB.length, want.findingsOnlyInB.length);
  assert.match(onlyB[0], /^long-poll Poll of /);
  // The differential flamegraph: B's blocking samples, legacy_sync_lookup new in B.
  const diff = page.locator('[data-testid=compare-flamegraph]');
  await diff.locator('[data-testid=flame-kind][data-kind=blocking]').click();
  const canvas = diff.locator('[data-testid=flame-canvas]');
  await page.waitForFunction(() => document.querySelector('[data-testid=compare-flamegraph] [data-testid=flame-canvas]').dataset.kind === 'blocking');
  assert.equal(await canvas.getAttribute('data-root-total'), '143');
  assert.ok((await colours(canvas)) > 3);
  await diff.locator('[data-testid=flame-search]').fill('legacy_sync_lookup');
  assert.equal(await diff.locator('[data-testid=flame-match]').getAttribute('data-weight'), '36');
  await diff.locator('[data-testid=flame-search]').fill('');
  await shot(page, page.locator('[data-testid=compare]'), 'compare-table.png');
  await shot(page, diff, 'compare-flamegraph.png');
  await assertClean(page, problems);
  await page.close();
});

test('the Chrome trace the page exports is the one the CLI writes', { timeout: 180_000 }, async () => {
  const { page, problems } = await openPage();
  const file = path.join(fixtures, 'blocking.bin');
  await page.setInputFiles('[data-testid=file-input]', file);
  await page.locator('[data-testid=timeline]').waitFor({ timeout: REPORT_TIMEOUT });
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=export-chrome]')]);
  assert.equal(download.suggestedFilename(), 'd9lens-trace.json');
  const got = fs.readFileSync(await download.path(), 'utf8');
  assert.equal(got, cli('export', file, '--format', 'chrome'));
  // Polls per worker, and the wakes as arrows between them.
  const events = JSON.parse(got).traceEvents;
  assert.ok(events.filter((e) => e.ph === 's').length > 100);
  assert.ok(events.filter((e) => e.ph === 'X' && e.cat === 'poll').length > 1000);
  await assertClean(page, problems);
  await page.close();
});

test('the report exports as Markdown and as one HTML file that opens with no server', { timeout: 180_000 }, async () => {
  const { page, problems } = await openPage();
  await page.setInputFiles('[data-testid=file-input]', path.join(fixtures, 'hostile-names.bin'));
  await page.locator('[data-testid=overview]').waitFor({ timeout: REPORT_TIMEOUT });
  const saved = async (testid) => {
    const [download] = await Promise.all([page.waitForEvent('download'), page.click(`[data-testid=${testid}]`)]);
    return { path: await download.path(), name: download.suggestedFilename() };
  };
  const md = await saved('export-markdown');
  assert.equal(md.name, 'd9lens-report.md');
  const text = fs.readFileSync(md.path, 'utf8');
  assert.equal(text, cli('export', path.join(fixtures, 'hostile-names.bin'), '--format', 'markdown'));
  const html = await saved('export-html');
  const body = fs.readFileSync(html.path, 'utf8');
  assert.ok(!body.includes('<img') && body.includes('&lt;img src=x'));
  // Opened from disk: it renders, and nothing in it runs.
  const file = path.join(out, 'hostile-report.html');
  fs.copyFileSync(html.path, file);
  const opened = await browser.context.newPage();
  await opened.goto(`file://${file}`);
  assert.equal(await opened.title(), 'd9lens report: hostile-names.bin');
  assert.match(await opened.locator('pre').innerText(), /<img src=x onerror="window.__pwned=1">/);
  assert.equal(await opened.evaluate(() => window.__pwned), undefined);
  await opened.close();
  await assertClean(page, problems);
  await page.close();
});
