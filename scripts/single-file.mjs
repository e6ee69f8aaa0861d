// Turns a built page (dist/, after scripts/hash-assets.mjs) into one HTML file:
// styles inlined, the favicon as a data: URL, boot.js inline, and the page's and
// the worker's glue and wasm, the page's chunks and their loader in data blocks
// that boot.js loads (see its header).
// The file works from any static host or as one object (attached to a ticket,
// uploaded next to the traces). dial9's demo trace is left out (4 MB): drop a
// trace on the page instead.
//
//   node scripts/single-file.mjs DIST OUT.html
//
// Inline code needs the CSP to allow it: each inline script and style is allowed
// by its SHA-256 hash, the glue modules and the worker by `blob:` (script-src),
// and the page's chunks by `blob:` (connect-src).
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const sha256 = (text) => `'sha256-${crypto.createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/** `<script type="text/plain">` ends at the first `</script`: a text that holds one cannot go in. */
function dataBlock(id, text) {
  if (/<\/script/i.test(text)) throw new Error(`${id}: the text holds "</script" and cannot be inlined`);
  return `<script type="text/plain" id="${id}">${text}</script>`;
}

function one(text, re, what) {
  const m = text.match(re);
  if (!m) throw new Error(`${what} not found`);
  return m[1];
}

export function singleFile(dist) {
  const read = (name) => fs.readFileSync(path.join(dist, name));
  let html = read('index.html').toString('utf8');
  const hashes = { script: [], style: [] };

  // Styles, in order.
  html = html.replace(/<link rel="stylesheet" href="\.\/([^"]+)"[^>]*>/g, (_, name) => {
    const css = read(name).toString('utf8');
    hashes.style.push(sha256(css));
    return `<style>${css}</style>`;
  });
  html = html.replace(/<link rel="icon" href="\.\/([^"]+\.svg)"([^>]*)>/, (_, name, rest) => {
    return `<link rel="icon" href="data:image/svg+xml;base64,${read(name).toString('base64')}"${rest}>`;
  });
  // Its code is inline: nothing to preload.
  html = html.replace(/\s*<link rel="(?:modulepreload|preload)" [^>]*>/g, '');
  // No demo trace: the page hides its button when the tag is absent.
  html = html.replace(/\s*<meta name="d9lens-asset" id="asset-demo-trace"[^>]*>/, '');

  const bootName = one(html, /<script type="module" src="\.\/([^"]+)"><\/script>/, 'boot script');
  const boot = read(bootName).toString('utf8');
  const pageGlue = one(boot, /'\.\/(d9lens-web-[0-9a-f]{16}\.js)'/, 'page glue in boot.js');
  const pageWasm = one(boot, /'\.\/(d9lens-web_bg-[0-9a-f]{16}\.wasm)'/, 'page wasm in boot.js');
  const loaderName = one(html, /id="asset-worker" content="\.\/([^"]+)"/, 'worker loader');
  const loader = read(loaderName).toString('utf8');
  const workerGlue = one(loader, /importScripts\("\.\/([^"]+)"\)/, 'worker glue in its loader');
  const workerWasm = one(loader, /wasm_bindgen\("\.\/([^"]+)"\)/, 'worker wasm in its loader');

  // The page's later chunks and their loader (scripts/build-page.sh).
  const splitName = one(boot, /'\.\/(__wasm_split-[0-9a-f]{16}\.js)'/, 'chunk loader in boot.js');
  const split = read(splitName).toString('utf8');
  const chunks = Object.fromEntries(
    [...split.matchAll(/new URL\("\.\/([^"]+\.wasm)", import\.meta\.url\)/g)].map(([, name]) => [
      name,
      read(name).toString('base64'),
    ]),
  );
  if (Object.keys(chunks).length === 0) throw new Error(`${splitName} names no chunk`);

  const blocks = [
    dataBlock('d9lens-page-glue', read(pageGlue).toString('utf8')),
    dataBlock('d9lens-page-wasm', read(pageWasm).toString('base64')),
    dataBlock('d9lens-page-split', split),
    dataBlock('d9lens-page-chunks', JSON.stringify(chunks)),
    dataBlock('d9lens-worker-glue', read(workerGlue).toString('utf8')),
    dataBlock('d9lens-worker-wasm', read(workerWasm).toString('base64')),
  ].join('\n');
  hashes.script.push(sha256(boot));
  html = html.replace(
    /<script type="module" src="\.\/[^"]+"><\/script>/,
    () => `${blocks}\n<script type="module">${boot}</script>`,
  );

  html = html.replace(/(http-equiv="Content-Security-Policy"\s+content=")([^"]*)"/, (_, start, csp) => {
    const directives = csp.split(';').map((d) => d.trim());
    const add = (name, extra) => {
      const i = directives.findIndex((d) => d.startsWith(`${name} `));
      if (i < 0) throw new Error(`the CSP has no ${name}`);
      directives[i] = `${directives[i]} ${extra.join(' ')}`;
    };
    add('script-src', [...hashes.script, 'blob:']);
    // The chunks are fetched from blob: URLs.
    add('connect-src', ['blob:']);
    add('style-src', hashes.style);
    return `${start}${directives.join('; ')}"`;
  });
  return html;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [dist, out] = process.argv.slice(2);
  if (!dist || !out) {
    console.error('usage: node scripts/single-file.mjs DIST OUT.html');
    process.exit(2);
  }
  const html = singleFile(dist);
  fs.writeFileSync(out, html);
  console.error(`[single-file] ${out}: ${(html.length / 1e6).toFixed(2)} MB`);
}
