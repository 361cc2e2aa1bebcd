// The walking skeleton end to end: the built extension in real Chromium, its worker answering
// both pages, surviving a stop, and refusing malformed requests without crashing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { english, keptCopies, launch, screenshot, stopServiceWorkers, serviceWorker, untilOnlyCopy } from './harness.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

async function open(name) {
  const page = await browser.context.newPage();
  await page.goto(browser.url(name));
  return page;
}

/** Sends a one-shot message from an extension page, as the popup does. */
function sendMessage(page, message) {
  return page.evaluate((m) => chrome.runtime.sendMessage(m), message);
}

test('the service worker is registered from background.js', async () => {
  const worker = await serviceWorker(browser.context);
  assert.equal(worker.url(), browser.url('background.js'));
});

test('the side panel shows the status the worker reports', async () => {
  const page = await open('sidepanel.html');
  const status = page.getByTestId('worker-status');
  await status.and(page.locator('[data-state="ok"]')).waitFor();
  const text = await status.innerText();
  assert.match(text, /v0\.1\.0 · worker up \d+ s · 0 MCP servers/);
  assert.equal(await page.locator('h1').innerText(), 'GemiPanel');
  await screenshot(page, 'sidepanel-status');
  await page.close();
});

test('the popup shows the status the worker reports', async () => {
  const page = await open('popup.html');
  const status = page.getByTestId('worker-status');
  await status.and(page.locator('[data-state="ok"]')).waitFor();
  assert.match(await status.innerText(), /v0\.1\.0 · worker up \d+ s · 0 MCP servers/);
  await screenshot(page, 'popup-status');
  await page.close();
});

test('the count of configured servers comes from storage', async () => {
  const page = await open('popup.html');
  const server = (id, name) => ({ id, name, url: `http://127.0.0.1:9/${name}`, timeout_ms: 60000 });
  await page.evaluate((servers) => chrome.storage.local.set({
    settings: { version: 6, gemini: {}, servers },
  }), [server('srv_a', 'a'), server('srv_b', 'b')]);
  const reply = await sendMessage(page, { id: 3, request: { type: 'status' } });
  assert.equal(reply.response.configured_servers, 2);
  // English needs a singular that chrome.i18n cannot pick by itself.
  const statusLine = async () => {
    await page.reload();
    const status = page.getByTestId('worker-status');
    await status.and(page.locator('[data-state="ok"]')).waitFor();
    return status.innerText();
  };
  assert.match(await statusLine(), /· 2 MCP servers/);
  await page.evaluate((servers) => chrome.storage.local.set({
    settings: { version: 6, gemini: {}, servers },
  }), [server('srv_a', 'a')]);
  assert.match(await statusLine(), /· 1 MCP server(?!s)/);
  await page.evaluate(() => chrome.storage.local.remove('settings'));
  await page.close();
});

test('a request the worker cannot decode gets an error naming the problem', async () => {
  const page = await open('popup.html');
  const cases = [
    [{ id: 5, request: { type: 'launch_rockets' } }, 5, /launch_rockets/],
    [{ id: 6 }, 6, /missing field `request`/],
    [{ request: { type: 'status' } }, 0, /missing field `id`/],
    ['status', 0, /invalid type: string .*, expected struct ClientMessage/],
  ];
  for (const [message, id, problem] of cases) {
    const reply = await sendMessage(page, message);
    assert.equal(reply.kind, 'response');
    assert.equal(reply.id, id);
    assert.equal(reply.response.type, 'error');
    assert.match(english(reply.response.error), problem);
  }
  // The worker is still there and answers normally.
  const reply = await sendMessage(page, { id: 7, request: { type: 'status' } });
  assert.equal(reply.response.type, 'status');
  await page.close();
});

test('a port gets answers with matching ids and a greeting event', async () => {
  const page = await open('popup.html');
  const messages = await page.evaluate(() => new Promise((resolve) => {
    const port = chrome.runtime.connect({ name: 'test' });
    const seen = [];
    port.onMessage.addListener((m) => {
      seen.push(m);
      if (seen.filter((x) => x.kind === 'response').length === 2) { port.disconnect(); resolve(seen); }
    });
    port.postMessage({ id: 41, request: { type: 'status' } });
    port.postMessage({ id: 42, request: { type: 'nope' } });
  }));
  const byId = Object.fromEntries(messages.filter((m) => m.kind === 'response').map((m) => [m.id, m.response]));
  assert.equal(byId[41].type, 'status');
  assert.equal(byId[42].type, 'error');
  assert.match(english(byId[42].error), /nope/);
  assert.ok(messages.some((m) => m.kind === 'event' && m.event.type === 'worker_started'));
  await page.close();
});

test('after the worker is stopped, the very next one-shot message is answered by a new worker', async () => {
  const page = await open('popup.html');
  await new Promise((r) => setTimeout(r, 1500));
  const before = await sendMessage(page, { id: 1, request: { type: 'status' } });
  assert.ok(before.response.uptime_ms >= 1500, `uptime ${before.response.uptime_ms}`);
  await stopServiceWorkers(page);
  const afterStop = await sendMessage(page, { id: 2, request: { type: 'status' } });
  assert.equal(afterStop.id, 2);
  assert.equal(afterStop.response.type, 'status');
  assert.ok(afterStop.response.uptime_ms < before.response.uptime_ms,
    `a restarted worker counts from zero: ${afterStop.response.uptime_ms} ms`);
  await page.close();
});

