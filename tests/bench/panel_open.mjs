// Benchmark (issue 24): opening the side panel after the worker went to sleep, the figure a
// person feels many times a day. From navigation to "ready": the composer takes typing and the
// status line shows the worker's answer (for GemiPanel: the Yew app mounted and the wasm
// worker answered). The reference is a side panel and a worker in plain JavaScript with the
// same HTML shell and CSS that read the same storage key and show the same status text
// (tests/bench/js-panel). Both workers are stopped before each open; the two alternate open by
// open. Prints p50 and p90 of each and `panel_open_ratio=` (p50 over p50, goal ≤ 1.25).
// A third contender is the floor of a wasm panel (tests/bench/wasm-floor): the reference, whose
// panel and worker also compile GemiPanel's two modules before they count as ready.
// `panel_open_floor_ratio=` is that floor against the reference: what no wasm panel of these
// sizes can beat on this machine; `panel_open_over_floor_ratio=` is GemiPanel against it.
// `panel_open_lazy_compile_ms=` is what V8 compiles on the panel's main thread before it is
// ready (a few opens traced apart, lazy_compile.mjs), again at every open: Chrome hands no
// compiled code from one renderer to the next (wasm_code_cache.mjs).
// `panel_open_floor_and_compile_ratio=` adds it to the floor.
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { launch, stopServiceWorkers, dist } from '../e2e/harness.mjs';
import { lazyCompileBefore, traced } from './lazy_compile.mjs';
import { SETTINGS, readyAt, watchReady } from './panel_ready.mjs';

const OPENS = Number(process.env.GEMIPANEL_BENCH_OPENS ?? 20);
const WARMUP = 3;
// Opens traced for what the panel compiles lazily (lazy_compile.mjs).
const COMPILE_OPENS = 5;

// The reference gets GemiPanel's own style sheets, so both draw the same shell.
const reference = mkdtempSync(join(tmpdir(), 'gemipanel-js-panel-'));
cpSync(resolve(import.meta.dirname, 'js-panel'), reference, { recursive: true });
for (const sheet of ['app.css', 'sidepanel.css']) cpSync(join(dist, sheet), join(reference, sheet));
const floor = mkdtempSync(join(tmpdir(), 'gemipanel-wasm-floor-'));
cpSync(reference, floor, { recursive: true });
cpSync(resolve(import.meta.dirname, 'wasm-floor'), floor, { recursive: true });
const floorPage = join(floor, 'sidepanel.html');
writeFileSync(floorPage, readFileSync(floorPage, 'utf8').replace('src="panel.js"', 'src="floor-panel.js"'));
cpSync(join(dist, 'wasm/sidepanel_bg.wasm'), join(floor, 'panel.wasm'));
cpSync(join(dist, 'wasm/background_bg.wasm'), join(floor, 'worker.wasm'));

const browser = await launch({ extraExtensions: [reference, floor] });
try {
  const idOf = (found) => new Promise((done, fail) => {
    const find = () => browser.context.serviceWorkers().map((w) => new URL(w.url()))
      .find((url) => url.host !== process.env.GEMIPANEL_EXTENSION_ID && found(url))?.host;
    if (find()) return done(find());
    browser.context.on('serviceworker', () => { if (find()) done(find()); });
    setTimeout(() => fail(new Error('a reference worker did not start')), 15_000);
  });
  const referenceId = await idOf((url) => url.pathname === '/background.js');
  const floorId = await idOf((url) => url.pathname === '/floor-worker.js');
  const urls = {
    ours: browser.url('sidepanel.html'),
    reference: `chrome-extension://${referenceId}/sidepanel.html`,
    floor: `chrome-extension://${floorId}/sidepanel.html`,
  };
  await watchReady(browser.context);
  const page = await browser.context.newPage();
  for (const url of Object.values(urls)) {
    await page.goto(url);
    await page.evaluate((settings) => chrome.storage.local.set({ settings }), SETTINGS);
  }

  const open = async (url) => {
    await page.goto('about:blank');
    await stopServiceWorkers(page);
    await new Promise((r) => setTimeout(r, 50));
    // From the commit on, the page is the new one: its promise answers once it is ready.
    await page.goto(url, { waitUntil: 'commit' });
    return readyAt(page);
  };
  const times = { ours: [], reference: [], floor: [] };
  const orders = [['ours', 'reference', 'floor'], ['reference', 'floor', 'ours'], ['floor', 'ours', 'reference']];
  for (let n = 0; n < OPENS + WARMUP; n++) {
    const order = orders[n % orders.length];
    for (const which of order) {
      const ms = await open(urls[which]);
      if (n >= WARMUP) times[which].push(ms);
    }
  }
  // What the panel's main thread compiles lazily before it is ready, open by open (traced apart;
  // the reference's open between two keeps each in a new renderer, as above).
  const compiled = [];
  for (let n = 0; n < COMPILE_OPENS; n++) {
    await open(urls.reference);
    const events = await traced(browser.context, page, () => open(urls.ours));
    const found = lazyCompileBefore(events, 'ready');
    if (!found) throw new Error('the trace of an open holds no ready mark');
    compiled.push(found);
  }
  const pick = (list, q) => { const s = [...list].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(s.length * q))]; };
  console.log(`panel open over ${OPENS} opens each, workers stopped before each`);
  for (const which of ['ours', 'reference', 'floor']) {
    const name = { ours: 'panel_open', reference: 'reference_panel_open', floor: 'wasm_floor_panel_open' }[which];
    console.log(`${name}_p50_ms=${pick(times[which], 0.5).toFixed(1)}`);
    console.log(`${name}_p90_ms=${pick(times[which], 0.9).toFixed(1)}`);
  }
  const p50 = (which) => pick(times[which], 0.5);
  console.log(`panel_open_ratio=${(p50('ours') / p50('reference')).toFixed(2)}`);
  console.log(`panel_open_floor_ratio=${(p50('floor') / p50('reference')).toFixed(2)}`);
  console.log(`panel_open_over_floor_ratio=${(p50('ours') / p50('floor')).toFixed(2)}`);
  // Compiled again at every open: the floor plus it is where a wasm panel running this code
  // starts, whatever it does.
  const compileMs = pick(compiled.map((c) => c.ms), 0.5);
  console.log(`panel_open_lazy_compile_ms=${compileMs.toFixed(1)}`);
  console.log(`panel_open_lazy_compiled_functions=${pick(compiled.map((c) => c.functions), 0.5)}`);
  console.log(`panel_open_floor_and_compile_ratio=${((p50('floor') + compileMs) / p50('reference')).toFixed(2)}`);
} finally {
  await browser.close();
}
