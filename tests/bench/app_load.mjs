// Benchmark: MCP Apps in the side panel.
//
// 1. Load: from the tool result arriving in the side panel to the app's
//    `ui/notifications/initialized`, p50 over LOADS runs of the MCP Apps project's published
//    React example (server-basic-react, a 400 KB single-file app) started from the tool
//    browser; against the same HTML in one plain srcdoc frame answered by a minimal host
//    (ui/initialize only), in a blank page of the same browser (a srcdoc frame of the side
//    panel itself would inherit the extension's CSP, which forbids inline scripts). Beside
//    them, the floor that isolation alone sets: the document the panel prepared (the app's
//    CSP first) in one sandboxed srcdoc frame of that blank page, with a sandboxed frame kept
//    open there as the panel keeps its spare. The three alternate run by run.
// 2. Typing: input-to-paint p95 while typing in the composer of a chat with 30 apps, against
//    an empty chat (goal: ratio ≤ 1.5).
//
// Measured from outside the product: an init script notes when the worker's tool result
// reaches the page (on the worker's MessageChannel lane, or its chrome.runtime port), when the
// panel hands the app's document to the sandbox page, when that document has loaded, and when
// the app's `ui/initialize` and `initialized` pass through the relay's MessageChannel; the
// phases between are printed too. The tool browser shows the app as the call starts, from the
// resource it prefetched, in the spare sandbox page: the document may be handed over before
// the result arrives (result_to_load < 0).
import { launch } from '../e2e/harness.mjs';
import { startPublishedApp } from '../e2e/servers.mjs';
import { startFakeGemini, functionCallChunk, textChunks } from '../fixtures/fake-gemini/server.mjs';
import { startAppsSmoke } from '../fixtures/apps-smoke/server.mjs';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const LOADS = Number(process.env.GEMIPANEL_BENCH_APP_LOADS ?? 50);
const WARMUP = 3;
const APPS_IN_CHAT = 30;
const KEYS = 120;
const API_KEY = 'bench-key';

const appHtml = readFileSync(fileURLToPath(new URL(
  '../node_modules/@modelcontextprotocol/server-basic-react/dist/mcp-app.html', import.meta.url)), 'utf8');
const p = (xs, q) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * q))];

