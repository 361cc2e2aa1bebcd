// Today's Gemini in the side panel and the popup, against the fake API serving today's model
// list and refusing what the real API refuses: the automatic default for a new user, the
// picker's groups, names and context windows, a saved model the API no longer offers with its
// replacement, thinking (the control, the folded "Thinking" section, saved and reopened), and a
// model switch after a tool call round trip. Screenshots in light and dark, English and Japanese.
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { openChat, API_KEY } from './chat_page.mjs';
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
  await setGemini({ api_key: API_KEY, base_url: fake.url });
  await page.getByTestId('new-chat').click();
});

/** Stores the settings' gemini part as the worker keeps it (version 6), then reloads. */
async function setGemini(gemini, version = 6) {
  await page.evaluate(({ gemini, version }) => chrome.storage.local.set({ settings: { version, gemini, servers: [] } }),
    { gemini, version });
  await chat.reload();
}

const models = () => page.getByTestId('model');
const chatRequests = () => chat.chatRequests();

/** Waits until the picker lists the live models. */
async function listed() {
  await models().locator('optgroup').first().waitFor({ state: 'attached' });
}

/** Both themes of the page. */
async function shoot(target, name) {
  for (const scheme of ['light', 'dark']) {
    await target.emulateMedia({ colorScheme: scheme });
    await screenshot(target, `${name}-${scheme}`);
  }
  await target.emulateMedia({ colorScheme: 'light' });
}

/** A native dropdown is not drawn in a headless screenshot: show its options as a list box. */
async function shootPicker(target, selector, name) {
  await target.locator(selector).evaluate((select) => { select.size = 14; select.style.maxWidth = 'none'; });
  await shoot(target, name);
  await target.locator(selector).evaluate((select) => { select.size = 0; select.style.maxWidth = ''; });
}

test('a new user\'s first message goes to the automatic default, the newest stable Flash', async () => {
  // A fresh document: a key, no model chosen.
  fake.script([{ chunks: textChunks('Hello from today\'s Flash.') }]);
  await chat.send('Hi');
  await chat.lastReply().and(page.locator('[data-state="done"]')).waitFor();
  assert.equal(await chat.lastReply().getByTestId('answer').innerText(), 'Hello from today\'s Flash.');
  const [request] = chatRequests();
  assert.equal(request.path, '/v1beta/models/gemini-3.8-flash:streamGenerateContent?alt=sse');
  // Only what 3.8 Flash documents: thought summaries, no sampling, no budget.
  assert.deepEqual(request.body.generationConfig, { thinkingConfig: { includeThoughts: true } });

  // A document of version 5 that still says the old default: it became the automatic default
  // (the fake answers gemini-2.5-flash with 404 "no longer available to new users").
  fake.reset();
  await setGemini({ api_key: API_KEY, base_url: fake.url, model: 'gemini-2.5-flash' }, 5);
  const stored = await chat.request({ type: 'get_settings' });
  assert.equal(stored.settings.gemini.model, undefined);
  fake.script([{ chunks: textChunks('Still fine.') }]);
  await chat.send('Hi again');
  await chat.lastReply().filter({ hasText: 'Still fine.' }).waitFor();
  assert.equal(chatRequests()[0].path, '/v1beta/models/gemini-3.8-flash:streamGenerateContent?alt=sse');
  assert.equal(await page.getByTestId('model-offer').count(), 0);
});

