// Usage and limits in the side panel (issue 21, item 6), against the fake Gemini API: the tokens
// of each turn on hover, the context window meter and the offer of a new chat from a summary,
// finish reasons in words with Continue for the output limit, 429/503 retried by themselves with
// a countdown, and safety blocks saying what was blocked. English and Japanese, light and dark.
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { openChat } from './chat_page.mjs';
import { textChunks, rateLimited, apiError } from '../fixtures/fake-gemini/server.mjs';

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
});

const done = () => chat.lastReply().and(page.locator('[data-state="done"]')).waitFor();

/** A reply whose last chunk reports `usage` (the API's usageMetadata). */
function replyWithUsage(text, usage, finishReason = 'STOP') {
  return {
    chunks: [
      { candidates: [{ content: { role: 'model', parts: [{ text }] }, index: 0 }] },
      { candidates: [{ content: { role: 'model', parts: [{ text: '' }] }, finishReason, index: 0 }], usageMetadata: usage },
    ],
  };
}

test('each reply shows its tokens on hover and the composer shows the context window', async () => {
  fake.script([replyWithUsage('Here you are.', {
    promptTokenCount: 1204, cachedContentTokenCount: 800, thoughtsTokenCount: 96,
    candidatesTokenCount: 310, totalTokenCount: 1610,
  })]);
  await chat.send('How many tokens?');
  await done();
  const usage = page.getByTestId('usage').last();
  assert.equal(await usage.innerText(), '1,610 tokens');
  assert.equal(await usage.getAttribute('data-detail'),
    'Prompt 1,204 (cached 800) · thoughts 96 · output 310 · total 1,610');
  // Keyboard: the figure takes focus and says the same to a screen reader.
  await usage.focus();
  assert.equal(await usage.getAttribute('aria-label'), await usage.getAttribute('data-detail'));
  const meter = page.getByTestId('context-meter');
  // The window is gemini-3.8-flash's inputTokenLimit in the model list: 1,048,576.
  assert.equal(await meter.getAttribute('title'), '1,514 of 1,048,576 tokens (0 %)');
  assert.equal(await page.getByTestId('context-offer').count(), 0);
  await usage.hover();
  await chat.shoot('usage-hover');
  // The tooltip is the page's own: a screenshot shows it.
  const tip = await usage.evaluate((el) => getComputedStyle(el, '::after').content);
  assert.match(tip, /Prompt 1,204/);
});