const react = await startPublishedApp('basic-react');
const smoke = await startAppsSmoke();
const fake = await startFakeGemini({ apiKey: API_KEY });
const browser = await launch();
try {
  await browser.context.addInitScript(() => {
    globalThis.__marks = { result: [], load: [], loaded: [], initialize: [], initialized: [] };
    const Channel = globalThis.MessageChannel;
    globalThis.MessageChannel = class extends Channel {
      constructor() {
        super();
        const post = this.port1.postMessage.bind(this.port1);
        this.port1.postMessage = (message, ...rest) => {
          if (message?.type === 'load') {
            globalThis.__marks.load.push(performance.now());
            // UTF-8 bytes, transferred away by this post: read (once) before it goes.
            globalThis.__prepared ??= new TextDecoder().decode(message.document);
          }
          return post(message, ...rest);
        };
        this.port1.addEventListener('message', (event) => {
          // The worker's fast lane to the page carries answers as JSON text.
          if (typeof event.data === 'string' && event.data.includes('"type":"tool_result"')) {
            globalThis.__marks.result.push(performance.now());
          } else if (event.data?.type === 'loaded') {
            globalThis.__marks.loaded.push(performance.now());
          } else if (event.data?.type === 'app' && event.data.message?.method === 'ui/initialize') {
            globalThis.__marks.initialize.push(performance.now());
          } else if (event.data?.type === 'app' && event.data.message?.method === 'ui/notifications/initialized') {
            globalThis.__marks.initialized.push(performance.now());
          }
        });
      }
    };
    const runtime = globalThis.chrome?.runtime;
    if (runtime?.connect) {
      const connect = runtime.connect.bind(runtime);
      runtime.connect = (...args) => {
        const port = connect(...args);
        port.onMessage.addListener((m) => {
          if (m?.response?.type === 'tool_result') globalThis.__marks.result.push(performance.now());
        });
        return port;
      };
    }
  });
  const page = await browser.context.newPage();
  await page.goto(browser.url('sidepanel.html'));
  await page.evaluate(({ key, base }) => chrome.storage.local.set({
    settings: { version: 6, gemini: { api_key: key, base_url: base }, servers: [] },
  }), { key: API_KEY, base: fake.url });
  await page.reload();
  for (const [id, name, url] of [['srv_reactbench', 'basic-react', react.url], ['srv_appsbench', 'Apps', smoke.url]]) {
    for (const edit of [{ type: 'add_server', id, server: { name, url } }, { type: 'set_trust', id, trust: true }]) {
      const reply = await page.evaluate((request) => chrome.runtime.sendMessage({ id: 1, request }), { type: 'edit_settings', edit });
      if (reply?.response?.type !== 'settings') throw new Error(JSON.stringify(reply));
    }
  }
  await page.reload();
  await page.getByTestId('worker-status').and(page.locator('[data-state="ok"]')).waitFor();

  // --- 1. load ---------------------------------------------------------------------------
  await page.getByTestId('tools').click();
  await page.getByTestId('tool-browser').locator('[data-server="basic-react"] summary').click();
  const phases = {
    result_to_load: [], load_to_initialized: [], load_to_loaded: [], loaded_to_initialize: [],
    initialize_to_initialized: [],
  };
  const ours = async () => {
    // A fresh runner each time (the last one's frame goes), in the same page.
    await page.bringToFront();
    const back = page.getByRole('button', { name: '← All tools' });
    if (await back.count()) await back.click();
    await page.locator('[data-tool="get-time"]').click();
    await page.evaluate(() => { for (const list of Object.values(globalThis.__marks)) list.length = 0; });
    await page.getByTestId('tool-run').click();
    await page.waitForFunction(() => globalThis.__marks.initialized.length > 0 && globalThis.__marks.result.length > 0,
      null, { timeout: 30_000 }).catch(async (e) => {
      throw new Error(`${e.message}: marks ${JSON.stringify(await page.evaluate(() => globalThis.__marks))}`);
    });
    const marks = await page.evaluate(() => globalThis.__marks);
    phases.result_to_load.push(marks.load[0] - marks.result[0]);
    phases.load_to_initialized.push(marks.initialized[0] - marks.load[0]);
    phases.load_to_loaded.push(marks.loaded[0] - marks.load[0]);
    phases.loaded_to_initialize.push(marks.initialize[0] - marks.loaded[0]);
    phases.initialize_to_initialized.push(marks.initialized[0] - marks.initialize[0]);
    return marks.initialized[0] - marks.result[0];
  };
  const blank = await browser.context.newPage();
  const plain = async (html, sandboxed) => (await blank.bringToFront(), blank).evaluate(({ html, sandboxed }) => new Promise((resolve, reject) => {
    const frame = document.createElement('iframe');
    if (sandboxed) frame.setAttribute('sandbox', 'allow-scripts');
    const started = performance.now();
    const onMessage = (event) => {
      if (event.source !== frame.contentWindow) return;
      const m = event.data;
      if (m?.method === 'ui/initialize') {
        frame.contentWindow.postMessage({ jsonrpc: '2.0', id: m.id, result: {
          protocolVersion: '2026-01-26', hostInfo: { name: 'plain', version: '1' }, hostCapabilities: {}, hostContext: {},
        } }, '*');
      } else if (m?.method === 'ui/notifications/initialized') {
        window.removeEventListener('message', onMessage);
        const ms = performance.now() - started;
        frame.remove();
        resolve(ms);
      }
    };
    window.addEventListener('message', onMessage);
    setTimeout(() => reject(new Error('the plain frame never initialized')), 30_000);
    frame.srcdoc = html;
    document.body.append(frame);
  }), { html, sandboxed });
  // The floor that isolation sets: the very document the panel prepared (the app's CSP before
  // its markup), in one sandboxed frame (a process of its own, opaque origin) of the blank page.
  await ours();
  const prepared = await page.evaluate(() => globalThis.__prepared);
  // A sandboxed frame kept open, as the panel keeps its spare sandbox page.
  await blank.evaluate(() => {
    const warm = document.createElement('iframe');
    warm.setAttribute('sandbox', 'allow-scripts');
    warm.srcdoc = '<!doctype html><p>warm</p>';
    document.body.append(warm);
  });
  const runs = {
    ours: { run: ours, times: [] },
    plain: { run: () => plain(appHtml, false), times: [] },
    sandboxed: { run: () => plain(prepared, true), times: [] },
  };
  const order = Object.values(runs);
  for (let n = 0; n < LOADS + WARMUP; n++) {
    for (const entry of n % 2 === 0 ? order : [...order].reverse()) {
      const ms = await entry.run();
      if (n >= WARMUP) entry.times.push(ms);
    }
  }
  const [oursP50, plainP50, sandboxedP50] = [runs.ours, runs.plain, runs.sandboxed].map((r) => p(r.times, 0.5));
  console.log(`app load: ${runs.ours.times.length} runs each of a ${(appHtml.length / 1024).toFixed(0)} KB app`);
  console.log(`app_load_p50_ms=${oursP50.toFixed(1)}`);
  // The bound a turn waits for a just-shown app's tools is chosen from the slow end.
  console.log(`app_load_p95_ms=${p(runs.ours.times, 0.95).toFixed(1)}`);
  console.log(`app_load_max_ms=${Math.max(...runs.ours.times).toFixed(1)}`);
  console.log(`app_load_plain_srcdoc_p50_ms=${plainP50.toFixed(1)}`);
  console.log(`app_load_p50_ratio=${(oursP50 / plainP50).toFixed(2)}`);
  console.log(`app_load_sandboxed_srcdoc_p50_ms=${sandboxedP50.toFixed(1)}`);
  console.log(`app_load_isolation_floor_ratio=${(sandboxedP50 / plainP50).toFixed(2)}`);
  for (const [phase, times] of Object.entries(phases)) console.log(`app_load_${phase}_p50_ms=${p(times, 0.5).toFixed(1)}`);

  // --- 2. typing with thirty apps -----------------------------------------------------------
  await page.reload();
  await page.getByTestId('worker-status').and(page.locator('[data-state="ok"]')).waitFor();
  // A page in the background gets one animation frame a second.
  await page.bringToFront();
  const typing = () => page.evaluate(async (keys) => {
    const input = document.querySelector('[data-testid="input"]');
    input.focus();
    const times = [];
    for (let i = 0; i < keys; i++) {
      const started = performance.now();
      input.dispatchEvent(new KeyboardEvent('keydown', { key: 'a', bubbles: true }));
      input.value += 'a';
      input.dispatchEvent(new InputEvent('input', { data: 'a', inputType: 'insertText', bubbles: true }));
      // Painted: the frame after the one that rendered the change.
      await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
      times.push(performance.now() - started);
    }
    input.value = '';
    input.dispatchEvent(new InputEvent('input', { bubbles: true }));
    return times;
  }, KEYS);
  const empty = await typing();
  fake.script([
    { chunks: [functionCallChunk(Array.from({ length: APPS_IN_CHAT }, (_, i) => ({ name: 'mcp_apps_show_counter', args: { start: i } })))] },
    { chunks: textChunks('Thirty counters.') },
  ]);
  const input = page.getByTestId('input');
  await input.fill('Show thirty counters');
  await input.press('Enter');
  await page.getByTestId('reply').last().filter({ hasText: 'Thirty counters.' }).waitFor({ timeout: 120_000 });
  // Every app has loaded; those far out of view are suspended (their place kept), as designed.
  await page.waitForFunction((n) => document.querySelectorAll(
    '[data-testid="app-frame"][data-state="ready"], [data-testid="app-suspended"]').length >= n,
  APPS_IN_CHAT, { timeout: 120_000 });
  const suspended = await page.locator('[data-testid="app-suspended"]').count();
  const full = await typing();
  const [emptyP95, fullP95] = [p(empty, 0.95), p(full, 0.95)];
  console.log(`typing: ${KEYS} keys in an empty chat and in one with ${APPS_IN_CHAT} apps`);
  console.log(`typing_p95_empty_ms=${emptyP95.toFixed(1)}`);
  console.log(`typing_p95_thirty_apps_ms=${fullP95.toFixed(1)}`);
  console.log(`typing_p95_ratio=${(fullP95 / emptyP95).toFixed(2)}`);
  console.log(`typing_apps_suspended=${suspended}`);
} finally {
  await browser.close();
  await fake.close();
  await smoke.stop();
  await react.stop();
}
