// End-to-end: the span explorer and the events of the built page in headless
// Chromium, against what the CLI prints for the same trace — the explorer's
// numbers equal `d9lens spans --json` (whole and filtered by a route), slow
// versus typical of handle_request on blocking.bin names legacy_sync_lookup
// and its blocking call, an exemplar opens its moment on the timeline, and
// the events of healthy.bin equal `d9lens events --json`, latency_us charted,
// handle_request's async wait by await equals the CLI's,
// the process's CPU is a timeline row, and the custom events a lane of
// marks whose click reads an event's fields.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { REPORT_TIMEOUT, assertClean, fixtures, openPage as open, root, shot, startBrowser } from './browser.mjs';

let browser;

before(async () => {
  browser = await startBrowser();
});

after(async () => {
  await browser?.close();
});

const openPage = (url = browser.baseUrl) => open(browser.context, url);
const cli = (...args) =>
  JSON.parse(execFileSync(path.join(root, 'target/debug/d9lens'), args, { maxBuffer: 1 << 28 }).toString());

/** The explorer's rows as the CLI's JSON has them. */
const explorerRows = (section) =>
  section.locator('[data-testid=explorer-row]').evaluateAll((rows) =>
    rows.map((r) => {
      const ns = (id) => Number(r.querySelector(`[data-testid=${id}]`).dataset.ns);
      return {
        name: r.dataset.name,
        count: Number(r.dataset.count),
        p50_ns: ns('p50'),
        p99_ns: ns('p99'),
        max_ns: ns('max'),
        split: {
          on_cpu_ns: ns('on-cpu'),
          blocked_ns: ns('blocked'),
          sched_delay_ns: ns('sched-delay'),
          async_wait_ns: ns('async-wait'),
        },
      };
    }),
  );

const cliRows = (json) =>
  json.spans.map((s) => ({
    name: s.name,
    count: s.count,
    p50_ns: s.p50_ns,
    p99_ns: s.p99_ns,
    max_ns: s.max_ns,
    split: s.split,
  }));

