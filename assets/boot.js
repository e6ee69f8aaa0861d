// Loads the page's wasm. Kept out of index.html so the Content-Security-Policy
// needs no 'unsafe-inline' (trunk's inline loader is off: inject_scripts = false).
//
// The single-file build (scripts/build-single.sh) inlines this script and carries
// the page's and the worker's code in data blocks instead of files: then the glue
// modules, the page's chunk loader and its chunks are loaded from blob: URLs and
// the wasm from the embedded bytes.

// A function returning a v128 (i8x16.popcnt): valid only where wasm SIMD
// is, which the analyzer is built for.
const SIMD_PROBE = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11]);

function bootError(message) {
  const p = document.createElement('p');
  p.className = 'boot-error';
  p.textContent = message;
  document.body.append(p);
}

/** A data block of the single-file build (`<script type="text/plain" id=…>`). */
const block = (id) => document.getElementById(id)?.textContent;

function base64Bytes(text) {
  const binary = atob(text.trim());
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

const blobUrl = (parts) => URL.createObjectURL(new Blob(parts, { type: 'text/javascript' }));

/** The page's files, as a build names them (scripts/hash-assets.mjs rewrites these). */
const FILES = { module: './d9lens-web.js', wasm: './d9lens-web_bg.wasm', split: './__wasm_split.js' };

/** Where the page's glue module, wasm and chunk loader come from: files, or the single file's blocks. */
function pageCode() {
  const glue = block('d9lens-page-glue');
  if (glue === undefined) {
    return FILES;
  }
  // The worker: its no-modules glue, then its start with the embedded wasm. The page
  // finds the worker script through the meta tag (src/page/assets.rs).
  const worker = blobUrl([
    block('d9lens-worker-glue'),
    `\nwasm_bindgen({ module_or_path: (${base64Bytes})(${JSON.stringify(block('d9lens-worker-wasm').trim())}) });\n`,
  ]);
  document.getElementById('asset-worker').setAttribute('content', worker);
  // The chunk loader fetches each chunk from a blob: URL, and the glue imports
  // the loader from one.
  let split = block('d9lens-page-split');
  for (const [name, bytes] of Object.entries(JSON.parse(block('d9lens-page-chunks')))) {
    const url = URL.createObjectURL(new Blob([base64Bytes(bytes)], { type: 'application/wasm' }));
    split = split.split(`new URL("./${name}", import.meta.url)`).join(JSON.stringify(url));
  }
  const splitUrl = blobUrl([split]);
  return {
    module: blobUrl([glue.split(JSON.stringify(FILES.split)).join(JSON.stringify(splitUrl))]),
    wasm: base64Bytes(block('d9lens-page-wasm')),
    split: splitUrl,
  };
}

if (!WebAssembly.validate(SIMD_PROBE)) {
  bootError('d9lens needs a browser with WebAssembly SIMD (Chrome or Edge 91+, Firefox 89+, Safari 16.4+).');
} else {
  (async () => {
    const code = pageCode();
    const { default: init } = await import(code.module);
    const exports = await init({ module_or_path: code.wasm });
    // The loader of the page's later chunks (scripts/build-page.sh) links them
    // to the main module's memory and table: it gets them from here.
    (await import(code.split)).setMainExports(exports);
  })().catch((err) => {
    console.error('d9lens failed to start', err);
    bootError('d9lens could not start: ' + err);
  });
}
