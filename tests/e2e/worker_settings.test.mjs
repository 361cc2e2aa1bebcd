// The worker's settings store end to end: one writer, edits from everywhere applied in order
// without losing any, a damaged document kept aside, import and export through messages.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { english, launch, serviceWorker, stopServiceWorkers } from './harness.mjs';
import { startSlowServer } from './servers.mjs';
import { startFakeGemini, defaultModels } from '../fixtures/fake-gemini/server.mjs';

let browser;
let pageA;
let pageB;
let nextId = 1;

before(async () => {
  browser = await launch();
  pageA = await browser.context.newPage();
  await pageA.goto(browser.url('popup.html'));
  pageB = await browser.context.newPage();
  await pageB.goto(browser.url('popup.html'));
});
after(async () => { await browser?.close(); });

async function request(page, req) {
  const reply = await page.evaluate((m) => chrome.runtime.sendMessage(m), { id: nextId++, request: req });
  assert.equal(reply?.kind, 'response', JSON.stringify(reply));
  return reply.response;
}

async function edit(page, e) {
  const response = await request(page, { type: 'edit_settings', edit: e });
  assert.equal(response.type, 'settings', JSON.stringify(response));
  return response.settings;
}

async function reset(page) {
  await page.evaluate(() => chrome.storage.local.clear());
}