test('blocking.bin: the span explorer equals d9lens spans; slow vs typical names the blocking call', { timeout: 240_000 }, async () => {
  const { page, problems } = await openPage();
  const trace = path.join(fixtures, 'blocking.bin');
  await page.setInputFiles('[data-testid=file-input]', trace);
  const section = page.locator('[data-testid=section-requests]');
  await section.waitFor({ timeout: REPORT_TIMEOUT });
  assert.deepEqual(await explorerRows(section), cliRows(cli('spans', trace, '--json')));

  // The on-CPU flamegraph opens on the application: its first row is the
  // application's (or its dependencies'); "Whole stacks" shows the plumbing.
  const flame = page.locator('[data-testid=section-flamegraph]');
  const canvas = flame.locator('[data-testid=flame-canvas]');
  const firstRow = async () => (await canvas.getAttribute('data-first-row')).split('|');
  assert.equal(await canvas.getAttribute('data-kind'), 'on-cpu');
  const opened = await firstRow();
  assert.ok(['application', 'dependency'].includes(opened[0]), opened.join(', '));
  // (Stacks of the runtime alone sit under one frame that says so.)
  assert.equal(opened.filter((o) => o !== 'application' && o !== 'dependency').length, 1, opened.join(', '));
  const rows = Number(await canvas.getAttribute('data-rows'));
  await flame.locator('[data-testid=flame-whole]').click();
  await page.waitForFunction(
    (r) => Number(document.querySelector('[data-testid=section-flamegraph] [data-testid=flame-canvas]').dataset.rows) > r,
    rows,
  );
  assert.ok((await firstRow()).every((o) => o !== 'application'));
  await flame.locator('[data-testid=flame-whole]').click();
  // Inverted: the functions the samples were in, at the root.
  await flame.locator('[data-testid=flame-invert]').click();
  await page.waitForFunction(
    (r) => document.querySelector('[data-testid=section-flamegraph] [data-testid=flame-canvas]').dataset.firstRow !== r,
    opened.join('|'),
  );
  await flame.locator('[data-testid=flame-invert]').click();
  // Filtered to the samples inside legacy_sync_lookup: fewer, none lost of
  // the kind picked; cleared, the report's own again.
  await flame.locator('[data-testid=flame-kind][data-kind=blocking]').click();
  const rootTotal = async () => Number(await flame.locator('[data-testid=flame-canvas]').getAttribute('data-root-total'));
  const before = await rootTotal();
  await flame.locator('[data-testid=flame-filter-span]').selectOption('legacy_sync_lookup');
  await page.waitForFunction(
    (t) => Number(document.querySelector('[data-testid=section-flamegraph] [data-testid=flame-canvas]')?.dataset.rootTotal) !== t,
    before,
  );
  assert.equal(await flame.locator('[data-testid=flame-canvas]').getAttribute('data-kind'), 'blocking');
  const inside = await rootTotal();
  assert.ok(inside > 0 && inside < before, `${inside} of ${before} blocking samples inside legacy_sync_lookup`);
  // The poll bands split them: every blocking sample is in a poll.
  const blockingIn = async (band) => {
    await flame.locator('[data-testid=flame-filter-band]').selectOption(band);
    await flame.locator(`[data-testid=flame-filters][data-band="${band}"]`).waitFor();
    if (await flame.locator('[data-testid=flame-filter-empty]').count()) return 0;
    return Number(await flame.locator('[data-testid=flame-kind][data-kind=blocking]').getAttribute('data-total'));
  };
  let banded = 0;
  for (const band of ['polls under 1 ms', 'polls of 1–10 ms', 'polls of 10–50 ms', 'polls over 50 ms']) {
    banded += await blockingIn(band);
  }
  assert.equal(banded, inside);
  await blockingIn('');
  await flame.locator('[data-testid=flame-filter-span]').selectOption('');
  await page.waitForFunction(
    (t) => Number(document.querySelector('[data-testid=section-flamegraph] [data-testid=flame-canvas]')?.dataset.rootTotal) === t,
    before,
  );
  assert.equal(await flame.locator('[data-testid=flame-canvas]').getAttribute('data-kind'), 'blocking');
  await flame.locator('[data-testid=flame-kind][data-kind=on-cpu]').click();

  // Filter by a route: every span under such a request, as the CLI's --where.
  const handle = section.locator('[data-testid=explorer-row][data-name=handle_request]');
  await handle.locator('[data-testid=explorer-open]').click();
  const panel = section.locator('[data-testid=span-panel][data-name=handle_request]');
  await panel.waitFor();
  await panel.locator('[data-testid=field-value][data-field=route][data-value="GET /legacy/lookup"]').click();
  await section.locator('[data-testid=span-filter-chip]').waitFor();
  await page.waitForFunction(
    () => document.querySelector('[data-testid=explorer-row][data-name=handle_request]')?.dataset.count === '36',
  );
  assert.deepEqual(
    await explorerRows(section),
    cliRows(cli('spans', trace, '--where', 'route=GET /legacy/lookup', '--json')),
  );
  // Typed filters read as the CLI's; a value of no instance leaves none.
  await section.locator('[data-testid=span-filter]').fill('route=GET /nowhere');
  await section.locator('[data-testid=span-filter]').press('Enter');
  await section.locator('[data-testid=requests-empty]').waitFor();
  await section.locator('[data-testid=span-filter-chip] button').last().click();
  await section.locator('[data-testid=span-filter-chip] button').first().click();
  await page.waitForFunction(
    () => document.querySelector('[data-testid=explorer-row][data-name=handle_request]')?.dataset.count === '1021',
  );

  // Slow (over p99) against typical: the extra time is in legacy_sync_lookup, blocked in a poll.
  const slow = panel.locator('[data-testid=slow-vs-typical]');
  await slow.waitFor();
  const expected = cli('spans', trace, '--name', 'handle_request', '--slow', 'p99', '--json').slow;
  assert.equal(Number(await slow.getAttribute('data-slow')), expected.slow);
  assert.equal(Number(await slow.getAttribute('data-typical')), expected.typical);
  assert.equal(await slow.locator('[data-testid=slow-child]').first().getAttribute('data-name'), 'legacy_sync_lookup');
  assert.equal(await slow.locator('[data-testid=slow-part]').first().getAttribute('data-name'), 'blocked in a poll');
  assert.match(await slow.locator('[data-testid=slow-blocking]').first().innerText(), /legacy_sync_lookup/);
  assert.equal(await slow.locator('[data-testid=slow-lift]').first().getAttribute('data-value'), 'GET /legacy/lookup');
  await slow.locator('[data-testid=flame-slow]').waitFor();
  await shot(page, slow, 'requests-slow-vs-typical.png');

  // The slowest instance, one click from its moment.
  const exemplar = slow.locator('[data-testid=slow-exemplar]').first();
  const dur = Number(await exemplar.getAttribute('data-dur'));
  await exemplar.locator('[data-testid=show-on-timeline]').click();
  await page.locator('[data-testid=window-chip]').waitFor();
  const tw = new URL(page.url()).hash.match(/tw=(\d+)-(\d+)/);
  assert.ok(Math.abs(Number(tw[2]) - Number(tw[1]) - dur) <= 1, `window ${tw[0]}, span ${dur} ns`);
  await assertClean(page, problems);
  await page.close();
});

