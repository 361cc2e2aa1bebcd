// Updates of attached resources: a resource sent in the chat is followed on its server, and when
// the server says it changed the chat marks it, with a Refresh that reads it again for the next
// message. Against server-everything (2025-11-25: `resources/subscribe` and the session's GET
// stream; its own `toggle-subscriber-updates` tool starts its updates, and its dynamic text
// resource says when it was read) and the stateless 2026-07-28 fixture (`subscriptions/listen`
// with `resourceSubscriptions`; `touch_notes` changes `test://notes` and announces it).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openChat } from './chat_page.mjs';
import { startStateless2026 } from './servers.mjs';
import { stopServiceWorkers } from './harness.mjs';
import { textChunks } from '../fixtures/fake-gemini/server.mjs';

let chat;
let page;
let stateless;
let everythingId;

async function addStateless(on) {
  const id = `srv_${Math.random().toString(16).slice(2, 10)}`;
  const added = await on.request({
    type: 'edit_settings',
    edit: { type: 'add_server', id, server: { name: 'Stateless', url: stateless.url } },
  });
  assert.equal(added.type, 'settings', JSON.stringify(added));
  return id;
}

before(async () => {
  stateless = await startStateless2026();
  chat = await openChat();
  ({ page } = chat);
  everythingId = await chat.addEverything();
  await addStateless(chat);
  await chat.reload();
});
after(async () => {
  await chat?.close();
  await stateless?.stop();
});

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const quotedResources = (request) => request.body.contents.at(-1).parts
  .map((p) => p.text ?? '').filter((t) => t.startsWith('[Resource attached'));

/** Types `@query` and picks the entry named `name` with the keyboard. */
async function mention(on, query, name) {
  const p = on.page;
  await p.getByTestId('input').focus();
  await p.keyboard.type(`@${query}`);
  // Templates and the first page of resources arrive apart: wait for the entry itself.
  // (Functions, not strings: the panel's policy forbids evaluating text.)
  const listed = () => [...document.querySelectorAll('[data-testid="mention-item"] .slash-name')]
    .map((n) => n.innerText.replace(/^\W+/u, '').trim());
  await p.waitForFunction((wanted) => [...document.querySelectorAll('[data-testid="mention-item"] .slash-name')]
    .some((n) => n.innerText.replace(/^\W+/u, '').trim() === wanted), name);
  const names = await p.evaluate(listed);
  const at = names.indexOf(name);
  assert.ok(at >= 0, `${name} in ${names}`);
  for (let n = 0; n < at; n += 1) await p.keyboard.press('ArrowDown');
  await p.keyboard.press('Enter');
}

/** Sends what is typed; resolves once the fake's reply is shown. */
async function send(on, text, reply) {
  const p = on.page;
  const before = await p.getByTestId('reply').count();
  on.fake.reset();
  on.fake.script([{ chunks: textChunks(reply) }]);
  await p.getByTestId('input').focus();
  await p.keyboard.type(text);
  await p.keyboard.press('Enter');
  await p.waitForFunction((n) => document.querySelectorAll('[data-testid="reply"]').length > n, before);
}

/**
 * Changes `test://notes` until the chat in `p` marks it: how soon the worker's stream is open
 * cannot be told from outside when other browsers hold streams on the same server.
 */
async function touchUntilMarked(p) {
  const deadline = Date.now() + 15_000;
  while ((await p.locator('[data-testid="context-sent"] [data-testid="resource-changed"]').count()) === 0) {
    assert.ok(Date.now() < deadline, 'the update was marked');
    await stateless.touchNotes();
    await sleep(500);
  }
}

const chips = (p) => p.locator('[data-testid="attachment"][data-kind="resource"]');
const transcriptMark = (p) => p.locator('[data-testid="context-sent"] [data-testid="resource-changed"]');

