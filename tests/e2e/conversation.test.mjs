// The conversation controls (issue 21, item 8) in Chromium against the fake Gemini API: edit a
// sent message (the chat continues from it; the replaced version is kept and can be shown
// again, its tool calls never re-run), regenerate a reply, copy a reply as Markdown, and custom
// instructions (for every chat in the popup, per chat in the panel) sent as systemInstruction
// and shown in the chat's header. Versions survive saving and reopening.
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { openChat } from './chat_page.mjs';
import { screenshot } from './harness.mjs';
import { textChunks, functionCallChunk } from '../fixtures/fake-gemini/server.mjs';

let chat;
let fake;
let page;

before(async () => {
  chat = await openChat();
  ({ fake, page } = chat);
});
after(async () => { await chat?.close(); });
beforeEach(async () => {
  fake.reset();
  await chat.reload();
  await page.getByTestId('new-chat').click();
});

const done = (text) => chat.lastReply().filter({ hasText: text }).and(page.locator('[data-state="done"]')).waitFor();
const texts = (contents) => contents.map((c) => `${c.role}: ${c.parts.map((p) => p.text ?? (p.functionCall ? `call ${p.functionCall.name}` : 'response')).join('+')}`);
const message = (n) => page.locator('.entry.user').nth(n);

test('editing a sent message continues from it; the replaced version comes back without running anything again', async () => {
  const id = await chat.addEverything({ trust: true });
  try {
    await chat.reload();
    await page.getByTestId('new-chat').click();
    fake.script([
      { chunks: textChunks('Kyoto has many temples.') },
      { chunks: [functionCallChunk([{ id: 'fc1', name: 'mcp_everything_echo', args: { message: 'temples' } }])] },
      { chunks: textChunks('The echo said temples.') },
      { chunks: textChunks('Osaka is known for food.') },
    ]);
    await chat.send('Tell me about Kyoto');
    await done('Kyoto has many temples.');
    await chat.send('Echo temples');
    await done('The echo said temples.');
    assert.equal(await page.getByTestId('tool-card').getAttribute('data-state'), 'done');

    // Edit the first message with the keyboard: Edit, change the text, Enter.
    await message(0).getByTestId('edit').focus();
    await page.keyboard.press('Enter');
    const box = page.getByTestId('edit-input');
    await box.waitFor();
    await chat.shoot('edit-message');
    await box.fill('Tell me about Osaka');
    await box.press('Enter');
    await done('Osaka is known for food.');
    const edited = chat.chatRequests()[3].body;
    assert.deepEqual(texts(edited.contents), ['user: Tell me about Osaka'], 'the chat continues from the edited turn');
    assert.equal(await page.locator('.entry.user').count(), 1);
    assert.equal(await page.getByTestId('tool-card').count(), 0);
    assert.equal(await message(0).getByTestId('version-count').innerText(), '2 / 2');
    await chat.shoot('versions');

    // Back to the first version: everything as it was, and nothing sent or run again.
    const before = fake.requests().length;
    await message(0).getByTestId('version-previous').click();
    await done('The echo said temples.');
    assert.equal(await message(0).locator('.bubble').innerText(), 'Tell me about Kyoto');
    assert.equal(await message(0).getByTestId('version-count').innerText(), '1 / 2');
    const card = page.getByTestId('tool-card');
    assert.equal(await card.count(), 1);
    assert.equal(await card.getAttribute('data-state'), 'done');
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(fake.requests().length, before, 'switching sends nothing');

    // The chat goes on from the version shown, with its history (signatures and all).
    fake.script([{ chunks: textChunks('Still about Kyoto.') }]);
    await chat.send('And then?');
    await done('Still about Kyoto.');
    const next = chat.chatRequests().at(-1).body;
    assert.deepEqual(texts(next.contents), [
      'user: Tell me about Kyoto', 'model: Kyoto has many temples.', 'user: Echo temples',
      'model: call mcp_everything_echo', 'user: response', 'model: The echo said temples.', 'user: And then?']);
    assert.ok(next.contents[3].parts[0].thoughtSignature, 'the call keeps its signature');

    // Saved and reopened: both versions are there.
    await chat.reload();
    await page.getByTestId('history').click();
    await page.getByTestId('saved-chat').filter({ hasText: 'Tell me about Kyoto' }).locator('button.open').click();
    await done('Still about Kyoto.');
    assert.equal(await message(0).getByTestId('version-count').innerText(), '1 / 2');
    await message(0).getByTestId('version-next').click();
    await done('Osaka is known for food.');
    assert.equal(await page.getByTestId('tool-card').count(), 0);
  } finally {
    await chat.removeServer(id);
  }
});

