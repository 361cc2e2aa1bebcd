// An app's own tools (MCP Apps `registerTool`): the side panel lists them once the app runs,
// declares them to Gemini beside the servers' tools, asks the person before each call, runs
// the call in the app and sends the app's answer back as the function response.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openChat } from './chat_page.mjs';
import { startAppsSmoke } from '../fixtures/apps-smoke/server.mjs';
import { textChunks, functionCallChunk } from '../fixtures/fake-gemini/server.mjs';

let chat;
let apps;

before(async () => {
  apps = await startAppsSmoke({ picker: true });
  chat = await openChat();
  const id = `srv_${'b'.repeat(16)}`;
  const added = await chat.request({
    type: 'edit_settings',
    edit: { type: 'add_server', id, server: { name: 'Apps', url: apps.url } },
  });
  assert.equal(added.type, 'settings', JSON.stringify(added));
  // Trusted: the server's own tools run without asking; the app's still ask.
  await chat.request({ type: 'edit_settings', edit: { type: 'set_trust', id, trust: true } });
  await chat.reload();
});
after(async () => {
  await chat?.close();
  await apps?.stop();
});

const appFrame = () => chat.page.frameLocator('[data-testid="app-iframe"]').last().frameLocator('iframe');
const declared = (request) => (request.body.tools ?? []).flatMap((t) => t.functionDeclarations ?? []);

test("the model calls an app's own tool, the person allows it, and the app's answer goes back", async () => {
  const { fake, page } = chat;
  fake.script([
    { chunks: [functionCallChunk([{ name: 'mcp_apps_show_picker', args: {} }])] },
    { chunks: textChunks('Here is the picker.') },
  ]);
  await chat.send('Show the picker');
  await chat.lastReply().filter({ hasText: 'Here is the picker.' }).waitFor({ timeout: 20_000 });
  const frame = page.getByTestId('app-frame').last();
  await frame.and(page.locator('[data-view-tools="get_selection"]')).waitFor({ timeout: 20_000 });
  await appFrame().locator('[data-cell="C3"]').click();
  await appFrame().locator('#selected', { hasText: 'C3' }).waitFor();

  // The next request declares the app's tool, named apart from the servers' tools.
  fake.script([{ chunks: textChunks('I can see the picker.') }]);
  await chat.send('What can you do with it?');
  await chat.lastReply().filter({ hasText: 'I can see the picker.' }).waitFor();
  const tools = declared(chat.chatRequests().at(-1));
  const own = tools.filter((d) => d.name.startsWith('app_'));
  assert.equal(own.length, 1, JSON.stringify(tools.map((d) => d.name)));
  assert.match(own[0].name, /^app_[0-9a-f]{6}_get_selection$/);
  assert.match(own[0].description, /show_picker \(Apps\)/);
  assert.match(own[0].description, /Returns the cell the person selected/);
  assert.ok(tools.some((d) => d.name === 'mcp_apps_show_picker'), 'server tools still there');

  fake.script([
    { chunks: [functionCallChunk([{ name: own[0].name, args: {} }])] },
    { chunks: textChunks('You picked C3.') },
  ]);
  await chat.send('Which cell did I pick?');
  const card = page.getByTestId('tool-card').last();
  await card.and(page.locator('[data-state="confirm"]')).waitFor();
  assert.match(await card.locator('summary').innerText(), /get_selection/);
  assert.match(await card.locator('summary').innerText(), /app of show_picker \(Apps\)/);
  // Nothing to remember an app's tool by: only once or not at all.
  assert.equal(await card.getByRole('button', { name: 'Always allow this tool' }).count(), 0);
  await chat.shoot('app-tool-confirm');
  await card.getByRole('button', { name: 'Allow once' }).click();
  await chat.lastReply().filter({ hasText: 'You picked C3.' }).waitFor({ timeout: 20_000 });
  await card.and(page.locator('[data-state="done"]')).waitFor();
  await card.locator('summary').click();
  // The card shows what the model got: the tool's structured content (issue 22, item 11).
  assert.match(await card.locator('.result').innerText(), /"cell": "C3"/);
  await appFrame().locator('#calls li', { hasText: 'get_selection answered C3' }).waitFor();

  const turn = chat.chatRequests().at(-1).body.contents.at(-1);
  const response = turn.parts.map((p) => p.functionResponse).find(Boolean);
  assert.equal(response.name, own[0].name);
  // The app answered with structured content, which is what the model reads.
  assert.deepEqual(response.response, { output: { cell: 'C3' } });
  await card.scrollIntoViewIfNeeded();
  await chat.shoot('app-tool-done');

  // The app removes its tool (list_changed): the next request no longer declares it.
  await appFrame().locator('#remove').click();
  await page.waitForFunction(() => !document.querySelector('[data-view-tools~="get_selection"]'));
  fake.script([{ chunks: textChunks('Gone.') }]);
  await chat.send('And now?');
  await chat.lastReply().filter({ hasText: 'Gone.' }).waitFor();
  const after = declared(chat.chatRequests().at(-1)).map((d) => d.name);
  assert.ok(!after.some((n) => n.startsWith('app_')), JSON.stringify(after));
});

