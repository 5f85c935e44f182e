// Sizes paracalc iframes to their content. Each embed posts {paracalcHeight: h} (CSS pixels)
// to its parent; this listener accepts messages only from iframes on this page and only a
// finite, bounded number.
window.addEventListener('message', (event) => {
  const h = event.data && event.data.paracalcHeight;
  if (typeof h !== 'number' || !Number.isFinite(h) || h <= 0) return;
  for (const frame of document.querySelectorAll('iframe')) {
    if (frame.contentWindow === event.source) {
      frame.style.height = Math.min(Math.ceil(h) + 2, 4000) + 'px';
    }
  }
});