test('a 2025-11-25 server\'s update marks the sent resource, and Refresh sends it read again', async () => {
  await mention(chat, 'dynamic', 'Dynamic Text Resource');
  await page.getByTestId('prompt-arguments').waitFor();
  await page.keyboard.type('7');
  await page.keyboard.press('Enter');
  await chips(page).first().waitFor();
  const firstRead = Date.now();
  await send(chat, 'Keep this in mind.', 'Noted.');
  const [first] = quotedResources(chat.chatRequests().at(-1));
  assert.match(first, /Resource 7: This is a plaintext resource created at/);
  assert.equal(await transcriptMark(page).count(), 0, 'no mark before the server says anything');

  // The server's own tool starts its updates of what this session subscribed to: it
  // subscribed when the message was sent.
  const toggled = await chat.request({
    type: 'call_tool', call_id: 'toggle-1', server_id: everythingId,
    tool: 'toggle-subscriber-updates', arguments: {},
  });
  assert.equal(toggled.type, 'tool_result', JSON.stringify(toggled));
  assert.match(JSON.stringify(toggled), /Started simulated resource updated/);
  try {
    await transcriptMark(page).waitFor({ timeout: 20_000 });
    assert.equal(await transcriptMark(page).getAttribute('data-uri'), 'demo://resource/dynamic/text/7');
    assert.match(await transcriptMark(page).innerText(), /Changed on the server/);
    await chat.shoot('resource-changed');

    // The resource says the second it was read: read it again a second later at least.
    await sleep(Math.max(0, 1_100 - (Date.now() - firstRead)));
    // Keyboard: the Refresh button takes the focus and Enter presses it.
    const refresh = page.locator('[data-testid="context-sent"] [data-testid="resource-refresh"]');
    await refresh.focus();
    await page.keyboard.press('Enter');
    await chips(page).first().waitFor();
    assert.match(await chips(page).first().innerText(), /Dynamic Text Resource \(7\)/);
    assert.ok(await page.getByTestId('input').evaluate((el) => el === document.activeElement),
      'the composer has the focus after the refresh');
    await send(chat, 'And now?', 'It changed.');
    const [again] = quotedResources(chat.chatRequests().at(-1));
    assert.match(again, /URL: demo:\/\/resource\/dynamic\/text\/7/);
    assert.match(again, /Resource 7: This is a plaintext resource created at/);
    assert.notEqual(again, first, 'the content read again, not the first read');
  } finally {
    await chat.request({
      type: 'call_tool', call_id: 'toggle-2', server_id: everythingId,
      tool: 'toggle-subscriber-updates', arguments: {},
    });
  }
});

test('a 2026-07-28 server\'s update marks the resource in the transcript and its chip', async () => {
  await page.getByTestId('new-chat').click();
  await mention(chat, 'notes', 'notes');
  await chips(page).first().waitFor();
  await send(chat, 'My notes.', 'Read them.');
  assert.match(quotedResources(chat.chatRequests().at(-1))[0], /notes v1/);
  // The worker follows it on a subscriptions/listen stream of its own, beside the one for
  // list changes.
  const deadline = Date.now() + 10_000;
  while ((await stateless.openListens()) < 2) {
    assert.ok(Date.now() < deadline, 'a second subscriptions/listen stream opened');
    await sleep(100);
  }
  // The same resource attached again before it changes: its chip is marked too.
  await mention(chat, 'notes', 'notes');
  await chips(page).first().waitFor();
  await stateless.touchNotes();
  await transcriptMark(page).waitFor({ timeout: 10_000 });
  const chipMark = chips(page).first().getByTestId('resource-changed');
  await chipMark.waitFor();
  await chat.shoot('resource-changed-chip');

  await chipMark.getByTestId('resource-refresh').click();
  await chipMark.waitFor({ state: 'detached' });
  await transcriptMark(page).waitFor({ state: 'detached' });
  assert.equal(await chips(page).count(), 1, 'the fresh read replaced the chip');
  await send(chat, 'Again.', 'Updated.');
  const quoted = quotedResources(chat.chatRequests().at(-1));
  assert.equal(quoted.length, 1, JSON.stringify(quoted));
  assert.match(quoted[0], /notes v2/);

  // A chat that does not hold the resource shows no mark; the worker stops following it once
  // no open chat holds it.
  await page.getByTestId('new-chat').click();
  const closing = Date.now() + 10_000;
  while ((await stateless.openListens()) > 1) {
    assert.ok(Date.now() < closing, 'the resource stream closed');
    await sleep(100);
  }
  await stateless.touchNotes();
  await sleep(500);
  assert.equal(await page.getByTestId('resource-changed').count(), 0);
});

test('a worker that Chrome stopped follows the chat\'s resources again when it starts', async () => {
  await mention(chat, 'notes', 'notes');
  await chips(page).first().waitFor();
  await send(chat, 'Notes again.', 'Read.');
  await stopServiceWorkers(page);
  // The panel reconnects to a fresh worker, which knows nothing until the panel says again
  // what its chat follows.
  await page.getByTestId('worker-status').and(page.locator('[data-state="ok"]')).waitFor();
  await touchUntilMarked(page);
  await page.getByTestId('new-chat').click();
});

test('the mark and Refresh speak Japanese', async () => {
  const ja = await openChat({ locale: 'ja' });
  try {
    await addStateless(ja);
    await ja.reload();
    const p = ja.page;
    await mention(ja, 'notes', 'notes');
    await chips(p).first().waitFor();
    await send(ja, 'メモです。', '読みました。');
    await touchUntilMarked(p);
    assert.match(await transcriptMark(p).innerText(), /サーバーで変更あり/);
    assert.match(await transcriptMark(p).getByTestId('resource-refresh').innerText(), /再読み込み/);
    await ja.shoot('resource-changed-ja');
  } finally {
    await ja.close();
  }
});
