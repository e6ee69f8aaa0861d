// A bucket of many days, written straight into the S3 server's data dir (s3s-fs
// serves whatever the directory holds): DAYS days up to END of v1 keys, HOSTS
// hosts of one service each writing a segment every STEP seconds; by default
// 30 days of 12 hosts every 5 minutes, 103,680 keys (the production-size
// bucket of the e2e test and `scripts/bench-browser.mjs window`). The objects
// are a few bytes (listing tests only read keys and sizes).
//
//   node tests/s3/days-bucket.mjs DATA_DIR [BUCKET]     writes it, prints {bucket, keys, first, last}

import fs from 'node:fs';
import path from 'node:path';

export const DAYS_BUCKET = 'd9lens-days';
/** 2026-12-07 00:00 UTC: the last segment starts just before it. */
export const END = Date.UTC(2026, 11, 7) / 1000;

/** The key of host `h`'s segment starting at `start` (Unix seconds). */
export function keyOf(start, h, index) {
  const iso = new Date(start * 1000).toISOString();
  const date = iso.slice(0, 10);
  const time = iso.slice(11, 13) + iso.slice(14, 16);
  return `version=1/date=${date}/service=api/time=${time}/instance=host-${h}/boot=bo${String.fromCharCode(97 + h)}a/${start}-${index}.bin.gz`;
}

/** Writes the bucket; gives every key, oldest first. */
export function prepareDaysBucket(dataDir, { bucket = DAYS_BUCKET, days = 30, hosts = 12, step = 300 } = {}) {
  const keys = [];
  const dirs = new Set();
  for (let start = END - days * 86400; start < END; start += step) {
    for (let h = 0; h < hosts; h++) {
      const key = keyOf(start + h, h, (start - (END - days * 86400)) / step);
      const file = path.join(dataDir, bucket, ...key.split('/'));
      const dir = path.dirname(file);
      if (!dirs.has(dir)) {
        fs.mkdirSync(dir, { recursive: true });
        dirs.add(dir);
      }
      fs.writeFileSync(file, 'not a trace');
      keys.push(key);
    }
  }
  return keys;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [dataDir, bucket] = process.argv.slice(2);
  const keys = prepareDaysBucket(dataDir, bucket ? { bucket } : {});
  console.log(JSON.stringify({ bucket: bucket || DAYS_BUCKET, keys: keys.length, first: keys[0], last: keys.at(-1) }));
}