test('regenerate asks again with the same message and keeps the earlier reply as a version', async () => {
  fake.script([{ chunks: textChunks('First **answer**.') }, { chunks: textChunks('Second answer.') }]);
  await chat.send('Pick a number');
  await done('First answer.');
  await page.getByTestId('regenerate').click();
  await done('Second answer.');
  const [first, second] = chat.chatRequests();
  assert.deepEqual(second.body.contents, first.body.contents, 'the same message, nothing after it');
  assert.equal(await page.locator('.entry.user').count(), 1);
  assert.equal(await message(0).getByTestId('version-count').innerText(), '2 / 2');
  await message(0).getByTestId('version-previous').click();
  await done('First answer.');

  // Copy as Markdown: the reply as it was written. (Headless Chromium grants no clipboard to an
  // extension page: what the panel writes is caught on its way.)
  await page.evaluate(() => {
    navigator.clipboard.writeText = (text) => { window.copied = text; return Promise.resolve(); };
  });
  await page.getByTestId('copy-reply').last().click();
  await page.locator('[data-testid="copy-reply"][data-copied="true"]').waitFor();
  assert.equal(await page.evaluate(() => window.copied), 'First **answer**.');
  await chat.shoot('reply-actions');
});

test('custom instructions: every chat\'s from the popup, this chat\'s from its header, sent as systemInstruction', async () => {
  // The popup's field, saved.
  const popup = await chat.browser.context.newPage();
  await popup.goto(chat.browser.url('popup.html'));
  const field = popup.getByTestId('instructions');
  await field.waitFor();
  await field.fill('Answer in British English.');
  await popup.getByTestId('save-gemini').click();
  await popup.getByTestId('gemini-save-result').filter({ hasText: 'Saved' }).waitFor();
  const settings = await chat.request({ type: 'get_settings' });
  assert.equal(settings.settings.gemini.instructions, 'Answer in British English.');
  await popup.emulateMedia({ colorScheme: 'dark' });
  await screenshot(popup, 'popup-instructions-dark');
  await popup.emulateMedia({ colorScheme: 'light' });
  await screenshot(popup, 'popup-instructions-light');
  await popup.close();

  try {
    await chat.reload();
    const bar = page.getByTestId('instructions-bar');
    await bar.waitFor();
    assert.match(await bar.innerText(), /Every chat: Answer in British English\./);
    // This chat's own, with the keyboard: open, type, Ctrl+Enter.
    await page.getByTestId('instructions-edit').click();
    const own = page.getByTestId('chat-instructions');
    // Too long is refused with the reason, the editor stays open with what was typed.
    await own.fill('x'.repeat(20_001));
    await own.press('Control+Enter');
    assert.match(await page.getByTestId('instructions-refused').innerText(), /at most 20000 characters/);
    assert.equal((await own.inputValue()).length, 20_001);
    await own.fill('Use metric units.');
    assert.equal(await page.getByTestId('instructions-refused').isVisible(), false, 'gone once changed');
    await chat.shoot('instructions-editor');
    await own.press('Control+Enter');
    await bar.filter({ hasText: 'This chat: Use metric units.' }).waitFor();
    await chat.shoot('instructions-bar');

    fake.script([{ chunks: textChunks('About 20 kilometres.') }]);
    await chat.send('How far is it?');
    await done('About 20 kilometres.');
    const [req] = chat.chatRequests();
    assert.deepEqual(req.body.systemInstruction,
      { role: 'user', parts: [{ text: 'Answer in British English.\n\nUse metric units.' }] });

    // Kept with the chat.
    await chat.reload();
    await page.getByTestId('history').click();
    await page.getByTestId('saved-chat').filter({ hasText: 'How far is it?' }).locator('button.open').click();
    await page.getByTestId('instructions-bar').filter({ hasText: 'This chat: Use metric units.' }).waitFor();
  } finally {
    await chat.request({ type: 'edit_settings', edit: { type: 'set_instructions', instructions: null } });
  }
});

test('in Japanese, light and dark', async () => {
  const ja = await openChat({ locale: 'ja' });
  try {
    await ja.reload();
    ja.fake.script([{ chunks: textChunks('京都には多くの寺があります。') }, { chunks: textChunks('大阪は食べ物で有名です。') }]);
    await ja.send('京都について教えて');
    await ja.lastReply().and(ja.page.locator('[data-state="done"]')).waitFor();
    await ja.page.locator('.entry.user').first().getByTestId('edit').click();
    await ja.page.getByTestId('edit-input').fill('大阪について教えて');
    await ja.shoot('edit-message-ja');
    await ja.page.getByTestId('edit-input').press('Enter');
    await ja.lastReply().filter({ hasText: '大阪' }).and(ja.page.locator('[data-state="done"]')).waitFor();
    await ja.page.getByTestId('instructions-open').click();
    await ja.page.getByTestId('chat-instructions').fill('敬語で答えてください。');
    await ja.page.getByTestId('instructions-save').click();
    await ja.page.getByTestId('instructions-bar').waitFor();
    assert.match(await ja.page.getByTestId('instructions-bar').innerText(), /このチャット: 敬語で答えてください。/);
    assert.equal(await ja.page.getByTestId('version-count').innerText(), '2 / 2');
    await ja.page.getByTestId('regenerate').hover();
    await ja.shoot('versions-ja');
  } finally {
    await ja.close();
  }
});