function randomId() {
  return `srv_${[...crypto.getRandomValues(new Uint8Array(8))].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
}

test('1,000 edits fired at once from two pages and the worker are all applied', async () => {
  await reset(pageA);
  const target = randomId();
  await edit(pageA, { type: 'add_server', id: target, server: { name: 'Target', url: 'http://127.0.0.1:9/mcp' } });
  // The worker's own writes: every tools/list of these servers gives a new list, which the
  // worker stores as cached tools while the pages' edits are queued.
  const changing = await Promise.all([0, 1, 2].map((i) =>
    startSlowServer({ delayMs: 5, name: `changing-${i}`, tools: () => [`tool_${Date.now()}_${Math.random()}`] })));
  const workerIds = [];
  for (const [i, s] of changing.entries()) {
    const id = randomId();
    workerIds.push(id);
    await edit(pageA, { type: 'add_server', id, server: { name: `Changing ${i}`, url: s.url } });
  }
  try {
    const started = Date.now();
    // Page A: 500 one-shot messages; page B: 500 on one port; both fired without waiting.
    const fromA = pageA.evaluate(({ target, base }) => Promise.all(Array.from({ length: 500 }, (_, i) =>
      chrome.runtime.sendMessage({ id: base + i, request: { type: 'edit_settings', edit: { type: 'allow_tool', id: target, tool: `a_${i}` } } }))),
    { target, base: 10_000 });
    // Page B also records the documents its port was told (by their count of allowed tools,
    // which only grows): an answer is one of them, so that a page can order answers by them.
    const fromB = pageB.evaluate(({ target }) => new Promise((resolve) => {
      const port = chrome.runtime.connect({ name: 'edits' });
      const replies = new Map();
      const told = new Set();
      const allowed = (settings) => settings.servers.find((s) => s.id === target).allowed_tools.length;
      port.onMessage.addListener((m) => {
        if (m.kind === 'event' && m.event.type === 'settings_changed') told.add(allowed(m.event.settings));
        if (m.kind !== 'response') return;
        replies.set(m.id, { ...m.response, told: told.has(allowed(m.response.settings)) });
        if (replies.size === 500) { port.disconnect(); resolve([...replies.values()]); }
      });
      for (let i = 0; i < 500; i++) {
        port.postMessage({ id: 20_000 + i, request: { type: 'edit_settings', edit: { type: 'allow_tool', id: target, tool: `b_${i}` } } });
      }
    }), { target });
    const fromWorker = (async () => {
      const replies = [];
      for (let i = 0; i < 12; i++) {
        replies.push(await request(pageA, { type: 'list_tools', server_id: workerIds[i % 3], refresh: true }));
      }
      return replies;
    })();
    const [a, b, w] = await Promise.all([fromA, fromB, fromWorker]);
    console.log(`1,000 edits and 12 tool refreshes in ${Date.now() - started} ms`);
    assert.ok(a.every((r) => r.response.type === 'settings'), JSON.stringify(a.find((r) => r.response.type !== 'settings')));
    assert.ok(b.every((r) => r.type === 'settings'));
    assert.deepEqual(b.filter((r) => !r.told).length, 0, 'answers with a document the port never told');
    assert.ok(w.every((r) => r.type === 'tools'), JSON.stringify(w.find((r) => r.type !== 'tools')));

    // The worker stores the tool lists in the background; give it a moment.
    const cachedOf = async () => {
      const stored = await pageA.evaluate(() => chrome.storage.local.get(null));
      return workerIds.map((id) => stored[`tools_cache:${id}`]);
    };
    let cached;
    for (let i = 0; i < 50; i++) {
      cached = await cachedOf();
      if (cached.every((c, i) => c?.tools[0]?.name === changing[i].lastTools()[0])) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const settings = (await request(pageA, { type: 'get_settings' })).settings;
    const allowed = new Set(settings.servers.find((s) => s.id === target).allowed_tools);
    const missing = [];
    for (let i = 0; i < 500; i++) {
      if (!allowed.has(`a_${i}`)) missing.push(`a_${i}`);
      if (!allowed.has(`b_${i}`)) missing.push(`b_${i}`);
    }
    assert.deepEqual(missing, [], `${missing.length} edits lost`);
    assert.equal(allowed.size, 1000);
    // Each refresh gave a new list that the worker stored; the last one won.
    for (const [i, id] of workerIds.entries()) {
      assert.deepEqual(cached[i]?.tools.map((t) => t.name), changing[i].lastTools(), `cached tools of ${id}`);
    }
  } finally {
    await Promise.all(changing.map((s) => s.stop()));
  }
});

test('pages with a port follow edits made elsewhere through events', async () => {
  await reset(pageA);
  const events = pageB.evaluate(() => new Promise((resolve) => {
    const port = chrome.runtime.connect({ name: 'follower' });
    port.onMessage.addListener((m) => {
      if (m.kind === 'event' && m.event.type === 'settings_changed') {
        port.disconnect();
        resolve(m.event.settings);
      }
    });
  }));
  await new Promise((r) => setTimeout(r, 200));
  await edit(pageA, { type: 'set_model', model: 'gemini-2.5-pro' });
  const seen = await events;
  assert.equal(seen.gemini.model, 'gemini-2.5-pro');
});

test('a read right after an edit sees it, even when Chrome tells of the change late', async () => {
  // Chrome answers a storage write and tells of the change on separate channels, in no set
  // order. Here the change reaches the worker 300 ms after the write's answer: its listener is
  // put off before its first read registers it. Its own browser, so that no page of the app
  // (they reconnect at once, and read) wakes the worker first.
  const own = await launch();
  try {
    const page = await own.context.newPage();
    // An extension page with the runtime and no app of its own.
    await page.goto(own.url('_locales/en/messages.json'));
    // A stored document (none is never cached).
    await page.evaluate(() => chrome.storage.local.set({ settings: { version: 6, gemini: {}, servers: [] } }));
    await stopServiceWorkers(page);
    // Opening a port wakes the worker and reads no settings; its greeting says it started.
    const greeting = await page.evaluate(() => new Promise((resolve) => {
      globalThis.wake = chrome.runtime.connect({ name: 'wake' });
      globalThis.wake.onMessage.addListener(resolve);
    }));
    assert.equal(greeting.event?.type, 'worker_started', JSON.stringify(greeting));
    const worker = await serviceWorker(own.context);
    assert.equal(await worker.evaluate(() => performance.getEntriesByName('gemipanel-answered').length), 0,
      'a worker that has answered nothing yet');
    await worker.evaluate(() => {
      const changes = chrome.storage.local.onChanged;
      const add = changes.addListener.bind(changes);
      changes.addListener = (listener) => add((...told) => setTimeout(() => listener(...told), 300));
    });
    assert.equal((await request(page, { type: 'get_settings' })).settings.gemini.api_key, undefined);
    await edit(page, { type: 'set_api_key', api_key: 'the-new-key' });
    const read = await request(page, { type: 'get_settings' });
    assert.equal(read.settings.gemini.api_key, 'the-new-key', 'the read after the edit has it');
  } finally {
    await own.close();
  }
});

test('a refused edit changes nothing and says why', async () => {
  await reset(pageA);
  const response = await request(pageA, {
    type: 'edit_settings',
    edit: { type: 'add_server', id: randomId(), server: { name: 'Plain', url: 'http://example.com/mcp' } },
  });
  assert.equal(response.type, 'error');
  assert.match(english(response.error), /https/);
  const settings = (await request(pageA, { type: 'get_settings' })).settings;
  assert.equal(settings.servers.length, 0);
});

test('a stored document that fails to load is kept aside, reported, and never replaced behind the person\'s back', async () => {
  await reset(pageA);
  const damaged = { version: 3, gemini: { model: 'gemini-2.5-flash', api_key: 'AIza-secret-value' }, servers: 'not a list' };
  await pageA.evaluate((d) => chrome.storage.local.set({ settings: d }), damaged);

  // Whoever asks first triggers the load; pages with a port are told.
  const told = pageB.evaluate(() => new Promise((resolve) => {
    const port = chrome.runtime.connect({ name: 'problem' });
    port.onMessage.addListener((m) => {
      if (m.kind === 'event' && m.event.type === 'settings_problem') { port.disconnect(); resolve(m.event.problem); }
    });
  }));
  await new Promise((r) => setTimeout(r, 200));
  const status = await request(pageA, { type: 'status' });
  assert.equal(status.configured_servers, 0);
  const problem = await told;
  assert.match(problem.kept_under, /^settings_rejected_\d+/);
  assert.match(english(problem.error), /^settings: servers: invalid type/);
  assert.ok(!JSON.stringify(problem).includes('AIza-secret-value'), 'no secret in the message');

  const stored = await pageA.evaluate(() => chrome.storage.local.get(null));
  assert.deepEqual(stored[problem.kept_under], damaged, 'kept exactly as it was');

  // No edit lands on defaults while the person has not chosen.
  const refused = await request(pageA, { type: 'edit_settings', edit: { type: 'set_model', model: 'gemini-2.5-pro' } });
  assert.equal(refused.type, 'error');
  assert.match(english(refused.error), /restore, export or start fresh/);
  assert.equal((await pageA.evaluate(() => chrome.storage.local.get('settings'))).settings, undefined);

  // A page that connects later hears of it too.
  const late = await pageB.evaluate(() => new Promise((resolve) => {
    const port = chrome.runtime.connect({ name: 'late' });
    const seen = [];
    port.onMessage.addListener((m) => { if (m.kind === 'event') seen.push(m.event.type); });
    setTimeout(() => { port.disconnect(); resolve(seen); }, 300);
  }));
  assert.deepEqual(late, ['worker_started', 'settings_problem']);

  // The kept copy can be saved as it is; restoring it fails again with the same reason.
  const kept = await request(pageA, { type: 'recover_settings', action: 'export_kept' });
  assert.equal(kept.type, 'exported');
  assert.deepEqual(JSON.parse(kept.export.text), damaged);
  const again = await request(pageA, { type: 'recover_settings', action: 'restore' });
  assert.equal(again.type, 'error');
  assert.match(english(again.error), /servers: invalid type/);

  // Starting fresh writes defaults and forgets the problem and the copy.
  const fresh = await request(pageA, { type: 'recover_settings', action: 'start_fresh' });
  assert.equal(fresh.type, 'settings', JSON.stringify(fresh));
  const after = await pageA.evaluate(() => chrome.storage.local.get(null));
  assert.equal(after.settings_problem, undefined);
  assert.equal(after[problem.kept_under], undefined);
  assert.equal(after.settings.version, 6, "defaults are written at the current version (core::settings::CURRENT_VERSION)");
  assert.equal((await edit(pageA, { type: 'set_model', model: 'gemini-2.5-pro' })).gemini.model, 'gemini-2.5-pro');
});

test('a kept document restores once it can be read again', async () => {
  await reset(pageA);
  // A document of a newer version, as after a downgrade: kept aside, then restored by hand
  // once it reads (here: the test rewrites the kept copy to the current version).
  const newer = { version: 99, gemini: { model: 'gemini-2.5-pro' }, servers: [] };
  await pageA.evaluate((d) => chrome.storage.local.set({ settings: d }), newer);
  await request(pageA, { type: 'status' });
  const problem = (await pageA.evaluate(() => chrome.storage.local.get('settings_problem'))).settings_problem;
  assert.match(english(problem.error), /newer GemiPanel/);
  await pageA.evaluate((key) => chrome.storage.local.set({ [key]: { version: 3, gemini: { model: 'gemini-2.5-pro' }, servers: [] } }), problem.kept_under);
  const restored = await request(pageA, { type: 'recover_settings', action: 'restore' });
  assert.equal(restored.type, 'settings', JSON.stringify(restored));
  assert.equal(restored.settings.gemini.model, 'gemini-2.5-pro');
  const after = await pageA.evaluate(() => chrome.storage.local.get(null));
  assert.equal(after.settings_problem, undefined);
  assert.equal(after.settings.gemini.model, 'gemini-2.5-pro');
});

test('an import edit made from a preview is applied by the worker, matching servers by name', async () => {
  // The popup reads the file and makes the preview itself (core::settings::preview_import,
  // tested natively and through the popup's UI); the worker applies the edit it produces.
  await reset(pageA);
  const existing = randomId();
  await edit(pageA, { type: 'add_server', id: existing, server: { name: 'docs', url: 'https://old.example.com/mcp' } });
  const imported = (name, url, id) => ({
    id, name, url, headers: { Authorization: 'Bearer abc' }, timeout_ms: 30000, trust: true,
    include_tools: ['search'], exclude_tools: [], enabled_by_default: true, local_network: false,
    allowed_tools: [],
  });
  const settings = await edit(pageA, {
    type: 'import',
    servers: [imported('docs', 'https://docs.example.com/mcp', randomId()), imported('new', 'https://new.example.com/mcp', randomId())],
    api_key: null,
    model: 'gemini-2.5-pro',
  });
  assert.deepEqual(settings.servers.map((s) => s.name), ['docs', 'new']);
  const docs = settings.servers.find((s) => s.name === 'docs');
  assert.equal(docs.id, existing, 'a server with the same name keeps its id');
  assert.equal(docs.url, 'https://docs.example.com/mcp');
  assert.deepEqual(docs.include_tools, ['search']);
  assert.equal(settings.gemini.model, 'gemini-2.5-pro');
});

test('the popup lists the models of the Gemini API the settings point at, all pages of them', async () => {
  await reset(pageA);
  const fake = await startFakeGemini({ apiKey: 'test-key', modelsPageSize: 1 });
  try {
    // A document of version 2 with the old default: it becomes the automatic default.
    await pageA.evaluate((url) => chrome.storage.local.set({ settings: {
      version: 2, gemini: { model: 'gemini-2.5-flash', api_key: 'test-key', base_url: url }, servers: [],
    } }), fake.url);
    await pageA.reload();
    // The popup lists the models as it opens (and keeps them): a picker, automatic chosen.
    const picker = pageA.locator('select#model');
    await picker.waitFor();
    assert.equal(await picker.inputValue(), '');
    const all = defaultModels().length;
    const key = pageA.getByLabel('API key', { exact: true });
    await key.fill('');
    fake.reset();
    // An empty box checks the stored key.
    await pageA.getByTestId('check-key').click();
    await pageA.getByTestId('check-result').getByText('The key works: 8 models available.').waitFor();
    // Every model on a page of its own; speech, image, live and embedding models cannot chat.
    const options = await picker.locator('option').evaluateAll((os) => os.map((o) => o.value));
    assert.deepEqual(options, ['', 'gemini-4-argon', 'gemini-3.8-flash', 'gemini-3.6-flash', 'gemini-3.5-flash-lite',
      'gemini-3.1-flash-lite', 'gemma-3-27b-it', 'gemini-3-flash-preview', 'gemini-flash-latest']);
    const asked = fake.requests().filter((r) => r.path.startsWith('/v1beta/models'));
    assert.equal(asked.length, all, JSON.stringify(asked.map((r) => r.path)));
    assert.equal(asked[0].headers['x-goog-api-key'], 'test-key');

    await key.fill('wrong-key-123');
    await pageA.getByTestId('check-key').click();
    const failed = pageA.getByTestId('check-result').locator('.error');
    await failed.waitFor();
    const message = await failed.innerText();
    assert.match(message, /HTTP 400.*check the API key/);
    assert.ok(!message.includes('wrong-key-123'), message);
  } finally {
    await fake.close();
  }
});
