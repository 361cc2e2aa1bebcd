// Servers that are down or hang must not hold the chat (issue 22, item 19): the panel asks
// every enabled server for its tools at once, a turn leaves with what has answered, a late
// list joins the turn's next round, and a failing server is reported once, not per message.
// The built extension in Chromium, the fake Gemini API, server-everything as the healthy
// server; closed ports and a server that never answers as the dead ones.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openChat } from './chat_page.mjs';
import { freePort, startHangingServer, startSlowServer } from './servers.mjs';
import { textChunks, functionCallChunk } from '../fixtures/fake-gemini/server.mjs';

let chat;
let hanging;
let slow;
const added = [];

before(async () => {
  chat = await openChat();
  hanging = await startHangingServer();
  // Alive, but slower than the turn waits: it answers when the test releases it, after the
  // turn's first request left (a fixed delay raced the panel's start on a slow machine).
  slow = await startSlowServer({ delayMs: 0, held: true, name: 'late', tools: ['late_tool'] });
});
after(async () => {
  for (const id of added) await chat?.removeServer(id).catch(() => {});
  await chat?.close();
  await hanging?.stop();
  await slow?.stop();
});

async function waitUntil(check, what, timeoutMs = 30_000) {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const declared = (req) => (req.body.tools ?? []).flatMap((t) => t.functionDeclarations ?? []).map((d) => d.name);
const notices = () => chat.page.locator('p.notice').allInnerTexts();

async function addServer(name, url, extra = {}) {
  const id = `srv_${Math.random().toString(16).slice(2, 10)}`;
  const reply = await chat.request({
    type: 'edit_settings',
    edit: { type: 'add_server', id, server: { name, url, timeout_ms: 5_000, ...extra } },
  });
  assert.equal(reply.type, 'settings', JSON.stringify(reply));
  added.push(id);
  return id;
}

test('a turn leaves without waiting for dead or hanging servers, and says so once', async () => {
  await chat.addEverything({ trust: true }).then((id) => added.push(id));
  await addServer('closed one', `http://127.0.0.1:${await freePort()}/mcp`);
  await addServer('closed two', `http://127.0.0.1:${await freePort()}/mcp`);
  await addServer('hung', hanging.url);
  await addServer('late', slow.url);
  await chat.reload();

  const { fake, page } = chat;
  fake.reset();
  fake.script([
    // The first round calls a tool that runs long enough for the late server to answer.
    { chunks: [functionCallChunk([{ name: 'mcp_everything_trigger_long_running_operation', args: { duration: 4, steps: 2 } }])] },
    { chunks: textChunks('Done.') },
    { chunks: textChunks('Again.') },
  ]);
  const sentAt = Date.now();
  await chat.send('Use your tools');
  await waitUntil(() => chat.chatRequests().length >= 1, 'the first request to reach the fake');
  slow.release();
  await chat.lastReply().filter({ hasText: 'Done.' }).and(page.locator('[data-state="done"]'))
    .waitFor({ timeout: 30_000 });
  const [first, second] = chat.chatRequests();

  // The first request left while the hung server still held its listing: it did not wait for
  // its timeout (5 s, a listing may take twice that).
  assert.ok(declared(first).some((n) => n.startsWith('mcp_everything_')), declared(first).join());
  assert.ok(!declared(first).some((n) => n.startsWith('mcp_late_')), 'the late list was not waited for');
  assert.ok(first.at - sentAt < 5_000, `the first request left ${first.at - sentAt} ms after Send`);
  // The late server answered (released) during the tool's run: the turn's next round declares its tool.
  assert.ok(declared(second).includes('mcp_late_late_tool'), declared(second).join());

  const told = await notices();
  const about = (name) => told.filter((t) => t.includes(`“${name}”`));
  assert.equal(about('closed one').length, 1, told.join('\n'));
  assert.equal(about('closed two').length, 1, told.join('\n'));
  assert.equal(about('hung').length, 1, told.join('\n'));
  assert.match(about('hung')[0], /has not listed its tools yet/);
  assert.equal(about('late').length, 1, 'the late server was reported once as late');
  await chat.shoot('dead-servers-notices');

  // The next message: no new notices, and no wait for the servers that failed or hang.
  const askedBefore = hanging.received();
  assert.ok(askedBefore >= 1, 'the hung server was asked');
  await chat.send('And again');
  await chat.lastReply().filter({ hasText: 'Again.' }).and(page.locator('[data-state="done"]'))
    .waitFor({ timeout: 30_000 });
  const third = chat.chatRequests()[2];
  assert.ok(declared(third).includes('mcp_late_late_tool'), 'the late list is known now');
  assert.ok(declared(third).some((n) => n.startsWith('mcp_everything_')));
  assert.deepEqual(await notices(), told, 'nothing is reported twice');
  // Still listing, or failed and waiting out its backoff: either way not asked again.
  assert.equal(hanging.received(), askedBefore, 'the hung server was not asked again meanwhile');
});
