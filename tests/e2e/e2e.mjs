// End-to-end check of the built site (dist/) in headless Chromium, through playwright-core
// driving Debian's /usr/bin/chromium.
//
//   node tests/e2e/e2e.mjs [DIST_DIR] [--url BASE_URL]
//
// Without --url it serves DIST_DIR (default: dist) with `python3 -m http.server` on 127.0.0.1
// under the sub-path /paracalc/, which also proves that the site's asset URLs are relative.
// Every page opened through `ctx.open` fails the run on any console error, uncaught page
// error, failed request, HTTP status >= 400 or request to another origin. Screenshots are
// written next to this file (*.png, gitignored).
//
// To add a check, append { name, run: async (ctx) => { ... } } to CHECKS; use ctx.open(query,
// options), the helpers below and `assert`.

import { chromium } from 'playwright-core';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';

const HERE = dirname(fileURLToPath(import.meta.url));
const SUB_PATH = '/paracalc/';
const BAR_RGB = [37, 99, 235]; // the bar colour of src/app/charts/stage_layers.rs

const CHROMIUM_ARGS = [
  '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking',
  '--disable-component-update', '--disable-default-apps', '--disable-sync', '--no-first-run',
  '--metrics-recording-only',
];

// ---------------------------------------------------------------------------------------------
// Checks

const CHECKS = [
  {
    name: 'page loads from the URL query and draws the chart',
    run: async (ctx) => {
      const page = await ctx.open('?layers=30&pp=4');
      assert.equal(await page.textContent('h1'), 'paracalc');
      assert.equal(await page.inputValue('#layers'), '30');
      assert.equal(await page.inputValue('#pp'), '4');
      assert.equal(await summary(page), '30 layers on 4 stages: 7 to 8 per stage');
      const ink = await canvasInk(page, '#chart-stage-layers');
      ctx.log(`canvas ink: ${JSON.stringify(ink)}`);
      assert.ok(ink.bar > 60000, `bar-coloured pixels: ${ink.bar}`);
      assert.ok(ink.nonWhite > ink.bar + 2000, `non-white pixels: ${ink.nonWhite}`);
      assert.equal(await barsOnRow(page, '#chart-stage-layers', 240), 4);
      const csp = await page.getAttribute('meta[http-equiv="Content-Security-Policy"]', 'content');
      assert.match(csp, /script-src 'self' 'wasm-unsafe-eval'/);
      assert.equal(await page.locator('script:not([src])').count(), 0, 'no inline scripts');
    },
  },
  {
    name: 'typing updates the URL, and a reload restores the state',
    run: async (ctx) => {
      const page = await ctx.open('');
      assert.equal(await summary(page), '96 layers on 16 stages: 6 per stage');
      assert.equal(new URL(page.url()).search, '', 'default state has no query');
      await page.fill('#layers', '30');
      await page.fill('#pp', '');
      await page.locator('#pp').pressSequentially('8'); // real key presses
      await page.waitForFunction(() => location.search === '?layers=30&pp=8');
      assert.equal(await summary(page), '30 layers on 8 stages: 3 to 4 per stage');
      assert.equal(await barsOnRow(page, '#chart-stage-layers', 240), 8);
      ctx.log(`url after typing: ${page.url()}`);

      await page.fill('#pp', '0');
      assert.equal(await page.getAttribute('#pp', 'aria-invalid'), 'true');
      assert.equal(await page.textContent('#pp-hint'), 'Enter a whole number from 1 to 256.');
      assert.equal(new URL(page.url()).search, '?layers=30&pp=8', 'invalid input keeps the URL');
      await page.fill('#pp', '8');

      await page.reload();
      await page.waitForSelector('#summary');
      assert.equal(await page.inputValue('#layers'), '30');
      assert.equal(await page.inputValue('#pp'), '8');
      assert.equal(await summary(page), '30 layers on 8 stages: 3 to 4 per stage');
      await ctx.screenshot(page, 'app.png');
    },
  },
  {
    name: 'narrow screen (360 px): no horizontal scrolling',
    run: async (ctx) => {
      const page = await ctx.open('?layers=30&pp=4', { viewport: { width: 360, height: 800 } });
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width <= 360, `page is ${width} px wide`);
      await ctx.screenshot(page, 'app-360.png', { fullPage: true });
    },
  },
];

// ---------------------------------------------------------------------------------------------
// Helpers for checks

async function summary(page) {
  return (await page.textContent('#summary')).trim();
}

/** Pixels on the canvas that are not white, and pixels in the bar colour. */
async function canvasInk(page, selector) {
  return page.$eval(selector, (c, bar) => {
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let nonWhite = 0, barPx = 0;
    for (let i = 0; i < d.length; i += 4) {
      if (d[i + 3] > 0 && (d[i] < 245 || d[i + 1] < 245 || d[i + 2] < 245)) nonWhite++;
      if (Math.abs(d[i] - bar[0]) < 8 && Math.abs(d[i + 1] - bar[1]) < 8 && Math.abs(d[i + 2] - bar[2]) < 8) barPx++;
    }
    return { nonWhite, bar: barPx, total: d.length / 4 };
  }, BAR_RGB);
}

