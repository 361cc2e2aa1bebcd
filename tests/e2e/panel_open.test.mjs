// How the side panel opens after the worker went to sleep (issue 24): the page asks the worker
// before its module runs (static/early.js), and what a person sees on the way is kept as a
// series of screenshots at 50, 100 and 200 ms after navigation. A static shell takes typing
// until the module runs, which keeps what was typed.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { askedAgainAfterRestart, countOf, keptCopies, launch, requestsAtOpen, screenshot, stopServiceWorkers, untilKept, untilOnlyCopy } from './harness.mjs';
import { freePort } from './servers.mjs';

let browser;
let page;

before(async () => {
  browser = await launch();
  page = await browser.context.newPage();
  await page.goto(browser.url('sidepanel.html'));
  await page.getByTestId('worker-status').and(page.locator('[data-state="ok"]')).waitFor();
});
after(async () => browser?.close());

/** Opens the panel afresh with the worker stopped, as after Chrome put it to sleep. */
async function openAsleep() {
  await page.goto('about:blank');
  await stopServiceWorkers(page);
  await page.goto(browser.url('sidepanel.html'), { waitUntil: 'commit' });
}

test('the panel asks the worker before its module runs, and shows the answer it got', async () => {
  await openAsleep();
  await page.getByTestId('worker-status').and(page.locator('[data-state="ok"]')).waitFor();
  // early.js's answers were taken (each once) and the panel shows the status they carried.
  const left = await page.evaluate(() => Object.keys(globalThis.gemipanelEarly ?? {}));
  assert.deepEqual(left, ['module'], 'status and settings were taken from the early requests');
  assert.match(await page.getByTestId('worker-status').innerText(), /worker up \d+ s · \d+ MCP server/);
  // A refresh still asks over the port.
  await page.getByTestId('worker-status').getByRole('button').click();
  await page.getByTestId('worker-status').and(page.locator('[data-state="ok"]')).waitFor();
});

test('an opening panel asks the worker for each thing once, and again only after a restart', async () => {
  const fresh = await browser.context.newPage();
  // With a key, the panel asks Gemini for its models list at open.
  const kept = await page.evaluate(() => chrome.storage.local.get('settings'));
  // Servers that refuse every connection: the panel asks each for its tools at open, and each
  // attempt is news of a server's state, which the panel's status line does not show.
  const servers = [];
  for (let i = 0; i < 4; i++) {
    servers.push({
      id: `srv_${String(i).padStart(16, '0')}`, name: `closed ${i}`, url: `http://127.0.0.1:${await freePort()}/mcp`,
      headers: {}, timeout_ms: 5000, trust: false, exclude_tools: [], enabled_by_default: true,
      local_network: false, allowed_tools: [],
    });
  }
  await page.evaluate((servers) => chrome.storage.local.set({ settings: { version: 6, gemini: { api_key: 'AIza-open' }, servers } }), servers);
  let modelLists = 0;
  await fresh.route(/generativelanguage\.googleapis\.com\/.*models/, (route) => {
    modelLists += 1;
    return route.fulfill({ contentType: 'application/json', body: JSON.stringify({ models: [] }) });
  });
  try {
    const atOpen = await requestsAtOpen(fresh, browser.url('sidepanel.html'));
    // The worker's greeting of the first connection used to count as a restart: status,
    // settings and Gemini's models were asked twice, and an empty list of resources to follow
    // was sent twice.
    assert.equal(countOf(atOpen, 'list_tools'), servers.length, `requests at open: ${atOpen}`);
    assert.equal(countOf(atOpen, 'status'), 1, `requests at open: ${atOpen}`);
    assert.equal(countOf(atOpen, 'get_settings'), 1, `requests at open: ${atOpen}`);
    assert.equal(countOf(atOpen, 'follow_resources'), 0, `a chat that follows nothing says nothing: ${atOpen}`);
    assert.equal(modelLists, 1, 'Gemini is asked for its models once');
    // A worker Chrome stops while the panel is open is a new one: the panel asks again.
    await askedAgainAfterRestart(fresh, 'status');
  } finally {
    await fresh.close();
    await page.evaluate((kept) => (kept.settings === undefined
      ? chrome.storage.local.remove('settings') : chrome.storage.local.set(kept)), kept);
  }
});

test('the status line counts the servers another page adds or removes, without a refresh', async () => {
  await page.goto(browser.url('sidepanel.html'));
  const line = page.getByTestId('worker-status');
  await line.and(page.locator('[data-state="ok"]')).waitFor();
  const counted = async () => Number((await line.innerText()).match(/(\d+) MCP server/)[1]);
  const before = await counted();
  const ask = (request) => page.evaluate((m) => chrome.runtime.sendMessage(m), { id: 1, request });
  const id = `srv_${'e'.repeat(16)}`;
  // As the popup adds and removes one: the panel hears of it only as the settings' change.
  const added = await ask({ type: 'edit_settings', edit: { type: 'add_server', id, server: { name: 'counted', url: `http://127.0.0.1:${await freePort()}/mcp` } } });
  assert.equal(added?.response?.type, 'settings', JSON.stringify(added));
  await line.filter({ hasText: `${before + 1} MCP server` }).waitFor({ timeout: 5_000 });
  await ask({ type: 'edit_settings', edit: { type: 'remove_server', id } });
  await line.filter({ hasText: `${before} MCP server` }).waitFor({ timeout: 5_000 });
});

