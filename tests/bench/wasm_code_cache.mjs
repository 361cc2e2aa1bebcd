// Whether Chrome hands compiled wasm code from one renderer to the next (issue 24). If it did, a
// module's functions that ran before would come compiled (or be compiled in the background) at
// the next start, instead of lazily on the page's thread as each is first called; Chromium's
// code cache is meant to do this for modules that ran hot for a moment, from the HTTP cache or
// Cache Storage. On the Chromium these tests run (156), it never does: not for an extension's
// page, from its file or from a Cache Storage copy under an https key (as kept_wasm.js keeps
// GemiPanel's), and not for a web page from the HTTP cache either; V8 never even offers the
// module for caching. So every open of the side panel and every wake of the worker compiles
// again all the code it runs (panel_open.mjs and cold_start.mjs print how much). A developer's
// tool, to check again on a new Chrome:
//
//   GEMIPANEL_EXTENSION_ID=kllodkfcinihfdkamgbfclpklodomgdp node tests/bench/wasm_code_cache.mjs
//
// A page compiles a module of 6,000 small functions, calls each once, then runs one of them hot
// long enough for V8 to optimise it (which starts V8's timer for caching) and stays 5 s. Each
// start is in a new renderer. Prints, for each start, how many functions the page compiled
// lazily (the same count at every start: nothing was handed on) and whether V8 offered the module
// for caching and Chrome gave compiled code back (trace events of Chromium's code cache).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launch, stopServiceWorkers } from '../e2e/harness.mjs';
import { lazyCompileBefore, traced } from './lazy_compile.mjs';

const FUNCTIONS = 6000;
const STARTS = 3;
const STAY_MS = 5000;
// Where Chromium traces its wasm code cache: `v8.wasm.compiledModule` when V8 offers a module,
// `v8.wasm.moduleCacheHit` when a start is given compiled code.
const CODE_CACHE_EVENTS = 'disabled-by-default-devtools.timeline';

const extension = mkdtempSync(join(tmpdir(), 'gemipanel-code-cache-'));
writeFileSync(join(extension, 'manifest.json'), JSON.stringify({
  manifest_version: 3, name: 'wasm code cache probe', version: '1',
  background: { service_worker: 'probe-worker.js' },
  content_security_policy: { extension_pages: "script-src 'self' 'wasm-unsafe-eval'; object-src 'self'" },
}));
writeFileSync(join(extension, 'probe-worker.js'), '');
writeFileSync(join(extension, 'probe.wasm'), moduleOf(FUNCTIONS));
writeFileSync(join(extension, 'probe.html'), '<!doctype html><meta charset="utf-8"><script type="module" src="probe.js"></script>');
writeFileSync(join(extension, 'probe.js'), `
const KEY = 'https://probe.invalid/1/probe.wasm';
async function source() {
  if (location.hash === '#file') return fetch('probe.wasm');
  const cache = await caches.open('probe');
  if (!await cache.match(KEY)) await cache.put(KEY, await fetch('probe.wasm'));
  return cache.match(KEY);
}
const { instance } = await WebAssembly.instantiateStreaming(await source());
for (let k = 1; k <= ${FUNCTIONS}; k++) instance.exports['f' + k](k);
performance.mark('probe-called');
for (let k = 0; k < 20; k++) instance.exports.hot(5e6);
document.title = 'hot';
`);