test("a denied call of an app's tool never reaches the app", async () => {
  const { fake, page } = chat;
  await chat.reload();
  fake.reset();
  fake.script([
    { chunks: [functionCallChunk([{ name: 'mcp_apps_show_picker', args: {} }])] },
    { chunks: textChunks('Picker shown.') },
  ]);
  await chat.send('Show the picker');
  await page.getByTestId('app-frame').last().and(page.locator('[data-view-tools="get_selection"]'))
    .waitFor({ timeout: 20_000 });
  await chat.lastReply().filter({ hasText: 'Picker shown.' }).waitFor({ timeout: 20_000 });
  fake.script([{ chunks: textChunks('Listed.') }]);
  await chat.send('List your tools');
  await chat.lastReply().filter({ hasText: 'Listed.' }).waitFor();
  const name = declared(chat.chatRequests().at(-1)).map((d) => d.name).find((n) => n.startsWith('app_'));
  assert.ok(name);
  fake.script([
    { chunks: [functionCallChunk([{ name, args: {} }])] },
    { chunks: textChunks('Understood.') },
  ]);
  await chat.send('Read my selection');
  const card = page.getByTestId('tool-card').last();
  await card.getByRole('button', { name: 'Deny' }).click();
  await chat.lastReply().filter({ hasText: 'Understood.' }).waitFor();
  const turn = chat.chatRequests().at(-1).body.contents.at(-1);
  assert.match(JSON.stringify(turn), /denied/);
  assert.equal(await appFrame().locator('#calls li').count(), 0);
});

test("an app shown by a turn's call offers its tools to that same turn's next request", async () => {
  const { fake } = chat;
  await chat.reload();
  fake.reset();
  fake.script([
    { chunks: [functionCallChunk([{ name: 'mcp_apps_show_picker', args: {} }])] },
    // The model takes its time over the next round: the app starts and offers its tool meanwhile.
    { delayMs: 3000, chunks: [functionCallChunk([{ name: 'mcp_apps_show_picker', args: {} }])] },
    { chunks: textChunks('Two pickers.') },
  ]);
  await chat.send('Show the picker, then another');
  await chat.lastReply().filter({ hasText: 'Two pickers.' }).waitFor({ timeout: 30_000 });
  const requests = chat.chatRequests();
  assert.equal(requests.length, 3, 'one turn of three rounds');
  const third = declared(requests[2]).map((d) => d.name);
  assert.ok(third.some((n) => /^app_[0-9a-f]{6}_get_selection$/.test(n)), JSON.stringify(third));
  assert.ok(third.includes('mcp_apps_show_picker'), 'the servers\' tools stay');
});

test("the request right after the call that shows an app already offers the app's tools", async () => {
  const { fake } = chat;
  await chat.reload();
  fake.reset();
  fake.script([
    { chunks: [functionCallChunk([{ name: 'mcp_apps_show_picker', args: {} }])] },
    // No delay: the model answers at once, as the person said "use it" in the same message.
    { chunks: textChunks('Shown.') },
  ]);
  await chat.send('Show the picker and use it');
  await chat.lastReply().filter({ hasText: 'Shown.' }).waitFor({ timeout: 30_000 });
  const requests = chat.chatRequests();
  assert.equal(requests.length, 2, 'one turn of two rounds');
  const second = declared(requests[1]).map((d) => d.name);
  assert.ok(second.some((n) => /^app_[0-9a-f]{6}_get_selection$/.test(n)), JSON.stringify(second));
});

test('an app without tools of its own holds nothing up', async () => {
  const { fake } = chat;
  await chat.reload();
  fake.reset();
  fake.script([
    { chunks: [functionCallChunk([{ name: 'mcp_apps_show_counter', args: { start: 1 } }])] },
    { chunks: textChunks('Counted.') },
  ]);
  await chat.send('Show the counter');
  await chat.lastReply().filter({ hasText: 'Counted.' }).waitFor({ timeout: 30_000 });
  const [first, second] = chat.chatRequests();
  assert.ok(second, 'two rounds');
  // The counter says it offers no tools as it initializes: the round never waits out the
  // bound (core's SHOWN_APP_TOOLS_WAIT_MS, 1 s).
  assert.ok(second.at - first.at < 1_000, `${second.at - first.at} ms between the rounds`);
});
