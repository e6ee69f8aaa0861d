// End-to-end: every shared trace fixture dropped onto the built page, one page
// load each, and the summary, worker-utilization and long-poll numbers the
// page shows compared with dial9's text report for it (`*.report.txt`), as
// that report prints them. Run with `node --test tests/e2e/`.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { assertClean, dropFiles, fixtures, openPage, reportNumbers, shownNumbers, startBrowser } from './browser.mjs';

/** Every `.report.txt` under `dir`, as paths relative to `fixtures`. */
function reportsUnder(dir) {
  const found = [];
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (p.endsWith('.report.txt')) found.push(path.relative(fixtures, p));
    }
  };
  walk(path.join(fixtures, dir));
  return found.sort();
}

const read = (rel) => fs.readFileSync(path.join(fixtures, rel));
const single = (file, report = `${file}.report.txt`) => ({ name: file, files: [file], report });

// One case per fixture: what is dropped together, and the report it must match.
const rotation = [0, 1, 2, 3, 4].map((i) => `rotation/trace.${i}.bin`);
const cases = [
  single('healthy.bin'),
  single('blocking.bin'),
  single('demo-trace.bin'),
  // The same bytes as rotation/trace.4.bin, kept at the top for the wasm tests.
  single('rotation-trace.4.bin', 'rotation/trace.4.bin.report.txt'),
  ...rotation.map((f) => single(f)),
  { name: 'rotation/ (all five segments)', files: rotation, report: 'rotation.dir.report.txt' },
  // The S3 tree's segments: each readable one has a report at its key path.
  ...reportsUnder('s3-bucket.reference').map((report) => {
    const key = report.slice('s3-bucket.reference/'.length, -'.report.txt'.length);
    return { name: key, files: [path.join('s3-bucket', key)], report };
  }),
];

let browser;

before(async () => {
  browser = await startBrowser();
});

after(async () => {
  await browser?.close();
});

test('every shared fixture has a case', () => {
  assert.equal(cases.length, 4 + 5 + 1 + 23, 'top-level fixtures, rotation segments, the rotation set, 23 S3 segments');
  for (const c of cases) {
    for (const f of [...c.files, c.report]) assert.ok(fs.existsSync(path.join(fixtures, f)), f);
  }
});

for (const c of cases) {
  test(`dropping ${c.name} shows the reference numbers`, { timeout: 120_000 }, async () => {
    const { page, problems } = await openPage(browser.context, browser.baseUrl);
    await dropFiles(
      page,
      c.files.map((f) => ({ name: path.basename(f), bytes: read(f) })),
    );
    const shown = await shownNumbers(page);
    assert.deepEqual(shown, reportNumbers(read(c.report).toString('utf8')));
    assert.equal(await page.locator('[data-testid=progress-row][data-status=done]').count(), c.files.length);
    await assertClean(page, problems);
    await page.close();
  });
}
