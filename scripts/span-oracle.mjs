// Span and custom-event oracle: what dial9's OWN JavaScript parser
// (dial9-viewer 0.5.7, skills/dial9-toolkit/scripts/) makes of a trace's
// spans and custom events, as sorted JSON the Rust tests can compare against.
//
//   node scripts/span-oracle.mjs TRACE [> TRACE.spans.json]
//
// Env: D9_TOOLKIT=DIR  the toolkit scripts directory (trace_parser.js,
//      trace_analysis.js, decode.js); default: found in the cargo registry as
//      scripts/bench-vs-node.sh finds it, ${CARGO_HOME:-~/.cargo}/registry/src/
//      */dial9-viewer-0.5.7/skills/dial9-toolkit/scripts (fetched with
//      `cargo info dial9-viewer@0.5.7` when missing).
//
// The trace is parsed exactly as `node analyze.js TRACE` parses a single file
// (parseTrace(path, { force: false, sample: undefined }), gzip sniffed by the
// parser itself), then `buildSpanData(trace.customEvents)` runs with no other
// argument, as analyze.js calls it. Output (keys sorted, 2-space indent):
//   spans            per spanName of allSpans (SpanEnter/SpanExit pairs):
//                    count, fields (String(value) -> count; non-null values
//                    only; a field with more than 50 distinct values becomes
//                    { __distinct, __total, __top: 10 [value, count] }),
//                    nullFields (null-valued keys), withParent, withTaskId,
//                    unmatched (unmatchedSpans of that name)
//   singleEventSpans per name of the "single-event:N" spans: count, spanType,
//                    units, fields { count of non-null }, sourceEvents
//   customEvents     per wire name of every custom event that is not a
//                    SpanEnter/SpanExit/SpanClose record: count, fields
//                    { count, type, unit, kind }, singleEventSpans
//   spanWireEvents   per wire name of SpanEnter/SpanExit/SpanClose records: count
//   taskDumps, taskDumpTasks, processUsage, acceptQueue: top-level counts
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';

const VIEWER_VERSION = '0.5.7';
const HIGH_CARDINALITY = 50;
const TOP = 10;

function die(msg) {
  process.stderr.write(`span-oracle: ${msg}\n`);
  process.exit(1);
}

function hasToolkit(dir) {
  return ['trace_parser.js', 'trace_analysis.js', 'decode.js'].every((f) => fs.existsSync(path.join(dir, f)));
}

function cargoHome() {
  return process.env.CARGO_HOME || path.join(os.homedir(), '.cargo');
}

/** First ${CARGO_HOME}/registry/src/<index>/dial9-viewer-0.5.7/.../scripts, like `ls -d ... | head -n1`. */
function searchRegistry() {
  const src = path.join(cargoHome(), 'registry', 'src');
  let indexes = [];
  try { indexes = fs.readdirSync(src).sort(); } catch { return null; }
  for (const index of indexes) {
    const dir = path.join(src, index, `dial9-viewer-${VIEWER_VERSION}`, 'skills', 'dial9-toolkit', 'scripts');
    if (hasToolkit(dir)) return dir;
  }
  return null;
}

function findToolkit() {
  if (process.env.D9_TOOLKIT) {
    if (!hasToolkit(process.env.D9_TOOLKIT)) die(`D9_TOOLKIT=${process.env.D9_TOOLKIT} holds no trace_parser.js/trace_analysis.js/decode.js`);
    return process.env.D9_TOOLKIT;
  }
  let dir = searchRegistry();
  if (dir) return dir;
  process.stderr.write(`span-oracle: fetching dial9-viewer ${VIEWER_VERSION} into the cargo registry\n`);
  try {
    execFileSync('cargo', ['info', `dial9-viewer@${VIEWER_VERSION}`], { cwd: os.tmpdir(), stdio: ['ignore', 'ignore', 'inherit'] });
  } catch { /* fall through to the .crate in the cache */ }
  dir = searchRegistry();
  if (dir) return dir;
  // cargo info may only have left the .crate in the cache: unpack it ourselves.
  const cache = path.join(cargoHome(), 'registry', 'cache');
  let crate = null;
  try {
    for (const index of fs.readdirSync(cache).sort()) {
      const f = path.join(cache, index, `dial9-viewer-${VIEWER_VERSION}.crate`);
      if (fs.existsSync(f)) { crate = f; break; }
    }
  } catch { /* no cache */ }
  if (!crate) die(`dial9-viewer ${VIEWER_VERSION} not found in the cargo registry (set D9_TOOLKIT)`);
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'd9-toolkit-'));
  execFileSync('tar', ['-xzf', crate, '-C', out]);
  dir = path.join(out, `dial9-viewer-${VIEWER_VERSION}`, 'skills', 'dial9-toolkit', 'scripts');
  if (!hasToolkit(dir)) die(`no toolkit scripts in ${crate}`);
  return dir;
}

