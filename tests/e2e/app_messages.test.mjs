// MCP Apps host messages in the side panel, end to end: what an app written with the official
// App class (or, for the legacy case, plain HTML) actually receives when its call is stopped,
// the theme changes, it reads and lists its own server's resources, it updates the model's
// context, and what a person sees around its frame (collapse, loading, errors).
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { appRecords, lastAppFrame, openChat } from './chat_page.mjs';
import { startAppsSmoke } from '../fixtures/apps-smoke/server.mjs';
import { textChunks, functionCallChunk } from '../fixtures/fake-gemini/server.mjs';

let chat;
let apps;

/** Adds `server` under `name`, trusted (its tools run without a card asking first). */
async function addServer(name, server, letter) {
  const id = `srv_${letter.repeat(16)}`;
  const added = await chat.request({
    type: 'edit_settings',
    edit: { type: 'add_server', id, server: { name, url: server.url } },
  });
  assert.equal(added.type, 'settings', JSON.stringify(added));
  await chat.request({ type: 'edit_settings', edit: { type: 'set_trust', id, trust: true } });
  return id;
}

before(async () => {
  apps = await startAppsSmoke();
  chat = await openChat();
  await addServer('Apps', apps, 'a');
});
after(async () => {
  await chat?.close();
  await apps?.stop();
});
beforeEach(async () => {
  chat.fake.reset();
  await chat.reload();
});

/** The last app's own frame, inside the sandbox page's. */
const appFrame = () => lastAppFrame(chat.page);
const records = (kind) => appRecords(appFrame(), kind);
const readyFrame = () => chat.page.getByTestId('app-frame').and(chat.page.locator('[data-state="ready"]')).last();

/** The model calls `tool` with `args`; the panel shows its app. */
async function modelCalls(tool, args, reply = 'Done.') {
  chat.fake.script([
    { chunks: [functionCallChunk([{ name: tool, args }])] },
    { chunks: textChunks(reply) },
  ]);
  await chat.send(`Please run ${tool}`);
}

async function showCounter(start) {
  await modelCalls('mcp_apps_show_counter', { start }, 'Here is the counter.');
  await chat.lastReply().filter({ hasText: 'Here is the counter.' }).waitFor({ timeout: 20_000 });
  await readyFrame().waitFor({ timeout: 20_000 });
  await appFrame().locator('li[data-kind="tool-result"]').waitFor({ timeout: 10_000 });
  return readyFrame();
}

test('a call the person stops: its app is told it was cancelled, and never gets a result', async () => {
  const page = chat.page;
  const answered = apps.slowAnswers().length;
  // Only the call: once stopped, nothing more is asked of the model.
  chat.fake.script([{ chunks: [functionCallChunk([{ name: 'mcp_apps_slow_counter', args: { start: 9 } }])] }]);
  await chat.send('Count slowly');
  // The app shows while the call runs, and has its input.
  await readyFrame().waitFor({ timeout: 20_000 });
  await appFrame().locator('li[data-kind="tool-input"]').waitFor({ timeout: 10_000 });
  assert.deepEqual(await records('tool-input'), [{ arguments: { start: 9 } }]);
  assert.equal(apps.slowAnswers().length, answered, 'the call is still running');
  assert.deepEqual(await records('tool-result'), []);
  await page.getByTestId('stop').click();
  await appFrame().locator('li[data-kind="tool-cancelled"]').waitFor({ timeout: 10_000 });
  const [cancelled] = await records('tool-cancelled');
  assert.equal(typeof cancelled.reason, 'string', JSON.stringify(cancelled));
  assert.equal(await page.getByTestId('tool-card').last().getAttribute('data-state'), 'cancelled');
  // The server answers in the end; the app hears nothing of it.
  for (const started = Date.now(); apps.slowAnswers().length === answered;) {
    assert.ok(Date.now() - started < 10_000, 'the slow call was answered');
    await page.waitForTimeout(100);
  }
  await page.waitForTimeout(1000);
  assert.deepEqual(await records('tool-result'), [], 'no result after the cancellation');
  assert.equal((await records('tool-cancelled')).length, 1);
  assert.equal(await page.getByTestId('tool-card').last().getAttribute('data-state'), 'cancelled');
});

