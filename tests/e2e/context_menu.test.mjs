// The context menu ("Ask GemiPanel about this selection / page / image / link"). Chromium's
// native menu cannot be driven headless, so the test dispatches the click to the worker's
// real listener (`chrome.contextMenus.onClicked.dispatch`, with the OnClickData Chrome
// sends); everything after it is the product's: the worker keeps the click, the side panel of
// that window attaches it, and the next message carries it. That the items exist is checked
// by Chrome refusing to create one of them again.
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { openChat } from './chat_page.mjs';
import { screenshot } from './harness.mjs';
import { startPages } from '../fixtures/pages/server.mjs';
import { textChunks } from '../fixtures/fake-gemini/server.mjs';

let chat;
let pages;
let tab;
let target;

before(async () => {
  pages = await startPages();
  chat = await openChat();
  tab = await chat.browser.context.newPage();
  await tab.goto(pages.url('/article'));
  await tab.bringToFront();
  target = await chat.page.evaluate(async (url) => {
    const [t] = await chrome.tabs.query({ url });
    return { id: t.id, windowId: t.windowId, title: t.title };
  }, pages.url('/article'));
});
after(async () => {
  await chat?.close();
  await pages?.close();
});
beforeEach(async () => {
  chat.fake.reset();
  await chat.reload();
});

const panel = () => chat.page;
/** A click on one of GemiPanel's items, as Chrome hands it to the worker's listener. */
const click = (info) => chat.browser.worker.evaluate(({ info, tab }) => chrome.contextMenus.onClicked.dispatch(
  { editable: false, frameId: 0, pageUrl: tab.url, ...info }, { id: tab.id, windowId: tab.windowId, title: tab.title, url: tab.url },
), { info, tab: { ...target, url: pages.url('/article') } });
const userParts = (request) => request.body.contents.at(-1).parts;

async function shoot(name) {
  await panel().bringToFront();
  for (const scheme of ['light', 'dark']) {
    await panel().emulateMedia({ colorScheme: scheme });
    await screenshot(panel(), `context-menu-${name}-${scheme}`);
  }
  await panel().emulateMedia({ colorScheme: 'light' });
  await tab.bringToFront();
}

test('the items are registered when the extension is installed', async () => {
  const refused = await chat.browser.worker.evaluate(() => Promise.all(
    ['gemipanel-ask-selection', 'gemipanel-ask-page', 'gemipanel-ask-image', 'gemipanel-ask-link'].map((id) => new Promise((resolve) => {
      chrome.contextMenus.create({ id, title: 'again', contexts: ['page'] }, () => resolve(chrome.runtime.lastError?.message ?? 'created'));
    })),
  ));
  for (const answer of refused) assert.match(answer, /duplicate id/, refused.join(' | '));
});

