// Fails on an import cycle among a Rust crate's modules (issue 37): each
// `.rs` file is one module (`mod.rs`, `lib.rs`, `main.rs`: their folder's),
// and `a` imports `b` when its code (tests left out) names a path into `b`:
// `crate::…`, `super::…`, `self::…`, or an item its parent re-exports from
// `b` (`pub use b::{X, …}`, `pub use b::*`). A module's imports of its own
// children are its structure, not a layer: they are not counted.
//
//   node scripts/module-cycles.mjs SRC_DIR...      exit 1, naming each cycle, if any
//
// Paths are read from the text, not resolved by rustc: a `use` through a
// macro, or a path written in a string, is not seen.

import fs from 'node:fs';
import path from 'node:path';

/** Every `.rs` file under `dir`. */
function rustFiles(dir) {
  const files = [];
  const stack = [dir];
  while (stack.length) {
    const d = stack.pop();
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) stack.push(p);
      else if (e.name.endsWith('.rs')) files.push(p);
    }
  }
  return files.sort();
}

/** The module path of `file` under `root`: `a::b` for a/b.rs and a/b/mod.rs. */
function modulePath(root, file) {
  const parts = path.relative(root, file).replace(/\.rs$/, '').split(path.sep);
  return ['mod', 'lib', 'main'].includes(parts.at(-1)) ? parts.slice(0, -1) : parts;
}

/** The code of a file without comments, strings and its `#[cfg(test)]` part. */
function code(text) {
  const test = text.search(/#\[cfg\(test\)\]\s*mod\s+\w+\s*\{/);
  return (test >= 0 ? text.slice(0, test) : text)
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/\/\/.*$/gm, '')
    .replace(/"(?:[^"\\]|\\.)*"/g, '""');
}

/** Each path a `use` or an expression names, with `{…}` groups expanded (no recursion: a stack). */
function pathsIn(text) {
  const found = [];
  for (const m of text.matchAll(/\b((?:crate|super|self)(?:::\w+)*)::(\{[^;]*?\}(?=\s*;)|\w+)/g)) {
    const stack = [[m[1].split('::'), m[2]]];
    while (stack.length) {
      const [prefix, rest] = stack.pop();
      if (!rest.startsWith('{')) {
        found.push([...prefix, ...rest.split('::')]);
        continue;
      }
      // Split the group's top level on commas.
      const inner = rest.slice(1, -1);
      let depth = 0;
      let start = 0;
      const items = [];
      for (let i = 0; i <= inner.length; i++) {
        const c = inner[i];
        if (c === '{') depth++;
        else if (c === '}') depth--;
        else if ((c === ',' && depth === 0) || i === inner.length) {
          items.push(inner.slice(start, i).trim());
          start = i + 1;
        }
      }
      for (const item of items.filter(Boolean)) {
        const [head, group] = item.split(/::(?=\{)/);
        const segs = head.replace(/\s+as\s+\w+$/, '').split('::').filter(Boolean);
        if (group) stack.push([[...prefix, ...segs], group]);
        else found.push([...prefix, ...segs.filter((s) => s !== 'self')]);
      }
    }
  }
  return found;
}

/** The import graph of the crate whose sources are under `root`: module → modules. */
export function importGraph(root) {
  const files = rustFiles(root);
  const modules = new Map(files.map((f) => [modulePath(root, f).join('::'), f]));
  const texts = new Map(files.map((f) => [modulePath(root, f).join('::'), code(fs.readFileSync(f, 'utf8'))]));
  // Names a module re-exports from a child: `pub use child::{A, B}`, `pub use child::*`.
  const reexports = new Map();
  for (const [name, text] of texts) {
    const named = new Map();
    const globs = [];
    for (const m of text.matchAll(/pub(?:\([^)]*\))?\s+use\s+(\w+)::([^;]+);/g)) {
      const child = name ? `${name}::${m[1]}` : m[1];
      if (!modules.has(child)) continue;
      const rest = m[2].trim();
      if (rest === '*') globs.push(child);
      for (const item of rest.replace(/[{}]/g, '').split(',')) {
        const last = item.trim().split(/\s+as\s+/).at(-1).split('::').at(-1);
        if (last && last !== '*') named.set(last, child);
      }
    }
    reexports.set(name, { named, globs });
  }
  const defines = (module, item) =>
    new RegExp(`pub(?:\\([^)]*\\))?\\s+(?:fn|struct|enum|const|static|type|trait|mod|use[^;]*\\b)\\s*${item}\\b`).test(texts.get(module) ?? '');
  const resolve = (segs) => {
    for (let n = segs.length; n >= 0; n--) {
      const name = segs.slice(0, n).join('::');
      if (!modules.has(name)) continue;
      const item = segs[n];
      const re = item && reexports.get(name);
      if (re) {
        if (re.named.has(item)) return re.named.get(item);
        const glob = re.globs.find((g) => defines(g, item));
        if (glob) return glob;
      }
      return name;
    }
    return null;
  };
  const graph = new Map();
  for (const [name, text] of texts) {
    const here = name ? name.split('::') : [];
    const edges = new Set();
    for (const p of pathsIn(text)) {
      let segs;
      if (p[0] === 'crate') segs = p.slice(1);
      else {
        // `self` is this module; `super` its parent (a folder's module is itself the parent of its files).
        segs = p[0] === 'self' ? [...here] : here.slice(0, -1);
        let i = 1;
        if (p[0] === 'super') while (p[i] === 'super') (segs = segs.slice(0, -1)), i++;
        segs = [...segs, ...p.slice(i)];
      }
      const to = resolve(segs);
      if (to === null || to === name) continue;
      // Its own children: structure, not an import up or across.
      if (name === '' || to.startsWith(`${name}::`)) continue;
      edges.add(to);
    }
    graph.set(name, edges);
  }
  return graph;
}