test('a change of colour scheme reaches the app with the dark theme and its colours', async () => {
  const page = chat.page;
  await page.emulateMedia({ colorScheme: 'light' });
  await showCounter(1);
  const [connected] = await records('connected');
  assert.equal(connected.context.theme, 'light');
  const light = connected.context.styles.variables;
  try {
    await page.emulateMedia({ colorScheme: 'dark' });
    const dark = appFrame().locator('li[data-kind="context-changed"]', { hasText: '"theme":"dark"' });
    await dark.waitFor({ timeout: 10_000 });
    const change = (await records('context-changed')).find((c) => c.theme === 'dark');
    const variables = change.styles.variables;
    assert.match(variables['--color-background-primary'], /\S/);
    assert.notEqual(variables['--color-background-primary'], light['--color-background-primary']);
    assert.notEqual(variables['--color-text-primary'], light['--color-text-primary']);
    // The colours are the panel's own, as it now draws itself.
    const panelBackground = await page.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--bg').trim());
    assert.equal(variables['--color-background-primary'], panelBackground);
    // And back.
    await page.emulateMedia({ colorScheme: 'light' });
    await appFrame().locator('li[data-kind="context-changed"]', { hasText: '"theme":"light"' }).waitFor({ timeout: 10_000 });
    const back = (await records('context-changed')).findLast((c) => c.theme);
    assert.equal(back.styles.variables['--color-background-primary'], light['--color-background-primary']);
  } finally {
    await page.emulateMedia({ colorScheme: 'light' });
  }
});

test("an app reads and lists its own server's resources", async () => {
  await showCounter(2);
  const [connected] = await records('connected');
  assert.ok(connected.capabilities.serverResources, JSON.stringify(connected.capabilities));
  await appFrame().locator('#read').click();
  await appFrame().locator('li[data-kind="read"], li[data-kind="read-error"]').waitFor();
  assert.deepEqual(await records('read-error'), []);
  const [read] = await records('read');
  assert.equal(read.contents[0].uri, 'memo://readme');
  assert.equal(read.contents[0].text, 'The counter counts.');
  assert.ok(apps.reads().includes('memo://readme'), 'read from its server');

  await appFrame().locator('#list').click();
  await appFrame().locator('li[data-kind="list"], li[data-kind="list-error"]').waitFor();
  assert.deepEqual(await records('list-error'), [], 'the host advertises serverResources, so it lists them');
  const [list] = await records('list');
  assert.deepEqual(list.resources.map((r) => r.uri).sort(), ['memo://readme', 'ui://counter/app.html']);
  assert.equal(list.resources.find((r) => r.uri === 'memo://readme').title, 'Read me');

  // resources/templates/list goes to its own server too (it was refused as an unknown method).
  await appFrame().locator('#templates').click();
  await appFrame().locator('li[data-kind="templates"], li[data-kind="templates-error"]').waitFor();
  assert.deepEqual(await records('templates-error'), []);
  const [templates] = await records('templates');
  assert.deepEqual(templates.resourceTemplates, [
    { uriTemplate: 'memo://notes/{topic}', name: 'notes', title: 'Notes by topic', mimeType: 'text/plain' },
  ]);
});

test("an app's second context update replaces its first in the next request", async () => {
  await showCounter(3);
  await appFrame().locator('#contexts').click();
  await appFrame().locator('li[data-kind="contexts"], li[data-kind="contexts-error"]').waitFor();
  assert.deepEqual(await records('contexts'), [{}]);
  chat.fake.script([{ chunks: textChunks('Noted.') }]);
  await chat.send('What does it say?');
  await chat.lastReply().filter({ hasText: 'Noted.' }).waitFor();
  const sent = JSON.stringify(chat.chatRequests().at(-1).body.contents.at(-1));
  assert.match(sent, /Second context: 2/);
  assert.doesNotMatch(sent, /First context/);
  assert.match(sent, /What does it say\?/);
  // Sent once: the request after has no context of the app.
  chat.fake.script([{ chunks: textChunks('Still here.') }]);
  await chat.send('And now?');
  await chat.lastReply().filter({ hasText: 'Still here.' }).waitFor();
  assert.doesNotMatch(JSON.stringify(chat.chatRequests().at(-1).body.contents.at(-1)), /Second context|Context from/);
});

test('an app that never initializes gets its result the GemiHub way, and its messages are answered', async () => {
  const page = chat.page;
  await modelCalls('mcp_apps_show_legacy', {}, 'Here is the old app.');
  await chat.lastReply().filter({ hasText: 'Here is the old app.' }).waitFor({ timeout: 20_000 });
  await appFrame().locator('li[data-kind="toolResult"]').waitFor({ timeout: 10_000 });
  const [result] = await records('toolResult');
  assert.ok(result.received >= 1400, `the result came ${result.received} ms after the app started`);
  assert.equal(result.message.result.content[0].text, 'show_legacy done');
  assert.deepEqual(await records('other'), [], 'nothing but GemiHub messages');
  // Running, if not the protocol's way: its frame is as ready as it will be.
  await page.getByTestId('app-frame').last().and(page.locator('[data-state="ready"]')).waitFor({ timeout: 5_000 });

  const calls = apps.calls().length;
  await appFrame().locator('#call').click();
  await appFrame().locator('li[data-kind="tools/call"]').waitFor({ timeout: 10_000 });
  assert.deepEqual(apps.calls().slice(calls), [{ name: 'bump', arguments: { by: 5 } }]);
  const [call] = await records('tools/call');
  assert.equal(call.message.id, 'call-1');
  assert.equal(call.message.result.content[0].text, 'bump done');

  await appFrame().locator('#context').click();
  await appFrame().locator('li[data-kind="context/update"]').waitFor({ timeout: 10_000 });
  const [ack] = await records('context/update');
  assert.deepEqual(ack.message, { type: 'context/update', id: 'ctx-1', result: { ok: true } });
  chat.fake.script([{ chunks: textChunks('Old but fine.') }]);
  await chat.send('What does the old app show?');
  await chat.lastReply().filter({ hasText: 'Old but fine.' }).waitFor();
  assert.match(JSON.stringify(chat.chatRequests().at(-1).body.contents.at(-1)), /The legacy app shows 42/);
  assert.deepEqual(await records('other'), []);
  assert.equal(await page.getByTestId('app-error').count(), 0);
});