test('the picker groups stable and preview models by display name with their context window', async () => {
  await listed();
  const groups = await models().locator('optgroup').evaluateAll((gs) => gs.map((g) => ({
    label: g.label, options: [...g.querySelectorAll('option')].map((o) => [o.value, o.textContent]),
  })));
  assert.deepEqual(groups.map((g) => g.label), ['Stable', 'Preview (may change or go without notice)']);
  assert.deepEqual(groups[0].options.slice(0, 3), [
    ['gemini-4-argon', 'Gemini 4 Argon · 1M tokens'],
    ['gemini-3.8-flash', 'Gemini 3.8 Flash · 1M tokens'],
    ['gemini-3.6-flash', 'Gemini 3.6 Flash · 1M tokens'],
  ]);
  assert.ok(groups[0].options.some(([id, label]) => id === 'gemma-3-27b-it' && label === 'Gemma 3 27B · 128K tokens'));
  assert.deepEqual(groups[1].options.map(([id]) => id), ['gemini-3-flash-preview', 'gemini-flash-latest']);
  // Speech, image, live and embedding models are not offered for a chat.
  const all = groups.flatMap((g) => g.options.map(([id]) => id));
  assert.ok(!all.some((id) => /tts|image|live|embedding/.test(id)), all.join());
  const first = models().locator('option').first();
  assert.equal(await first.getAttribute('value'), '');
  assert.equal(await first.innerText(), 'Default: Gemini 3.8 Flash');
  await shootPicker(page, '[data-testid="model"]', 'models-picker');

  // The list is kept: offline (the fake gone from the settings' address), the picker still has it.
  const kept = await page.evaluate(() => chrome.storage.local.get('gemini_models'));
  assert.ok(JSON.parse(kept.gemini_models).models.some((m) => m.id === 'gemini-4-argon'));
});

test('a saved model the API no longer offers is shown with its replacement, in the side panel and the popup', async () => {
  await setGemini({ api_key: API_KEY, base_url: fake.url, model: 'gemini-2.5-pro' });
  const offer = page.getByTestId('model-offer');
  await offer.waitFor();
  assert.equal(await offer.locator('p').innerText(), '“gemini-2.5-pro” is no longer offered by the Gemini API.');
  assert.equal(await offer.getByTestId('use-replacement').innerText(), 'Use Gemini 3.8 Flash');
  await shoot(page, 'models-offer-panel');

  // The popup says the same of the same document.
  const popup = await chat.browser.context.newPage();
  await popup.goto(chat.browser.url('popup.html'));
  const popupOffer = popup.getByTestId('model-offer');
  await popupOffer.waitFor();
  assert.match(await popupOffer.innerText(), /“gemini-2\.5-pro” is no longer offered by the Gemini API\./);
  await popup.locator('select#model optgroup').first().waitFor({ state: 'attached' });
  await shoot(popup, 'models-offer-popup');
  await shootPicker(popup, 'select#model', 'models-picker-popup');

  // Taking it in the panel: the settings' choice becomes the automatic default, for every chat.
  await offer.getByTestId('use-replacement').click();
  await offer.waitFor({ state: 'detached' });
  assert.equal((await chat.request({ type: 'get_settings' })).settings.gemini.model, undefined);
  await popupOffer.waitFor({ state: 'detached' });
  assert.equal(await popup.locator('select#model').inputValue(), '');
  await popup.close();

  // A chat saved with a model the API now routes: reopened, the offer names what serves it,
  // and taking it changes that chat.
  await page.evaluate(() => {
    const saved = { id: 'routed1', title: 'An older chat', created_ms: 1, updated_ms: Date.now(),
      model: 'gemini-3.7-flash', history: [{ role: 'user', parts: [{ text: 'Hello' }] }],
      entries: [{ user: { text: 'Hello' } }] };
    return chrome.storage.local.set({
      'chat:routed1': JSON.stringify(saved),
      chats: JSON.stringify([{ id: 'routed1', title: 'An older chat', updated_ms: saved.updated_ms }]),
    });
  });
  await chat.reload();
  await page.getByTestId('history').click();
  await page.getByTestId('saved-chat').filter({ hasText: 'An older chat' }).locator('button.open').click();
  await offer.waitFor();
  assert.equal(await offer.locator('p').innerText(), 'The Gemini API now answers requests for “gemini-3.7-flash” with Gemini 3.8 Flash.');
  await offer.getByTestId('use-replacement').click();
  await offer.waitFor({ state: 'detached' });
  assert.equal(await models().inputValue(), 'gemini-3.8-flash');
});