/** Plain objects get their keys sorted (recursively); arrays keep their order. */
function sortKeys(v) {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object') {
    const out = {};
    for (const k of Object.keys(v).sort()) out[k] = sortKeys(v[k]);
    return out;
  }
  return v;
}

function cmpStr(a, b) {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** value -> count Map as an object, or a summary when it has more than 50 distinct values. */
function valueCounts(map) {
  if (map.size <= HIGH_CARDINALITY) return Object.fromEntries(map);
  let total = 0;
  for (const c of map.values()) total += c;
  const top = [...map.entries()].sort((a, b) => b[1] - a[1] || cmpStr(a[0], b[0])).slice(0, TOP);
  return { __distinct: map.size, __total: total, __top: top };
}

function bump(obj, key, by = 1) {
  obj[key] = (obj[key] || 0) + by;
}

/** A set of observed strings: its one value, else the sorted list, else null. */
function oneOrList(set) {
  if (set.size === 0) return null;
  if (set.size === 1) return [...set][0];
  return [...set].sort(cmpStr);
}

function typeOf(v) {
  return Array.isArray(v) ? 'array' : typeof v;
}

function isSpanWireEvent(name) {
  return (
    name.startsWith('SpanEnter:') || name.startsWith('SpanEnter__') || name === 'SpanEnterEvent' ||
    name.startsWith('SpanExit:') || name.startsWith('SpanExit__') || name === 'SpanExitEvent' ||
    name.startsWith('SpanClose__') || name === 'SpanCloseEvent'
  );
}

async function main() {
  const tracePath = process.argv[2];
  if (!tracePath) die('usage: node scripts/span-oracle.mjs TRACE');
  if (fs.statSync(tracePath).isDirectory()) die(`${tracePath} is a directory; give one trace file`);

  const toolkit = findToolkit();
  const require = createRequire(path.join(toolkit, 'analyze.js'));
  const { parseTrace } = require(path.join(toolkit, 'trace_parser.js'));
  const { buildSpanData } = require(path.join(toolkit, 'trace_analysis.js'));

  // As analyzeTraces() does for a single file: the CLI opts minus the callbacks.
  let trace = null;
  for await (const t of parseTrace(tracePath, { force: false, sample: undefined })) {
    if (trace) die('parser yielded more than one trace for one file');
    trace = t;
  }
  const customEvents = trace.customEvents || [];
  const { allSpans, unmatchedSpans } =
    customEvents.length > 0 ? buildSpanData(customEvents) : { allSpans: [], unmatchedSpans: [] };

  // ── Spans (SpanEnter/SpanExit pairs) and single-event spans ──
  // A projected single-event span's `fields` object is the very object the
  // parser hung on its custom event, so it maps back to the wire event name.
  const singleEventSource = new Map();
  for (const ev of customEvents) {
    if (ev.singleEventSpan != null) singleEventSource.set(ev.singleEventSpan.fields, ev.name);
  }

  const spans = {};
  const spanValues = {}; // name -> field -> Map(String(value) -> count)
  const singles = {};
  let nullSpanFieldValues = 0;
  let undefinedSpanFieldValues = 0;
  const spanEntry = (name) => {
    if (!spans[name]) {
      spans[name] = { count: 0, fields: {}, nullFields: {}, withParent: 0, withTaskId: 0, unmatched: 0 };
      spanValues[name] = {};
    }
    return spans[name];
  };
  for (const s of allSpans) {
    if (String(s.spanId).startsWith('single-event:')) {
      let e = singles[s.spanName];
      if (!e) {
        e = singles[s.spanName] = { count: 0, spanType: new Set(), units: {}, fields: {}, sourceEvents: {}, withParent: 0, withTaskId: 0 };
      }
      e.count++;
      e.spanType.add(String(s.spanType));
      if (s.parentSpanId != null) e.withParent++;
      if (s.taskId != null) e.withTaskId++;
      for (const [k, u] of Object.entries(s.units || {})) {
        (e.units[k] ||= new Set()).add(String(u));
      }
      for (const [k, v] of Object.entries(s.fields || {})) {
        if (v === null || v === undefined) continue;
        (e.fields[k] ||= { count: 0 }).count++;
      }
      bump(e.sourceEvents, singleEventSource.get(s.fields) ?? '(unknown)');
      continue;
    }
    const e = spanEntry(s.spanName);
    e.count++;
    if (s.parentSpanId != null) e.withParent++;
    if (s.taskId != null) e.withTaskId++;
    const values = spanValues[s.spanName];
    for (const [k, v] of Object.entries(s.fields || {})) {
      if (v === null || v === undefined) {
        bump(e.nullFields, k);
        if (v === null) nullSpanFieldValues++; else undefinedSpanFieldValues++;
        continue;
      }
      const m = (values[k] ||= new Map());
      const key = String(v);
      m.set(key, (m.get(key) || 0) + 1);
    }
  }
  for (const u of unmatchedSpans) spanEntry(u.spanName).unmatched++;
  for (const [name, byField] of Object.entries(spanValues)) {
    for (const [k, m] of Object.entries(byField)) spans[name].fields[k] = valueCounts(m);
  }
  for (const e of Object.values(singles)) {
    e.spanType = oneOrList(e.spanType);
    for (const k of Object.keys(e.units)) e.units[k] = oneOrList(e.units[k]);
  }

  // ── Custom events (everything but the span wire records) ──
  const custom = {};
  const spanWireEvents = {};
  let nullEventFieldValues = 0;
  let undefinedEventFieldValues = 0;
  for (const ev of customEvents) {
    if (isSpanWireEvent(ev.name)) {
      bump(spanWireEvents, ev.name);
      continue;
    }
    let e = custom[ev.name];
    if (!e) e = custom[ev.name] = { count: 0, fields: {}, singleEventSpans: 0 };
    e.count++;
    if (ev.singleEventSpan != null) e.singleEventSpans++;
    for (const [k, v] of Object.entries(ev.fields || {})) {
      const f = (e.fields[k] ||= { count: 0, nulls: 0, types: new Set(), type: null, units: new Set(), kinds: new Set() });
      if (ev.units && ev.units[k] != null) f.units.add(String(ev.units[k]));
      if (ev.fieldKinds && ev.fieldKinds[k] != null) f.kinds.add(String(ev.fieldKinds[k]));
      if (v === null || v === undefined) {
        f.nulls++;
        if (v === null) nullEventFieldValues++; else undefinedEventFieldValues++;
        continue;
      }
      f.count++;
      if (f.type === null) f.type = typeOf(v);
      f.types.add(typeOf(v));
    }
  }
  for (const e of Object.values(custom)) {
    for (const [k, f] of Object.entries(e.fields)) {
      const out = { count: f.count, nulls: f.nulls, type: f.type, unit: oneOrList(f.units), kind: oneOrList(f.kinds) };
      if (f.types.size > 1) out.types = [...f.types].sort(cmpStr);
      e.fields[k] = out;
    }
  }

  // ── Side channels ──
  let taskDumps = 0;
  let taskDumpTasks = 0;
  if (trace.taskDumps) {
    for (const arr of trace.taskDumps.values()) {
      taskDumpTasks++;
      taskDumps += arr.length;
    }
  }

  const describe = (nulls, undefs, where) =>
    nulls === 0 && undefs === 0
      ? `not observed in ${where}`
      : `${[nulls ? `null (key present) x${nulls}` : null, undefs ? `undefined x${undefs}` : null].filter(Boolean).join(', ')} in ${where}`;

  const out = {
    file: path.basename(tracePath),
    toolkit: `dial9-viewer ${VIEWER_VERSION}`,
    absentFieldsAre:
      'decode.js decodes an absent optional field as null with its key kept; SpanEnter/SpanExit-built span fields keep such null keys ' +
      '(counted under nullFields, never under fields); single-event span fields drop them (key missing). ' +
      `Observed: ${describe(nullSpanFieldValues, undefinedSpanFieldValues, 'span fields')}; ` +
      `${describe(nullEventFieldValues, undefinedEventFieldValues, 'custom event fields')}.`,
    customEventCount: customEvents.length,
    allSpans: allSpans.length,
    unmatchedSpans: unmatchedSpans.length,
    spans,
    singleEventSpans: singles,
    customEvents: custom,
    spanWireEvents,
    taskDumps,
    taskDumpTasks,
    processUsage: custom.ProcessResourceUsageEvent?.count ?? 0,
    acceptQueue: custom.TcpAcceptQueueEvent?.count ?? 0,
  };
  // One line per __top [value, count] pair keeps the files short and diffable.
  const text = JSON.stringify(sortKeys(out), null, 2).replace(/\[\s+("(?:[^"\\]|\\.)*"),\s+(\d+)\s+\]/g, '[$1, $2]');
  process.stdout.write(text + '\n');
}

main().catch((err) => {
  process.stderr.write(`span-oracle: ${err && err.stack ? err.stack : err}\n`);
  process.exit(1);
});