// The same page and module on a local web server, cacheable: the web's case, for comparison.
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm' };
const server = createServer((request, response) => {
  const file = new URL(request.url, 'http://x').pathname.slice(1);
  const type = TYPES[file.slice(file.lastIndexOf('.'))];
  if (!type || file.includes('/')) return response.writeHead(404).end();
  response.writeHead(200, { 'content-type': type, 'cache-control': 'max-age=3600' });
  response.end(readFileSync(join(extension, file)));
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const web = `http://127.0.0.1:${server.address().port}`;

const browser = await launch({ extraExtensions: [extension] });
try {
  const id = await new Promise((done, fail) => {
    const find = () => browser.context.serviceWorkers().map((w) => new URL(w.url()))
      .find((url) => url.pathname === '/probe-worker.js')?.host;
    if (find()) return done(find());
    browser.context.on('serviceworker', () => { if (find()) done(find()); });
    setTimeout(() => fail(new Error('the probe extension did not start')), 15_000);
  });
  const page = await browser.context.newPage();
  page.on('pageerror', (error) => console.error('the probe page failed:', error.message));
  const sources = {
    file: [`chrome-extension://${id}/probe.html#file`, 'the extension, from its file'],
    kept: [`chrome-extension://${id}/probe.html#kept`, 'the extension, from its Cache Storage copy'],
    web: [`${web}/probe.html#file`, 'a web page, from the HTTP cache'],
  };
  for (const [url, what] of Object.values(sources)) {
    const counts = [];
    let offered = 0;
    let given = 0;
    for (let n = 0; n < STARTS; n++) {
      // A page of another site, the workers stopped: the next start is in a new renderer.
      await page.goto('data:text/html,between');
      await stopServiceWorkers(page);
      await new Promise((r) => setTimeout(r, 300));
      const events = await traced(browser.context, page, async () => {
        await page.goto(url);
        await page.waitForFunction(() => document.title === 'hot', null, { timeout: 30_000 });
        await new Promise((r) => setTimeout(r, STAY_MS));
      }, [CODE_CACHE_EVENTS]);
      const found = lazyCompileBefore(events, 'probe-called');
      if (!found) throw new Error('the probe page did not mark its calls');
      counts.push(found.functions);
      const seen = (name) => events.some((e) => e.name === name);
      offered += seen('v8.wasm.compiledModule') ? 1 : 0;
      given += seen('v8.wasm.moduleCacheHit') ? 1 : 0;
    }
    console.log(`${what}: functions compiled lazily at each start: ${counts.join(', ')}; `
      + `offered for caching at ${offered} of ${STARTS} starts, compiled code given back at ${given}`);
  }
} finally {
  await browser.close();
  server.close();
  rmSync(extension, { recursive: true, force: true });
}

/** A module exporting `hot(n)` (a loop of n rounds) and `f1` … `fN`, each a few instructions. */
function moduleOf(count) {
  const u = (n) => { const out = []; do { let b = n & 0x7f; n >>>= 7; if (n) b |= 0x80; out.push(b); } while (n); return out; };
  const s = (n) => {
    const out = [];
    for (;;) {
      const b = n & 0x7f;
      n >>= 7;
      if ((n === 0 && !(b & 0x40)) || (n === -1 && (b & 0x40))) return [...out, b];
      out.push(b | 0x80);
    }
  };
  const name = (text) => [...u(text.length), ...Buffer.from(text)];
  const vector = (items) => [...u(items.length), ...items.flat()];
  const section = (id, body) => [id, ...u(body.length), ...body];
  const [LOCAL_GET, LOCAL_SET, I32_CONST, I32_ADD, I32_MUL, I32_XOR, I32_LT_U] = [0x20, 0x21, 0x41, 0x6a, 0x6c, 0x73, 0x49];
  // s += i * i; i += 1; while i < n
  const hot = [1, 2, 0x7f, 0x03, 0x40,
    LOCAL_GET, 2, LOCAL_GET, 1, LOCAL_GET, 1, I32_MUL, I32_ADD, LOCAL_SET, 2,
    LOCAL_GET, 1, I32_CONST, 1, I32_ADD, LOCAL_SET, 1,
    LOCAL_GET, 1, LOCAL_GET, 0, I32_LT_U, 0x0d, 0, 0x0b, LOCAL_GET, 2, 0x0b];
  const small = (k) => [0, LOCAL_GET, 0, I32_CONST, ...s(k), I32_MUL, LOCAL_GET, 0, I32_CONST, ...s(7 * k), I32_XOR, I32_ADD, 0x0b];
  const bodies = [hot, ...Array.from({ length: count }, (_, i) => small(i + 1))];
  const exports = [[...name('hot'), 0, 0], ...Array.from({ length: count }, (_, i) => [...name(`f${i + 1}`), 0, ...u(i + 1)])];
  return Buffer.from([
    0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0,
    ...section(1, vector([[0x60, 1, 0x7f, 1, 0x7f]])),
    ...section(3, vector(bodies.map(() => [0]))),
    ...section(7, vector(exports)),
    ...section(10, vector(bodies.map((body) => [...u(body.length), ...body]))),
  ]);
}