test('the popup lists the models of the key it shows, again when another page changes the key', async () => {
  // A key the API refuses, and no list kept from before: nothing to choose from.
  await page.evaluate(() => chrome.storage.local.remove('gemini_models'));
  await setGemini({ api_key: 'not-the-key', base_url: fake.url });
  const listings = (key) => fake.requests()
    .filter((r) => /\/models(\?|$)/.test(r.path) && r.headers['x-goog-api-key'] === key).length;
  const before = listings('not-the-key');
  const popup = await chat.browser.context.newPage();
  await popup.goto(chat.browser.url('popup.html'));
  await popup.waitForFunction(() => document.querySelector('#api-key')?.value === 'not-the-key');
  for (let i = 0; i < 50 && listings('not-the-key') === before; i++) await popup.waitForTimeout(100);
  assert.ok(listings('not-the-key') > before, 'the popup asked the API for the list of its key');
  // The refusal shows nothing: give it time to arrive before saying no list came of it.
  await popup.waitForTimeout(500);
  assert.equal(await popup.locator('select#model optgroup').count(), 0, 'no list for a refused key');

  // The side panel saves the right key: the popup takes the change and lists its models.
  await chat.request({ type: 'edit_settings', edit: { type: 'set_api_key', api_key: API_KEY } });
  await popup.locator('select#model optgroup').first().waitFor({ state: 'attached' });
  assert.equal(await popup.locator('#api-key').inputValue(), API_KEY);
  await popup.close();
});

test('the side panel lists the models of the key it shows, again when another page changes the key', async () => {
  // The list kept is the right key's (the popup listed it just before), and not the key
  // itself: another key does not get it, even offline.
  const kept = (await page.evaluate(() => chrome.storage.local.get('gemini_models'))).gemini_models;
  assert.ok(JSON.parse(kept).models.length > 0, 'a list is kept');
  assert.ok(!kept.includes(API_KEY), 'the key is not kept with it');
  const listings = (key) => fake.requests()
    .filter((r) => /\/models(\?|$)/.test(r.path) && r.headers['x-goog-api-key'] === key).length;
  const before = listings('not-the-key');
  await setGemini({ api_key: 'not-the-key', base_url: fake.url });
  for (let i = 0; i < 50 && listings('not-the-key') === before; i++) await page.waitForTimeout(100);
  assert.ok(listings('not-the-key') > before, 'the panel asked the API for the list of its key');
  await page.waitForTimeout(500);
  assert.equal(await models().locator('optgroup').count(), 0, 'no list for a refused key');

  // Saved elsewhere (not through the panel's own port): the panel takes the change and lists.
  await chat.request({ type: 'edit_settings', edit: { type: 'set_api_key', api_key: API_KEY } });
  await listed();
  assert.equal(await models().locator('option').first().innerText(), 'Default: Gemini 3.8 Flash');
});

test('thinking: the chat\'s choice is sent as the model takes it; summaries fold above the reply, saved and reopened', async () => {
  await listed();
  const thinking = page.getByTestId('thinking');
  const offered = async () => thinking.locator('option').evaluateAll((os) => os.map((o) => o.value));
  // 3.8 Flash takes low, medium and high, not minimal.
  assert.deepEqual(await offered(), ['default', 'low', 'medium', 'high']);
  await thinking.selectOption('high');
  fake.script([{
    chunks: textChunks('The answer is 42.', { size: 4, thoughts: '**Working it out**\n\nSix times seven is forty-two.' }),
    delayMs: 120,
  }]);
  await chat.send('What is six times seven?');
  // While it streams, the section is there and folded; the thoughts are not the answer.
  const thoughts = chat.lastReply().getByTestId('thoughts');
  await thoughts.waitFor();
  assert.equal(await chat.lastReply().getAttribute('data-state'), 'streaming');
  assert.equal(await thoughts.getAttribute('open'), null);
  await shoot(page, 'thinking-streaming');
  await chat.lastReply().and(page.locator('[data-state="done"]')).waitFor();
  assert.equal(await chat.lastReply().getByTestId('answer').innerText(), 'The answer is 42.');
  assert.equal(await thoughts.getAttribute('open'), null);
  assert.equal(await thoughts.locator('summary').innerText(), 'Thinking');
  assert.deepEqual(chatRequests()[0].body.generationConfig,
    { thinkingConfig: { includeThoughts: true, thinkingLevel: 'high' } });
  await shoot(page, 'thinking-folded');
  await thoughts.locator('summary').focus();
  await page.keyboard.press('Enter');
  assert.equal(await thoughts.getAttribute('open'), '');
  assert.equal(await thoughts.locator('strong').innerText(), 'Working it out');
  await shoot(page, 'thinking-open');

  // Another model takes other levels: 3.5 Flash-Lite has minimal.
  await models().selectOption('gemini-3.5-flash-lite');
  assert.deepEqual(await offered(), ['default', 'minimal', 'low', 'medium', 'high']);
  await models().selectOption('');

  // Saved with the chat and reopened from the history: folded again, the same thoughts.
  await page.getByTestId('new-chat').click();
  await page.getByTestId('history').click();
  await page.getByTestId('saved-chat').filter({ hasText: 'What is six times seven?' }).locator('button.open').click();
  const reopened = chat.lastReply().getByTestId('thoughts');
  await reopened.waitFor();
  assert.equal(await reopened.getAttribute('open'), null);
  await reopened.locator('summary').click();
  assert.match(await reopened.innerText(), /Six times seven is forty-two\./);
  assert.equal(await chat.lastReply().getByTestId('answer').innerText(), 'The answer is 42.');
  assert.equal(await thinking.inputValue(), 'high');
});

