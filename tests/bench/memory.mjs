// Benchmark (issue 24): memory after a long chat, and whether it leaks. A chat of 200 turns,
// ten of which show an MCP App (the apps-smoke counter, on the official App class), against the
// fake Gemini API; then a new chat of 200 more turns. After each, with garbage collected: the
// JS heap and its backing stores of the side panel, the worker and the sandbox frames' process
// (CDP Runtime.getHeapUsage), and beside them the wasm memories, which those figures leave out
// (the panel's, its app host's and the worker's); against the size of what the chat holds: its
// text and HTML (the panel's document and the apps' documents). The panel's allocator also
// says what its wasm holds live, and the most it ever held (`heapStats`).
// Prints `memory_*` figures: the goal is memory ≤ 1.5 × that size + 20 MB, and no growth
// over the second 200 turns (`memory_growth_ratio` ≈ 1).
import { launch, serviceWorker } from '../e2e/harness.mjs';
import { startFakeGemini, functionCallChunk, textChunks } from '../fixtures/fake-gemini/server.mjs';
import { startAppsSmoke } from '../fixtures/apps-smoke/server.mjs';

const TURNS = Number(process.env.GEMIPANEL_BENCH_TURNS ?? 200);
const APPS = 10;
const API_KEY = 'bench-key';
const MB = 1024 * 1024;

/** A reply like a real one: a paragraph, a list and a little code, about 700 characters. */
const reply = (n) => `## Answer ${n}\n\nHere is what I found about item ${n}: the **first** part explains `
  + `the idea, and the \`second\` shows it in practice with a [link](https://example.com/${n}).\n\n`
  + '- one point worth keeping in mind\n- another point, with *emphasis*\n- a third one\n\n'
  + '```js\nconst answer = compute(input);\nconsole.log(answer);\n```\n\n'
  + 'That should cover it; ask again if anything is unclear. '.repeat(4);