test('a stopped worker starts from its module kept in Cache Storage; a damaged or old copy costs nothing', async () => {
  const page = await open('popup.html');
  // The extension's pages share the worker's origin, and so its Cache Storage.
  // The side panel keeps its own module in the same cache (tests/e2e/panel_open.test.mjs).
  const keys = () => keptCopies(page, 'background_bg.wasm');
  const current = /^https:\/\/gemipanel\.invalid\/[0-9a-f]{16}\/background_bg\.wasm$/;
  const restart = async () => {
    await stopServiceWorkers(page);
    const reply = await sendMessage(page, { id: 7, request: { type: 'status' } });
    assert.equal(reply.response.type, 'status', JSON.stringify(reply));
    // The handle of the stopped worker may linger a moment; the running one answers.
    for (let attempt = 0; ; attempt++) {
      try {
        const worker = await serviceWorker(browser.context);
        return await worker.evaluate(() => performance.getEntriesByName('gemipanel-wasm_cached').length > 0);
      } catch (err) {
        if (attempt === 20) throw err;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  };
  // The first start of this build keeps a copy.
  await restart();
  await page.waitForFunction(async () => (await (await caches.open('gemipanel-wasm')).keys())
    .filter((r) => r.url.endsWith('/background_bg.wasm')).length === 1);
  const [key] = await keys();
  assert.match(key, current);
  assert.equal(await restart(), true, 'the next start reads the kept copy');

  // A damaged copy: the worker starts from its file all the same, and keeps a good copy again.
  await page.evaluate(async (url) => (await caches.open('gemipanel-wasm')).put(url,
    new Response(new Uint8Array([0, 97, 115, 109, 9, 9]), { headers: { 'Content-Type': 'application/wasm' } })), key);
  await restart();
  await restart();
  await page.waitForFunction(async (url) => {
    const hit = await (await caches.open('gemipanel-wasm')).match(url);
    return hit && (await hit.arrayBuffer()).byteLength > 1000;
  }, key);
  assert.equal(await restart(), true, 'started from the good copy');

  // Copies of another build go once this build's is kept, whichever module they are of, and so
  // does the copy of a module this build no longer has; the side panel's copy of this build stays.
  const keyOf = (file) => page.evaluate(async (file) => (await import('/kept_wasm.js')).keyOf(file), file);
  const panelCopy = await keyOf('sidepanel_bg.wasm');
  assert.match(panelCopy, /^https:\/\/gemipanel\.invalid\/[0-9a-f]{16}\/sidepanel_bg\.wasm$/);
  assert.equal(await keyOf('background_bg.wasm'), key, 'the worker keeps its copy under its key');
  const oldCopies = ['background_bg.wasm', 'sidepanel_bg.wasm', 'renamed_bg.wasm']
    .map((file) => `https://gemipanel.invalid/0123456789abcdef/${file}`);
  await page.evaluate(async ([url, panelCopy, oldCopies]) => {
    const cache = await caches.open('gemipanel-wasm');
    await cache.delete(url);
    for (const old of oldCopies) await cache.put(old, new Response('old build'));
    await cache.put(panelCopy, new Response('the panel module'));
  }, [key, panelCopy, oldCopies]);
  assert.equal(await restart(), false, 'another build is never started from');
  await untilOnlyCopy(page, 'background_bg.wasm', key);
  await untilOnlyCopy(page, 'sidepanel_bg.wasm', panelCopy);
  assert.deepEqual(await keptCopies(page, 'renamed_bg.wasm'), [], 'a module this build lacks goes');
  await page.evaluate(async (u) => (await caches.open('gemipanel-wasm')).delete(u), panelCopy);
  await page.close();
});

test('a port opened right after a stop has its first message answered', async () => {
  const page = await open('popup.html');
  await stopServiceWorkers(page);
  const reply = await page.evaluate(() => new Promise((resolve, reject) => {
    const port = chrome.runtime.connect({ name: 'early' });
    port.onMessage.addListener((m) => { if (m.kind === 'response') resolve(m); });
    port.onDisconnect.addListener(() => reject(new Error('disconnected')));
    port.postMessage({ id: 9, request: { type: 'status' } });
  }));
  assert.equal(reply.id, 9);
  assert.equal(reply.response.type, 'status');
  await page.close();
});

test('the side panel recovers when the worker is stopped under it', async () => {
  const page = await open('sidepanel.html');
  const status = page.getByTestId('worker-status');
  await status.and(page.locator('[data-state="ok"]')).waitFor();
  await new Promise((r) => setTimeout(r, 2500));
  await page.getByRole('button', { name: 'Refresh status' }).click();
  await page.getByText(/worker up [2-9] s/).waitFor();
  await stopServiceWorkers(page);
  // Right after the stop, before or after the page notices: the next request is answered.
  await page.getByRole('button', { name: 'Refresh status' }).click();
  await page.getByText(/worker up [01] s/).waitFor({ timeout: 10_000 });
  assert.equal(await status.getAttribute('data-state'), 'ok');
  await screenshot(page, 'sidepanel-after-restart');
  await page.close();
});
