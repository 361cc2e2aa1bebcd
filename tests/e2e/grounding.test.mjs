// Grounding with Google Search in the side panel (issue 21, item 7), against the fake Gemini
// API: a grounded reply shows its sources (titles, links, the sentences each supports) and what
// was searched; links open safely (core::url_policy::link) in a new tab. English and Japanese,
// light and dark.
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { openChat } from './chat_page.mjs';
import { groundedChunks } from '../fixtures/fake-gemini/server.mjs';

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

const REPLY = 'Spain won Euro 2024. They beat England 2–1 in the final in Berlin. '
  + 'Lamine Yamal was named the best young player.';

test('a grounded reply lists its sources with the sentences each supports', async () => {
  fake.script([{ chunks: groundedChunks(REPLY, {
    queries: ['euro 2024 winner', 'euro 2024 final score'],
    sources: [
      { uri: 'https://vertexaisearch.cloud.google.com/grounding-api-redirect/AbC123', title: 'uefa.com',
        supports: ['Spain won Euro 2024.', 'They beat England 2–1 in the final in Berlin.'] },
      { uri: 'https://en.wikipedia.org/wiki/UEFA_Euro_2024', title: 'wikipedia.org',
        supports: ['Spain won Euro 2024.', 'Lamine Yamal was named the best young player.'] },
      { uri: 'javascript:alert(document.domain)', title: 'evil.example', supports: [] },
    ],
  }) }]);
  await page.getByTestId('google-search').check();
  await chat.send('Who won Euro 2024?');
  await chat.lastReply().and(page.locator('[data-state="done"]')).waitFor();
  const request = chat.chatRequests()[0].body;
  // Gemini 3 takes Google Search with function tools: the browser's, on in a new chat.
  assert.deepEqual(request.tools[0], { googleSearch: {} });
  const declared = request.tools.slice(1).flatMap((t) => t.functionDeclarations ?? []).map((d) => d.name);
  assert.ok(declared.every((name) => name.startsWith('browser_')), declared.join());

  const sources = chat.lastReply().getByTestId('sources');
  const items = sources.getByTestId('source');
  assert.equal(await items.count(), 3);
  const first = items.nth(0);
  assert.equal(await first.locator('a').innerText(), 'uefa.com');
  assert.equal(await first.locator('a').getAttribute('href'),
    'https://vertexaisearch.cloud.google.com/grounding-api-redirect/AbC123');
  assert.equal(await first.locator('a').getAttribute('target'), '_blank');
  assert.equal(await first.locator('a').getAttribute('rel'), 'noopener noreferrer');
  assert.deepEqual(await first.locator('.supports li').allInnerTexts(),
    ['“Spain won Euro 2024.”', '“They beat England 2–1 in the final in Berlin.”']);
  assert.deepEqual(await items.nth(1).locator('.supports li').allInnerTexts(),
    ['“Spain won Euro 2024.”', '“Lamine Yamal was named the best young player.”']);
  // A source whose link is not https is named, never linked.
  assert.equal(await items.nth(2).locator('a').count(), 0);
  assert.equal(await items.nth(2).locator('.title').innerText(), 'evil.example');
  const searched = sources.getByTestId('searched').locator('a');
  assert.deepEqual(await searched.allInnerTexts(), ['euro 2024 winner', 'euro 2024 final score']);
  assert.equal(await searched.first().getAttribute('href'), 'https://www.google.com/search?q=euro+2024+winner');
  // The search entry point's HTML is never put into the page.
  assert.equal(await page.locator('.container').count(), 0);
  // Keyboard: the links are reachable with Tab.
  await first.locator('a').focus();
  assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'uefa.com');
  await chat.shoot('sources');

  // Saved with the chat: a reopened chat shows them again.
  await chat.reload();
  await page.getByTestId('history').click();
  await page.getByTestId('saved-chat').filter({ hasText: 'Who won Euro 2024?' }).locator('button.open').click();
  await chat.lastReply().getByTestId('sources').waitFor();
  assert.equal(await chat.lastReply().getByTestId('source').count(), 3);
});

test('in Japanese, byte offsets of multi-byte text find their sentences', async () => {
  const ja = await openChat({ locale: 'ja' });
  try {
    await ja.reload();
    const reply = '京都は794年から1869年まで日本の首都でした。清水寺は778年に創建されました。';
    ja.fake.script([{ chunks: groundedChunks(reply, {
      queries: ['京都 首都 期間'],
      sources: [
        { uri: 'https://ja.wikipedia.org/wiki/%E4%BA%AC%E9%83%BD', title: 'wikipedia.org', supports: ['京都は794年から1869年まで日本の首都でした。'] },
        { uri: 'https://www.kiyomizudera.or.jp/', title: 'kiyomizudera.or.jp', supports: ['清水寺は778年に創建されました。'] },
      ],
    }) }]);
    await ja.page.getByTestId('google-search').check();
    await ja.send('京都の歴史は？');
    await ja.lastReply().and(ja.page.locator('[data-state="done"]')).waitFor();
    const sources = ja.lastReply().getByTestId('sources');
    assert.match(await sources.locator('h4').innerText(), /出典/i);
    assert.deepEqual(await sources.getByTestId('source').nth(1).locator('.supports li').allInnerTexts(),
      ['「清水寺は778年に創建されました。」']);
    assert.match(await sources.getByTestId('searched').innerText(), /検索した語句/);
    await ja.shoot('sources-ja');
  } finally {
    await ja.close();
  }
});
