// Gives every file of a built page a content hash in its name, so a CDN or a
// browser cache never pairs new JavaScript with old wasm: index.html is the one
// unhashed file (served `no-cache`), everything else can be cached for good.
//
// Trunk hashes some outputs, never its worker's or copied files (a worker's name
// is needed at run time), so the page's build hashes them all here instead:
// Trunk runs this as a post-build hook on its staging directory (Trunk.toml).
// Names that wasm code needs at run time (the worker script, the demo trace) are
// read from `<meta name="d9lens-asset" id=… content="./NAME">` tags in index.html,
// which are rewritten like any other reference.
//
//   node scripts/hash-assets.mjs [DIR]    (default: $TRUNK_STAGING_DIR)
//
// A reference is a file's name in quotes, alone or after `./`, in index.html or in
// another file that is text (.js, .css, .html), unless it is an object's key. Files are renamed leaves first, so
// a file's hash covers the hashed names it refers to.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const TEXT = new Set(['.js', '.mjs', '.css', '.html']);
const HASHED = /-[0-9a-f]{16}(?=[._])/;

export function hashAssets(dir) {
  const files = fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => e.name);
  if (!files.includes('index.html')) throw new Error(`${dir} has no index.html`);
  for (const name of fs.readdirSync(dir)) {
    if (fs.statSync(path.join(dir, name)).isDirectory()) {
      // wasm-bindgen puts inline JS snippets there; the page has none today.
      throw new Error(`${dir}/${name}: sub-directories are not hashed; extend scripts/hash-assets.mjs`);
    }
  }
  const content = new Map(files.map((f) => [f, fs.readFileSync(path.join(dir, f))]));
  const isText = (f) => TEXT.has(path.extname(f));
  const refersTo = (referrer, name) => {
    if (!isText(referrer)) return false;
    const text = content.get(referrer).toString('utf8');
    return references(name).some((p) => referenceRe(p).test(text));
  };

  const renamed = new Map();
  const pending = new Set(files.filter((f) => f !== 'index.html' && !HASHED.test(f)));
  while (pending.size > 0) {
    // A file is ready when every file it refers to has its final name.
    const ready = [...pending].filter((f) => ![...pending].some((other) => other !== f && refersTo(f, other)));
    if (ready.length === 0) throw new Error(`circular references among ${[...pending].join(', ')}`);
    for (const f of ready) {
      rewriteRefs(content, f, renamed, isText);
      const hash = crypto.createHash('sha256').update(content.get(f)).digest('hex').slice(0, 16);
      const dot = f.indexOf('.');
      const name = dot < 0 ? `${f}-${hash}` : `${f.slice(0, dot)}-${hash}${f.slice(dot)}`;
      renamed.set(f, name);
      pending.delete(f);
    }
  }
  rewriteRefs(content, 'index.html', renamed, isText);

  for (const [from, to] of renamed) {
    fs.writeFileSync(path.join(dir, to), content.get(from));
    fs.rmSync(path.join(dir, from));
  }
  fs.writeFileSync(path.join(dir, 'index.html'), content.get('index.html'));
  return renamed;
}

/** How a file names another: its name in quotes, alone or after `./`. */
function references(name) {
  return ['"', "'", '`'].flatMap((q) => [`${q}./${name}${q}`, `${q}${name}${q}`]);
}

/** Where `ref` is a reference in `text`: not as a key (`"./name": …`), which
 *  is how wasm-bindgen's glue names a wasm import module, by its original name. */
function referenceRe(ref) {
  return new RegExp(`${ref.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?!\\s*:)`, 'g');
}

function rewriteRefs(content, file, renamed, isText) {
  if (!isText(file)) return;
  let text = content.get(file).toString('utf8');
  for (const [from, to] of renamed) {
    const targets = references(to);
    references(from).forEach((ref, i) => {
      text = text.replace(referenceRe(ref), () => targets[i]);
    });
  }
  content.set(file, Buffer.from(text, 'utf8'));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dir = process.argv[2] ?? process.env.TRUNK_STAGING_DIR;
  if (!dir) {
    console.error('usage: node scripts/hash-assets.mjs DIR (or run as a trunk post_build hook)');
    process.exit(2);
  }
  const renamed = hashAssets(dir);
  console.error(`[hash-assets] ${renamed.size} files renamed in ${dir}`);
}
