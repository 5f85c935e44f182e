// Starts the app. Trunk's Trunk.toml `pattern_script` writes the tag that loads this file, with
// the hashed names of the wasm-bindgen module and the wasm file in data attributes; keeping the
// loader in a file lets the Content-Security-Policy forbid inline scripts.
const tag = document.querySelector('script[data-js][data-wasm]');
const base = document.baseURI;
try {
  const { default: init } = await import(new URL(tag.dataset.js, base).href);
  await init({ module_or_path: new URL(tag.dataset.wasm, base) });
} catch (err) {
  const p = document.createElement('p');
  p.className = 'load-error';
  p.textContent = 'paracalc could not start: ' + err;
  document.body.append(p);
  throw err;
}
