// The same chat open in two windows (issue 22, item 20): each window's side panel is its own
// page with its own copy of the chat. A turn saved in one shows in the other while it is idle,
// and two turns sent at the same time are both kept: the one saved last finds the other's save
// and keeps it as a version of the chat at the message where they part.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openChat } from './chat_page.mjs';
import { screenshot } from './harness.mjs';
import { textChunks } from '../fixtures/fake-gemini/server.mjs';

let chat;
let one;
let two;

before(async () => {
  chat = await openChat();
  one = chat.page;
  two = await chat.browser.context.newPage();
  await two.goto(chat.browser.url('sidepanel.html'));
  await two.getByTestId('worker-status').and(two.locator('[data-state="ok"]')).waitFor();
});
after(async () => { await chat?.close(); });

const reply = (page, text) => page.getByTestId('reply').filter({ hasText: text })
  .and(page.locator('[data-state="done"]')).waitFor();
const send = async (page, text) => {
  const input = page.getByTestId('input');
  await input.fill(text);
  await input.press('Enter');
};
const messages = (page) => page.locator('.entry.user .bubble').allInnerTexts();

/** The stored copy of the only saved chat. */
const stored = () => one.evaluate(async () => {
  const all = await chrome.storage.local.get(null);
  const keys = Object.keys(all).filter((k) => k.startsWith('chat:'));
  return keys.map((k) => JSON.parse(all[k]));
});

test('a turn saved in one window shows in the other, and two turns sent at once are both kept', async () => {
  chat.fake.script([{ chunks: textChunks('Hello from the model.') }]);
  await send(one, 'First message');
  await reply(one, 'Hello from the model.');

  // Window two opens the same chat from its history.
  await two.getByTestId('history').click();
  await two.getByTestId('saved-chat').filter({ hasText: 'First message' }).locator('button.open').click();
  await reply(two, 'Hello from the model.');

  // A turn in window one reaches window two without reopening anything.
  chat.fake.script([{ chunks: textChunks('Second answer.') }]);
  await send(one, 'Second message');
  await reply(one, 'Second answer.');
  await reply(two, 'Second answer.');
  assert.deepEqual(await messages(two), ['First message', 'Second message']);

  // Both windows send at the same moment: window one's answer is slow, window two's quick, so
  // two saves first and one saves over a chat that changed under it.
  chat.fake.script([
    { chunks: textChunks('Slow answer for window one.'), delayMs: 1500 },
    { chunks: textChunks('Quick answer for window two.') },
  ]);
  await send(one, 'Third from window one');
  await one.getByTestId('reply').last().waitFor();
  await send(two, 'Third from window two');
  await reply(two, 'Quick answer for window two.');
  await reply(one, 'Slow answer for window one.');

  // Nothing lost: the stored chat shows window one's turn and keeps window two's as a version.
  await one.waitForFunction(() => document.querySelector('[data-testid="version-count"]'));
  const [saved] = await stored();
  const kept = JSON.stringify(saved);
  assert.ok(kept.includes('Third from window one') && kept.includes('Quick answer for window two.'), kept);
  assert.deepEqual(await messages(one), ['First message', 'Second message', 'Third from window one']);
  const third = one.locator('.entry.user').nth(2);
  assert.equal(await third.getByTestId('version-count').innerText(), '1 / 2');
  await screenshot(one, 'two-windows-merged');

  // Window two, idle again, takes the merged chat in; its own turn is one click away.
  const twoThird = two.locator('.entry.user').nth(2);
  await twoThird.getByTestId('version-count').filter({ hasText: '1 / 2' }).waitFor();
  await twoThird.getByTestId('version-next').click();
  await reply(two, 'Quick answer for window two.');
  assert.deepEqual(await messages(two), ['First message', 'Second message', 'Third from window two']);
  assert.equal(chat.chatRequests().length, 4, 'switching versions sends nothing');
});