test('a selection, a link and an image from the menu are attached and go with the next message', async () => {
  const selection = 'The oldest of them, Tsuen, has served travellers at the east end of the Uji bridge since 1160';
  await click({ menuItemId: 'gemipanel-ask-selection', selectionText: selection });
  await click({ menuItemId: 'gemipanel-ask-link', linkUrl: pages.url('/guide/uji') });
  await click({ menuItemId: 'gemipanel-ask-image', srcUrl: pages.url('/cup.png'), mediaType: 'image' });
  const attached = panel().getByTestId('attachment');
  await attached.nth(2).waitFor();
  assert.deepEqual(await attached.evaluateAll((els) => els.map((e) => e.dataset.kind)), ['selection', 'link', 'image']);
  await shoot('attached');

  chat.fake.script([{ chunks: textChunks('A tea house by a bridge.') }]);
  await chat.send('What are these?');
  await chat.lastReply().filter({ hasText: 'A tea house by a bridge.' }).waitFor();
  const parts = userParts(chat.chatRequests()[0]);
  const texts = parts.filter((p) => p.text !== undefined).map((p) => p.text);
  assert.match(texts[0], /^\[Web content attached by the person: text they selected/);
  assert.ok(texts[0].includes(selection) && texts[0].includes(`URL: ${pages.url('/article')}`));
  assert.match(texts[1], /^\[Web content attached by the person: a link on a page/);
  assert.ok(texts[1].includes(`URL: ${pages.url('/guide/uji')}`) && texts[1].includes(`On the page: ${pages.url('/article')}`));
  assert.match(texts[2], /^\[Web content attached by the person: an image on a page/);
  // The image itself, as inline data right after its label: its type and its bytes.
  const image = parts.find((p) => p.inlineData);
  assert.equal(image.inlineData.mimeType, 'image/png');
  assert.equal(Buffer.from(image.inlineData.data, 'base64').length, pages.png.length);
  assert.ok(Buffer.from(image.inlineData.data, 'base64').equals(pages.png));
  assert.equal(texts.at(-1), 'What are these?');
  // The transcript says what went with the message.
  const sent = await panel().getByTestId('context-sent').last().locator('li').evaluateAll((els) => els.map((e) => e.dataset.kind));
  assert.deepEqual(sent, ['selection', 'link', 'image']);
  await shoot('sent');
});

test('"Ask GemiPanel about this page" turns the chip on for that tab', async () => {
  await tab.goto(pages.url('/plain'));
  await tab.goto(pages.url('/article'));
  await tab.bringToFront();
  const chip = panel().getByTestId('page-chip');
  await chip.filter({ hasText: 'Tea houses of Kyoto' }).waitFor();
  assert.equal(await chip.getAttribute('data-state'), 'off');
  await click({ menuItemId: 'gemipanel-ask-page' });
  await panel().locator('[data-testid="page-chip"][data-state="on"]').waitFor();
  chat.fake.script([{ chunks: textChunks('About tea.') }]);
  await chat.send('Summarise.');
  await chat.lastReply().filter({ hasText: 'About tea.' }).waitFor();
  const [quoted] = userParts(chat.chatRequests()[0]).map((p) => p.text);
  assert.match(quoted, /^\[Web content attached by the person: the page they are looking at/);
  assert.ok(quoted.includes('Tsuen'));
});

test('a click in another window is left for that window', async () => {
  await chat.browser.worker.evaluate((tab) => chrome.contextMenus.onClicked.dispatch(
    { menuItemId: 'gemipanel-ask-link', linkUrl: 'https://elsewhere.example/', pageUrl: 'https://elsewhere.example/' },
    { id: 424242, windowId: tab.windowId + 1000, title: 'Other window' },
  ), target);
  // Then one in this window: once it is attached, the other was seen and left.
  await click({ menuItemId: 'gemipanel-ask-link', linkUrl: pages.url('/guide/uji') });
  await panel().getByTestId('attachment').waitFor();
  assert.equal(await panel().getByTestId('attachment').count(), 1);
  const kept = await panel().evaluate(async () => (await chrome.storage.session.get('page_context_pending')).page_context_pending);
  assert.match(kept, /elsewhere\.example/);
});

test('in Japanese, an attached selection is named in Japanese (light and dark)', async () => {
  const ja = await openChat({ locale: 'ja' });
  try {
    const jaTab = await ja.browser.context.newPage();
    await jaTab.goto(pages.url('/article'));
    await jaTab.bringToFront();
    const at = await ja.page.evaluate(async (url) => {
      const [t] = await chrome.tabs.query({ url });
      return { id: t.id, windowId: t.windowId, title: t.title, url };
    }, pages.url('/article'));
    await ja.browser.worker.evaluate(({ tab }) => chrome.contextMenus.onClicked.dispatch(
      { editable: false, frameId: 0, pageUrl: tab.url, menuItemId: 'gemipanel-ask-selection', selectionText: 'Tsuen, since 1160' }, tab,
    ), { tab: at });
    const attached = ja.page.getByTestId('attachment');
    await attached.first().waitFor();
    assert.match(await attached.first().innerText(), /選択範囲/);
    await ja.page.bringToFront();
    for (const scheme of ['light', 'dark']) {
      await ja.page.emulateMedia({ colorScheme: scheme });
      await screenshot(ja.page, `context-menu-attached-ja-${scheme}`);
    }
  } finally {
    await ja.close();
  }
});