test('at 90 % of the window a new chat starts from a summary the model writes', async () => {
  fake.script([
    replyWithUsage('A very long answer.', { promptTokenCount: 950000, candidatesTokenCount: 1000, totalTokenCount: 951000 }),
    { chunks: textChunks('- We planned a trip to Kyoto.\n- Day 1: temples.', { size: 16 }), delayMs: 150 },
    { chunks: textChunks('Day 2: the Philosopher\'s Path.') },
  ]);
  await chat.send('Plan my trip to Kyoto');
  await done();
  const offer = page.getByTestId('context-offer');
  await offer.waitFor();
  assert.match(await offer.innerText(), /fills 90 % of the model's context window/);
  assert.equal(await page.getByTestId('context-meter').getAttribute('data-percent'), '90');
  await chat.shoot('context-offer');

  await offer.getByTestId('summarize').click();
  await page.getByTestId('summarizing').waitFor();
  await chat.shoot('summarizing');
  const summary = page.getByTestId('summary');
  await summary.waitFor();
  assert.match(await summary.locator('summary').innerText(), /Continued from “Plan my trip to Kyoto”/);
  await summary.locator('summary').click();
  assert.match(await summary.innerText(), /Day 1: temples/);
  assert.equal(await page.locator('.entry.user').count(), 0, 'a new chat');
  const ask = chat.chatRequests()[1].body;
  assert.equal(ask.tools, undefined, 'a summary needs no tools');
  assert.deepEqual(ask.contents.map((c) => c.role), ['user', 'model', 'user']);
  assert.match(ask.contents[2].parts[0].text, /^Summarize our conversation so far/);
  await chat.shoot('summary-chat');

  await chat.send('And day 2?');
  await chat.lastReply().filter({ hasText: 'Philosopher' }).and(page.locator('[data-state="done"]')).waitFor();
  const next = chat.chatRequests()[2].body;
  assert.equal(next.contents.length, 1, 'the new chat sends only the summary and the message');
  const texts = next.contents[0].parts.map((p) => p.text).join('\n');
  assert.match(texts, /Day 1: temples/);
  assert.match(texts, /And day 2\?$/);
  // The old chat is still there, as it was.
  await page.getByTestId('history').click();
  assert.equal(await page.getByTestId('saved-chat').filter({ hasText: 'Plan my trip to Kyoto' }).count(), 2);
  await page.getByTestId('history').click();
});

test('a reply cut at the output limit says so and continues where it stopped', async () => {
  fake.script([
    replyWithUsage('Once upon a time, a fox', { promptTokenCount: 10, candidatesTokenCount: 8, totalTokenCount: 18 }, 'MAX_TOKENS'),
    { chunks: textChunks(' crossed the river.') },
  ]);
  await chat.send('Tell me a story');
  const finish = page.getByTestId('finish');
  await finish.waitFor();
  assert.equal(await finish.getAttribute('data-code'), 'MAX_TOKENS');
  assert.match(await finish.innerText(), /reached the model's output limit/);
  await chat.shoot('max-tokens');
  const button = finish.getByTestId('continue');
  await button.focus();
  await page.keyboard.press('Enter');
  await chat.lastReply().filter({ hasText: 'crossed the river.' }).and(page.locator('[data-state="done"]')).waitFor();
  assert.equal(await chat.lastReply().innerText(), 'Once upon a time, a fox crossed the river.');
  assert.equal(await page.getByTestId('reply').count(), 1, 'the same reply grew');
  assert.equal(await page.getByTestId('finish').count(), 0);
  const [, second] = chat.chatRequests();
  const roles = second.body.contents.map((c) => c.role);
  assert.deepEqual(roles, ['user', 'model', 'user'], 'never a request ending with a model turn');
  assert.match(second.body.contents[2].parts[0].text, /^Continue your previous answer/);
});

test('a safety stop and a blocked message say what was blocked', async () => {
  fake.script([
    { chunks: [
      { candidates: [{ content: { role: 'model', parts: [{ text: 'Here is how to ' }] }, index: 0 }] },
      { candidates: [{ content: { role: 'model', parts: [{ text: '' }] }, finishReason: 'SAFETY', index: 0,
        safetyRatings: [{ category: 'HARM_CATEGORY_DANGEROUS_CONTENT', probability: 'HIGH', blocked: true }] }] },
    ] },
    { chunks: [{ promptFeedback: { blockReason: 'SAFETY', safetyRatings: [
      { category: 'HARM_CATEGORY_HARASSMENT', probability: 'HIGH', blocked: true }] } }] },
  ]);
  await chat.send('Something risky');
  const finish = page.getByTestId('finish');
  await finish.waitFor();
  assert.equal(await finish.innerText(),
    "Gemini's filters stopped the reply for safety (flagged: dangerous content).");
  assert.equal(await finish.getByTestId('continue').count(), 0);
  await chat.send('Something rude');
  const error = page.getByTestId('error');
  await error.waitFor();
  assert.equal(await error.getAttribute('data-kind'), 'panelErrorBlocked');
  assert.match(await error.innerText(), /blocked for safety \(flagged: harassment\)/);
  await chat.shoot('safety');
});

test('429 and 503 wait with a countdown and retry by themselves; Retry now skips the wait', async () => {
  fake.script([rateLimited(5), { chunks: textChunks('Back after the limit.') }]);
  await chat.send('Hello');
  const retrying = page.getByTestId('retrying');
  await retrying.waitFor();
  assert.match(await retrying.innerText(), /Retrying in [45] s \(attempt 1 of 3\)/);
  assert.match(await retrying.innerText(), /You exceeded your current quota/);
  // It counts down by itself.
  await page.locator('[data-testid="retrying"]:is([data-seconds="3"], [data-seconds="2"])').waitFor({ timeout: 4000 });
  await chat.shoot('retry-countdown');
  await done();
  assert.equal(await chat.lastReply().innerText(), 'Back after the limit.');
  assert.match(await retrying.innerText(), /Waited 5 s before trying again/);
  const [first, second] = chat.chatRequests();
  assert.ok(second.at - first.at >= 4900, `waited ${second.at - first.at} ms`);

  // 503 without RetryInfo: backoff from 1 s; Retry now sends at once (keyboard).
  fake.reset();
  fake.script([
    { status: 503, body: apiError(503, 'UNAVAILABLE', 'The model is overloaded. Please try again later.') },
    { status: 503, body: apiError(503, 'UNAVAILABLE', 'The model is overloaded. Please try again later.') },
    { chunks: textChunks('Served.') },
  ]);
  await chat.send('Again');
  const second503 = page.locator('[data-testid="retrying"]').filter({ hasText: 'attempt 2 of 3' });
  await second503.waitFor();
  assert.match(await second503.innerText(), /Retrying in 2 s/);
  const now = second503.getByTestId('retry-now');
  await now.focus();
  const before = Date.now();
  await page.keyboard.press('Enter');
  await chat.lastReply().filter({ hasText: 'Served.' }).and(page.locator('[data-state="done"]')).waitFor();
  assert.ok(Date.now() - before < 1800, 'did not wait the 2 s out');
  assert.equal(chat.chatRequests().length, 3);
});

test('in Japanese, light and dark', async () => {
  const ja = await openChat({ locale: 'ja' });
  try {
    const jaPage = ja.page;
    await ja.reload();
    ja.fake.script([
      replyWithUsage('長い答えです。', { promptTokenCount: 960000, candidatesTokenCount: 2000, thoughtsTokenCount: 50, totalTokenCount: 962050 }, 'MAX_TOKENS'),
      rateLimited(30),
    ]);
    await ja.send('京都の旅行を計画して');
    await jaPage.getByTestId('finish').waitFor();
    assert.match(await jaPage.getByTestId('finish').innerText(), /出力上限/);
    assert.match(await jaPage.getByTestId('context-offer').innerText(), /91 %/);
    assert.equal(await jaPage.getByTestId('usage').getAttribute('data-detail'),
      'プロンプト 960,000（キャッシュ 0）・思考 50・出力 2,000・合計 962,050');
    await jaPage.getByTestId('usage').focus();
    await ja.shoot('usage-ja');
    await jaPage.getByTestId('continue').click();
    await jaPage.getByTestId('retrying').waitFor();
    assert.match(await jaPage.getByTestId('retrying').innerText(), /30 秒後に再試行します（3 回中 1 回目）/);
    await ja.shoot('retry-countdown-ja');
    await jaPage.getByTestId('stop').click();
    await jaPage.getByTestId('send').waitFor();
  } finally {
    await ja.close();
  }
});