/** Separate runs of bar-coloured pixels along one canvas row. */
async function barsOnRow(page, selector, y) {
  return page.$eval(selector, (c, [y, bar]) => {
    const d = c.getContext('2d').getImageData(0, y, c.width, 1).data;
    let runs = 0, inside = false;
    for (let i = 0; i < d.length; i += 4) {
      const isBar = Math.abs(d[i] - bar[0]) < 8 && Math.abs(d[i + 1] - bar[1]) < 8 && Math.abs(d[i + 2] - bar[2]) < 8;
      if (isBar && !inside) runs++;
      inside = isBar;
    }
    return runs;
  }, [y, BAR_RGB]);
}

// ---------------------------------------------------------------------------------------------
// Runner

function parseArgs(argv) {
  const opts = { dist: 'dist', url: null };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--url') opts.url = argv[++i];
    else opts.dist = argv[i];
  }
  return opts;
}

/** Serves `dist` at http://127.0.0.1:PORT/paracalc/ (a symlink in a temporary folder). */
async function serve(dist) {
  const abs = resolve(dist);
  if (!existsSync(join(abs, 'index.html'))) throw new Error(`${abs}/index.html not found: build first`);
  const root = mkdtempSync(join(tmpdir(), 'paracalc-e2e-'));
  symlinkSync(abs, join(root, SUB_PATH.replaceAll('/', '')));
  const server = spawn('python3', ['-u', '-m', 'http.server', '0', '--bind', '127.0.0.1', '--directory', root],
    { stdio: ['ignore', 'pipe', 'pipe'] });
  const port = await new Promise((ok, fail) => {
    let out = '';
    const timer = setTimeout(() => fail(new Error(`http.server did not start: ${out}`)), 10000);
    server.stdout.on('data', (b) => {
      out += b;
      const m = /port (\d+)/.exec(out);
      if (m) { clearTimeout(timer); ok(Number(m[1])); }
    });
    server.on('exit', (code) => fail(new Error(`http.server exited with ${code}: ${out}`)));
  });
  server.stderr.resume(); // access log; not needed
  return {
    url: `http://127.0.0.1:${port}${SUB_PATH}`,
    stop: () => { server.kill(); rmSync(root, { recursive: true, force: true }); },
  };
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const server = opts.url ? null : await serve(opts.dist);
  const base = opts.url ?? server.url;
  const origin = new URL(base).origin;
  console.log(`e2e: testing ${base}`);
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
  let passed = 0;
  const failed = [];
  try {
    for (const check of CHECKS) {
      const problems = [];
      const contexts = [];
      const ctx = {
        log: (msg) => console.log(`    ${msg}`),
        open: async (query, options = {}) => {
          const context = await browser.newContext(options);
          contexts.push(context);
          const page = await context.newPage();
          page.on('console', (m) => {
            if (m.type() === 'error') problems.push(`console error: ${m.text()}`);
            else if (m.type() === 'warning') console.log(`    console warning: ${m.text()}`);
          });
          page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
          page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()} ${r.failure()?.errorText}`));
          page.on('response', (r) => { if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`); });
          page.on('request', (r) => {
            const u = r.url();
            if (!u.startsWith('data:') && !u.startsWith(base)) problems.push(`request outside ${base}: ${u}`);
            if (new URL(u).origin !== origin && !u.startsWith('data:')) problems.push(`request to another origin: ${u}`);
          });
          await page.goto(base + query);
          await page.waitForSelector('#summary', { timeout: 10000 });
          return page;
        },
        screenshot: async (page, name, options = {}) => {
          const path = join(HERE, name);
          await page.screenshot({ path, ...options });
          console.log(`    screenshot: ${path}`);
        },
      };
      const started = Date.now();
      try {
        await check.run(ctx);
        // Let late console messages arrive before judging the page.
        await new Promise((r) => setTimeout(r, 200));
        if (problems.length) throw new Error(problems.join('\n'));
        passed++;
        console.log(`e2e: ok   ${check.name} (${Date.now() - started} ms)`);
      } catch (err) {
        failed.push(check.name);
        console.log(`e2e: FAIL ${check.name}\n${String(err.stack || err).replace(/^/gm, '    ')}`);
        if (problems.length) console.log(problems.map((p) => `    ${p}`).join('\n'));
      } finally {
        for (const c of contexts) await c.close();
      }
    }
  } finally {
    await browser.close();
    server?.stop();
  }
  console.log(`e2e result: ${failed.length ? 'FAILED' : 'ok'}. ${passed} passed; ${failed.length} failed`);
  process.exit(failed.length ? 1 : 0);
}

main().catch((err) => { console.error(err); process.exit(1); });
