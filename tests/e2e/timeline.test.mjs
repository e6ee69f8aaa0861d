// End-to-end: the timeline of the built page in headless Chromium — lanes
// of the demo trace, "show on timeline" from findings and long polls, the
// poll detail, links that reopen the same moment, the brushed window against
// `d9lens zoom`, keyboard navigation, and trace strings that are markup.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { REPORT_TIMEOUT, assertClean, fixtures, openPage as open, out, root, startBrowser } from './browser.mjs';

let browser;

before(async () => {
  browser = await startBrowser();
});

after(async () => {
  await browser?.close();
});

const openPage = (url = browser.baseUrl) => open(browser.context, url);

/** `d9lens zoom FILE CENTER_MS HALF_MS --json`, by the CLI the tests built. */
function cliZoom(file, centerMs, halfMs) {
  const bin = path.join(root, 'target/debug/d9lens');
  const json = execFileSync(bin, ['zoom', path.join(fixtures, file), String(centerMs), String(halfMs), '--json']);
  return JSON.parse(json);
}

async function openDemo() {
  const opened = await openPage();
  await opened.page.click('[data-testid=open-demo]');
  await opened.page.locator('[data-testid=timeline]').waitFor({ timeout: REPORT_TIMEOUT });
  return opened;
}

const windowOf = async (page) => {
  const t = page.locator('[data-testid=timeline]');
  return [Number(await t.getAttribute('data-window-start')), Number(await t.getAttribute('data-window-end'))];
};

test('the demo trace shows 4 worker lanes in 2 runtimes', { timeout: 180_000 }, async () => {
  const { page, problems } = await openDemo();
  const lanes = page.locator('[data-testid=timeline-lane]');
  assert.equal(await lanes.count(), 4);
  const workers = await lanes.evaluateAll((ls) => ls.map((l) => [l.dataset.runtime, l.dataset.worker]));
  assert.deepEqual(workers, [['io', '2'], ['io', '3'], ['default', '0'], ['default', '1']]);
  assert.equal(new Set(workers.map((w) => w[0])).size, 2);
  // Something was drawn: the canvas is not one flat colour.
  const colours = await page.locator('.tl-canvas').evaluate((c) => {
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    const seen = new Set();
    for (let i = 0; i < d.length; i += 4 * 97) seen.add(`${d[i]},${d[i + 1]},${d[i + 2]}`);
    return seen.size;
  });
  assert.ok(colours > 5, `${colours} colours on the canvas`);
  // The counter rows' bars, put as pixels: the counter blue at 55% over the lane's white.
  const bars = await page.locator('.tl-canvas').evaluate((c) => {
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    const near = (i, [r, g, b]) => Math.abs(d[i] - r) <= 1 && Math.abs(d[i + 1] - g) <= 1 && Math.abs(d[i + 2] - b) <= 1;
    for (let i = 0; i < d.length; i += 4) n += near(i, [141, 176, 240]) ? 1 : 0;
    return n;
  });
  assert.ok(bars > 1000, `${bars} pixels of counter bars`);
  await page.locator('[data-testid=timeline]').screenshot({ path: path.join(out, 'timeline-demo.png') });
  // The report's head and its timeline, as the README shows them.
  await page.evaluate(() => window.scrollTo(0, document.querySelector('[data-testid=overview]').getBoundingClientRect().top + window.scrollY - 72));
  await page.screenshot({ path: path.join(out, 'report-head.png') });
  await assertClean(page, problems);
  await page.close();
});

