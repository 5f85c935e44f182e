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
// options, waitForSelector), the helpers below and `assert`.

import { chromium } from 'playwright-core';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';

const HERE = dirname(fileURLToPath(import.meta.url));
const SUB_PATH = '/paracalc/';

const CHROMIUM_ARGS = [
  '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking',
  '--disable-component-update', '--disable-default-apps', '--disable-sync', '--no-first-run',
  '--metrics-recording-only',
];

// ---------------------------------------------------------------------------------------------
// Checks

const CHECKS = [
  {
    name: 'Hugging Face import onto the default plan: a plan that fits, what changed, "Start from" follows, the message beside the panel',
    run: async (ctx) => {
      const page = await ctx.open('', { viewport: { width: 1280, height: 800 } });
      await page.click('#hf-import > summary');
      // DeepSeek-V3's config.json (deepseek-ai/DeepSeek-V3 on the Hugging Face hub).
      await page.fill('#hf-text', JSON.stringify({
        model_type: 'deepseek_v3', hidden_size: 7168, intermediate_size: 18432, moe_intermediate_size: 2048,
        num_hidden_layers: 61, num_attention_heads: 128, num_key_value_heads: 128, n_shared_experts: 1,
        n_routed_experts: 256, num_experts_per_tok: 8, first_k_dense_replace: 3, moe_layer_freq: 1,
        q_lora_rank: 1536, kv_lora_rank: 512, qk_nope_head_dim: 128, qk_rope_head_dim: 64, v_head_dim: 128,
        num_nextn_predict_layers: 1, vocab_size: 129280, tie_word_embeddings: false, n_group: 8, topk_group: 4,
      }));
      await page.click('#hf-apply');
      await page.waitForSelector('#import-message');
      const msg = (await page.textContent('#import-message')).replace(/\s+/g, ' ');
      ctx.log(`import: ${msg.slice(0, 300)}`);
      assert.match(msg, /To make it fit: GPUs 8 → \d+/);
      assert.match(await page.textContent('#key-fits dd'), /^fits \(/);
      // "Start from" lists DeepSeek-V3 as the report's plan since the 1F1B preset was retired.
      assert.equal(await page.inputValue('#preset'), 'deepseek-v3-2048-h800');
      assert.match(await page.textContent('#model-params-total'), /68\d B parameters, 3\d\.\d B active per token/);
      // The message sits above the import panel, never over it.
      const [m, p] = await page.evaluate(() => ['#import-message', '#hf-import'].map((s) => {
        const r = document.querySelector(s).getBoundingClientRect();
        return { top: r.top, bottom: r.bottom };
      }));
      assert.ok(m.bottom <= p.top, `message ${JSON.stringify(m)} overlaps the panel ${JSON.stringify(p)}`);
      await ctx.screenshot(page, 'import-deepseek.png', { fullPage: true });
    },
  },
  {
    name: 'page order: verdict and first chart above the fold at 1280x800, verdict within two screens at 390 px; screenshots light and dark',
    run: async (ctx) => {
      for (const model of ['llama3-8b', 'deepseek-v3']) {
        for (const colorScheme of ['light', 'dark']) {
          const wide = await ctx.open(`?v=1&model=${model}`, { viewport: { width: 1280, height: 800 }, colorScheme });
          await wide.waitForSelector('#verdict-line');
          await wide.waitForFunction(() => {
            const c = document.querySelector('#charts canvas');
            return c && c.width > 0;
          });
          const box = await wide.evaluate(() => {
            const r = (sel) => document.querySelector(sel).getBoundingClientRect();
            return { verdict: r('#verdict-line').bottom, chartTop: r('#charts canvas').top, chartBottom: r('#charts canvas').bottom };
          });
          ctx.log(`${model} ${colorScheme} 1280x800: verdict bottom ${Math.round(box.verdict)}, chart ${Math.round(box.chartTop)}-${Math.round(box.chartBottom)}`);
          assert.ok(box.verdict <= 800, `${model}: verdict below the fold (${box.verdict})`);
          assert.ok(box.chartBottom <= 800, `${model}: first chart not wholly above the fold (${box.chartTop}-${box.chartBottom})`);
          await wide.waitForTimeout(300);
          await ctx.screenshot(wide, `order-${model}-1280-${colorScheme}.png`);
          const narrow = await ctx.open(`?v=1&model=${model}`, { viewport: { width: 390, height: 844 }, colorScheme });
          await narrow.waitForSelector('#verdict-line');
          const v = await narrow.evaluate(() => document.querySelector('#verdict-line').getBoundingClientRect().top);
          const w = await narrow.evaluate(() => document.documentElement.scrollWidth);
          ctx.log(`${model} ${colorScheme} 390: verdict at ${Math.round(v)} px (two screens: ${2 * 844}), page ${w} px wide`);
          assert.ok(v <= 2 * 844, `${model}: verdict ${v} px down at 390 px`);
          assert.ok(w <= 390, `${model}: page ${w} px wide at 390`);
          await narrow.waitForTimeout(300);
          await ctx.screenshot(narrow, `order-${model}-390-${colorScheme}.png`, { fullPage: false });
          await ctx.screenshot(narrow, `order-${model}-390-${colorScheme}-full.png`, { fullPage: true });
        }
      }
      // The GPU type and count are among the first six controls in keyboard order.
      const page = await ctx.open('', { viewport: { width: 1280, height: 800 } });
      const order = [];
      for (let i = 0; i < 10; i++) {
        await page.keyboard.press('Tab');
        order.push(await page.evaluate(() => document.activeElement?.id || document.activeElement?.tagName));
      }
      ctx.log(`tab order: ${order.join(', ')}`);
      const controls = order.filter((id) => !id.startsWith('skip-'));
      assert.ok(controls.slice(0, 6).includes('cluster-gpu') && controls.slice(0, 6).includes('cluster-num_gpus'), `first controls: ${controls.join(', ')}`);
    },
  },
  {
    name: 'typing: every number field takes a multi-digit value key by key, keeps focus and is not rewritten',
    run: async (ctx) => {
      for (const model of ['llama3-8b', 'deepseek-v3']) {
        const page = await ctx.open(`?v=1&model=${model}`, { viewport: { width: 1280, height: 800 } });
        // Unfold every folded group, so every number field can be typed into.
        await page.$$eval('details', (ds) => ds.forEach((d) => { d.open = true; }));
        const ids = await page.$$eval('#plan input[inputmode], form.inputs input[inputmode]', (es) => es.map((e) => e.id));
        assert.ok(ids.length >= 30, `${ids.length} number fields`);
        let typed = 0;
        for (const id of ids) {
          const sel = `#${id}`;
          if (!(await page.isVisible(sel))) continue;
          const before = await page.inputValue(sel);
          // A value of several digits whose first keys are not acceptable on their own (a
          // global batch of "1" does not split over the data-parallel ranks; "1." is not a
          // whole number), then the old value again.
          const decimal = (await page.getAttribute(sel, 'inputmode')) === 'decimal';
          const target = id === 'training-global_batch' ? '1024' : decimal ? '1.25' : '1024';
          for (const value of [target, before]) {
            if (value === '') continue;
            await page.focus(sel);
            await page.keyboard.press('Control+A');
            for (const key of value) {
              await page.keyboard.type(key);
              await page.waitForTimeout(15);
              const active = await page.evaluate(() => document.activeElement?.id);
              assert.equal(active, id, `${model}: focus left #${id} after typing "${key}" of "${value}" (now on #${active})`);
            }
            await page.waitForTimeout(100);
            assert.equal(await page.inputValue(sel), value, `${model}: #${id} reads what was typed`);
            assert.equal(await page.evaluate(() => document.activeElement?.id), id, `${model}: #${id} keeps focus`);
          }
          typed++;
        }
        ctx.log(`${model}: typed into ${typed} of ${ids.length} number fields`);
        assert.ok(typed >= 30, `${model}: only ${typed} fields typed into`);
        assert.equal(await page.isVisible('#fatal'), false, 'no fatal error box');
      }
    },
  },
  {
    name: 'page loads from the link: forms, key numbers, chart, strict CSP',
    run: async (ctx) => {
      const page = await ctx.open('?v=1&model=gpt3-175b', { viewport: { width: 1280, height: 900 } });
      assert.equal((await page.textContent('h1')).trim(), 'paracalc');
      assert.equal(await page.inputValue('#model-layers'), '96');
      assert.equal(await page.inputValue('#parallel-tp'), '8');
      for (const id of ['#key-step', '#key-tokens', '#key-mfu', '#key-hfu', '#key-memory', '#key-fits']) {
        assert.ok(await page.isVisible(id), `${id} visible`);
      }
      ctx.log(`summary: ${(await page.textContent('#summary-line')).trim()}`);
      await page.waitForFunction(() => {
        const c = document.querySelector('#charts canvas');
        return c && c.width > 0;
      });
      const ink = await canvasInk(page, '#charts canvas');
      ctx.log(`canvas ink: ${JSON.stringify(ink)}`);
      assert.ok(ink.painted > 20000, `painted pixels: ${ink.painted}`);
      const csp = await page.getAttribute('meta[http-equiv="Content-Security-Policy"]', 'content');
      assert.match(csp, /script-src 'self' 'wasm-unsafe-eval'/);
      assert.equal(await page.locator('script:not([src])').count(), 0, 'no inline scripts');
      assert.equal(await page.isVisible('#fatal'), false, 'no fatal error box');
      await ctx.screenshot(page, 'app-1280.png', { fullPage: true });
    },
  },
  {
    name: 'a measured step time calibrates the plan: key numbers, link, reload, error band',
    run: async (ctx) => {
      const page = await ctx.open('?v=1&model=llama3-8b', { viewport: { width: 1280, height: 1000 } });
      // The band text next to the step time, from the published runs (evidence.json).
      await page.waitForSelector('#band-step', { timeout: 10000 });
      const band = (await page.textContent('#band-step')).trim();
      ctx.log(`band: ${band}`);
      // The out-of-sample 80 % band for a new cluster (evidence::interval).
      assert.match(band, /^80 % band \d\.\d\d–\d\.\d\d× for a new cluster \(\d+ sources, \d+ runs\)/);
      // Under it, which way those runs missed (signed, uncalibrated only).
      const spread = (await page.textContent('#band-step-spread')).trim();
      ctx.log(`spread: ${spread}`);
      assert.match(spread, /^(from )?\d+ (to \d+ )?% (shorter|longer)( to \d+ % longer)? than measured on (those runs|\d+ of those \d+ runs)$/);
      // The peak memory's band says it too, in lower/higher.
      assert.match((await page.textContent('#band-memory-spread')).trim(), /^(from )?\d+ (to \d+ )?% (lower|higher)( to \d+ % higher)? than measured on (those runs|\d+ of those \d+ runs)$/);
      // The same runs in the evidence card say it as a sentence, with the mean.
      assert.match(await page.textContent('#band-spread'), /^On (those runs|\d+ of those \d+ runs) paracalc's step was .* than measured \((about right|\d+ % (shorter|longer)) on average\)\.$/);
      const before = (await page.textContent('#key-step dd')).trim();
      const mfuBefore = (await page.textContent('#key-mfu dd')).trim();
      // The predicted step in seconds, then a measurement 20 % slower.
      const m = /([\d.]+)\s*(ms|s|min)/.exec(before);
      assert.ok(m, `step text ${before}`);
      const secs = Number(m[1]) * (m[2] === 'ms' ? 1e-3 : m[2] === 'min' ? 60 : 1);
      const measured = (1.2 * secs).toPrecision(4);
      await page.fill('#measured-value', measured);
      await page.press('#measured-value', 'Enter');
      await page.locator('#measured-value').blur();
      await page.waitForFunction(() => location.search.includes('cal.compute='));
      const after = (await page.textContent('#key-step dd')).trim();
      ctx.log(`step ${before} -> ${after} (measured ${measured} s); url ${page.url()}`);
      assert.notEqual(after, before, 'the step time follows the measurement');
      assert.notEqual((await page.textContent('#key-mfu dd')).trim(), mfuBefore, 'MFU follows');
      assert.match(await page.textContent('#calibration-words'), /Calibrated: GPU kernels run at \d+ %/);
      assert.match(await page.textContent('#measured-note'), /scales with the GPU kernels/);
      await page.waitForFunction(() => /after calibration/.test(document.querySelector('#band-step')?.textContent || ''));
      assert.equal(await page.locator('#band-step-spread').count(), 0, 'no uncalibrated spread on a calibrated plan');
      await ctx.screenshot(page, 'calibrated-1280.png', { fullPage: false });
      // A reload restores the calibrated plan from the link.
      await page.reload();
      await page.waitForSelector('#calibration-reset');
      assert.equal((await page.textContent('#key-step dd')).trim(), after, 'reload keeps the calibrated step');
      // A pasted Megatron-LM log line is read, naming the field.
      await page.fill('#measured-log', ' iteration 10/ 500 | elapsed time per iteration (ms): ' + (1500 * secs).toFixed(1) + ' | throughput per GPU (TFLOP/s/GPU): 300.0 |');
      await page.locator('#measured-log').blur();
      await page.waitForFunction(() => /elapsed time per iteration \(ms\)/.test(document.querySelector('#measured-note')?.textContent || ''));
      ctx.log(`log note: ${(await page.textContent('#measured-note')).trim().slice(0, 160)}`);
      // 1.5 times the predicted step is far outside the band of similar runs: flagged.
      const warning = (await page.textContent('#measured-warning')).trim();
      ctx.log(`warning: ${warning.slice(0, 120)}`);
      assert.match(warning, /^The measured step is \d+ % slower than predicted, more than 3 times the ±\d+ % by which/);
      // Reset.
      await page.click('#calibration-reset');
      await page.waitForFunction(() => !location.search.includes('cal.'));
      assert.equal(await page.locator('#measured-warning').count(), 0, 'reset clears the warning');
      assert.equal((await page.textContent('#key-step dd')).trim(), before, 'reset restores the uncalibrated step');
    },
  },
  {
    name: 'a calibrated link: the scaling chart draws the error band and the uncalibrated curve, the time chart the uncalibrated step',
    run: async (ctx) => {
      const page = await ctx.open('?v=1&model=llama3-8b&cal.compute=0.8&chart=scaling', { viewport: { width: 1280, height: 1000 } });
      await page.waitForSelector('#band-step', { timeout: 10000 });
      assert.match(await page.textContent('#band-step'), /after calibration/);
      assert.match(await page.textContent('#summary-line'), /Calibrated to a measured run/);
      await page.waitForFunction(() => {
        const c = document.querySelector('#charts canvas');
        return c && c.width > 0;
      });
      await page.waitForTimeout(300);
      const ink = await canvasInk(page, '#charts canvas');
      assert.ok(ink.painted > 20000, `painted pixels: ${ink.painted}`);
      await page.locator('#charts').screenshot({ path: join(HERE, 'calibrated-scaling.png') });
      ctx.log(`screenshot: ${join(HERE, 'calibrated-scaling.png')}`);
      // The step-time chart keeps the uncalibrated step beside the calibrated bar, faint.
      const time = await ctx.open('?v=1&model=llama3-8b&cal.compute=0.8&chart=time', { viewport: { width: 1280, height: 1000 } });
      await time.waitForFunction(() => /uncalibrated/.test(document.querySelector('#charts canvas')?.getAttribute('aria-label') || ''));
      const label = await time.getAttribute('#charts canvas', 'aria-label');
      ctx.log(`time chart: ${label.slice(0, 120)}`);
      assert.match(label, /^Step time [\d.]+ \S+ \(calibrated; [\d.]+ \S+ uncalibrated\)/);
      await time.waitForTimeout(300);
      await time.locator('#charts').screenshot({ path: join(HERE, 'calibrated-time.png') });
      ctx.log(`screenshot: ${join(HERE, 'calibrated-time.png')}`);
    },
  },
  {
    name: 'editing a field updates the URL, and a reload restores the state',
    run: async (ctx) => {
      const page = await ctx.open('?v=1&model=gpt3-175b');
      await page.waitForFunction(() => location.search === '?v=1&model=gpt3-175b');
      await page.fill('#parallel-tp', '');
      await page.locator('#parallel-tp').pressSequentially('4'); // real key presses
      await page.waitForFunction(() => location.search === '?v=1&model=gpt3-175b&tp=4&dp=16');
      assert.equal(await page.inputValue('#parallel-dp'), '16', 'dp follows tp on the same GPUs');
      await page.fill('#training-micro_batch', '2');
      await page.waitForFunction(() => location.search.endsWith('&mbs=2&tp=4&dp=16'));
      const mfu = await page.textContent('#key-mfu');
      ctx.log(`url after typing: ${page.url()}`);

      await page.fill('#parallel-pp', 'x');
      assert.equal(await page.getAttribute('#parallel-pp', 'aria-invalid'), 'true');
      assert.equal(await page.textContent('#parallel-pp-hint'), 'Not a number.');
      await page.waitForTimeout(600);
      assert.ok(new URL(page.url()).search.endsWith('&mbs=2&tp=4&dp=16'), 'invalid input keeps the URL');

      await page.reload();
      await page.waitForSelector('#summary');
      assert.equal(await page.inputValue('#parallel-tp'), '4');
      assert.equal(await page.inputValue('#training-micro_batch'), '2');
      assert.equal(await page.textContent('#key-mfu'), mfu);
    },
  },
  {
    name: 'recompute modules: ticking one by keyboard changes the link, the peak memory and the step; a reload keeps it',
    run: async (ctx) => {
      const page = await ctx.open('?v=1&model=deepseek-v3');
      await page.waitForSelector('#training-recompute_modules');
      const peak = await page.textContent('#key-memory dd');
      const step = await page.textContent('#key-step dd');
      await page.focus('#training-recompute_modules-mla_up_proj');
      await page.keyboard.press('Space');
      await page.waitForFunction(() => location.search === '?v=1&model=deepseek-v3&rcmod=mla_up_proj');
      await page.waitForFunction((p) => document.querySelector('#key-memory dd').textContent !== p, peak);
      assert.notEqual(await page.textContent('#key-step dd'), step, 'rerunning the up projections costs time');
      const after = await page.textContent('#key-memory dd');
      ctx.log(`peak ${peak} -> ${after}`);
      await page.reload();
      await page.waitForSelector('#training-recompute_modules');
      assert.ok(await page.isChecked('#training-recompute_modules-mla_up_proj'));
      assert.ok(!(await page.isChecked('#training-recompute_modules-core_attn')));
      assert.equal(await page.textContent('#key-memory dd'), after);
    },
  },
  {
    name: 'A/B compare, evidence from the shipped data file, Megatron arguments',
    run: async (ctx) => {
      const page = await ctx.open('?v=1&model=llama3-70b', { viewport: { width: 1280, height: 900 } });
      await page.click('#pin');
      await page.fill('#training-micro_batch', '2');
      await page.waitForSelector('#compare-diffs');
      assert.match(await page.textContent('#compare-diffs'), /training\.micro_batch/);
      await page.waitForFunction(() => location.search.includes('&a.model=llama3-70b'));
      await page.click('#evidence > summary');
      await page.waitForSelector('#evidence tbody tr', { timeout: 10000 });
      const rows = await page.locator('#evidence tbody tr').count();
      ctx.log(`evidence rows: ${rows}; first: ${(await page.textContent('#evidence tbody tr')).replace(/\s+/g, ' ').trim()}`);
      assert.ok(rows >= 3);
      await page.click('#megatron > summary');
      assert.match(await page.textContent('#megatron-args'), /--tensor-model-parallel-size \d+/);
      await ctx.screenshot(page, 'app-compare.png', { fullPage: true });
    },
  },
  {
    name: 'a bad link shows a notice in plain text and the page stays up',
    run: async (ctx) => {
      const page = await ctx.open('?v=1&model=nope&name=%3Cimg%20src%3Dx%3E&tp=abc&zzz=1&gbs=1e999');
      const notices = await page.textContent('#link-notices');
      for (const key of ['model', 'tp', 'zzz', 'gbs']) assert.ok(notices.includes(key), `${key} in ${notices}`);
      assert.equal(await page.locator('main img').count(), 0, 'no markup from the link');
      assert.equal(await page.inputValue('#model-name'), '<img src=x>');
      assert.ok(await page.isVisible('#key-step'));
      await ctx.screenshot(page, 'app-bad-link.png');
    },
  },
  {
    name: 'embed: one chart, a summary line, no form; height posted to the demo page',
    run: async (ctx) => {
      const page = await ctx.open('?v=1&model=llama3-70b&embed=memory', { viewport: { width: 600, height: 500 } });
      assert.equal(await page.locator('canvas').count(), 1);
      assert.equal(await page.locator('form, input, select, .site-header').count(), 0);
      assert.match(await page.textContent('#summary'), /tokens\/s/);
      assert.equal(await page.getAttribute('#open-full', 'href'), './?v=1&model=llama3-70b');
      await ctx.screenshot(page, 'embed.png');

      const demo = await ctx.open('embed-demo.html', { viewport: { width: 900, height: 1000 } }, 'iframe');
      await demo.waitForFunction(() => [...document.querySelectorAll('iframe')]
        .every((f) => f.style.height && parseInt(f.style.height, 10) > 200), null, { timeout: 15000 });
      const heights = await demo.$$eval('iframe', (fs) => fs.map((f) => f.style.height));
      ctx.log(`iframe heights from postMessage: ${heights.join(', ')}`);
      await demo.waitForTimeout(300);
      await ctx.screenshot(demo, 'embed-demo.png', { fullPage: true });
    },
  },
  {
    name: 'an invalid field marks the results stale; Copy link refuses and Embed warns',
    run: async (ctx) => {
      const page = await ctx.open('?v=1&model=llama3-70b', { viewport: { width: 1280, height: 900 } });
      // The key numbers as shown once the evidence (the error bands) has arrived.
      await page.waitForSelector('#band-step', { timeout: 10000 });
      const step = await page.textContent('#key-step');
      await page.fill('#parallel-tp', '0');
      await page.waitForSelector('#stale-banner');
      assert.match(await page.textContent('#stale-banner'), /last valid plan.*Tensor parallel \(tp\)/);
      assert.equal(await page.textContent('#key-step'), step, 'the last valid numbers stay, marked');
      assert.match(await page.getAttribute('#summary', 'class'), /\bstale\b/);
      await page.click('#copy-link');
      assert.match(await page.textContent('#copy-status'), /^Not copied/);
      await page.evaluate(() => window.scrollTo(0, 0));
      await ctx.screenshot(page, 'app-stale.png');
      await page.click('#open-embed');
      assert.match(await page.textContent('#embed-stale'), /last valid plan/);
      await page.keyboard.press('Escape');
      await page.fill('#parallel-tp', '4');
      await page.waitForSelector('#stale-banner', { state: 'detached' });
    },
  },
  {
    name: 'an OOM plan: greyed "if it fit" numbers, overflow by stage, one click to a fitting layout',
    run: async (ctx) => {
      const page = await ctx.open('?v=1&model=llama3-70b&tp=4&pp=1&dp=16&cp=1&vp=1', { viewport: { width: 1280, height: 1100 } });
      assert.match(await page.textContent('#key-fits'), /OOM/);
      assert.match(await page.getAttribute('#key-mfu', 'class'), /\bif-fit\b/);
      assert.match(await page.textContent('#key-step'), /if it fit/);
      ctx.log(`overflow: ${(await page.textContent('#fixes-overflow')).trim()}`);
      const first = (await page.textContent('#fixes-layouts li')).replace(/\s+/g, ' ').trim();
      ctx.log(`first fitting layout: ${first}`);
      await ctx.screenshot(page, 'app-oom.png');
      await page.click('#fix-0');
      await page.waitForFunction(() => /fits/.test(document.querySelector('#key-fits').textContent));
      ctx.log(`after: ${(await page.textContent('#change-diff')).trim()}`);
      assert.equal(await page.evaluate(() => document.activeElement.id), 'change-undo');
      await page.waitForFunction(() => location.search !== '?v=1&model=llama3-70b&tp=4&pp=1&dp=16&cp=1&vp=1');
    },
  },
  {
    name: 'a plan within the memory error band of the limit says the verdict could go either way',
    run: async (ctx) => {
      // Llama 3 8B on 8 H100s, cp 1: 6144 tokens predict 76.3 of 79.7 GiB, 7040 tokens 80.9.
      const page = await ctx.open('?v=1&model=llama3-8b&seq=6144&dp=8&cp=1', { viewport: { width: 1280, height: 900 } });
      await page.waitForSelector('#fit-uncertain', { timeout: 10000 });
      assert.match(await page.textContent('#key-fits dd'), /^may not fit \(.* free\)/);
      assert.match(await page.getAttribute('#key-fits', 'class'), /\btight\b/);
      const note = (await page.textContent('#fit-uncertain')).trim();
      ctx.log(`tight: ${note}`);
      assert.match(note, /^The limit is inside the ±\d+ % memory error: it may not fit\.$/);
      await ctx.screenshot(page, 'app-tight.png');
      await page.fill('#model-seq_len', '7040');
      // Over the limit but inside the band: still "may not fit" (engine::memory::verdict).
      await page.waitForFunction(() => /^may not fit \(.* over\)/.test(document.querySelector('#key-fits dd').textContent));
      await page.waitForFunction(() => /it may fit/.test(document.querySelector('#fit-uncertain')?.textContent || ''));
      assert.match(await page.getAttribute('#key-fits', 'class'), /\btight\b/);
      // Far from the limit the note is gone: cp 2 predicts 67 GiB.
      const far = await ctx.open('?v=1&model=llama3-8b', { viewport: { width: 1280, height: 900 } });
      await far.waitForSelector('#band-step', { timeout: 10000 });
      assert.equal(await far.locator('#fit-uncertain').count(), 0);
      assert.match(await far.textContent('#key-fits dd'), /^fits \(/);
    },
  },
  {
    name: 'the verdict names the largest exposed cost; Try it changes the plan and the key numbers',
    run: async (ctx) => {
      const page = await ctx.open('?v=1&model=gpt3-175b', { viewport: { width: 1280, height: 900 } });
      const line = (await page.textContent('#verdict-line')).trim();
      ctx.log(`verdict: ${line}`);
      assert.match(line, /the largest exposed cost is [a-z -]+, \d+ %/);
      const step = await page.textContent('#key-step');
      const url = page.url();
      await page.click('#try-0');
      await page.waitForSelector('#change-diff');
      ctx.log(`tried: ${(await page.textContent('#change-text')).trim()} ${(await page.textContent('#change-diff')).trim()}`);
      assert.notEqual(await page.textContent('#key-step'), step);
      await page.waitForFunction((u) => location.href !== u, url);
    },
  },
  {
    name: 'DeepSeek-V3 on GB200: DeepEP offered, and the stack note says what an older Transformer Engine costs',
    run: async (ctx) => {
      const page = await ctx.open('?v=1&model=deepseek-v3&mtp=&shffn=2048&gbs=1024&prec=bf16&recompute=none&tokens=&fw=megatron&tp=2&pp=4&dp=16&ep=32&sp=1&gpu=gb200&gpus=128&gpn=4', { viewport: { width: 1280, height: 900 } });
      const note = (await page.textContent('#verdict-stack-note-0')).trim();
      ctx.log(`stack note: ${note}`);
      assert.match(note, /192 wide for query\/key.*cuDNN 9\.11.*step \d+(\.\d+)? s, peak \d+ GiB per GPU \(does not fit\)/);
      const offers = await page.textContent('#verdict-suggestions');
      assert.match(offers, /MoE dispatch all-to-all → DeepEP/);
    },
  },
  {
    name: 'split proposals: the faster and the lighter split, each applied in one click; preset and GPU sources',
    run: async (ctx) => {
      // DeepSeek-V3 with the report's recomputation (RMSNorm, MLA up-projections, SwiGLU output)
      // and a combine that keeps each routed row's expert output (mprob=0, Megatron-Core 0.12.0 and older):
      // the even split does not fit on the H800s (89.4 GiB); the faster split fits.
      const page = await ctx.open('?v=1&model=deepseek-v3&rcmod=mla_up_proj,layernorm,moe_act&mprob=0', { viewport: { width: 1280, height: 900 } });
      const faster = (await page.textContent('#better-split')).trim();
      const lighter = (await page.textContent('#lighter-split')).trim();
      ctx.log(`faster: ${faster}`);
      ctx.log(`lighter: ${lighter}`);
      assert.match(faster, /faster per step/);
      assert.match(faster, /fits in memory/);
      assert.match(lighter, /less peak memory/);
      assert.doesNotMatch(lighter, /slower per step/);
      const list = /no slower: ([\d,]+)/.exec(lighter)[1];
      const step = await page.textContent('#key-step');
      await page.click('#apply-lighter-split');
      await page.waitForFunction((l) => location.search.includes(`lps=${l}`), list);
      assert.equal(await page.inputValue('#parallel-layers_per_stage'), list);
      assert.notEqual(await page.textContent('#key-step'), step);
      // The preset's and the GPU's sources, folded, and fetched from sources.json when the
      // fold is first opened (the bundle does not carry them).
      assert.match(await page.textContent('#preset-source summary'), /DeepSeek-V3/);
      assert.doesNotMatch(await page.textContent('#preset-source'), /config\.json/);
      const fetchedSources = () => page.evaluate(() => performance.getEntriesByType('resource').some((e) => e.name.endsWith('/sources.json')));
      assert.equal(await fetchedSources(), false, 'sources.json is not part of the first load');
      await page.click('#preset-source summary');
      await page.waitForFunction(() => /config\.json/.test(document.querySelector('#preset-source').textContent));
      await page.click('#gpu-source summary');
      await page.waitForFunction(() => /arXiv 2412\.19437/.test(document.querySelector('#gpu-source').textContent));
      assert.equal(await fetchedSources(), true);
    },
  },
  {
    name: '128K tokens: MFU with the causal value beside it, defined where shown',
    run: async (ctx) => {
      const page = await ctx.open('?v=1&model=llama3-70b&seq=131072&gbs=16&cp=4&dp=1&recompute=full', { viewport: { width: 1280, height: 900 } });
      const mfu = (await page.textContent('#key-mfu')).replace(/\s+/g, ' ').trim();
      ctx.log(`MFU tile: ${mfu}`);
      assert.match(mfu, /causal \d+(\.\d)? %/);
      assert.match(await page.getAttribute('#key-mfu', 'title'), /^Model FLOPs utilisation/);
      await ctx.screenshot(page, 'app-128k.png');
      await page.click('#key-mfu .help-link');
      assert.ok(await page.isVisible('#help-mfu'));
    },
  },
  {
    name: 'keyboard: skip link reaches the charts; the Embed dialog keeps and returns focus',
    run: async (ctx) => {
      const page = await ctx.open('', { viewport: { width: 1280, height: 900 } });
      await ctx.screenshot(page, 'app-default.png');
      await page.keyboard.press('Tab');
      await page.keyboard.press('Tab');
      assert.equal(await page.evaluate(() => document.activeElement.id), 'skip-charts');
      await page.keyboard.press('Enter');
      await page.keyboard.press('Tab');
      assert.ok(await page.evaluate(() => document.querySelector('#charts').contains(document.activeElement)),
        `focus in the charts after 4 presses: ${await page.evaluate(() => document.activeElement.outerHTML.slice(0, 80))}`);
      await page.click('#open-embed');
      for (let i = 0; i < 8; i++) {
        await page.keyboard.press(i % 3 === 2 ? 'Shift+Tab' : 'Tab');
        assert.ok(await page.evaluate(() => document.querySelector('#embed-dialog').contains(document.activeElement)), `focus left the dialog after ${i + 1} presses`);
      }
      await page.keyboard.press('Escape');
      assert.equal(await page.evaluate(() => document.activeElement.id), 'open-embed');
    },
  },
  {
    name: 'embed snippets: every chart shows its whole content at the snippet size (600 px wide)',
    run: async (ctx) => {
      const page = await ctx.open('?v=1&model=llama3-70b', { viewport: { width: 1280, height: 900 } });
      await page.click('#open-embed');
      const charts = await page.$$eval('#embed-chart option', (os) => os.map((o) => o.value));
      for (const chart of charts) {
        await page.selectOption('#embed-chart', chart);
        const code = await page.inputValue('#embed-code');
        const height = Number(/height="(\d+)"/.exec(code)[1]);
        const src = /src="([^"]+)"/.exec(code)[1].replaceAll('&amp;', '&');
        const query = src.slice(src.indexOf('?'));
        const embed = await ctx.open(query, { viewport: { width: 600, height } }, '#summary');
        await embed.waitForSelector('#open-full');
        if (chart === 'search') await embed.waitForSelector('[data-search-state="done"]', { timeout: 60000 });
        await embed.waitForTimeout(300);
        // The embed's own box (the document is at least the viewport tall, so its scrollHeight
        // cannot show content that is shorter than the snippet).
        const size = await embed.evaluate(() => ({
          h: Math.ceil(document.querySelector('#embed').getBoundingClientRect().bottom + window.scrollY),
          w: document.documentElement.scrollWidth,
          link: document.querySelector('#open-full').getBoundingClientRect().bottom,
        }));
        ctx.log(`${chart}: snippet ${height} px, content ${size.h} px, width ${size.w} px, link bottom ${Math.round(size.link)}`);
        await ctx.screenshot(embed, `embed-${chart}.png`);
        assert.ok(size.h <= height, `${chart}: content ${size.h} px > snippet ${height} px`);
        assert.ok(size.w <= 600, `${chart}: ${size.w} px wide at 600 px`);
        assert.ok(size.link <= height, `${chart}: the link is cut`);
      }
    },
  },
  {
    name: 'narrow screen (360 px): no horizontal scrolling',
    run: async (ctx) => {
      const page = await ctx.open('?v=1&model=mixtral-8x7b', { viewport: { width: 360, height: 800 } });
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width <= 360, `page is ${width} px wide`);
      await ctx.screenshot(page, 'app-360.png', { fullPage: true });
      // The search results table is wider than the screen: it scrolls in its own box.
      const search = await ctx.open('?v=1&model=deepseek-v3&chart=search', { viewport: { width: 360, height: 800 } });
      await search.waitForSelector('table.search-best', { timeout: 30000 });
      const w2 = await search.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(w2 <= 360, `with search results the page is ${w2} px wide`);
    },
  },
];

// ---------------------------------------------------------------------------------------------
// Helpers for checks

/** Canvas pixels that are painted (not transparent). */
async function canvasInk(page, selector) {
  return page.$eval(selector, (c) => {
    // Ink = pixels that differ from the background (the colour of the top-left corner).
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    const [r0, g0, b0, a0] = [d[0], d[1], d[2], d[3]];
    let painted = 0;
    for (let i = 0; i < d.length; i += 4) {
      if (Math.abs(d[i] - r0) + Math.abs(d[i + 1] - g0) + Math.abs(d[i + 2] - b0) + Math.abs(d[i + 3] - a0) > 24) painted++;
    }
    return { painted, total: d.length / 4, width: c.width, height: c.height };
  });
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
    // E2E_ONLY=text runs only the checks whose name contains it (for quick local runs).
    const only = process.env.E2E_ONLY;
    for (const check of CHECKS.filter((c) => !only || c.name.includes(only))) {
      const problems = [];
      const contexts = [];
      const ctx = {
        log: (msg) => console.log(`    ${msg}`),
        open: async (query, options = {}, waitFor = '#summary') => {
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
          await page.waitForSelector(waitFor, { timeout: 10000 });
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