test('collapsed and expanded, the app goes on as the same document', async () => {
  const page = chat.page;
  const frame = await showCounter(5);
  await appFrame().locator('body').evaluate((body) => { body.dataset.mark = 'before'; });
  await appFrame().locator('#bump').click();
  await appFrame().locator('li[data-kind="bump"]').waitFor();
  const collapse = frame.getByTestId('app-collapse');
  assert.equal(await collapse.getAttribute('aria-expanded'), 'true');
  await collapse.click();
  await page.getByTestId('app-iframe').last().waitFor({ state: 'hidden' });
  assert.equal(await collapse.getAttribute('aria-expanded'), 'false');
  assert.equal(await collapse.getAttribute('aria-label'), 'Show the app');
  await chat.shoot('app-collapsed');
  await collapse.click();
  await page.getByTestId('app-iframe').last().waitFor({ state: 'visible' });
  assert.equal(await collapse.getAttribute('aria-expanded'), 'true');
  assert.equal(await appFrame().locator('body').getAttribute('data-mark'), 'before', 'the same document');
  assert.equal((await records('bump')).length, 1);
  assert.equal((await records('connected')).length, 1, 'not started again');
  assert.equal(await frame.getAttribute('data-state'), 'ready');
});

test('a slow app shows that it is loading until it is ready', async () => {
  const page = chat.page;
  const slow = await startAppsSmoke({ readDelayMs: 1500 });
  const id = await addServer('Slow', slow, 'd');
  try {
    await chat.reload();
    await modelCalls('mcp_slow_show_counter', { start: 4 }, 'Slowly.');
    const loading = page.getByTestId('app-loading');
    await loading.waitFor({ timeout: 20_000 });
    // The card shows "loading" as soon as it exists, which may be before the read reaches the server.
    for (let i = 0; i < 100 && slow.reads().length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(slow.reads(), ['ui://counter/app.html'], 'its resource is read');
    assert.ok(await loading.isVisible(), 'still loading while its resource is read');
    assert.match(await loading.innerText(), /Loading the app/);
    // A spinner a person can see, turning.
    const spinner = loading.locator('.spinner');
    const box = await spinner.boundingBox();
    assert.ok(box && box.width >= 8 && box.height >= 8, `the spinner is drawn: ${JSON.stringify(box)}`);
    assert.equal(await spinner.evaluate((e) => getComputedStyle(e).animationName), 'spin');
    await chat.shoot('app-loading');
    await readyFrame().waitFor({ timeout: 20_000 });
    await appFrame().locator('li[data-kind="tool-result"]').waitFor({ timeout: 10_000 });
    assert.equal(await loading.count(), 0, 'gone once ready');
  } finally {
    await chat.request({ type: 'edit_settings', edit: { type: 'remove_server', id } });
    await slow.stop();
  }
});

test('an app that cannot be shown says why, in words a person understands', async () => {
  const page = chat.page;
  await modelCalls('mcp_apps_show_broken', {}, 'Broken one.');
  const error = page.getByTestId('app-error');
  await error.waitFor({ timeout: 20_000 });
  const wrongType = await error.innerText();
  assert.equal(wrongType, 'The app could not be shown: the server sent “text/plain”, which is not an app page (text/html;profile=mcp-app).');
  assert.equal(await page.getByTestId('app-iframe').count(), 0);
  assert.equal(await page.getByTestId('app-loading').count(), 0);
  await chat.lastReply().filter({ hasText: 'Broken one.' }).waitFor({ timeout: 20_000 });
  await chat.shoot('app-error-type');

  await chat.reload();
  await modelCalls('mcp_apps_show_missing', {}, 'Missing one.');
  await error.waitFor({ timeout: 20_000 });
  const missing = await error.innerText();
  // What the server said, not its address, the protocol's method or the JSON-RPC code.
  assert.equal(missing, 'The app could not be shown: the server answered “Resource not found: ui://missing/app.html”.');
  await chat.lastReply().filter({ hasText: 'Missing one.' }).waitFor({ timeout: 20_000 });
  await chat.shoot('app-error-missing');
});