const smoke = await startAppsSmoke();
const fake = await startFakeGemini({ apiKey: API_KEY });
const browser = await launch();
try {
  const page = await browser.context.newPage();
  await page.goto(browser.url('sidepanel.html'));
  await page.evaluate(({ key, base }) => chrome.storage.local.set({
    settings: { version: 6, gemini: { api_key: key, base_url: base }, servers: [] },
  }), { key: API_KEY, base: fake.url });
  for (const edit of [{ type: 'add_server', id: 'srv_memorybench', server: { name: 'Apps', url: smoke.url } },
    { type: 'set_trust', id: 'srv_memorybench', trust: true }]) {
    const answer = await page.evaluate((request) => chrome.runtime.sendMessage({ id: 1, request }), { type: 'edit_settings', edit });
    if (answer?.response?.type !== 'settings') throw new Error(JSON.stringify(answer));
  }
  await page.reload();
  await page.getByTestId('worker-status').and(page.locator('[data-state="ok"]')).waitFor();
  await page.bringToFront();

  const input = page.getByTestId('input');
  const chat = async (turns) => {
    for (let n = 1; n <= turns; n++) {
      const withApp = n % (turns / APPS) === 0;
      fake.script(withApp
        ? [{ chunks: [functionCallChunk([{ name: 'mcp_apps_show_counter', args: { start: n } }])] },
          { chunks: textChunks(reply(n), { size: 200 }) }]
        : [{ chunks: textChunks(reply(n), { size: 200 }) }]);
      await input.fill(`Question number ${n}: tell me about item ${n}.`);
      await input.press('Enter');
      await page.getByTestId('reply').last().filter({ hasText: `Answer ${n}` })
        .and(page.locator('[data-state="done"]')).waitFor({ timeout: 60_000 });
    }
    await page.waitForFunction((apps) => document.querySelectorAll(
      '[data-testid="app-frame"][data-state="ready"], [data-testid="app-suspended"]').length >= apps, APPS, { timeout: 60_000 });
  };

  const session = await browser.context.newCDPSession(page);
  /**
   * JS heap and backing stores after a collection, in bytes: the least of three reads a second
   * apart. Reads of the same page in a row differ by as much as 13 MB of used heap (4.0, 4.5,
   * then 17.6 MB); the least is what stays.
   */
  const heapOf = async (send) => {
    let least = Infinity;
    for (let read = 0; read < 3; read++) {
      if (read > 0) await new Promise((r) => setTimeout(r, 1_000));
      await send('HeapProfiler.collectGarbage');
      const usage = await send('Runtime.getHeapUsage');
      least = Math.min(least, usage.usedSize + (usage.backingStorageSize ?? 0));
    }
    return least;
  };
  // The worker is no page: reached through the page's session, as a target of its own.
  const workerSend = await (async () => {
    const { targetInfos } = await session.send('Target.getTargets');
    const target = targetInfos.find((t) => t.type === 'service_worker' && t.url.includes(process.env.GEMIPANEL_EXTENSION_ID));
    if (!target) throw new Error('the worker target was not found');
    const { sessionId } = await session.send('Target.attachToTarget', { targetId: target.targetId, flatten: false });
    let next = 1;
    const waiting = new Map();
    session.on('Target.receivedMessageFromTarget', (event) => {
      if (event.sessionId !== sessionId) return;
      const message = JSON.parse(event.message);
      waiting.get(message.id)?.(message);
      waiting.delete(message.id);
    });
    return async (method, params = {}) => {
      const id = next++;
      const answer = new Promise((resolve) => waiting.set(id, resolve));
      await session.send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id, method, params }) });
      const message = await answer;
      if (message.error) throw new Error(`${method}: ${message.error.message}`);
      return message.result;
    };
  })();
  const measure = async () => {
    await page.waitForTimeout(500);
    const panelJs = await heapOf((m, p) => session.send(m, p));
    const [panelOwnWasm, appHostWasm, [panelLive, panelPeak]] = await page.evaluate(async () => [
      globalThis.gemipanelMemory?.buffer.byteLength ?? 0,
      globalThis.gemipanelAppHostMemory?.buffer.byteLength ?? 0,
      (await import('./wasm/sidepanel.js')).heapStats(),
    ]);
    const panelWasm = panelOwnWasm + appHostWasm;
    const panel = panelJs + panelWasm;
    // The sandbox pages share a process: its heap once, from any of its frames.
    const frames = page.frames().filter((f) => f !== page.mainFrame());
    let sandbox = 0;
    const sandboxFrame = frames.find((f) => f.url().endsWith('/sandbox.html'));
    if (sandboxFrame) {
      const cdp = await browser.context.newCDPSession(sandboxFrame);
      sandbox = await heapOf((m, p) => cdp.send(m, p));
      await cdp.detach();
    }
    const workerWasm = await (await serviceWorker(browser.context)).evaluate(() => self.gemipanelMemory?.buffer.byteLength ?? 0);
    const worker = await heapOf(workerSend) + workerWasm;
    // What the chat holds: the panel's document and the apps' documents.
    let size = await page.evaluate(() => document.documentElement.outerHTML.length);
    for (const frame of frames) {
      size += await frame.evaluate(() => document.documentElement.outerHTML.length).catch(() => 0);
    }
    return { panel, panelJs, panelWasm, appHostWasm, workerWasm, panelLive, panelPeak, sandbox, worker, size, total: panel + sandbox + worker };
  };

  // The floor the fixed part of the budget stands for: the panel open on an empty chat.
  const empty = await measure();
  await chat(TURNS);
  const first = await measure();
  await page.getByTestId('new-chat').click();
  await chat(TURNS);
  const second = await measure();
  const budget = 1.5 * first.size + 20 * MB;
  console.log(`memory after ${TURNS} turns with ${APPS} apps, then a new chat of ${TURNS} more`);
  console.log(`memory_panel_mb=${(first.panel / MB).toFixed(1)}`);
  console.log(`memory_panel_js_mb=${(first.panelJs / MB).toFixed(1)}`);
  // What the wasm memories hold from the system: they never give memory back, so the most
  // the panel's allocator ever held (`peak`) sets them, not what it holds now (`live`).
  console.log(`memory_panel_wasm_mb=${(first.panelWasm / MB).toFixed(1)}`);
  console.log(`memory_panel_apphost_wasm_mb=${(first.appHostWasm / MB).toFixed(1)}`);
  console.log(`memory_panel_wasm_live_mb=${(first.panelLive / MB).toFixed(1)}`);
  console.log(`memory_panel_wasm_peak_mb=${(first.panelPeak / MB).toFixed(1)}`);
  console.log(`memory_worker_mb=${(first.worker / MB).toFixed(1)}`);
  console.log(`memory_worker_wasm_mb=${(first.workerWasm / MB).toFixed(1)}`);
  console.log(`memory_sandbox_mb=${(first.sandbox / MB).toFixed(1)}`);
  console.log(`memory_chat_size_mb=${(first.size / MB).toFixed(2)}`);
  console.log(`memory_total_mb=${(first.total / MB).toFixed(1)}`);
  console.log(`memory_empty_total_mb=${(empty.total / MB).toFixed(1)}`);
  console.log(`memory_budget_mb=${(budget / MB).toFixed(1)}`);
  console.log(`memory_budget_ratio=${(first.total / budget).toFixed(2)}`);
  console.log(`memory_second_total_mb=${(second.total / MB).toFixed(1)}`);
  // Where a growth is, when there is one.
  for (const part of ['panel', 'worker', 'sandbox']) {
    console.log(`memory_second_${part}_mb=${(second[part] / MB).toFixed(1)}`);
  }
  console.log(`memory_growth_ratio=${(second.total / first.total).toFixed(2)}`);
  // The steadiest sign of a leak: what the panel's wasm holds live after each chat.
  console.log(`memory_panel_live_growth_ratio=${(second.panelLive / first.panelLive).toFixed(2)}`);
} finally {
  await browser.close();
  await fake.close();
  await smoke.stop();
}