/** Strongly connected components of more than one module (Tarjan, iterative). */
export function cycles(graph) {
  let next = 0;
  const index = new Map();
  const low = new Map();
  const onStack = new Set();
  const stack = [];
  const found = [];
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work = [[start, [...(graph.get(start) ?? [])], 0]];
    index.set(start, next);
    low.set(start, next++);
    stack.push(start);
    onStack.add(start);
    while (work.length) {
      const top = work[work.length - 1];
      const [v, succ] = top;
      if (top[2] < succ.length) {
        const w = succ[top[2]++];
        if (!index.has(w)) {
          index.set(w, next);
          low.set(w, next++);
          stack.push(w);
          onStack.add(w);
          work.push([w, [...(graph.get(w) ?? [])], 0]);
        } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
        continue;
      }
      work.pop();
      if (work.length) {
        const u = work[work.length - 1][0];
        low.set(u, Math.min(low.get(u), low.get(v)));
      }
      if (low.get(v) === index.get(v)) {
        const component = [];
        let w;
        do {
          w = stack.pop();
          onStack.delete(w);
          component.push(w);
        } while (w !== v);
        if (component.length > 1) found.push(component.sort());
      }
    }
  }
  return found;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const roots = process.argv.slice(2);
  if (!roots.length) {
    console.error('usage: node scripts/module-cycles.mjs SRC_DIR...');
    process.exit(2);
  }
  let failed = false;
  for (const root of roots) {
    const graph = importGraph(root);
    const found = cycles(graph);
    for (const c of found) {
      failed = true;
      console.error(`${root}: an import cycle of ${c.length} modules:`);
      for (const a of c) for (const b of graph.get(a)) if (c.includes(b)) console.error(`  ${a} -> ${b}`);
    }
    if (!found.length) console.log(`${root}: ${graph.size} modules, no import cycle`);
  }
  process.exit(failed ? 1 : 0);
}