test('switching model after a tool call round trip: the next model is sent no foreign signature, and the fake accepts it', async () => {
  const id = await chat.addEverything({ trust: true });
  try {
    await chat.reload();
    await listed();
    fake.script([
      { chunks: [functionCallChunk([{ id: 'fc1', name: 'mcp_everything_echo', args: { message: 'round trip' } }],
        { signature: 'U2lnbmVkQnkzOEZsYXNo' })] },
      { chunks: textChunks('Echoed: round trip.') },
    ]);
    await chat.send('Echo something');
    await chat.lastReply().filter({ hasText: 'Echoed: round trip.' }).and(page.locator('[data-state="done"]')).waitFor();
    const [, second] = chatRequests();
    assert.equal(second.body.contents[1].parts[0].thoughtSignature, 'U2lnbmVkQnkzOEZsYXNo', 'kept for the same model');

    // Gemini 4 Argon would refuse 3.8 Flash's signature ("Corrupted thought signature.").
    await models().selectOption('gemini-4-argon');
    fake.script([{ chunks: textChunks('Argon here.') }]);
    await chat.send('And now?');
    await chat.lastReply().filter({ hasText: 'Argon here.' }).and(page.locator('[data-state="done"]')).waitFor();
    const third = chatRequests()[2];
    assert.equal(third.path, '/v1beta/models/gemini-4-argon:streamGenerateContent?alt=sse');
    assert.ok(!JSON.stringify(third.body.contents).includes('U2lnbmVkQnkzOEZsYXNo'));
    assert.equal(await page.getByTestId('error').count(), 0);
  } finally {
    await chat.removeServer(id);
  }
});

test('Japanese: the picker, the replacement offer and the thinking section', async () => {
  const ja = await openChat({ locale: 'ja' });
  try {
    const jaPage = ja.page;
    await jaPage.evaluate(({ key, base }) => chrome.storage.local.set({
      settings: { version: 6, gemini: { api_key: key, base_url: base, model: 'gemini-2.5-pro' }, servers: [] },
    }), { key: API_KEY, base: ja.fake.url });
    await ja.reload();
    const offer = jaPage.getByTestId('model-offer');
    await offer.waitFor();
    assert.equal(await offer.locator('p').innerText(), '「gemini-2.5-pro」は Gemini API で提供されなくなりました。');
    await jaPage.getByTestId('model').locator('optgroup').first().waitFor({ state: 'attached' });
    await shoot(jaPage, 'models-offer-panel-ja');
    await shootPicker(jaPage, '[data-testid="model"]', 'models-picker-ja');
    await offer.getByTestId('use-replacement').click();
    await offer.waitFor({ state: 'detached' });
    ja.fake.script([{ chunks: textChunks('答えは 42 です。', { size: 4, thoughts: '**計算**\n\n6 × 7 = 42。' }) }]);
    await ja.send('6 × 7 は？');
    await ja.lastReply().and(jaPage.locator('[data-state="done"]')).waitFor();
    const thoughts = ja.lastReply().getByTestId('thoughts');
    assert.equal(await thoughts.locator('summary').innerText(), '思考の要約');
    await shoot(jaPage, 'thinking-folded-ja');
    await thoughts.locator('summary').click();
    await shoot(jaPage, 'thinking-open-ja');
  } finally {
    await ja.close();
  }
});