test("the status line's uptime goes on without asking the worker again", async () => {
  const fresh = await browser.context.newPage();
  try {
    const atOpen = await requestsAtOpen(fresh, browser.url('sidepanel.html'));
    const line = fresh.getByTestId('worker-status');
    const seconds = async () => Number((await line.innerText()).match(/worker up (\d+) s/)[1]);
    const first = await seconds();
    await line.filter({ hasText: `worker up ${first + 2} s` }).waitFor({ timeout: 4_000 });
    const sent = await fresh.evaluate(() => globalThis.__workerRequests);
    assert.equal(countOf(sent, 'status'), countOf(atOpen, 'status'), `requests: ${sent}`);
  } finally {
    await fresh.close();
  }
});

test('text typed into the panel before its module runs is kept, with the focus', async () => {
  // The module's bytes are held back (DevTools' Fetch domain) until the person has typed: a
  // slow network or computer, made certain.
  // Without the module's kept copy (tested below), whose read is not a fetch to hold back.
  await dropPanelCopies();
  await page.goto('about:blank');
  const cdp = await page.context().newCDPSession(page);
  const held = [];
  cdp.on('Fetch.requestPaused', (e) => held.push(e.requestId));
  await cdp.send('Fetch.enable', { patterns: [{ urlPattern: '*sidepanel_bg.wasm*' }] });
  try {
    await page.goto(browser.url('sidepanel.html'), { waitUntil: 'commit' });
    const shell = page.getByTestId('shell-input');
    await shell.waitFor();
    assert.ok(await shell.evaluate((el) => el === document.activeElement), 'the shell takes typing at once');
    assert.equal(await shell.getAttribute('placeholder'), 'Message Gemini (Enter to send, Shift+Enter for a new line)');
    await page.keyboard.type('Hello from ');
    assert.equal(await page.getByTestId('input').count(), 0, 'the module had not rendered yet');
    assert.ok(held.length > 0, 'the module was held back');
    await screenshot(page, 'panel-open-shell');
  } finally {
    await cdp.send('Fetch.disable');
    for (const requestId of held) await cdp.send('Fetch.continueRequest', { requestId }).catch(() => {});
    await cdp.detach();
  }
  await page.getByTestId('worker-status').and(page.locator('[data-state="ok"]')).waitFor();
  await page.keyboard.type('the shell');
  assert.equal(await page.getByTestId('input').inputValue(), 'Hello from the shell');
  assert.equal(await page.getByTestId('shell-input').count(), 0, 'the shell is gone');
  await page.getByTestId('input').fill('');
  // The open from the file keeps a copy; it must have landed before the next test drops copies.
  await untilKept(page, 'sidepanel_bg.wasm');
});

/** The side panel's copies of its module in Cache Storage (static/kept_wasm.js). */
const panelCopies = () => keptCopies(page, 'sidepanel_bg.wasm');

async function dropPanelCopies() {
  await page.evaluate(async (urls) => {
    const cache = await caches.open('gemipanel-wasm');
    for (const url of urls) await cache.delete(url);
  }, await panelCopies());
}

/** Opens the panel asleep until ready; whether its module was compiled from the kept copy. */
async function openFromCopy() {
  await openAsleep();
  await page.getByTestId('worker-status').and(page.locator('[data-state="ok"]')).waitFor();
  return page.evaluate(() => performance.getEntriesByName('gemipanel-wasm_cached').length > 0);
}

test('the panel compiles its module from a copy kept in Cache Storage; a damaged or old copy costs nothing', async () => {
  // A panel opened from its file keeps a copy once it has compiled: the last open's, written
  // after the drop, would be this open's (it failed so once in CI).
  await untilKept(page, 'sidepanel_bg.wasm');
  await dropPanelCopies();
  assert.equal(await openFromCopy(), false, 'no copy yet: the file');
  await untilKept(page, 'sidepanel_bg.wasm');
  const [key] = await panelCopies();
  assert.match(key, /^https:\/\/gemipanel\.invalid\/[0-9a-f]{16}\/sidepanel_bg\.wasm$/);
  assert.equal(await openFromCopy(), true, 'the next open compiles the kept copy');

  // A damaged copy: the panel opens from its file all the same, and keeps a good copy again.
  await page.evaluate(async (url) => (await caches.open('gemipanel-wasm')).put(url,
    new Response(new Uint8Array([0, 97, 115, 109, 9, 9]), { headers: { 'Content-Type': 'application/wasm' } })), key);
  assert.equal(await openFromCopy(), false, 'the damaged copy was not used');
  await page.waitForFunction(async (url) => {
    const hit = await (await caches.open('gemipanel-wasm')).match(url);
    return hit && (await hit.arrayBuffer()).byteLength > 1000;
  }, key);
  assert.equal(await openFromCopy(), true, 'opened from the good copy');

  // Another build's copy is never used, and goes once this build's is kept. (A module that
  // compiles, so that using it would show.)
  await page.evaluate(async (url) => {
    const cache = await caches.open('gemipanel-wasm');
    await cache.put('https://gemipanel.invalid/0123456789abcdef/sidepanel_bg.wasm', await cache.match(url));
    await cache.delete(url);
  }, key);
  assert.equal(await openFromCopy(), false, 'another build is never compiled');
  await untilOnlyCopy(page, 'sidepanel_bg.wasm', key);
  // The worker's copy of this build is another module's: the panel's keeping leaves it be.
  assert.equal((await keptCopies(page, 'background_bg.wasm')).length, 1, 'the worker keeps its copy');
});

test('screenshots of the panel 50, 100 and 200 ms after navigation', async () => {
  for (const ms of [50, 100, 200]) {
    await openAsleep();
    await page.waitForTimeout(ms);
    await screenshot(page, `panel-open-${ms}ms`);
  }
  await page.getByTestId('worker-status').and(page.locator('[data-state="ok"]')).waitFor();
  await screenshot(page, 'panel-open-ready');
});