test('healthy.bin: the events equal d9lens events; latency_us is charted in us', { timeout: 240_000 }, async () => {
  const { page, problems } = await openPage();
  const trace = path.join(fixtures, 'healthy.bin');
  await page.setInputFiles('[data-testid=file-input]', trace);
  const section = page.locator('[data-testid=section-events]');
  await section.waitFor({ timeout: REPORT_TIMEOUT });
  const shown = await section.locator('[data-testid=event-type]').evaluateAll((types) =>
    types.map((t) => ({
      name: t.dataset.name,
      count: Number(t.dataset.count),
      fields: Object.fromEntries(
        [...t.querySelectorAll('[data-testid=event-field]')].map((f) => {
          const n = (k) => (f.dataset[k] === '' ? null : Number(f.dataset[k]));
          return [f.dataset.field, { count: Number(f.dataset.count), min: n('min'), max: n('max'), p50: n('p50') }];
        }),
      ),
    })),
  );
  const expected = cli('events', trace, '--json').events.map((e) => ({
    name: e.name,
    count: e.count,
    fields: Object.fromEntries(
      Object.entries(e.fields).map(([k, f]) => [k, { count: f.count, min: f.min, max: f.max, p50: f.p50 }]),
    ),
  }));
  assert.deepEqual(shown, expected);
  const latency = section.locator('[data-testid=event-chart][data-event=RequestCompleted][data-field=latency_us]');
  assert.equal(await latency.getAttribute('data-unit'), 'us');
  assert.ok(Number(await latency.getAttribute('data-points')) > 100);
  assert.match(await latency.locator('figcaption').innerText(), /latency_us \(us\)/);
  // A counter is drawn as its rate.
  await section.locator('[data-testid=event-chart][data-field=queries_total]').waitFor();
  assert.match(
    await section.locator('[data-testid=event-chart][data-field=queries_total] figcaption').innerText(),
    /queries_total rate/,
  );
  await shot(page, latency, 'events-latency.png');

  // handle_request's async wait by the awaits its task dumps name, as the CLI has it.
  const requests = page.locator('[data-testid=section-requests]');
  await requests.locator('[data-testid=explorer-row][data-name=handle_request] [data-testid=explorer-open]').click();
  const awaits = await requests
    .locator('[data-testid=span-panel][data-name=handle_request] [data-testid=span-await]')
    .evaluateAll((rows) => rows.map((r) => ({ frame: r.dataset.frame, wait_ns: Number(r.dataset.ns) })));
  const cliAwaits = cli('spans', trace, '--name', 'handle_request', '--json').spans[0].awaits;
  assert.ok(cliAwaits.length > 0);
  assert.deepEqual(awaits, cliAwaits.map((a) => ({ frame: a.frame, wait_ns: a.wait_ns })));

  // The process's CPU as a timeline row, scaled to the 2 cores it had: bars drawn in it.
  const cpu = page.locator('[data-testid=timeline-counter][data-label="process CPU · 2 cores"]');
  await cpu.waitFor();
  await cpu.scrollIntoViewIfNeeded();
  const bars = await page.locator('.tl-canvas').evaluate((c) => {
    const label = document.querySelector('[data-testid=timeline-counter][data-label="process CPU · 2 cores"]');
    const [box, row] = [c.getBoundingClientRect(), label.getBoundingClientRect()];
    const scale = c.height / box.height;
    const from = Math.max(0, Math.round((row.top - box.top) * scale));
    const d = c.getContext('2d').getImageData(0, from, c.width, Math.max(1, Math.round(row.height * scale))).data;
    let n = 0;
    const near = (i, [r, g, b]) => Math.abs(d[i] - r) <= 1 && Math.abs(d[i + 1] - g) <= 1 && Math.abs(d[i + 2] - b) <= 1;
    for (let i = 0; i < d.length; i += 4) n += near(i, [141, 176, 240]) ? 1 : 0;
    return n;
  });
  assert.ok(bars > 100, `${bars} pixels of CPU bars`);

  // The events lane: a row per event type with as many events as the CLI
  // counts; a click on a tick of RequestCompleted reads its fields.
  const lane = page.locator('[data-testid=timeline-event-lane][data-name=RequestCompleted]');
  assert.equal(Number(await lane.getAttribute('data-count')), expected.find((e) => e.name === 'RequestCompleted').count);
  const events = page.locator('[data-testid=timeline-events]');
  await events.scrollIntoViewIfNeeded();
  assert.ok(Number(await events.getAttribute('data-drawn')) > 0);
  const tick = await events.evaluate((c) => {
    const label = document.querySelector('[data-testid=timeline-event-lane][data-name=RequestCompleted]');
    const [box, row] = [c.getBoundingClientRect(), label.getBoundingClientRect()];
    const scale = c.width / box.width;
    const y = Math.round((row.top - box.top + row.height / 2) * scale);
    const d = c.getContext('2d').getImageData(0, y, c.width, 1).data;
    // The lane's background is one colour; a tick is another.
    for (let x = 0; x < c.width; x++) {
      const i = x * 4;
      if (d[i] !== d[0] || d[i + 1] !== d[1] || d[i + 2] !== d[2]) return { x: x / scale + 1, y: row.top - box.top + row.height / 2 };
    }
    return null;
  });
  assert.ok(tick, 'a tick in the RequestCompleted row');
  await events.click({ position: tick });
  const mark = page.locator('[data-testid=event-mark-detail]');
  await mark.waitFor();
  assert.equal(await mark.getAttribute('data-name'), 'RequestCompleted');
  const latencyField = mark.locator('[data-testid=event-mark-field][data-field=latency_us]');
  assert.match(await latencyField.getAttribute('data-value'), /^\d+$/);
  assert.match(await latencyField.innerText(), /\bus$/);
  await shot(page, page.locator('[data-testid=timeline]'), 'timeline-events.png');
  await assertClean(page, problems);
  await page.close();
});
