// Loads the page's wasm. Kept out of index.html so the Content-Security-Policy
// needs no 'unsafe-inline' (trunk's inline loader is off: inject_scripts = false).
import init from './d9lens-web.js';

init({ module_or_path: './d9lens-web_bg.wasm' }).catch((err) => {
  console.error('d9lens failed to start', err);
  const p = document.createElement('p');
  p.className = 'boot-error';
  p.textContent = 'd9lens could not start: ' + err;
  document.body.append(p);
});
