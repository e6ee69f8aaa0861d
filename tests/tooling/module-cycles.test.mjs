// scripts/module-cycles.mjs, the CI check of issue 37: it finds a cycle
// through `crate::`, `super::` and a parent's re-exports, and leaves a
// module's imports of its own children and its tests alone.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { cycles, importGraph } from '../../scripts/module-cycles.mjs';

/** A crate's src dir from {relative path: text}. */
function crate(files) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'd9lens-cycles-'));
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  }
  return root;
}

test('a cycle through crate paths, super and a re-export is found', () => {
  const root = crate({
    'lib.rs': 'pub mod a;\npub mod b;\n',
    'a/mod.rs': 'mod x;\nmod y;\npub use y::Why;\n',
    // x → b::z by a crate path in a group, z → a's re-export of y, y → x by super.
    'a/x.rs': 'use crate::{b::z::Zed, other};\npub struct Ex;\n',
    'b/mod.rs': 'pub mod z;\n',
    'b/z.rs': 'pub struct Zed(crate::a::Why);\n',
    'a/y.rs': 'pub struct Why(super::x::Ex);\n',
  });
  const found = cycles(importGraph(root));
  assert.deepEqual(found, [['a::x', 'a::y', 'b::z']]);
});

test('children, tests, comments and strings are not imports', () => {
  const root = crate({
    'lib.rs': 'pub mod a;\n',
    // The parent names its child (structure); the child names the parent.
    'a/mod.rs': 'mod c;\npub use self::c::Cee;\npub fn f() -> crate::a::c::Cee { todo!() }\n',
    'a/c.rs': [
      'pub struct Cee;',
      '// use super::d::Dee;',
      'const S: &str = "super::d::Dee";',
      'fn g() { super::f(); }',
      '#[cfg(test)]',
      'mod tests { use super::super::d::Dee; }',
    ].join('\n'),
    'a/d.rs': 'use super::c::Cee;\npub struct Dee;\n',
  });
  const graph = importGraph(root);
  assert.deepEqual([...graph.get('a::c')], ['a']);
  assert.deepEqual([...graph.get('a')], []);
  assert.deepEqual(cycles(graph), []);
});

test('the core and the page have no import cycle', () => {
  const root = path.resolve(import.meta.dirname, '../..');
  for (const dir of ['crates/core/src', 'src']) assert.deepEqual(cycles(importGraph(path.join(root, dir))), [], dir);
});