test('the long-poll flag shows its poll, and the link reopens it', { timeout: 240_000 }, async () => {
  const { page, problems } = await openDemo();
  await page.locator('[data-testid=section-red-flags] [data-testid=show-on-timeline]').first().click();
  const detail = page.locator('[data-testid=poll-detail]');
  await detail.waitFor();
  assert.equal(await detail.getAttribute('data-task'), '9');
  assert.equal(await detail.getAttribute('data-worker'), '1');
  assert.match(await detail.innerText(), /Poll of 32\.33ms · task 9 · worker 1/);
  assert.match(await page.locator('[data-testid=poll-detail-loc]').innerText(), /examples\/metrics-service\/src\/main\.rs:334:14$/);
  await page.locator('[data-testid=poll-diagnosis]').waitFor({ timeout: 60_000 });
  // Kernel addresses fold into one entry; the frames after it say what blocked.
  assert.match(await page.locator('[data-testid=poll-diagnosis]').innerText(), /\[kernel\] \(26 frames\)\s+getdents64[\s\S]*load_pem_certs_from_dir/);
  assert.match(await page.locator('[data-testid=task-history]').innerText(), /polled \d+ time\(s\)/);
  // Zoomed to the poll: its 32.33 ms take a good part of the window.
  const [a, b] = await windowOf(page);
  assert.ok(b - a < 4 * 32_334_125 && b - a > 32_334_125, `window ${a}–${b}`);
  const url = page.url();
  assert.match(url, /#demo&tv=\d+-\d+&tp=1~\d+~demo-trace\.bin/);
  await page.locator('[data-testid=timeline]').screenshot({ path: path.join(out, 'timeline-long-poll.png') });
  // Between its polls, the await its task dump names.
  await detail.locator('summary', { hasText: 'what it awaited between them' }).click();
  const awaits = await detail.locator('[data-testid=awaiting]').allInnerTexts();
  assert.ok(awaits.some((a) => /\.rs:\d+/.test(a)), `awaits ${JSON.stringify(awaits)}`);
  // The task's own flamegraph, and its spawn location's, which holds it.
  await detail.locator('summary', { hasText: "flamegraph of task 9's polls" }).click();
  const task = detail.locator('[data-testid=task-flamegraph] [data-testid=flame-canvas]');
  await task.waitFor();
  await detail.locator('summary', { hasText: 'flamegraph of the polls of every task spawned there' }).click();
  const spawn = detail.locator('[data-testid=spawn-flamegraph] [data-testid=flame-canvas]');
  await spawn.waitFor();
  assert.equal(await spawn.getAttribute('data-kind'), await task.getAttribute('data-kind'));
  const taskTotal = Number(await task.getAttribute('data-root-total'));
  assert.ok(taskTotal > 0 && Number(await spawn.getAttribute('data-root-total')) >= taskTotal);
  await assertClean(page, problems);
  await page.close();

  // The same link, opened anew, shows the same moment.
  const again = await openPage(url);
  const detail2 = again.page.locator('[data-testid=poll-detail]');
  await detail2.waitFor({ timeout: REPORT_TIMEOUT });
  assert.equal(await detail2.getAttribute('data-task'), '9');
  assert.deepEqual(await windowOf(again.page), [a, b]);
  await assertClean(again.page, again.problems);
  await again.page.close();
});

test('a brushed window gives the numbers of d9lens zoom for it', { timeout: 240_000 }, async () => {
  const { page, problems } = await openDemo();
  const canvas = page.locator('.tl-canvas');
  await canvas.scrollIntoViewIfNeeded();
  const box = await canvas.boundingBox();
  const y = box.y + 60;
  await page.keyboard.down('Shift');
  await page.mouse.move(box.x + 40, y);
  await page.mouse.down();
  await page.mouse.move(box.x + 120, y, { steps: 4 });
  await page.mouse.up();
  await page.keyboard.up('Shift');
  await page.locator('[data-testid=window-chip]').waitFor();
  const tw = new URL(page.url()).hash.match(/tw=(\d+)-(\d+)/);
  assert.ok(tw, page.url());
  await page.locator('[data-testid=window-worker]').first().waitFor({ timeout: 60_000 });
  const [start, end] = [Number(tw[1]), Number(tw[2])];
  const zoom = cliZoom('demo-trace.bin', (start + end) / 2e6, (end - start) / 2e6);
  const shown = await page.locator('[data-testid=window-worker]').evaluateAll((rows) => rows.map((r) => [Number(r.dataset.worker), r.dataset.pct]));
  assert.deepEqual(shown, zoom.workers.map((w) => [w.worker, w.pct.toFixed(1)]));
  assert.match(await page.locator('[data-testid=window-polls]').innerText(), new RegExp(`^${zoom.polls.length} poll\\(s\\)`));
  await assertClean(page, problems);
  await page.close();

  // Set through the URL: 1–41 ms, the window around the long poll.
  const { page: p2, problems: pr2 } = await openPage(`${browser.baseUrl}#demo&tw=1000000-41000000`);
  await p2.locator('[data-testid=window-worker]').first().waitFor({ timeout: REPORT_TIMEOUT });
  const z = cliZoom('demo-trace.bin', 21, 20);
  const rows = await p2.locator('[data-testid=window-worker]').evaluateAll((rs) => rs.map((r) => [Number(r.dataset.worker), r.dataset.pct]));
  assert.deepEqual(rows, z.workers.map((w) => [w.worker, w.pct.toFixed(1)]));
  await p2.locator('[data-testid=window-chip] button').click();
  assert.equal(await p2.locator('[data-testid=window-report]').count(), 0);
  assert.doesNotMatch(p2.url(), /tw=/);
  await assertClean(p2, pr2);
  await p2.close();
});

test("a span's slowest instance opens as a window", { timeout: 180_000 }, async () => {
  const { page, problems } = await openDemo();
  const row = page.locator('[data-testid=section-spans] tr', { hasText: 'query_metric' }).first();
  await row.waitFor({ timeout: 60_000 });
  const max = (await row.locator('td').nth(4).innerText()).trim();
  await row.locator('[data-testid=show-on-timeline]').click();
  const chip = page.locator('[data-testid=window-chip]');
  await chip.waitFor();
  // The window is the span: as long as its max (which the table shows at HDR precision).
  const tw = new URL(page.url()).hash.match(/tw=(\d+)-(\d+)/);
  const us = (Number(tw[2]) - Number(tw[1])) / 1e3;
  const maxUs = Number(max.replace('µs', ''));
  assert.ok(Math.abs(us - maxUs) / maxUs < 0.01, `window ${us}µs, max ${max}`);
  await page.locator('[data-testid=window-worker]').first().waitFor({ timeout: 60_000 });
  await assertClean(page, problems);
  await page.close();
});

test('W/A/S/D zoom and pan the timeline', { timeout: 180_000 }, async () => {
  const { page, problems } = await openDemo();
  const [a0, b0] = await windowOf(page);
  await page.locator('[data-testid=timeline]').focus();
  await page.keyboard.press('w');
  await page.keyboard.press('w');
  const [a1, b1] = await windowOf(page);
  assert.ok(b1 - a1 < (b0 - a0) / 2, `zoomed in: ${a1}–${b1}`);
  await page.keyboard.press('d');
  const [a2, b2] = await windowOf(page);
  assert.ok(a2 > a1 && Math.abs(b2 - a2 - (b1 - a1)) <= 1, `panned right: ${a2}–${b2}`);
  await page.keyboard.press('a');
  await page.keyboard.press('s');
  const [a3, b3] = await windowOf(page);
  assert.ok(b3 - a3 > b1 - a1, `zoomed out: ${a3}–${b3}`);
  await assertClean(page, problems);
  await page.close();
});

test('? lists the keys, F fits and Z undoes each zoom and window', { timeout: 180_000 }, async () => {
  const { page, problems } = await openDemo();
  const whole = await windowOf(page);
  await page.locator('[data-testid=timeline]').focus();
  await page.keyboard.press('?');
  const keys = page.locator('[data-testid=timeline-keys]');
  await keys.waitFor();
  const listed = await keys.locator('dt').allTextContents();
  for (const key of ['W', 'S', 'A', 'D', 'F', 'Z', 'Esc', '?']) {
    assert.ok(listed.some((k) => k.split(/\s+/).includes(key)), `${key} is listed: ${listed.join(' | ')}`);
  }
  await page.keyboard.press('Escape');
  await keys.waitFor({ state: 'detached' });
  // Two zooms, a pan (not a step of its own), then Z twice: back to the whole trace.
  await page.keyboard.press('w');
  const once = await windowOf(page);
  await page.keyboard.press('w');
  await page.keyboard.press('d');
  const twice = await windowOf(page);
  assert.ok(twice[1] - twice[0] < once[1] - once[0], `zoomed twice: ${twice}`);
  await page.keyboard.press('z');
  assert.deepEqual(await windowOf(page), once, 'Z: back before the second zoom (and its pan)');
  await page.keyboard.press('z');
  assert.deepEqual(await windowOf(page), whole, 'Z: back to the whole trace');
  // F fits from anywhere, and is itself undone by Z.
  await page.keyboard.press('w');
  await page.keyboard.press('d');
  const zoomed = await windowOf(page);
  await page.keyboard.press('f');
  assert.deepEqual(await windowOf(page), whole, 'F: the whole trace');
  await page.keyboard.press('z');
  assert.deepEqual(await windowOf(page), zoomed, 'Z undoes F');
  // The toolbar's button shows the same list, for a mouse.
  await page.click('[data-testid=timeline-keys-toggle]');
  await keys.waitFor();
  await assertClean(page, problems);
  await page.close();
});

test('every long poll of a dropped trace has its own link to the timeline', { timeout: 180_000 }, async () => {
  const { page, problems } = await openPage();
  await page.setInputFiles('[data-testid=file-input]', path.join(fixtures, 'blocking.bin'));
  const rows = page.locator('[data-testid=section-long-polls] [data-testid=long-poll-row]');
  await rows.first().waitFor({ timeout: REPORT_TIMEOUT });
  const n = await rows.count();
  assert.equal(await page.locator('[data-testid=section-long-polls] [data-testid=show-on-timeline]').count(), n);
  const first = await rows.first().locator('td').allInnerTexts();
  await rows.first().locator('[data-testid=show-on-timeline]').click();
  const detail = page.locator('[data-testid=poll-detail]');
  await detail.waitFor();
  assert.match(await detail.innerText(), new RegExp(`Poll of ${first[0].replace('.', '\\.')} · task ${first[3]} · worker ${first[1]}`));
  // The worst scheduling delay links to the poll that waited (task 349 on worker 0).
  await page.locator('[data-testid=section-sched-delays] [data-testid=show-on-timeline]').first().click();
  await page.waitForFunction(() => {
    const d = document.querySelector('[data-testid=poll-detail]');
    return d?.dataset.task === '349' && d?.dataset.worker === '0';
  });
  // A poll that waited after a wake says who woke its task.
  await page.locator('[data-testid=task-history]').waitFor({ timeout: 60_000 });
  assert.match(await page.locator('[data-testid=task-wakes]').innerText(), /woken .+ by (task \d+|an unknown waker)/);
  // The call that blocked longest links to the poll its heaviest stack's first sample was taken in.
  const report = JSON.parse(execFileSync(path.join(root, 'target/debug/d9lens'), ['analyze', path.join(fixtures, 'blocking.bin'), '--json'], { maxBuffer: 1 << 28 }));
  const at = report.blocking.inPollCalls[0].moment;
  await page.locator('[data-testid=section-blocking] [data-testid=show-on-timeline]').first().click();
  await page.waitForFunction(
    ([worker, start]) => {
      const d = document.querySelector('[data-testid=poll-detail]');
      return d?.dataset.worker === worker && decodeURIComponent(location.hash).includes(`tp=${worker}~${start}~`);
    },
    [String(at.worker), String(at.startNs)],
  );
  await assertClean(page, problems);
  await page.close();
});

test('trace strings that are markup show as text', { timeout: 180_000 }, async () => {
  const { page, problems } = await openPage();
  await page.setInputFiles('[data-testid=file-input]', path.join(fixtures, 'hostile-names.bin'));
  await page.locator('[data-testid=timeline]').waitFor({ timeout: REPORT_TIMEOUT });
  await page.locator('[data-testid=section-long-polls] [data-testid=show-on-timeline]').first().click();
  const loc = page.locator('[data-testid=poll-detail-loc]');
  await loc.waitFor();
  assert.equal(await loc.innerText(), '<img src=x onerror="window.__pwned=1">src/main.rs:1:1');
  assert.match(await page.locator('.tl-legend').innerText(), /<img src=x/);
  assert.equal(await page.locator('[data-testid=timeline] img, [data-testid=timeline] script, [data-testid=timeline] b').count(), 0);
  await page.waitForTimeout(200);
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
  await assertClean(page, problems);
  await page.close();
});
