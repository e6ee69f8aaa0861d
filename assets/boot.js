// Loads the page's wasm. Kept out of index.html so the Content-Security-Policy
// needs no 'unsafe-inline' (trunk's inline loader is off: inject_scripts = false).
import init from './d9lens-web.js';

// A function returning a v128 (i8x16.popcnt): valid only where wasm SIMD
// is, which the analyzer is built for.
const SIMD_PROBE = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11]);

function bootError(message) {
  const p = document.createElement('p');
  p.className = 'boot-error';
  p.textContent = message;
  document.body.append(p);
}

if (!WebAssembly.validate(SIMD_PROBE)) {
  bootError('d9lens needs a browser with WebAssembly SIMD (Chrome or Edge 91+, Firefox 89+, Safari 16.4+).');
} else {
  init({ module_or_path: './d9lens-web_bg.wasm' }).catch((err) => {
    console.error('d9lens failed to start', err);
    bootError('d9lens could not start: ' + err);
  });
}
